"""What the Kafka adapter takes and gives back: write specs, per-entity results and whole-request errors.

Every batched write returns one ``ItemResult`` per entity (a topic, a config resource, an ACL binding, a
quota entity, a SCRAM user, a partition), in the order the entities were given. A per-entity failure is
data, never an exception; only a failure of the whole request raises (``RequestFailed``, ``ConnectionLost``,
or ``errors.ConnectionFailed`` / ``errors.UnsupportedByCluster``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from reconciler.base import errors
from reconciler.connection.settings import Secret


@dataclasses.dataclass(frozen=True, slots=True)
class ItemResult:
    """The broker's answer for one entity of a batched request.

    ``key`` names the entity for people (topic name, ``topic:orders`` / ``broker:1`` / ``broker:<default>`` for config
    resources, an ACL or quota address, a SCRAM user name, ``orders:3`` for a partition). ``error_name`` is
    Kafka's name for ``error_code`` (``INVALID_CONFIG``); ``extra`` carries API-specific data, e.g. the configs
    the broker resolved for a created topic and ``throttle_time_ms`` when the broker throttled the request.
    """

    key: str
    error_code: int
    error_name: str | None
    message: str | None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)
    retriable: bool = False
    target: Any = None  # the typed key the request named the entity by: a config resource's (type, name)

    @property
    def ok(self) -> bool:
        return self.error_code == 0

    def describe(self) -> str:
        """``orders: INVALID_CONFIG: <broker message>`` or ``orders: ok``."""
        if self.ok:
            return f"{self.key}: ok"
        text = f"{self.key}: {self.error_name or self.error_code}"
        return f"{text}: {self.message}" if self.message else text


@dataclasses.dataclass(frozen=True, slots=True)
class TopicSpec:
    """A topic to create: a partition count and replication factor, or an explicit replica assignment.

    ``partitions``/``replication_factor`` of ``None`` let the broker apply its defaults (Kafka 2.4+).
    """

    name: str
    partitions: int | None = None
    replication_factor: int | None = None
    assignment: tuple[tuple[int, ...], ...] | None = None
    configs: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class ScramUpsert:
    """A SCRAM credential to create or replace; the password is salted locally and never sent in clear."""

    user: str
    mechanism: str  # SCRAM-SHA-256 or SCRAM-SHA-512
    iterations: int
    password: Secret


@dataclasses.dataclass(frozen=True, slots=True)
class ScramDeletion:
    """A SCRAM credential to delete."""

    user: str
    mechanism: str


class RequestFailed(errors.ReconcilerError):
    """The broker rejected a whole request (top-level error code), e.g. ``CLUSTER_AUTHORIZATION_FAILED``.

    ``retriable`` says whether Kafka classes the error as transient; ``throttle_time_ms`` is what the broker
    asked the client to wait, when it said so.
    """

    def __init__(
        self,
        message: str,
        *,
        api: str,
        error_code: int,
        error_name: str | None,
        retriable: bool = False,
        throttle_time_ms: int = 0,
    ) -> None:
        super().__init__(message)
        self.api = api
        self.error_code = error_code
        self.error_name = error_name
        self.retriable = retriable
        self.throttle_time_ms = throttle_time_ms


class ConnectionLost(errors.ConnectionFailed):
    """The connection failed or timed out after a request was sent: the outcome of that request is unknown."""

    retriable = True

    def __init__(
        self, message: str, *, api: str, node: int | None = None, timed_out: bool = False, deadline: bool = False
    ) -> None:
        super().__init__(message)
        self.api = api
        self.node = node  # the broker the request was sent to, when it was sent to a chosen one
        self.timed_out = timed_out  # no answer within the request timeout (rather than a broken connection)
        self.deadline = deadline  # the wait was cut short by the command's time limit

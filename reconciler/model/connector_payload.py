"""The plan payload of a Kafka Connect connector (``reconciler.model.payloads`` lists it with the other kinds).

It lives in a module of its own so that ``payloads`` stays readable; ``from_dict`` raises ``PayloadError``
(``payloads.decode`` keeps a payload that does not fit as ``Unreadable``, naming the problem).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from typing import Any

from reconciler.model import connector_offsets
from reconciler.model.payload_errors import PayloadError, fields

CONNECTOR_STATES = ("running", "paused", "stopped", "failed", "unassigned", "restarting")  # Connect's, lower-case
_FAILED = re.compile(r"^(connector|task \d+)(: [^\n]*)?$")  # a failed part, with its trace's first line
_SECRET_REF = re.compile(
    r"^(env:[A-Za-z_][A-Za-z0-9_]*|file:.+|\(sensitive value\)|\(masked by Kafka Connect\))$", re.S
)


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectorPayload:
    """A Kafka Connect connector: ``config`` as Connect's strings (``connector.class`` and ``tasks.max`` included)
    without its secrets; ``secrets`` maps each secret key to its reference (``env:NAME``, ``file:/path``; the live
    side, ``plans.REDACTED``, or ``(masked by Kafka Connect)`` for a value the worker masks), never a value;
    ``state`` lower-case (``running``, ``paused``, ``stopped``, or a live ``failed``/``unassigned``);
    ``reset_offsets`` asks a create to reset the offsets Connect kept under the name;
    ``failed`` (the live side) lists what Connect reports FAILED, ``connector`` or ``task <id>``, each with the first
    line of its trace (``task 0: java.io.IOException: ...``).

    ``from_dict`` checks every value as strictly as the manifest: a class, a whole ``tasks.max`` >= 1, string
    values, a known state, secret references only."""

    config: Mapping[str, str]
    state: str = "running"
    secrets: Mapping[str, str] = dataclasses.field(default_factory=dict)
    reset_offsets: bool = False
    failed: tuple[str, ...] = ()
    offsets: tuple[tuple[str, str], ...] = ()  # (partition, offset) canonical JSON: declared, or read when altered

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"config": dict(self.config), "state": self.state}
        if self.secrets:
            out["secrets"] = dict(self.secrets)
        if self.reset_offsets:
            out["reset_offsets"] = True
        if self.failed:
            out["failed"] = list(self.failed)
        if self.offsets:
            out["offsets"] = [{"partition": json.loads(p), "offset": json.loads(o)} for p, o in self.offsets]
        return out

    @classmethod
    def from_dict(cls, data: Any) -> ConnectorPayload:
        d = fields(data, ("config", "state", "secrets", "reset_offsets", "failed", "offsets"))
        config = d.get("config")
        if not isinstance(config, Mapping) or not all(isinstance(v, str) for v in config.values()):
            raise PayloadError("the connector's config is not an object of text values")
        if not config.get("connector.class"):
            raise PayloadError("the connector's config has no connector.class")
        tasks = config.get("tasks.max")
        if tasks is not None and (not tasks.isdigit() or not 1 <= int(tasks) <= 2147483647):
            raise PayloadError(f"the connector's tasks.max {tasks!r} is not a whole number in 1..2147483647")
        state_ = d.get("state")
        if state_ not in CONNECTOR_STATES:
            raise PayloadError(f"the connector's state {state_!r} is not one of {', '.join(CONNECTOR_STATES)}")
        secrets = d.get("secrets", {})
        if not isinstance(secrets, Mapping) or not all(
            isinstance(v, str) and _SECRET_REF.match(v) for v in secrets.values()
        ):
            raise PayloadError("the connector's secrets are not references (env:NAME, file:path)")
        if set(secrets) & set(config):
            raise PayloadError("the connector names a key both in its config and in its secrets")
        reset = d.get("reset_offsets", False)
        if not isinstance(reset, bool):
            raise PayloadError("the connector's reset_offsets is not true or false")
        failed = d.get("failed", [])
        if not isinstance(failed, list) or not all(isinstance(f, str) and _FAILED.match(f) for f in failed):
            raise PayloadError("the connector's failed parts are not 'connector: ...' or 'task <id>: ...' lines")
        offsets = d.get("offsets", [])
        if not isinstance(offsets, list) or not all(
            isinstance(e, Mapping)
            and set(e) == {"partition", "offset"}
            and isinstance(e["partition"], Mapping)
            and e["partition"]
            and (e["offset"] is None or isinstance(e["offset"], Mapping))
            for e in offsets
        ):
            raise PayloadError("the connector's offsets are not a list of {partition: object, offset: object or null}")
        return cls(
            {str(k): v for k, v in config.items()},
            state_,
            {str(k): v for k, v in secrets.items()},
            reset,
            tuple(failed),
            connector_offsets.declared((e["partition"], e["offset"]) for e in offsets),
        )

"""The cluster a command is pointed at (``Target``: flags, ``--command-config``, the manifests' profiles) and the
planning options it gives (``PlanRequest``); ``reconciler.operations`` takes both (and re-exports them)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from reconciler.connection import layers as connection_sources
from reconciler.model import defaults

if TYPE_CHECKING:
    from reconciler import manifests
    from reconciler.kafka.adapter import KafkaAdapter


@dataclasses.dataclass(frozen=True, kw_only=True)
class Target:
    """The cluster a command was pointed at: its flags, ``--command-config`` and the manifests' profiles."""

    cluster: str | None = None
    bootstrap_server: str | None = None
    command_config: Path | None = None
    profiles: Mapping[str, manifests.ClusterProfile] = dataclasses.field(default_factory=dict)

    def connect(
        self, *, timeout_s: float | None = None, request_bound_s: float | None = None, deadline_s: float | None = None
    ) -> KafkaAdapter:
        """An adapter (a context manager) connecting on its first request within ``timeout_s``; ``request_bound_s`` caps
        the request timeout; no wait past ``deadline_s`` from this call, the client's import in it (default 900 s)."""
        called = time.monotonic()
        from reconciler.kafka.adapter import KafkaAdapter

        settings = connection_sources.resolve(
            bootstrap_server=self.bootstrap_server,
            command_config=self.command_config,
            profile_name=self.cluster,
            profiles=self.profiles,
        )
        if request_bound_s is not None:
            bound_ms = max(1, min(settings.request_timeout_ms, int(request_bound_s * 1000)))
            settings = dataclasses.replace(settings, request_timeout_ms=bound_ms)
        adapter = KafkaAdapter(settings, connect_timeout_s=timeout_s, deadline_s=deadline_s)
        if deadline_s is not None:  # named as given, ending as far from this call as given (the import inside it)
            adapter.limit_waits(deadline_s - (time.monotonic() - called), named_s=deadline_s)
        return adapter


@dataclasses.dataclass(frozen=True, kw_only=True)
class PlanRequest:
    """The planning options of ``plan`` and ``apply``: SCRAM rotations, the in-use test of topic deletes and this
    run's limit on deletions (``--max-deletes``; ``None``: the Ownership document's or the default)."""

    rotate_passwords: Sequence[str] = ()
    allow_delete_in_use: bool = False
    in_use_window: str = defaults.IN_USE_WINDOW
    max_deletes: int | None = None

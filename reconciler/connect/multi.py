"""``MultiConnectPort``: the ``ConnectPort`` of a Cluster profile with several Kafka Connect clusters.

It holds one ``RestConnectPort`` per Connect cluster (each keying its connectors ``<cluster>/<name>``) and sends
each write to the cluster of its connector's key. A read reads every cluster at once (one thread each, each with
the command's deadline) and merges them: a plan over several clusters costs the time of the slowest, not the sum.
A cluster that cannot be reached degrades only its own connectors: ``read`` lists it in
``ConnectState.unreachable`` with why (the planner blocks its declared connectors and never takes its live ones
for deleted), unless no cluster could be read, which raises as for one cluster. ``read_connectors`` (apply's reads)
raises when any cluster did not answer (a write's outcome is never guessed from a cluster that did not answer):
``PartialRead``, holding what the others answered, when some did.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from reconciler.connect import pace
from reconciler.connect.http import ConnectError
from reconciler.connect.port import RestConnectPort
from reconciler.model import connect_clusters as clusters
from reconciler.model import state

T = TypeVar("T")


class PartialRead(ConnectError):
    """Some of several Connect clusters answered a read and others did not: ``found`` holds the connectors of those
    that did, ``unread`` names the others (a caller that can use part of a read, as the read-back, catches it;
    any other sees a ``ConnectError``)."""

    def __init__(self, message: str, *, found: Mapping[str, state.ConnectorState], unread: frozenset[str]) -> None:
        super().__init__(message)
        self.found = dict(found)
        self.unread = unread


class MultiConnectPort:
    """``ConnectPort`` over several Connect clusters, by name (``ports``: at least two)."""

    def __init__(self, ports: Mapping[str, RestConnectPort]) -> None:
        self.ports = dict(ports)
        self.url = ", ".join(f"{name}={p.url}" for name, p in self.ports.items())
        # Each cluster paces the writes sent to it (its port's own ``pace``); this one only bounds how many writes
        # apply has outstanding over all of them (its ceiling: the sum of theirs). No request takes its slots.
        ceiling = sum(p.pace.ceiling for p in self.ports.values())
        self.pace = pace.WritePace(start=ceiling, floor=ceiling, ceiling=ceiling)

    @property
    def request_count(self) -> int:
        return sum(p.request_count for p in self.ports.values())

    @property
    def request_counts(self) -> Mapping[str, int]:
        out: dict[str, int] = {}
        for p in self.ports.values():
            for what, n in p.request_counts.items():
                out[what] = out.get(what, 0) + n
        return out

    def close(self) -> None:
        for p in self.ports.values():
            p.close()

    def _of(self, key: str) -> RestConnectPort:
        cluster = clusters.cluster_of(key)
        port = None if cluster is None else self.ports.get(cluster)
        if port is None:
            listed = ", ".join(self.ports)
            raise ConnectError(
                f"connector {key}: no Kafka Connect cluster of that name in the profile ({listed})",
                status=400,
                sent=False,
            )
        return port

    def _each(self, call: Callable[[str, RestConnectPort], T]) -> dict[str, T | ConnectError]:
        """``call`` on every cluster at once; a cluster's ``ConnectError`` is its answer."""

        def one(item: tuple[str, RestConnectPort]) -> T | ConnectError:
            try:
                return call(*item)
            except ConnectError as exc:
                return exc

        with ThreadPoolExecutor(max_workers=len(self.ports)) as pool:
            return dict(zip(self.ports, pool.map(one, self.ports.items()), strict=True))

    # ------------------------------------------------------------------------------------------- reads
    def read(self, *, deadline: float, secret_keys: Mapping[str, Iterable[str]] | None = None) -> state.ConnectState:
        found = self._each(lambda _, p: p.read(deadline=deadline, secret_keys=secret_keys))
        failed = {name: got for name, got in found.items() if isinstance(got, ConnectError)}
        read = {name: got for name, got in found.items() if not isinstance(got, ConnectError)}
        if not read:
            raise next(iter(failed.values()))
        connectors = {k: c for one in read.values() for k, c in one.connectors.items()}
        plugins = tuple(sorted({p for one in read.values() for p in one.plugins or ()}))
        return state.ConnectState(
            url=self.url,
            connectors=dict(sorted(connectors.items())),
            plugins=plugins,
            clusters={
                name: state.ConnectCluster(url=one.url, plugins=one.plugins, plugin_versions=one.plugin_versions)
                for name, one in read.items()
            },
            unreachable={name: str(exc) for name, exc in failed.items()},
        )

    def read_connectors(
        self, *, deadline: float, secret_keys: Mapping[str, Iterable[str]] | None = None
    ) -> dict[str, state.ConnectorState]:
        found = self._each(lambda _, p: p.read_connectors(deadline=deadline, secret_keys=secret_keys))
        out: dict[str, state.ConnectorState] = {}
        failed = {name: got for name, got in found.items() if isinstance(got, ConnectError)}
        for got in found.values():
            if not isinstance(got, ConnectError):
                out.update(got)
        if failed and len(failed) == len(found):
            raise next(iter(failed.values()))
        if failed:
            names = ", ".join(sorted(failed))
            first = next(iter(failed.values()))
            raise PartialRead(
                f"Kafka Connect cluster(s) {names} could not be read: {first}",
                found=dict(sorted(out.items())),
                unread=frozenset(failed),
            )
        return dict(sorted(out.items()))

    def validate(
        self, name: str, config: Mapping[str, str], *, deadline: float, secret_keys: Iterable[str] = ()
    ) -> tuple[tuple[str, str], ...]:
        return self._of(name).validate(name, config, deadline=deadline, secret_keys=secret_keys)

    def task_configs(self, name: str, *, deadline: float) -> tuple[Mapping[str, str], ...]:
        return self._of(name).task_configs(name, deadline=deadline)

    def offsets(self, name: str, *, deadline: float) -> tuple[str, ...]:
        return self._of(name).offsets(name, deadline=deadline)

    def offset_pairs(self, name: str, *, deadline: float) -> tuple[tuple[str, str], ...]:
        return self._of(name).offset_pairs(name, deadline=deadline)

    # ------------------------------------------------------------------------------------------ writes
    def create(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        initial_state: str,
        deadline: float,
        secret_keys: Iterable[str] = (),
    ) -> None:
        self._of(name).create(name, config, initial_state=initial_state, deadline=deadline, secret_keys=secret_keys)

    def put_config(
        self, name: str, config: Mapping[str, str], *, deadline: float, secret_keys: Iterable[str] = ()
    ) -> None:
        self._of(name).put_config(name, config, deadline=deadline, secret_keys=secret_keys)

    def set_state(self, name: str, target: str, *, deadline: float) -> None:
        self._of(name).set_state(name, target, deadline=deadline)

    def delete(self, name: str, *, deadline: float) -> None:
        self._of(name).delete(name, deadline=deadline)

    def reset_offsets(self, name: str, *, deadline: float) -> None:
        self._of(name).reset_offsets(name, deadline=deadline)

    def restart_failed(self, name: str, *, deadline: float) -> None:
        self._of(name).restart_failed(name, deadline=deadline)

    def alter_offsets(self, name: str, offsets: tuple[tuple[str, str], ...], *, deadline: float) -> None:
        self._of(name).alter_offsets(name, offsets, deadline=deadline)

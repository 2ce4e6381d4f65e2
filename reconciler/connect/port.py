"""``ConnectPort``: everything plan and apply ask of a Kafka Connect cluster, and its REST implementation.

One plan reads the cluster with two requests whatever the number of connectors (``read``: every connector's config
and status, and the connector plugins), then validates only the configs it changes (``validate``) and reads the
offsets Connect keeps only for the connectors it deletes (``offsets``, KIP-875). Writes are typed: a create (``POST
/connectors`` with its initial state, so a connector declared paused or stopped never runs), a config change (``PUT
/connectors/{name}/config``), a state change (pause, resume, stop), a restart of what FAILED (KIP-745's
``onlyFailed``), a delete and an offsets reset (KIP-875). Every call takes the command's deadline; every request is
counted. Error messages from Connect are scrubbed of the secret values the call sent.

Every request is built by ``reconciler.connect.requests`` and sent through a ``Transport`` (the HTTP client
``reconciler.connect.http.ConnectClient``, or the in-memory fake worker of the tests). An answer asking to come back
later (409 during a rebalance, 429, 502-504; a 500 up to ``SERVER_ERROR_RETRIES`` times, Connect also answers 500 to
what will not go away) is sent again after a back-off within the deadline; writes are paced by a
``reconciler.connect.pace.WritePace`` (how many outstanding at a time), which such answers shrink.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from reconciler.base import scrubbing
from reconciler.connect import http, pace, secrets
from reconciler.connect import requests as rq
from reconciler.connect.http import ConnectError
from reconciler.model import connect_clusters as clusters
from reconciler.model import connector_offsets, state

SERVER_ERROR_RETRIES = 2


class Transport(Protocol):
    """Sends one request by its deadline: the HTTP status and decoded JSON answer (``ConnectError`` only when no
    answer came); counts what it sent (``ConnectClient``, or the tests' fake worker)."""

    urls: tuple[str, ...]
    request_count: int
    request_timeout_s: float  # the bound of one request (a plan's --timeout lowers it)

    @property
    def request_counts(self) -> Mapping[str, int]: ...

    def exchange(self, method: str, path: str, body: Any = None, *, deadline: float) -> tuple[int, Any]: ...

    def close(self) -> None: ...


class ConnectPort(Protocol):
    """What plan and apply call on a Kafka Connect cluster (``RestConnectPort``; tests may record calls)."""

    url: str
    pace: pace.WritePace

    @property
    def request_count(self) -> int: ...

    @property
    def request_counts(self) -> Mapping[str, int]: ...

    def read(self, *, deadline: float, secret_keys: Mapping[str, Iterable[str]] | None = None) -> state.ConnectState:
        """Every connector (config with secrets replaced by digests, status) and the connector plugins."""
        ...

    def read_connectors(
        self, *, deadline: float, secret_keys: Mapping[str, Iterable[str]] | None = None
    ) -> dict[str, state.ConnectorState]:
        """Every connector, without the plugin list (the read-back's poll)."""
        ...

    def validate(
        self, name: str, config: Mapping[str, str], *, deadline: float, secret_keys: Iterable[str] = ()
    ) -> tuple[tuple[str, str], ...]:
        """The field errors Connect's validate endpoint reports for ``config`` (``(key, message)``)."""
        ...

    def create(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        initial_state: str,
        deadline: float,
        secret_keys: Iterable[str] = (),
    ) -> None: ...

    def put_config(
        self, name: str, config: Mapping[str, str], *, deadline: float, secret_keys: Iterable[str] = ()
    ) -> None: ...

    def set_state(self, name: str, target: str, *, deadline: float) -> None: ...

    def delete(self, name: str, *, deadline: float) -> None: ...

    def reset_offsets(self, name: str, *, deadline: float) -> None: ...

    def restart_failed(self, name: str, *, deadline: float) -> None:
        """Restart what Connect reports FAILED of the connector: the connector itself and its failed tasks."""
        ...

    def offsets(self, name: str, *, deadline: float) -> tuple[str, ...]:
        """The offsets Connect keeps for an existing connector (KIP-875), one ``partition -> offset`` text each."""
        ...

    def offset_pairs(self, name: str, *, deadline: float) -> tuple[tuple[str, str], ...]:
        """The offsets Connect keeps for an existing connector as canonical ``(partition, offset)`` JSON texts."""
        ...

    def alter_offsets(self, name: str, offsets: tuple[tuple[str, str], ...], *, deadline: float) -> None:
        """Set the connector's offsets (KIP-875's ``PATCH /connectors/{name}/offsets``; it must be STOPPED)."""
        ...

    def task_configs(self, name: str, *, deadline: float) -> tuple[Mapping[str, str], ...]:
        """The config of each of the connector's tasks as Connect last generated it (``GET .../tasks``); the
        values are held in memory only, never shown."""
        ...


class RestConnectPort:
    """``ConnectPort`` over Kafka Connect's REST API of one Connect cluster, through ``transport`` (``ConnectClient``
    on the wire).

    ``cluster`` is its name when the Cluster profile has several (``reconciler.model.connect_clusters``): connectors
    are then keyed ``<cluster>/<name>`` in what it reads, and a write's key is turned back into the Connect name."""

    def __init__(
        self, client: Transport, *, write_pace: pace.WritePace | None = None, cluster: str | None = None
    ) -> None:
        self.client = client
        self.url = client.urls[0]
        self.pace = write_pace or pace.WritePace()
        self.cluster = cluster

    def _name(self, key: str) -> str:
        """The Connect name of connector ``key`` (the key itself on the only Connect cluster)."""
        return key if self.cluster is None else clusters.name_of(key)

    @property
    def request_count(self) -> int:
        return self.client.request_count

    @property
    def request_counts(self) -> Mapping[str, int]:
        return dict(self.client.request_counts)

    def close(self) -> None:
        self.client.close()

    def _send(self, request: rq.Request, *, deadline: float, what: str | None = None, patient: bool = True) -> Any:
        """The answer to ``request``; sent again after a back-off while the worker asks to come back later and the
        deadline allows (a write holds a pace slot while outstanding, and such an answer shrinks the pace). Not
        ``patient``: no second try (a read-back's read, asked again next round anyway)."""
        attempt = server_errors = 0
        while True:
            if request.is_write:
                with self.pace.slot():
                    status, answer = self.client.exchange(request.method, request.path, request.body, deadline=deadline)
            else:
                status, answer = self.client.exchange(request.method, request.path, request.body, deadline=deadline)
            again = status in pace.RETRIED and not (status == 409 and _exists(answer))
            if status == 500:
                server_errors += 1
                again = server_errors <= SERVER_ERROR_RETRIES
            if again and patient and time.monotonic() + self.pace.backoff(0) < deadline:  # a try left: sent again
                if request.is_write:
                    self.pace.refused(status)
                time.sleep(
                    max(0.0, min(self.pace.backoff(attempt), deadline - time.monotonic() - self.pace.backoff(0)))
                )
                attempt += 1
                continue
            if request.is_write:
                self.pace.answered()
            if 200 <= status < 300:
                return answer
            where = what or f"{request.method} {http.path_only(request.path)}"
            raise ConnectError(f"{where}: {http.answer_message(status, answer)}", status=status)

    # ------------------------------------------------------------------------------------------- reads
    def read(self, *, deadline: float, secret_keys: Mapping[str, Iterable[str]] | None = None) -> state.ConnectState:
        connectors = self.read_connectors(deadline=deadline, secret_keys=secret_keys)
        found = self._send(rq.list_plugins(), deadline=deadline, what="listing connector plugins")
        listed = [p for p in found or [] if isinstance(p, dict) and "class" in p]
        plugins = tuple(sorted({str(p["class"]) for p in listed}))
        versions: dict[str, set[str]] = {}
        for p in listed:
            if p.get("version") not in (None, "", "null"):
                versions.setdefault(str(p["class"]), set()).add(str(p["version"]))
        return state.ConnectState(
            url=self.url,
            connectors=connectors,
            plugins=plugins,
            plugin_versions={cls: tuple(sorted(v)) for cls, v in sorted(versions.items())},
        )

    def read_connectors(
        self, *, deadline: float, secret_keys: Mapping[str, Iterable[str]] | None = None
    ) -> dict[str, state.ConnectorState]:
        found = self._send(rq.list_connectors(), deadline=deadline, what="reading the connectors")
        keys = secret_keys or {}
        out = {}
        for name, entry in sorted((found or {}).items()):
            key = clusters.key(self.cluster, str(name))
            out[key] = connector_state(key, entry, keys.get(key, ()))
        return out

    def validate(
        self, name: str, config: Mapping[str, str], *, deadline: float, secret_keys: Iterable[str] = ()
    ) -> tuple[tuple[str, str], ...]:
        hidden = _secret_values(config, secret_keys)
        try:
            found = self._send(rq.validate(config, name=self._name(name)), deadline=deadline)
        except ConnectError as exc:
            raise _scrubbed(exc, hidden) from None
        out: list[tuple[str, str]] = []
        for entry in (found or {}).get("configs", []):
            value = entry.get("value", {}) if isinstance(entry, dict) else {}
            for message in value.get("errors", []) or []:
                out.append((str(value.get("name", "")), scrubbing.scrub(str(message), hidden)))
        return tuple(out)

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
        try:
            self._send(
                rq.create(self._name(name), config, initial_state=initial_state),
                deadline=deadline,
                what=f"creating connector {name}",
            )
        except ConnectError as exc:
            if exc.status == 409 and "already exists" in str(exc):
                self.put_config(name, config, deadline=deadline, secret_keys=secret_keys)  # an earlier try did it
                return
            raise _scrubbed(exc, _secret_values(config, secret_keys)) from None

    def put_config(
        self, name: str, config: Mapping[str, str], *, deadline: float, secret_keys: Iterable[str] = ()
    ) -> None:
        try:
            self._send(rq.put_config(self._name(name), config), deadline=deadline, what=f"configuring {name}")
        except ConnectError as exc:
            raise _scrubbed(exc, _secret_values(config, secret_keys)) from None

    def set_state(self, name: str, target: str, *, deadline: float) -> None:
        self._send(rq.set_state(self._name(name), target), deadline=deadline, what=f"setting connector {name} {target}")

    def delete(self, name: str, *, deadline: float) -> None:
        try:
            self._send(rq.delete(self._name(name)), deadline=deadline, what=f"deleting {name}")
        except ConnectError as exc:
            if exc.status != 404:  # already gone: what the delete wanted
                raise

    def reset_offsets(self, name: str, *, deadline: float) -> None:
        self._send(rq.reset_offsets(self._name(name)), deadline=deadline, what=f"resetting the offsets of {name}")

    def restart_failed(self, name: str, *, deadline: float) -> None:
        self._send(rq.restart(self._name(name)), deadline=deadline, what=f"restarting what failed of {name}")

    def offsets(self, name: str, *, deadline: float) -> tuple[str, ...]:
        return tuple(f"{p} -> {o}" for p, o in self.offset_pairs(name, deadline=deadline))

    def offset_pairs(self, name: str, *, deadline: float) -> tuple[tuple[str, str], ...]:
        found = self._send(rq.get_offsets(self._name(name)), deadline=deadline, what=f"reading the offsets of {name}")
        entries = (found or {}).get("offsets", []) if isinstance(found, dict) else []
        return tuple((_compact(e.get("partition")), _compact(e.get("offset"))) for e in entries if isinstance(e, dict))

    def alter_offsets(self, name: str, offsets: tuple[tuple[str, str], ...], *, deadline: float) -> None:
        request, what = (
            rq.alter_offsets(self._name(name), connector_offsets.body(offsets)),
            f"altering the offsets of {name}",
        )
        pause = 0.1
        while True:  # the stop is answered before every worker sees the connector STOPPED: retried within deadline
            try:
                self._send(request, deadline=deadline, what=what)
                return
            except ConnectError as exc:
                if exc.status != 400 or "STOPPED" not in str(exc) or time.monotonic() + pause >= deadline:
                    raise
            time.sleep(pause)
            pause = min(1.0, pause * 2)

    def task_configs(self, name: str, *, deadline: float) -> tuple[Mapping[str, str], ...]:
        what = f"reading the task configs of {name}"  # read each round until seen: an error answer is "not yet"
        found = self._send(rq.task_configs(self._name(name)), deadline=deadline, what=what, patient=False)
        entries = found if isinstance(found, list) else []
        return tuple(
            {str(k): str(v) for k, v in (e.get("config") or {}).items()}
            for e in entries
            if isinstance(e, dict) and isinstance(e.get("config") or {}, dict)
        )


def connector_state(name: str, entry: Any, declared_secrets: Iterable[str] = ()) -> state.ConnectorState:
    """A connector of ``GET /connectors?expand=info&expand=status``, its secrets replaced by digests."""
    info = entry.get("info", {}) if isinstance(entry, dict) else {}
    status = entry.get("status", {}) if isinstance(entry, dict) else {}
    config = {str(k): str(v) for k, v in (info.get("config") or {}).items() if k != "name"}
    connector = status.get("connector", {}) or {}
    tasks = tuple(
        state.ConnectorTask(
            id=int(t.get("id", 0)),
            state=str(t.get("state", "UNASSIGNED")),
            worker=t.get("worker_id"),
            trace=first_line(t.get("trace")),
        )
        for t in sorted(status.get("tasks", []) or [], key=lambda t: int(t.get("id", 0)))
    )
    return state.ConnectorState(
        name=name,
        config=secrets.redact(name, config, declared_secrets),
        state=str(connector.get("state", "UNASSIGNED")),
        tasks=tasks,
        type=info.get("type") or status.get("type"),
        trace=first_line(connector.get("trace")),
    )


def first_line(trace: Any) -> str | None:
    if not isinstance(trace, str) or not trace.strip():
        return None
    return trace.strip().splitlines()[0][:500]


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(", ", ": "))


def _exists(answer: Any) -> bool:
    """Whether a 409 says the connector already exists (a create's conflict, final) rather than a rebalance."""
    return isinstance(answer, dict) and "already exists" in str(answer.get("message", ""))


def _secret_values(config: Mapping[str, str], keys: Iterable[str]) -> list[str]:
    declared = frozenset(keys)
    return [v for k, v in config.items() if secrets.is_secret(k, v, declared)]


def _scrubbed(exc: ConnectError, hidden: Iterable[str]) -> ConnectError:
    message = scrubbing.scrub(str(exc), hidden)
    return ConnectError(message, status=exc.status, answer_lost=exc.answer_lost, sent=exc.sent)

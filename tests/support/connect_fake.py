"""An in-memory Kafka Connect worker answering the REST API as a 4.x distributed worker does, for unit tests.

``FakeConnectWorker`` is a ``reconciler.connect.port.Transport``: it takes the method, path and body the port builds
(``reconciler.connect.requests``) and routes them with the same ``requests.route`` the builders' paths are read
with, so a path the builders get wrong is a 404 here too. Bodies are round-tripped through JSON, as on the wire.

What it answers as Connect does: a create (``POST /connectors`` with ``initial_state``; 409 "already exists"), a
config ``PUT`` (201 for a new connector, 200 otherwise), pause, resume, stop, a restart of what FAILED
(``includeTasks``/``onlyFailed``), status with tasks and their traces, the task configs (``/tasks``), offsets kept
after a delete (reset and altered only while STOPPED, 400 otherwise), 404 for a connector it does not hold.

Connect applies a write a moment after answering it. Here time is ``clock`` (the test's, advanced by the apply's
pacer): a config written at ``t`` shows in the task configs at ``t + regenerate_s`` and the tasks restarted on it
report their state at ``t + restart_s``; until then the status still shows the tasks of the earlier config. A task
whose config ``task_fails`` returns a trace for reports FAILED with it (and again after a restart).

Faults, injected per endpoint (``PUT /connectors/{name}/config``): ``refuse(endpoint, status, times)`` answers
``status`` without carrying the request out (409 is Connect's rebalance answer); ``lose(endpoint, times)`` carries it
out and then loses the answer (``ConnectError(answer_lost=True)``, as the HTTP client raises); ``latency_s`` holds
every write that long (real time, so concurrent writes overlap; ``most_outstanding`` records how many did).
"""

from __future__ import annotations

import collections
import dataclasses
import json
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from reconciler.connect import requests as rq
from reconciler.connect.http import ConnectError

FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
WORKER = "127.0.0.1:8083"
REBALANCE = "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"


@dataclasses.dataclass
class _Connector:
    config: dict[str, str]
    target: str  # RUNNING, PAUSED, STOPPED
    state: str = "UNASSIGNED"  # as published in the status
    tasks: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # published task statuses
    task_configs: list[dict[str, str]] = dataclasses.field(default_factory=list)
    events: list[tuple[float, Callable[[], None]]] = dataclasses.field(default_factory=list)


def _error(status: int, message: str) -> tuple[int, Any]:
    return status, {"error_code": status, "message": message}


class FakeConnectWorker:
    """See the module docstring."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        plugins: tuple[str, ...] = (FILE_SINK, FILE_SOURCE),
        regenerate_s: float = 0.3,
        restart_s: float = 0.6,
        task_fails: Callable[[Mapping[str, str]], str | None] = lambda _config: None,
    ) -> None:
        self.urls: tuple[str, ...] = ("http://fake-connect:8083",)
        self.clock = clock
        self.plugins = plugins
        self.regenerate_s, self.restart_s = regenerate_s, restart_s
        self.task_fails = task_fails
        self.connectors: dict[str, _Connector] = {}
        self.offsets: dict[str, list[dict[str, Any]]] = {}  # kept after a delete, as Connect does
        self.sent: list[rq.Request] = []
        self.request_count = 0
        self.request_timeout_s = 30.0
        self.request_counts: collections.Counter[str] = collections.Counter()
        self.latency_s = 0.0
        self.outstanding = self.most_outstanding = 0
        self._refusals: dict[str, list[int]] = {}
        self._losses: collections.Counter[str] = collections.Counter()
        self._lock = threading.RLock()

    # ----------------------------------------------------------------------------------------- faults
    def refuse(self, endpoint: str, status: int, *, times: int = 1) -> None:
        """Answer the next ``times`` requests to ``endpoint`` with ``status``, carrying none of them out."""
        self._refusals.setdefault(endpoint, []).extend([status] * times)

    def lose(self, endpoint: str, *, times: int = 1) -> None:
        """Carry out the next ``times`` requests to ``endpoint``, then lose their answers."""
        self._losses[endpoint] += times

    # ---------------------------------------------------------------------------------------- transport
    def exchange(self, method: str, path: str, body: Any = None, *, deadline: float) -> tuple[int, Any]:
        request = rq.Request(method, path, None if body is None else json.loads(json.dumps(body)))
        if time.monotonic() >= deadline:
            raise ConnectError(f"{method} {path}: the deadline passed before Kafka Connect answered", sent=False)
        endpoint = request.endpoint
        with self._lock:
            self.sent.append(request)
            self.request_count += 1
            self.request_counts[endpoint] += 1
            refused = self._refusals.get(endpoint)
            if refused:
                status = refused.pop(0)
                return _error(status, REBALANCE if status == 409 else f"HTTP {status}")
            self.outstanding += request.is_write
            self.most_outstanding = max(self.most_outstanding, self.outstanding)
        try:
            if request.is_write and self.latency_s:
                time.sleep(self.latency_s)
            with self._lock:
                status, answer = self._handle(request)
                lost = self._losses[endpoint] > 0
                if lost:
                    self._losses[endpoint] -= 1
        finally:
            with self._lock:
                self.outstanding -= request.is_write
        if lost:
            raise ConnectError(f"{method} {path}: sent, but Kafka Connect's answer was lost", answer_lost=True)
        return status, json.loads(json.dumps(answer))

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------------------------------- model
    def _advance(self) -> None:
        now = self.clock()
        for c in self.connectors.values():
            due = [e for e in c.events if e[0] <= now]
            c.events = [e for e in c.events if e[0] > now]
            for _, apply in sorted(due, key=lambda e: e[0]):
                apply()

    def _task_state(self, c: _Connector, config: Mapping[str, str]) -> dict[str, Any]:
        trace = self.task_fails(config)
        if trace is not None:
            return {"state": "FAILED", "worker_id": WORKER, "trace": trace}
        return {"state": c.target, "worker_id": WORKER}

    def _configure(self, name: str, c: _Connector) -> None:
        """Connect's reaction to a config written or a state changed: task configs, then the tasks restarted."""
        now, config = self.clock(), dict(c.config)
        count = max(1, int(config.get("tasks.max", "1")))

        def regenerate() -> None:
            if c.target != "STOPPED":
                c.task_configs = [{**config, "task.class": config["connector.class"] + "Task"} for _ in range(count)]

        def restart() -> None:
            c.state = c.target
            if c.target == "STOPPED":
                c.tasks = []
                return
            c.tasks = [{"id": i, **self._task_state(c, config)} for i in range(count)]

        c.events += [(now + self.regenerate_s, regenerate), (now + self.restart_s, restart)]

    def _status(self, name: str, c: _Connector) -> dict[str, Any]:
        return {
            "name": name,
            "connector": {"state": c.state, "worker_id": WORKER},
            "tasks": [dict(t) for t in c.tasks],
            "type": _type(c.config),
        }

    def _info(self, name: str, c: _Connector) -> dict[str, Any]:
        tasks = [{"connector": name, "task": i} for i in range(len(c.task_configs))]
        return {"name": name, "config": {**c.config, "name": name}, "tasks": tasks, "type": _type(c.config)}

    def _handle(self, request: rq.Request) -> tuple[int, Any]:
        self._advance()
        template, names, query = rq.route(request.path)
        handler = _ROUTES.get(f"{request.method} {template}")
        if handler is None:
            return _error(404, "HTTP 404 Not Found")
        name = names.get("name")
        creates = request.method == "PUT" and template.endswith("/config")  # a config PUT creates one
        own_404 = template.endswith("/offsets")
        if template.startswith("/connectors/{name}") and name not in self.connectors and not (creates or own_404):
            return _error(404, f"Connector {name} not found")
        return handler(self, name, query, request.body)


def _type(config: Mapping[str, str]) -> str:
    return "source" if "Source" in config.get("connector.class", "") else "sink"


# ---------------------------------------------------------------------------------------------- handlers
Handler = Callable[[FakeConnectWorker, Any, list[tuple[str, str]], Any], tuple[int, Any]]


def _list(w: FakeConnectWorker, name: Any, q: list[tuple[str, str]], body: Any) -> tuple[int, Any]:
    expand = {v for k, v in q if k == "expand"}
    if not expand:
        return 200, sorted(w.connectors)
    out: dict[str, Any] = {}
    for n, c in sorted(w.connectors.items()):
        entry: dict[str, Any] = {}
        if "info" in expand:
            entry["info"] = w._info(n, c)
        if "status" in expand:
            entry["status"] = w._status(n, c)
        out[n] = entry
    return 200, out


def _plugins(w: FakeConnectWorker, name: Any, q: list[tuple[str, str]], body: Any) -> tuple[int, Any]:
    return 200, [{"class": p, "type": "source" if "Source" in p else "sink", "version": "4.3.1"} for p in w.plugins]


def _validate(w: FakeConnectWorker, name: Any, q: list[tuple[str, str]], body: Any) -> tuple[int, Any]:
    if "connector.class" not in (body or {}):
        return _error(500, "Connector config {} contains no connector type")
    configs = [{"value": {"name": k, "value": v, "errors": []}} for k, v in sorted(body.items())]
    return 200, {"name": name, "error_count": 0, "groups": [], "configs": configs}


def _create(w: FakeConnectWorker, name: Any, q: list[tuple[str, str]], body: Any) -> tuple[int, Any]:
    new = str(body["name"])
    if new in w.connectors:
        return _error(409, f"Connector {new} already exists")
    c = _Connector(
        config={str(k): str(v) for k, v in body["config"].items() if k != "name"},
        target=body.get("initial_state", "RUNNING"),
    )
    w.connectors[new] = c
    w._configure(new, c)
    return 201, w._info(new, c)


def _put_config(w: FakeConnectWorker, name: Any, q: list[tuple[str, str]], body: Any) -> tuple[int, Any]:
    config = {str(k): str(v) for k, v in body.items() if k != "name"}
    c = w.connectors.get(name)
    created = c is None
    if c is None:
        c = w.connectors[name] = _Connector(config=config, target="RUNNING")
    c.config = config
    w._configure(name, c)
    return (201 if created else 200), w._info(name, c)


def _get_config(w: FakeConnectWorker, name: Any, q: list[tuple[str, str]], body: Any) -> tuple[int, Any]:
    return 200, {**w.connectors[name].config, "name": name}


def _status(w: FakeConnectWorker, name: Any, q: list[tuple[str, str]], body: Any) -> tuple[int, Any]:
    return 200, w._status(name, w.connectors[name])


def _tasks(w: FakeConnectWorker, name: Any, q: list[tuple[str, str]], body: Any) -> tuple[int, Any]:
    found = w.connectors[name].task_configs
    return 200, [{"id": {"connector": name, "task": i}, "config": dict(t)} for i, t in enumerate(found)]


def _target(state: str) -> Handler:
    def change(w: FakeConnectWorker, name: Any, q: list[tuple[str, str]], body: Any) -> tuple[int, Any]:
        c = w.connectors[name]
        c.target = state
        w._configure(name, c)
        return (204 if state == "STOPPED" else 202), None

    return change


def _restart(w: FakeConnectWorker, name: Any, q: list[tuple[str, str]], body: Any) -> tuple[int, Any]:
    c, args = w.connectors[name], dict(q)
    only_failed, include_tasks = args.get("onlyFailed") == "true", args.get("includeTasks") == "true"
    now, config = w.clock(), dict(c.config)

    def again() -> None:
        if not only_failed or c.state == "FAILED":
            c.state = c.target
        if include_tasks:
            c.tasks = [
                {"id": t["id"], **w._task_state(c, config)} if (not only_failed or t["state"] == "FAILED") else t
                for t in c.tasks
            ]

    c.events.append((now + w.restart_s, again))
    return 202, {"name": name, "connector": {"state": "RESTARTING", "worker_id": WORKER}, "tasks": []}


def _delete(w: FakeConnectWorker, name: Any, q: list[tuple[str, str]], body: Any) -> tuple[int, Any]:
    del w.connectors[name]
    return 204, None


def _get_offsets(w: FakeConnectWorker, name: Any, q: list[tuple[str, str]], body: Any) -> tuple[int, Any]:
    if name not in w.connectors:
        return _error(404, f"Connector {name} not found")
    return 200, {"offsets": list(w.offsets.get(name, []))}


def _stopped(w: FakeConnectWorker, name: Any) -> tuple[int, Any] | None:
    c = w.connectors.get(name)
    if c is None:
        return _error(404, f"Connector {name} not found")
    if c.state != "STOPPED":
        return _error(
            400, f"Connectors must be in the STOPPED state before their offsets can be modified. {name} is not"
        )
    return None


def _reset_offsets(w: FakeConnectWorker, name: Any, q: list[tuple[str, str]], body: Any) -> tuple[int, Any]:
    refused = _stopped(w, name)
    if refused is not None:
        return refused
    w.offsets.pop(name, None)
    return 200, {"message": "The offsets for this connector have been reset successfully"}


def _alter_offsets(w: FakeConnectWorker, name: Any, q: list[tuple[str, str]], body: Any) -> tuple[int, Any]:
    refused = _stopped(w, name)
    if refused is not None:
        return refused
    kept = {json.dumps(o["partition"], sort_keys=True): o for o in w.offsets.get(name, [])}
    for entry in body.get("offsets", []):
        kept[json.dumps(entry["partition"], sort_keys=True)] = entry
    w.offsets[name] = list(kept.values())
    return 200, {"message": "The offsets for this connector have been altered successfully"}


_ROUTES: dict[str, Handler] = {
    "GET /connectors": _list,
    "POST /connectors": _create,
    "GET /connector-plugins": _plugins,
    "PUT /connector-plugins/{name}/config/validate": _validate,
    "GET /connectors/{name}/config": _get_config,
    "PUT /connectors/{name}/config": _put_config,
    "GET /connectors/{name}/status": _status,
    "GET /connectors/{name}/tasks": _tasks,
    "PUT /connectors/{name}/pause": _target("PAUSED"),
    "PUT /connectors/{name}/resume": _target("RUNNING"),
    "PUT /connectors/{name}/stop": _target("STOPPED"),
    "POST /connectors/{name}/restart": _restart,
    "DELETE /connectors/{name}": _delete,
    "GET /connectors/{name}/offsets": _get_offsets,
    "DELETE /connectors/{name}/offsets": _reset_offsets,
    "PATCH /connectors/{name}/offsets": _alter_offsets,
}

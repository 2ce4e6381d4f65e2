"""Benchmark Kafka Connect connectors: the REST cost of a no-change plan, and 100 config changes against a peer.

Starts its own single KRaft node and Kafka Connect worker from the test harness (free ports on 127.0.0.1, stopped
at the end). Three measurements, each printed, nothing asserted:

1. ``--idle`` connectors (default 200) are created stopped (no tasks, set-up, not measured), and the manifests
   declaring exactly them are planned ``--runs`` times: the Connect REST requests and wall time of the connector
   read (``kinds.connector.evidence.read_for_plan``: the whole connector list and the plugin list, no validate when
   nothing changed), and the REST requests of a plan of manifests that declare no connector (expected 0).
2. ``--changed`` running connectors (default 100, FileStreamSink, one task each) get a new ``batch.size``, each
   contender until every connector's task runs the new config; side by side, interleaved (the order rotates from
   run to run), the worker's REST requests counted for each:

   * ``kafka-reconciler``: plan (read, validate of each changed config) + apply (config PUTs at the adaptive write
     pace, then the read-back: one list poll a round for every changed connector, ``/tasks`` for those whose new
     config is not seen yet, and the quiet window after it);
   * ``truthful sequential``: the plain script that is as truthful as the tool without its window: for each
     connector in turn, the config PUT, then ``GET /connectors/{name}/tasks`` every 0.1 s until the task configs
     hold the new value, then ``GET /connectors/{name}/status`` until the connector and its task are RUNNING;
   * ``concurrent floor``: the same truth with the least work: the PUTs 8 at a time, then every 0.1 s one ``GET
     /connectors?expand=status`` for all plus ``/tasks`` (8 at a time) for those whose new config is not seen yet,
     until every one is seen and RUNNING. No quiet window: a task that fails a moment after its new configs show
     is reported RUNNING by it, which the tool's window is there to catch.

   Prints wall time and REST requests per contender, the ratios (floor / tool, script / tool), the tool's write
   pace (highest limit, refusals) and where its time went (read, validate, planner, apply set-up, PUTs, read-back).
3. The worker's own pace: the same 100 config PUTs sent with plain urllib 1, 8 and 32 at a time, nothing else
   (``--runs`` times each): the herder applies them one after another, the time around them overlaps.

    .venv/bin/python -m benchmarks.connect_bench [--idle 200] [--changed 100] [--runs 3]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import statistics
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from unittest import mock

from reconciler import operations, ports
from reconciler.apply import ApplyOptions, apply_plan
from reconciler.connect import opening
from reconciler.connect.http import ConnectClient
from reconciler.connect.port import RestConnectPort
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kinds.connector import evidence
from reconciler.model import desired as d
from reconciler.model import state as s
from reconciler.planner import plan
from tests.kafka.connect import FILE_SINK, ConnectWorker
from tests.kafka.kinds import single_node


def rest(url: str, method: str, path: str, body: Any = None) -> Any:
    request = urllib.request.Request(
        f"{url}{path}", data=None if body is None else json.dumps(body).encode(), method=method
    )
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        raw = response.read()
    return json.loads(raw) if raw else None


def sink(name: str, directory: Path, batch: str) -> dict[str, str]:
    return {
        "connector.class": FILE_SINK,
        "tasks.max": "1",
        "topics": "bench.in",
        "file": str(directory / f"{name}.txt"),
        "batch.size": batch,
    }


def wanted(names: list[str], directory: Path, batch: str, state: str = "running") -> d.DesiredState:
    return d.DesiredState(connectors={n: d.DesiredConnector(n, sink(n, directory, batch), state) for n in names})


def live_of(port: RestConnectPort, cluster_id: str | None, want: d.DesiredState) -> s.ClusterState:
    connect = evidence.read_for_plan(port, want, deadline=time.monotonic() + 300)
    return s.ClusterState(cluster_id=cluster_id, controller_id=None, brokers=(), connect=connect)


def wait_running(url: str, names: list[str], *, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = rest(url, "GET", "/connectors?expand=status")
        if all(
            n in found
            and found[n]["status"]["connector"]["state"] == "RUNNING"
            and [t["state"] for t in found[n]["status"]["tasks"]] == ["RUNNING"]
            for n in names
        ):
            return
        time.sleep(0.5)
    raise SystemExit("connectors did not all run in time")


def idle_plan(url: str, cluster_id: str | None, directory: Path, count: int, runs: int) -> None:
    names = [f"idle-{i:04d}" for i in range(count)]
    for n in names:
        rest(url, "POST", "/connectors", {"name": n, "config": sink(n, directory, "1"), "initial_state": "STOPPED"})
    want = wanted(names, directory, "1", "stopped")
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:  # Connect reports a connector created stopped as UNASSIGNED at first
        found = rest(url, "GET", "/connectors?expand=status")
        if all(n in found and found[n]["status"]["connector"]["state"] == "STOPPED" for n in names):
            break
        time.sleep(0.5)
    times, counts = [], []
    for _ in range(runs):
        port = RestConnectPort(ConnectClient([url]))
        began = time.perf_counter()
        p = plan(want, live_of(port, cluster_id, want))
        times.append(time.perf_counter() - began)
        counts.append(port.request_count)
        assert not p.actionable, "set-up: the idle connectors should plan no change"
    none = RestConnectPort(ConnectClient([url]))
    with mock.patch.object(opening, "port_of", lambda _target, **_kw: none):
        empty = s.ClusterState(cluster_id=None, controller_id=None, brokers=())
        ports.with_live(empty, d.DesiredState(), operations.Target(profiles={}))
    print(
        f"no-change plan over {count} connectors, {runs} runs: REST requests {counts} (each run), "
        f"connector read + plan median {statistics.median(times):.3f}s (min {min(times):.3f}s)"
    )
    print(f"plan of manifests that declare no connector: {none.request_count} Connect REST requests")
    for n in names:
        rest(url, "DELETE", f"/connectors/{n}")


class TimedPort(RestConnectPort):
    """``RestConnectPort`` recording when each call ran (``spans``: method, start, end; perf_counter seconds)."""

    def __init__(self, client: ConnectClient) -> None:
        super().__init__(client)
        self.spans: list[tuple[str, float, float]] = []

    def _timed(self, what: str, call: Any) -> Any:
        began = time.perf_counter()
        try:
            return call()
        finally:
            self.spans.append((what, began, time.perf_counter()))

    def read(self, **kw: Any) -> s.ConnectState:
        return self._timed("read", lambda: super(TimedPort, self).read(**kw))  # type: ignore[no-any-return]

    def read_connectors(self, **kw: Any) -> dict[str, s.ConnectorState]:
        return self._timed("read_connectors", lambda: super(TimedPort, self).read_connectors(**kw))  # type: ignore[no-any-return]

    def validate(self, name: str, config: Any, **kw: Any) -> tuple[tuple[str, str], ...]:
        return self._timed("validate", lambda: super(TimedPort, self).validate(name, config, **kw))  # type: ignore[no-any-return]

    def put_config(self, name: str, config: Any, **kw: Any) -> None:
        self._timed("put_config", lambda: super(TimedPort, self).put_config(name, config, **kw))

    def window(self, what: str, after: float = 0.0) -> tuple[float, float, int]:
        """(first start, last end, calls) of ``what`` starting at or after ``after``."""
        found = [(b, e) for w, b, e in self.spans if w == what and b >= after]
        return (min(b for b, _ in found), max(e for _, e in found), len(found)) if found else (after, after, 0)


STAGE_NAMES = ("read s", "validate s", "planner s", "apply before writes s", "PUTs s", "read-back s", "polls")
STAGES: list[list[float]] = []
PACES: list[tuple[int, int]] = []  # the tool's (highest write limit, refusals) per run
CONTENDERS = ("kafka-reconciler", "truthful sequential", "concurrent floor")


def ours(
    url: str, cluster: Any, cluster_id: str | None, names: list[str], directory: Path, batch: str
) -> tuple[float, int]:
    port = TimedPort(ConnectClient([url]))
    want = wanted(names, directory, batch)
    began = time.perf_counter()
    with KafkaAdapter(cluster.connection_settings()) as adapter:
        live = live_of(port, cluster_id, want)
        planned = time.perf_counter()
        p = plan(want, live)
        apply_began = time.perf_counter()
        report = apply_plan(
            p,
            adapter,
            options=ApplyOptions(deadline_s=600, ports={"connect": port}, desired=want, check_staleness=False),
        )
    took = time.perf_counter() - began
    assert report.exit_code == 0, report.items
    validate_began, validate_ended, _ = port.window("validate")
    put_began, put_ended, _ = port.window("put_config")
    _, polled, polls = port.window("read_connectors", after=put_ended)
    PACES.append((port.pace.peak, port.pace.refusals))
    STAGES.append(
        [
            validate_began - began,  # read: connectors + plugins
            validate_ended - validate_began,  # validates
            apply_began - planned,  # planner
            put_began - apply_began,  # apply up to the first write (Kafka read, connector read)
            put_ended - put_began,  # the config PUTs
            polled - put_ended,  # read-back
            float(polls),
        ]
    )
    return took, port.request_count


REFUSED: collections.Counter[str] = collections.Counter()  # what the worker answered the scripts' reads with


def _tasks_new(url: str, name: str, batch: str) -> bool:
    """Whether the task configs hold the new value; an error answer (the worker answers 500 to ``/tasks`` while it
    restarts the connector) counts as not yet, as the tool counts it."""
    try:
        tasks = rest(url, "GET", f"/connectors/{name}/tasks")
    except urllib.error.HTTPError as exc:
        REFUSED[f"{exc.code} {json.loads(exc.read() or b'{}').get('message', '')[:80]}"] += 1
        return False
    return bool(tasks) and all(t["config"].get("batch.size") == batch for t in tasks)


def _running(status: dict[str, Any]) -> bool:
    return status["connector"]["state"] == "RUNNING" and [t["state"] for t in status["tasks"]] == ["RUNNING"]


def script(url: str, names: list[str], directory: Path, batch: str) -> tuple[float, int]:
    """The truthful sequential script: PUT, new task configs seen, RUNNING, one connector after the other."""
    requests = 0
    began = time.perf_counter()
    for n in names:
        rest(url, "PUT", f"/connectors/{n}/config", sink(n, directory, batch))
        requests += 1
        while True:
            requests += 1
            if _tasks_new(url, n, batch):
                break
            time.sleep(0.1)
        while True:
            requests += 1
            status = rest(url, "GET", f"/connectors/{n}/status")
            if _running(status):
                break
            if "FAILED" in json.dumps(status):
                raise SystemExit(f"{n} FAILED")
            time.sleep(0.1)
    return time.perf_counter() - began, requests


def floor(url: str, names: list[str], directory: Path, batch: str) -> tuple[float, int]:
    """The concurrent floor: PUTs 8 at a time, then one list poll a round plus /tasks for those not yet seen."""
    requests = 0
    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda n: rest(url, "PUT", f"/connectors/{n}/config", sink(n, directory, batch)), names))
        requests += len(names)
        seen: set[str] = set()
        while True:
            found = rest(url, "GET", "/connectors?expand=status")
            unseen = [n for n in names if n not in seen]
            news = list(pool.map(lambda n: _tasks_new(url, n, batch), unseen))
            requests += 1 + len(unseen)
            seen.update(n for n, new in zip(unseen, news, strict=True) if new)
            if len(seen) == len(names) and all(_running(found[n]["status"]) for n in names):
                break
            time.sleep(0.1)
    return time.perf_counter() - began, requests


def write_rate(url: str, names: list[str], directory: Path, batch: str, concurrency: int) -> float:
    """Seconds for one config PUT per connector, ``concurrency`` at a time (plain urllib, nothing else)."""
    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        list(pool.map(lambda n: rest(url, "PUT", f"/connectors/{n}/config", sink(n, directory, batch)), names))
    return time.perf_counter() - began


def worker_floor(url: str, names: list[str], directory: Path, runs: int) -> None:
    """The worker's own pace: the same PUTs sent 1, 8 and 32 at a time (the herder applies them one after another;
    what falls with concurrency is the time around each request)."""
    took: dict[int, list[float]] = {1: [], 8: [], 32: []}
    batch = 1000
    for _ in range(runs):
        for concurrency in took:
            batch += 1
            took[concurrency].append(write_rate(url, names, directory, str(batch), concurrency))
            wait_running(url, names)
    for concurrency, times in took.items():
        median = statistics.median(times)
        print(
            f"{len(names)} config PUTs {concurrency} at a time (no status poll): median {median:.2f}s "
            f"(runs {', '.join(f'{t:.2f}' for t in times)}), {len(names) / median:.1f} PUTs/s"
        )


def changes(url: str, cluster: Any, cluster_id: str | None, directory: Path, count: int, runs: int) -> None:
    names = [f"sink-{i:03d}" for i in range(count)]
    for n in names:
        rest(url, "PUT", f"/connectors/{n}/config", sink(n, directory, "1"))
    wait_running(url, names)
    results: dict[str, list[tuple[float, int]]] = {who: [] for who in CONTENDERS}
    loads: list[float] = []
    batch = 1
    for run in range(runs):
        order = CONTENDERS[run % 3 :] + CONTENDERS[: run % 3]
        for who in order:
            batch += 1
            loads.append(os.getloadavg()[0])
            if who == "kafka-reconciler":
                results[who].append(ours(url, cluster, cluster_id, names, directory, str(batch)))
            elif who == "truthful sequential":
                results[who].append(script(url, names, directory, str(batch)))
            else:
                results[who].append(floor(url, names, directory, str(batch)))
            wait_running(url, names)
    print(f"load (1 min) before each contender's run: {', '.join(f'{x:.1f}' for x in loads)}")
    for who, found in results.items():
        times = [t for t, _ in found]
        print(
            f"{count} config changes until every task runs the new config, {who}: median "
            f"{statistics.median(times):.1f}s (runs {', '.join(f'{t:.1f}' for t in times)}), "
            f"REST requests {[n for _, n in found]}"
        )
    medians = {who: statistics.median(t for t, _ in found) for who, found in results.items()}
    tool = medians["kafka-reconciler"]
    print(f"tool / concurrent floor: {tool / medians['concurrent floor']:.2f}x (goal at most 1.2x)")
    print(f"truthful sequential / tool: {medians['truthful sequential'] / tool:.2f}x (goal at least 3x)")
    per_run = [
        (f"{tool_run[0] / floor_run[0]:.2f}", f"{script_run[0] / tool_run[0]:.2f}")
        for tool_run, script_run, floor_run in zip(*(results[who] for who in CONTENDERS), strict=True)
    ]
    print(f"per run (tool / floor, script / tool): {per_run}")
    print(f"the tool's write pace per run (highest limit, refusals): {PACES}")
    print(f"error answers to the scripts' task-config reads (counted as not yet): {dict(REFUSED)}")
    for label, column in zip(STAGE_NAMES, zip(*STAGES, strict=True), strict=True):
        figures = ", ".join(f"{v:.2f}" for v in column)
        print(f"  kafka-reconciler stage {label}: median {statistics.median(column):.2f} (runs {figures})")
    worker_floor(url, names, directory, runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=int, default=200)
    parser.add_argument("--changed", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    cluster = single_node()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            worker = ConnectWorker(bootstrap=cluster.bootstrap, workdir=directory / "worker", group_id="bench-connect")
            try:
                worker.start()
                with KafkaAdapter(cluster.connection_settings()) as adapter:
                    cluster_id = adapter.read_state(kinds=frozenset()).cluster_id
                idle_plan(worker.url, cluster_id, directory, args.idle, args.runs)
                changes(worker.url, cluster, cluster_id, directory, args.changed, args.runs)
                print(f"load at the end {os.getloadavg()[0]:.1f}")
            finally:
                worker.close()
    finally:
        cluster.close()


if __name__ == "__main__":
    main()

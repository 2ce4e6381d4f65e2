"""Benchmark the ``plan`` command over Schema Registry subjects: 500 declared without change, 100 changed, none.

Starts one Kafka node and an Apicurio Registry 2.4.2 from the test harness (free ports on 127.0.0.1, stopped at the
end) and writes a manifest tree per scenario: a ``Cluster`` profile naming both (``schemaRegistry.url``) and the
``SchemaSubject`` documents. Set-up (not measured): the global level BACKWARD, ``--subjects`` subjects registered
(one Avro record each), the first ``--changed`` given BACKWARD as their own level (Apicurio reads a subject without
one as NONE; see ``benchmarks.registry_bench.set_up``). Then, nothing asserted, each printed as soon as known:

* the registry requests of each scenario's plan, counted by an HTTP relay in front of the registry (a run of its
  own, not timed): 500 declared subjects without change, 100 changed (a compatible new version each), and a tree
  declaring no subject and owning none (expected 0);
* wall time, side by side and interleaved (``--runs``, the order turning each run, one untimed run of each first):
  ``kafka-reconciler plan <tree> --cluster bench --detailed-exitcode`` as a user runs it (a fresh process: start-up,
  manifest loading, the Kafka read and the registry's), against the plain script of the same registry work
  (``benchmarks.registry_bench.script_plan``: the two GETs of each subject, then a check of each changed one), and
  the same command over the tree declaring no subject (its fixed cost: start-up, loading, the Kafka read).

    .venv/bin/python -m benchmarks.registry_plan_bench [--subjects 500] [--changed 100] [--runs 5]
"""

from __future__ import annotations

import argparse
import http.client
import http.server
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.registry_bench import V1, V2, call, declared, script_plan, set_up, subject
from reconciler.kinds.schema_subject import views
from tests.kafka.kinds import single_node
from tests.kafka.registry import API_PATH, SchemaRegistryServer

CLI = Path(sys.executable).with_name("kafka-reconciler")


class CountingRelay:
    """Forwards every request to the registry (one upstream connection per request) and counts them."""

    def __init__(self, port: int) -> None:
        self.count = 0
        lock = threading.Lock()
        relay = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _forward(self) -> None:
                with lock:
                    relay.count += 1
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                    conn.request(self.command, self.path, body=body, headers=headers)
                    answer = conn.getresponse()
                    raw = answer.read()
                    self.send_response(answer.status)
                    self.send_header("Content-Type", answer.getheader("Content-Type") or "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                finally:
                    conn.close()

            do_GET = do_PUT = do_POST = do_DELETE = _forward

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def tree(directory: Path, *, bootstrap: str, registry_url: str, wanted: dict[str, views.DesiredSubject]) -> Path:
    """A manifest tree: the Cluster profile ``bench`` and one ``SchemaSubject`` document per wanted subject."""
    directory.mkdir(parents=True, exist_ok=True)
    profile = {
        "apiVersion": "kafka-reconciler/v1",
        "kind": "Cluster",
        "metadata": {"name": "bench"},
        "spec": {"bootstrapServers": [bootstrap], "schemaRegistry": {"url": registry_url}},
    }
    documents = [json.dumps(profile)]
    for name, want in sorted(wanted.items()):
        spec = {"subject": name, "schema": json.loads(want.schema)}
        doc = {"apiVersion": "kafka-reconciler/v1", "kind": "SchemaSubject", "metadata": {"name": name}, "spec": spec}
        documents.append(json.dumps(doc))
    (directory / "manifests.yaml").write_text("---\n".join(d + "\n" for d in documents), encoding="utf-8")
    return directory


def plan_command(directory: Path) -> int:
    """``plan --detailed-exitcode`` in a fresh process: its exit code (0 no change, 2 changes)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAFKA_", "SCHEMA_REGISTRY_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's installation keeps byte-code caches
    done = subprocess.run(
        [str(CLI), "plan", str(directory), "--cluster", "bench", "--detailed-exitcode"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    if done.returncode not in (0, 2):
        raise RuntimeError(f"plan exited {done.returncode}: {done.stderr[-2000:]}")
    return done.returncode


def measure(title: str, contenders: dict[str, Callable[[], object]], runs: int) -> None:
    load = os.getloadavg()[0]
    names = list(contenders)
    for name in names:
        contenders[name]()  # untimed: byte-code caches, the registry's JIT
    times: dict[str, list[float]] = {name: [] for name in names}
    for run in range(runs):
        for name in names[run % len(names) :] + names[: run % len(names)]:
            began = time.perf_counter()
            contenders[name]()
            times[name].append(time.perf_counter() - began)
    base = statistics.median(times[names[0]])
    print(f"\n{title} (load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)")
    print("| contender | median s | min-max s | script / contender |\n|---|---|---|---|")
    for name in names:
        median = statistics.median(times[name])
        print(f"| {name} | {median:.2f} | {min(times[name]):.2f}-{max(times[name]):.2f} | {base / median:.1f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--subjects", type=int, default=500)
    parser.add_argument("--changed", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="registry-plan-bench-"))
    kafka = single_node(workdir=work / "kafka")
    server = SchemaRegistryServer(workdir=work / "registry")
    relay: CountingRelay | None = None
    try:
        server.start()
        url = server.api_url
        set_up(url, max(args.subjects, args.changed), checks=args.changed)
        relay = CountingRelay(server.port)
        scenarios = {
            "no subject declared or owned": {},
            f"{args.subjects} declared subjects, no change": declared(args.subjects, V1),
            f"{args.changed} changed": declared(args.changed, V2),
        }
        for n, (title, wanted) in enumerate(scenarios.items()):
            via = relay.url + API_PATH
            counted = tree(work / f"counted-{n}", bootstrap=kafka.bootstrap, registry_url=via, wanted=wanted)
            before = relay.count
            code = plan_command(counted)
            print(f"plan, {title}: exit {code}, {relay.count - before:,} registry requests", flush=True)
        empty = tree(work / "direct-empty", bootstrap=kafka.bootstrap, registry_url=url, wanted={})
        for n, (title, wanted) in enumerate(list(scenarios.items())[1:]):
            direct = tree(work / f"direct-{n}", bootstrap=kafka.bootstrap, registry_url=url, wanted=wanted)
            contenders: dict[str, Callable[[], object]] = {
                "sequential urllib (the registry's work only)": lambda wanted=wanted: script_plan(url, wanted),  # type: ignore[misc]
                "kafka-reconciler plan (a fresh process)": lambda direct=direct: plan_command(direct),  # type: ignore[misc]
                "kafka-reconciler plan, no subject (the fixed cost)": lambda: plan_command(empty),
            }
            measure(f"Plan, {title}", contenders, args.runs)
        print(f"\nsubjects: {subject(0)} .. {subject(args.subjects - 1)}; global level {call(url, 'GET', '/config')}")
    finally:
        if relay is not None:
            relay.close()
        server.close()
        kafka.close()


if __name__ == "__main__":
    main()

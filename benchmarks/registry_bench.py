"""Benchmark the Schema Registry port against a real registry: reading many subjects, and many compatibility checks.

Starts its own Apicurio Registry 2.4.2 from the test harness (``tests/kafka/registry.py``: in-memory storage, a free
port on 127.0.0.1, stopped at the end), or uses ``--url`` (a Confluent-compatible API base URL). Set-up (not
measured): ``--subjects`` subjects (default 500) ``bench-NNNN-value``, each with one Avro record schema, registered
one after the other. Then, each figure printed as soon as it is known, nothing asserted:

1. **Read** every subject's latest version and level (``GET /subjects/{s}/versions/latest`` and
   ``GET /config/{s}``: two requests a subject, the Confluent API has no bulk read), side by side, interleaved (the
   order of the contenders turns from run to run), ``--runs`` times:

   * ``read_subjects cN``: ``RestRegistryPort.read_subjects`` over ``HttpTransport`` with N subjects at a time, for
     each N of ``--concurrency`` (a new port each run: its connections are opened inside the measurement);
   * ``sequential urllib``: the plain script such a read is often written as: for each subject the same two GETs
     with ``urllib.request.urlopen`` (a new connection each), one after the other.

2. **Check** ``--checks`` subjects (default 100) against a compatible new schema (a field added with a default) with
   the registry's own check (``POST /compatibility/subjects/{s}/versions/latest``): ``check cN`` (``RestRegistryPort
   .check`` from N threads sharing one port) against the same POSTs sent sequentially with urllib.

3. **The SchemaSubject kind's plan stages** (``views.read``, ``diff.diff``, ``dryrun.dry_run``: what a plan of the
   kind sends) over ``--subjects`` declared subjects without change and over ``--checks`` declared subjects with a
   compatible new version, against the plain script of the same plan (the two GETs of each subject, then a check
   of each changed one, sequentially), and the requests of the stages when no subject is declared or owned.

``--rtt-ms R`` measures both through ``LatencyRelay`` on 127.0.0.1, which delays every byte R/2 ms each way and a
new connection R ms: a registry across a network (the script pays the round trip to connect on every request, the
port once per thread).

Each contender runs once untimed first (the JVM's JIT compiles the server's request paths during the first few
hundred requests: the first run of anything is slower, whichever runs first). Figures: median wall time and spread
per contender, the requests each sent (the port's own count against the script's), the load average at the start
and the end, and the ratio of the script's median to each contender's (above 1: faster than the script).

    .venv/bin/python -m benchmarks.registry_bench [--subjects 500] [--checks 100] [--runs 5] [--concurrency 1,8,16]
        [--check-concurrency 1,8,16] [--rtt-ms 2] [--url URL] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import select
import socket
import statistics
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from reconciler.kinds.schema_subject import diff, dryrun, views
from reconciler.registry import canonical
from reconciler.registry.port import RestRegistryPort
from reconciler.registry_access.http import HttpTransport
from tests.support.http_relay import POLL_S, Relay

V1 = {"type": "record", "name": "Event", "namespace": "bench", "fields": [{"name": "id", "type": "long"}]}
V2 = {**V1, "fields": [*V1["fields"], {"name": "note", "type": "string", "default": ""}]}
DEADLINE_S = 600.0


class LatencyRelay(Relay):
    """Forwards bytes to the registry, each way after ``rtt_s / 2`` (a network's round trip, simulated on
    127.0.0.1), and a new connection after ``rtt_s`` (TCP's handshake). Bytes in one direction keep their order."""

    def __init__(self, upstream: tuple[str, int], rtt_s: float) -> None:
        self.rtt_s = rtt_s
        super().__init__(upstream)

    def _relay(self, client: socket.socket) -> None:
        time.sleep(self.rtt_s)
        with client, socket.create_connection(self.upstream, timeout=30) as upstream:
            pumps = [
                threading.Thread(target=self._pump, args=(client, upstream), daemon=True),
                threading.Thread(target=self._pump, args=(upstream, client), daemon=True),
            ]
            for pump in pumps:
                pump.start()
            for pump in pumps:
                pump.join()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while not self.closed:
                ready, _, _ = select.select([source], [], [], POLL_S)
                if not ready:
                    continue
                data = source.recv(65536)
                if not data:
                    target.shutdown(socket.SHUT_WR)
                    return
                time.sleep(self.rtt_s / 2)
                target.sendall(data)
        except OSError:
            return


def subject(i: int) -> str:
    return f"bench-{i:04d}-value"


def call(url: str, method: str, path: str, body: Any = None) -> Any:
    """One request with plain urllib (a new connection each, as the script does)."""
    request = urllib.request.Request(
        url + path, data=None if body is None else json.dumps(body).encode(), method=method
    )
    request.add_header("Content-Type", "application/vnd.schemaregistry.v1+json")
    request.add_header("Accept", "application/json")
    with urllib.request.urlopen(request, timeout=60) as response:
        raw = response.read()
    return json.loads(raw) if raw else None


def quoted(name: str) -> str:
    return urllib.parse.quote(name, safe="")


def set_up(url: str, count: int, *, checks: int) -> None:
    """Set the global level to BACKWARD (Confluent's default; Apicurio's is NONE, under which a check asks nothing
    of the server) and register the subjects one after the other: Apicurio 2.4's in-memory storage (H2) times out
    locking its tables under concurrent first registrations on a loaded machine (500, then 409 on a retry). The
    first ``checks`` subjects get BACKWARD as their own level too: Apicurio reads a subject without one as NONE
    (docs/schema-registry.md), and the figures in docs/benchmarks.md were taken with these levels."""
    call(url, "PUT", "/config", {"compatibility": "BACKWARD"})
    body = {"schema": json.dumps(V1), "schemaType": "AVRO"}
    for i in range(count):
        call(url, "POST", f"/subjects/{quoted(subject(i))}/versions", body)
    for i in range(checks):  # a level of their own: read as such on both servers (Apicurio reads none as NONE)
        call(url, "PUT", f"/config/{quoted(subject(i))}", {"compatibility": "BACKWARD"})


def script_read(url: str, names: list[str]) -> int:
    """The plain script: the two GETs of each subject, one after the other; the requests it sent."""
    sent = 0
    for name in names:
        latest = call(url, "GET", f"/subjects/{quoted(name)}/versions/latest")
        call(url, "GET", f"/config/{quoted(name)}")
        sent += 2
        assert latest["version"] >= 1
    return sent


def port_read(url: str, names: list[str], concurrency: int) -> int:
    transport = HttpTransport([url])
    try:
        port = RestRegistryPort(transport)
        states = port.read_subjects(names, deadline=time.monotonic() + DEADLINE_S, concurrency=concurrency)
        assert len(states) == len(names) and all(s.latest is not None for s in states.values())
        return port.request_count
    finally:
        transport.close()


def script_checks(url: str, names: list[str]) -> int:
    body = {"schema": json.dumps(V2), "schemaType": "AVRO"}
    for name in names:
        answer = call(url, "POST", f"/compatibility/subjects/{quoted(name)}/versions/latest", body)
        assert answer["is_compatible"] is True
    return len(names)


def port_checks(url: str, names: list[str], concurrency: int) -> int:
    transport = HttpTransport([url])
    try:
        port = RestRegistryPort(transport)
        deadline = time.monotonic() + DEADLINE_S

        def one(name: str) -> bool:
            return port.check(name, json.dumps(V2), schema_type="AVRO", deadline=deadline).compatible

        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            assert all(pool.map(one, names))
        return port.request_count
    finally:
        transport.close()


def declared(count: int, schema: dict[str, Any]) -> dict[str, views.DesiredSubject]:
    return {subject(i): views.DesiredSubject(subject(i), json.dumps(schema)) for i in range(count)}


def kind_plan(url: str, wanted: dict[str, views.DesiredSubject]) -> int:
    """The SchemaSubject kind's plan stages: its live read (features, global level, two requests a subject), its
    diff and its dry run (the registry's check of each new version, ``READ_CONCURRENCY`` at a time)."""
    transport = HttpTransport([url])
    try:
        port = RestRegistryPort(transport)
        deadline = time.monotonic() + DEADLINE_S
        live = views.read(port, wanted, deadline=deadline)
        changes, verdicts = dryrun.dry_run(diff.diff(wanted, live), live, registry=port, deadline=deadline)
        assert not dryrun.blocked(changes) and all(v.compatible for v in verdicts.values())
        return port.request_count
    finally:
        transport.close()


def script_plan(url: str, wanted: dict[str, views.DesiredSubject]) -> int:
    """The plain script of the same plan: the two GETs of each subject, then a check of each changed one."""
    sent, changed = 0, []
    for name, want in wanted.items():
        latest = call(url, "GET", f"/subjects/{quoted(name)}/versions/latest")
        call(url, "GET", f"/config/{quoted(name)}")
        sent += 2
        if not canonical.same_schema(want.schema, latest["schema"], "AVRO"):
            changed.append(want)
    for want in changed:
        body = {"schema": want.schema, "schemaType": "AVRO"}
        assert call(url, "POST", f"/compatibility/subjects/{quoted(want.subject)}/versions/latest", body)[
            "is_compatible"
        ]
        sent += 1
    return sent


def measure(title: str, contenders: dict[str, Callable[[], int]], runs: int, base: str) -> dict[str, Any]:
    """Each contender ``runs`` times, interleaved (the order turns each run); prints and returns the figures."""
    load = os.getloadavg()[0]
    times: dict[str, list[float]] = {name: [] for name in contenders}
    sent: dict[str, int] = {}
    names = list(contenders)
    for name in names:  # warm-up, not timed: the registry's JIT compiles its request paths on the first ones
        contenders[name]()
    for run in range(runs):
        order = names[run % len(names) :] + names[: run % len(names)]
        for name in order:
            began = time.perf_counter()
            sent[name] = contenders[name]()
            times[name].append(time.perf_counter() - began)
        print(f"  run {run + 1}/{runs}: " + ", ".join(f"{n} {times[n][-1]:.2f}s" for n in names), flush=True)
    base_median = statistics.median(times[base])
    print(f"\n{title} (load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)")
    print("| contender | median s | min-max s | requests | script / contender |\n|---|---|---|---|---|")
    figures: dict[str, Any] = {}
    for name in names:
        median = statistics.median(times[name])
        ratio = base_median / median
        print(
            f"| {name} | {median:.2f} | {min(times[name]):.2f}-{max(times[name]):.2f} | {sent[name]:,} | {ratio:.1f}x |"
        )
        figures[name] = {"median_s": median, "runs_s": times[name], "requests": sent[name], "ratio": ratio}
    print(flush=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--subjects", type=int, default=500)
    parser.add_argument("--checks", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--concurrency", default="1,4,8,16,32", help="comma-separated subjects at a time to compare")
    parser.add_argument("--check-concurrency", default="1,8,16", help="comma-separated threads for the checks")
    parser.add_argument("--url", help="a running registry's Confluent-compatible API (default: start Apicurio)")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument(
        "--rtt-ms", type=float, default=0.0, help="measure through a relay adding this round trip (a remote registry)"
    )
    args = parser.parse_args()
    levels = [int(c) for c in args.concurrency.split(",")]
    check_levels = [int(c) for c in args.check_concurrency.split(",")]
    print(f"{platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()}")
    server = None
    if args.url:
        url = args.url.rstrip("/")
    else:
        from tests.kafka.registry import SchemaRegistryServer

        server = SchemaRegistryServer(workdir=Path(tempfile.mkdtemp(prefix="registry-bench-")))
        server.start()
        url = server.api_url
        print(f"Apicurio Registry ready in {server.start_seconds:.1f}s at {url}")
    relay = None
    try:
        began = time.perf_counter()
        set_up(url, max(args.subjects, args.checks), checks=args.checks)
        if args.rtt_ms > 0:
            parts = urllib.parse.urlsplit(url)
            relay = LatencyRelay((parts.hostname or "127.0.0.1", parts.port or 80), args.rtt_ms / 1000)
            url = relay.url + parts.path
            print(f"measuring through a relay adding a {args.rtt_ms:g} ms round trip (and one more to connect)")
        print(f"set-up: {max(args.subjects, args.checks)} subjects registered in {time.perf_counter() - began:.1f}s")
        names = [subject(i) for i in range(args.subjects)]
        reads: dict[str, Callable[[], int]] = {"sequential urllib": lambda: script_read(url, names)}
        for level in levels:
            reads[f"read_subjects c{level}"] = lambda level=level: port_read(url, names, level)  # type: ignore[misc]
        figures = {"read": measure(f"Read {len(names)} subjects", reads, args.runs, "sequential urllib")}
        checked = names[: args.checks]
        checks: dict[str, Callable[[], int]] = {"sequential urllib": lambda: script_checks(url, checked)}
        for level in check_levels:
            checks[f"check c{level}"] = lambda level=level: port_checks(url, checked, level)  # type: ignore[misc]
        figures["check"] = measure(f"{len(checked)} compatibility checks", checks, args.runs, "sequential urllib")
        same, changed = declared(args.subjects, V1), declared(args.checks, V2)
        print(f"the kind's plan stages with no subject declared or owned: {kind_plan(url, {})} registry requests")
        for title, wanted in (
            (f"{len(same)} declared subjects, no change", same),
            (f"{len(changed)} changed", changed),
        ):
            plans: dict[str, Callable[[], int]] = {
                "sequential urllib": lambda wanted=wanted: script_plan(url, wanted),  # type: ignore[misc]
                "SchemaSubject plan stages": lambda wanted=wanted: kind_plan(url, wanted),  # type: ignore[misc]
            }
            figures[f"plan {title}"] = measure(f"Plan, {title}", plans, args.runs, "sequential urllib")
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2))
    finally:
        if relay is not None:
            relay.close()
        if server is not None:
            server.close()


if __name__ == "__main__":
    main()

"""Benchmark the read-back after an apply against the apply's own writes, on a real broker.

Starts one KRaft node of the test harness (StandardAuthorizer, every PLAINTEXT client a super user, 1 GiB heap) and
applies, ``--runs`` times on fresh names, two plans of ``--topics + --acls`` changes each (the shape of
``benchmarks/apply_shape.py``: 1-48 partitions per topic, three configs each, exact TOPIC ACL bindings):

1. create ``--topics`` topics and ``--acls`` bindings from nothing;
2. change ``retention.ms`` of every one of those topics and add ``--acls`` more bindings.

For each apply it prints, as measured: the time before the first write (targeted read and checks), the write
phases (first phase started to last phase finished, from the apply's events), the read-back (last phase finished
to the report), the requests of each, the response bytes of the read-back (counted at kafka-python's
connections), and the ratio read-back / writes. Asserts nothing; exits 1 when an apply
does not exit 0 or does not converge (after printing what it measured).

    .venv/bin/python -m benchmarks.readback_bench [--topics 1000] [--acls 100] [--runs 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from benchmarks import apply_bench_tools as tools
from benchmarks.apply_shape import Shape
from reconciler import operations
from reconciler.apply import ApplyEvent, ApplyOptions, EventKind, apply_plan
from reconciler.kafka.adapter import KafkaAdapter
from tests.kafka.kinds import single_node

TIMEOUT_MS = 120_000
FAILURES: list[str] = []


def say(text: str) -> None:
    print(text, flush=True)


class Clock:
    """The apply's events, stamped: when the first phase started and the last one finished."""

    def __init__(self) -> None:
        self.first_phase: float | None = None
        self.last_phase: float | None = None
        self.bytes_at_last_phase = 0
        self.split_at_last_phase: dict[str, int] = {}
        self.verifying: list[str] = []

    def __call__(self, event: ApplyEvent) -> None:
        now = time.perf_counter()
        if event.kind is EventKind.PHASE_STARTED and self.first_phase is None:
            self.first_phase = now
        elif event.kind is EventKind.PHASE_FINISHED:
            self.last_phase = now
            self.bytes_at_last_phase = tools.ByteMeter.total
            self.split_at_last_phase = tools.ByteMeter.split()
        elif event.kind.value == "verifying" and event.message:  # the read-back's status line (where it exists)
            self.verifying.append(event.message)


def one_apply(adapter: KafkaAdapter, tree: Path) -> dict[str, Any]:
    """Plan ``tree`` against the cluster, apply it, and split the apply's time into before, writes and read-back."""
    wanted = operations.load_manifests([tree]).desired
    planned = operations.make_plan(wanted, operations.read_live(adapter, wanted))
    clock = Clock()
    adapter.reset_request_count()
    tools.ByteMeter.reset()
    started = time.perf_counter()
    report = apply_plan(planned, adapter, options=ApplyOptions(desired=wanted), events=clock)
    ended = time.perf_counter()
    readback_bytes = tools.ByteMeter.total - clock.bytes_at_last_phase
    readback_split = {
        api: n - clock.split_at_last_phase.get(api, 0)
        for api, n in tools.ByteMeter.split().items()
        if n - clock.split_at_last_phase.get(api, 0)
    }
    first = clock.first_phase or started
    last = clock.last_phase or ended
    write_requests = sum(p.requests for p in report.phases)
    again = operations.make_plan(wanted, operations.read_live(adapter, wanted))
    fig: dict[str, Any] = {
        "changes": len(planned.actionable),
        "before_s": first - started,
        "writes_s": last - first,
        "readback_s": ended - last,
        "total_s": ended - started,
        "requests": report.requests,
        "write_requests": write_requests,
        "readback_bytes": readback_bytes,
        "readback_bytes_by_api": readback_split,
        "by_api": report.requests_by_api,
        "exit": int(report.exit_code),
        "converged": bool(report.converged and not again.summary().has_changes),
        "status_lines": len(clock.verifying),
        "last_status": clock.verifying[-1] if clock.verifying else None,
    }
    if fig["exit"] != 0 or not fig["converged"]:
        fig["problems"] = [f"{n.address}: {n.detail}" for n in report.not_converged][:5] + list(report.notes)[:3]
    return fig


def show(label: str, fig: dict[str, Any]) -> None:
    ratio = fig["readback_s"] / max(fig["writes_s"], 1e-9)
    say(
        f"  {label:<30} {fig['changes']:>5} changes  before {fig['before_s']:6.2f}s  writes {fig['writes_s']:6.2f}s"
        f"  read-back {fig['readback_s']:6.2f}s  read-back/writes {ratio:5.2f}x  total {fig['total_s']:6.2f}s"
        f"  requests {fig['requests']} (writes {fig['write_requests']})  read-back bytes {fig['readback_bytes']:,}"
        f"  exit={fig['exit']}"
        f"  converged={fig['converged']}  load={os.getloadavg()[0]:.1f}"
    )
    say(f"  {'':<30} requests by API: {fig['by_api']}")
    say(f"  {'':<30} read-back bytes by API: {fig['readback_bytes_by_api']}")
    if fig["last_status"]:
        say(f"  {'':<30} {fig['status_lines']} status line(s), last: {fig['last_status']}")
    if "problems" in fig:
        FAILURES.append(label)
        say(f"  {'':<30} problems: {fig['problems']}")


def run(adapter: KafkaAdapter, args: argparse.Namespace, *, workdir: Path, number: int) -> dict[str, Any]:
    shape = Shape(prefix=f"rb{number}{uuid.uuid4().hex[:4]}", topics=args.topics, acls=args.acls)
    tree = workdir / f"run-{number}"
    say(f"run {number}: {shape.topics:,} topics, {shape.partitions_total:,} partitions, {shape.acls:,} ACLs")
    out: dict[str, Any] = {}
    shape.write(tree)
    out["create"] = one_apply(adapter, tree)
    show("create topics and ACLs", out["create"])
    more = Shape(prefix=shape.prefix, topics=args.topics, acls=2 * args.acls)
    more.write(tree, retention_days=dict.fromkeys(range(args.topics), 30))
    out["update"] = one_apply(adapter, tree)
    show("change every topic, add ACLs", out["update"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--topics", type=int, default=1_000)
    parser.add_argument("--acls", type=int, default=100)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    tools.ByteMeter.install()
    load = os.getloadavg()
    say(f"machine: {os.cpu_count()} CPUs, load {load}, Python {platform.python_version()}, {platform.node()}")
    cluster = single_node(authorizer=True)
    out: dict[str, Any] = {"args": vars(args) | {"json": str(args.json)}, "load_before": load, "runs": []}
    try:
        say(f"Kafka {cluster.version}, one KRaft node, {cluster.bootstrap}")
        with (
            tempfile.TemporaryDirectory(prefix="readback-bench-") as tmp,
            KafkaAdapter(cluster.connection_settings(request_timeout_ms=TIMEOUT_MS)) as adapter,
        ):
            for number in range(1, args.runs + 1):
                out["runs"].append(run(adapter, args, workdir=Path(tmp), number=number))
    finally:
        cluster.close()
        out["load_after"] = os.getloadavg()
        say(f"load after: {out['load_after']}")
        if args.json:
            args.json.write_text(json.dumps(out, indent=2, default=str) + "\n")
    if FAILURES:
        say(f"NOT MET: {FAILURES}")
        sys.exit(1)


if __name__ == "__main__":
    main()

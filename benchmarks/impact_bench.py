"""Benchmark the cost of change-impact evidence: a plan changing retention on N topics, with and without evidence.

Starts its own single KRaft node from the test harness (free ports on 127.0.0.1, stopped at the end), creates N
topics (``--partitions`` each, RF 1, ``retention.ms`` 7 days) with the adapter's batched writes and writes
``--records`` records to each partition with CreateTimes spread over the last three days (set-up, not measured).
The manifests declare every topic with ``retention.ms: 1d``, so every topic changes and every one has records that
the new retention would delete. Then, ``--runs`` times, side by side (the order alternates from run to run):

* ``without evidence``: ``operations.read_live`` + ``operations.make_plan`` without the adapter (no evidence read);
* ``with evidence``: ``operations.read_live`` + ``operations.make_plan(adapter=...)``: a first plan, the impact
  evidence of the changed topics (Metadata, DescribeLogDirs, ListOffsets), the plan again.

Prints wall time and admin requests per contender, the ratio, and the plan's impact summary. Asserts nothing.

    .venv/bin/python -m benchmarks.impact_bench [--topics 1000] [--partitions 3] [--records 4] [--runs 5]
"""

from __future__ import annotations

import argparse
import collections
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import kafka
from kafka import KafkaProducer

from reconciler import operations
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import TopicSpec
from tests.kafka.kinds import single_node

DAY_MS = 86_400_000
TIMEOUT_MS = 120_000


def write_manifests(out: Path, names: list[str]) -> None:
    docs = [
        f"---\napiVersion: kafka-reconciler/v1\nkind: Topic\nmetadata: {{name: {n}}}\n"
        "spec: {partitions: PARTS, replicationFactor: 1, configs: {retention.ms: 1d}}\n"
        for n in names
    ]
    (out / "topics.yaml").write_text("".join(docs))


SPENT: dict[str, float] = collections.defaultdict(float)  # seconds per admin API, over every request sent


def timed_wire(adapter: KafkaAdapter) -> None:
    """Add each request's wall time to ``SPENT`` under its API name (the breakdown printed at the end)."""
    wire = adapter._wire
    send = wire.send

    def timed(request: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return send(request, **kwargs)
        finally:
            SPENT[type(request).__name__.removesuffix("Request")] += time.perf_counter() - started

    wire.send = timed  # type: ignore[method-assign]


def plan_once(adapter: KafkaAdapter, directory: Path, *, evidence: bool) -> tuple[float, float, int, str | None]:
    """Wall seconds, this process's CPU seconds, admin requests and the impact summary of one plan."""
    wanted = operations.load_manifests([directory]).desired
    adapter.reset_request_count()
    started, cpu = time.perf_counter(), time.process_time()
    live = operations.read_live(adapter, wanted)
    result = operations.make_plan(wanted, live, adapter=adapter if evidence else None)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    summary = None if result.impact is None else result.impact.summary_line()
    return seconds, cpu, adapter.request_count, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--topics", type=int, default=1_000)
    parser.add_argument("--partitions", type=int, default=3)
    parser.add_argument("--records", type=int, default=4, help="records per partition, CreateTimes over 3 days")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, kafka-python {kafka.__version__}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.2f}")  # fmt: skip
    names = [f"bench.impact.{i:05d}" for i in range(args.topics)]
    cluster = single_node()
    try:
        print(f"Kafka {cluster.version}, one KRaft node at {cluster.bootstrap}", flush=True)
        with (
            tempfile.TemporaryDirectory(prefix="impact-bench-") as tmp,
            KafkaAdapter(cluster.connection_settings(request_timeout_ms=TIMEOUT_MS)) as adapter,
        ):
            directory = Path(tmp)
            write_manifests(directory, names)
            text = (directory / "topics.yaml").read_text().replace("PARTS", str(args.partitions))
            (directory / "topics.yaml").write_text(text)
            started = time.perf_counter()
            specs = [TopicSpec(n, args.partitions, 1, configs={"retention.ms": str(7 * DAY_MS)}) for n in names]
            for i in range(0, len(specs), 500):
                adapter.create_topics(specs[i : i + 500], timeout_ms=TIMEOUT_MS)
            if adapter.wait_topics_present(names, timeout_s=600, poll_s=1.0):
                raise SystemExit("topics have no leader after 10 minutes")
            producer = KafkaProducer(bootstrap_servers=cluster.bootstrap, acks=1, linger_ms=50)
            now = int(time.time() * 1000)
            for name in names:
                for p in range(args.partitions):
                    for r in range(args.records):
                        ts = now - (3 * DAY_MS * (args.records - r)) // args.records
                        producer.send(name, value=b"x" * 500, partition=p, timestamp_ms=ts)
            producer.flush(timeout=300)
            producer.close()
            print(f"set-up (not measured): {time.perf_counter() - started:.1f}s", flush=True)
            plan_once(adapter, directory, evidence=True)  # warm-up
            timed_wire(adapter)
            figures: dict[str, list[tuple[float, float, int]]] = {"without evidence": [], "with evidence": []}
            summary = None
            for i in range(args.runs):
                order = [False, True] if i % 2 == 0 else [True, False]
                for evidence in order:
                    seconds, cpu, requests, found = plan_once(adapter, directory, evidence=evidence)
                    name = "with evidence" if evidence else "without evidence"
                    figures[name].append((seconds, cpu, requests))
                    print(f"run {i + 1} {name}: {seconds:.2f}s (CPU {cpu:.2f}s), {requests} requests, "
                          f"load {os.getloadavg()[0]:.2f}")  # fmt: skip
                    summary = found if evidence else summary
            medians = {n: statistics.median(s for s, _, _ in runs) for n, runs in figures.items()}
            cpus = {n: statistics.median(c for _, c, _ in runs) for n, runs in figures.items()}
            for name, runs in figures.items():
                print(f"{name}: median {medians[name]:.2f}s, best {min(s for s, _, _ in runs):.2f}s, "
                      f"median CPU {cpus[name]:.2f}s, requests {sorted({r for _, _, r in runs})}")  # fmt: skip
            print(f"with / without evidence: {medians['with evidence'] / medians['without evidence']:.2f}x wall, "
                  f"{cpus['with evidence'] / cpus['without evidence']:.2f}x CPU")  # fmt: skip
            print(f"impact: {summary}")
            spent = ", ".join(f"{api} {t:.2f}s" for api, t in sorted(SPENT.items(), key=lambda i: -i[1]))
            print(f"time in requests over all runs: {spent} (total {sum(SPENT.values()):.2f}s)")
    finally:
        cluster.close()


if __name__ == "__main__":
    main()

"""Benchmark the entity bound of write requests: 1,000 topic creates and deletes in one request vs chunks, side by side.

Starts one KRaft node of the test harness (free ports) and, ``--runs`` times, for each request size in turn
(interleaved, so load drifts hit every size alike): creates ``--topics`` topics of ``--partitions`` partitions and
RF 1 through the adapter with write requests cut at that many topics (the entity bound of ``limits``), waits
until Metadata lists them all, then deletes them the same way and waits until they are gone. Prints, per run and
size, the requests sent and the wall times of create (requests answered), create + visible, delete (requests
answered), delete + gone; then the median of each and its ratio to one request. Asserts nothing.

    .venv/bin/python -m benchmarks.write_chunk_bench [--topics 1000] [--partitions 3] [--runs 3] [--sizes 50,100,200]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

from reconciler.kafka import limits
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import TopicSpec
from tests.kafka.cluster import KafkaCluster
from tests.kafka.kinds import single_node

FIGURES = ("create", "create+visible", "delete", "delete+gone")


def say(text: str) -> None:
    print(text, flush=True)


def one_trial(cluster: KafkaCluster, *, size: int, names: list[str], partitions: int) -> tuple[int, list[float]]:
    """Create then delete ``names`` in requests of at most ``size`` topics: (requests, [seconds per figure])."""
    specs = [TopicSpec(n, partitions=partitions, replication_factor=1) for n in names]
    saved = limits.MAX_ENTITIES_PER_REQUEST, limits.PROGRESS_STEP_ENTITIES
    limits.MAX_ENTITIES_PER_REQUEST = limits.PROGRESS_STEP_ENTITIES = size
    try:
        with KafkaAdapter(cluster.connection_settings(request_timeout_ms=120_000)) as adapter:
            adapter.reset_request_count()
            started = time.perf_counter()
            created = adapter.create_topics(specs)
            create = time.perf_counter() - started
            missing = adapter.wait_topics_present(names, timeout_s=300)
            visible = time.perf_counter() - started
            requests = adapter.request_counts.get("CreateTopics", 0)
            started = time.perf_counter()
            deleted = adapter.delete_topics(names)
            delete = time.perf_counter() - started
            left = adapter.wait_topics_absent(names, timeout_s=300)
            gone = time.perf_counter() - started
    finally:
        limits.MAX_ENTITIES_PER_REQUEST, limits.PROGRESS_STEP_ENTITIES = saved
    failed = [r.describe() for r in [*created, *deleted] if not r.ok]
    if failed or missing or left:
        say(f"  size {size}: {len(failed)} failed ({failed[:3]}), {len(missing)} not visible, {len(left)} left")
    return requests, [create, visible, delete, gone]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--partitions", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="50,100,200", help="chunk sizes besides one request of all topics")
    args = parser.parse_args()
    sizes = [args.topics, *(int(s) for s in args.sizes.split(","))]
    say(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()}, Python {platform.python_version()}")
    cluster = single_node()
    times: dict[int, list[list[float]]] = {s: [] for s in sizes}
    try:
        say(f"Kafka {cluster.version}, 1 KRaft node, {args.topics} topics x {args.partitions} partitions, RF 1")
        for run in range(1, args.runs + 1):
            for size in sizes:
                names = [f"wcb{run}s{size}t{i:04}" for i in range(args.topics)]
                requests, figures = one_trial(cluster, size=size, names=names, partitions=args.partitions)
                times[size].append(figures)
                shown = ", ".join(f"{k} {v:.2f}s" for k, v in zip(FIGURES, figures, strict=True))
                say(f"run {run} size {size:>5} ({requests:>3} CreateTopics): {shown}")
    finally:
        cluster.close()
    say(f"medians of {args.runs} runs (ratio to one request of {args.topics}); load after {os.getloadavg()}")
    base = [statistics.median(f[i] for f in times[args.topics]) for i in range(len(FIGURES))]
    for size in sizes:
        med = [statistics.median(f[i] for f in times[size]) for i in range(len(FIGURES))]
        shown = ", ".join(f"{k} {m:.2f}s (x{m / b:.2f})" for k, m, b in zip(FIGURES, med, base, strict=True))
        say(f"size {size:>5}: {shown}")


if __name__ == "__main__":
    main()

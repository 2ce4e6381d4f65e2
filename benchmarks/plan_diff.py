"""Measure the planner's diff: N topics x K configs, desired vs live, time and peak memory of ``plan()``.

Usage: ``python benchmarks/plan_diff.py [--topics 100000] [--configs 10] [--changed 0.01] [--repeat 3]``

Builds the inputs first (not measured), then runs ``plan()`` ``--repeat`` times and prints the best
and median wall time, and the peak memory that planning allocates (tracemalloc, separate run), plus
the process's maximum resident size. ``--changed`` is the fraction of topics whose live configs
differ. Prints figures only; asserts nothing.
"""

from __future__ import annotations

import argparse
import gc
import resource
import statistics
import time
import tracemalloc

from reconciler.model import desired as d
from reconciler.model import state as s
from reconciler.planner import plan

CONFIG_KEYS = (
    "retention.ms",
    "retention.bytes",
    "segment.bytes",
    "segment.ms",
    "cleanup.policy",
    "min.insync.replicas",
    "max.message.bytes",
    "compression.type",
    "message.timestamp.type",
    "delete.retention.ms",
    "min.compaction.lag.ms",
    "max.compaction.lag.ms",
)
VALUES = (
    "604800000",
    "-1",
    "1073741824",
    "604800000",
    "delete",
    "2",
    "1048588",
    "producer",
    "CreateTime",
    "86400000",
    "0",
    "9223372036854775807",
)


def build(topics: int, configs: int, changed: float) -> tuple[d.DesiredState, s.ClusterState]:
    keys = CONFIG_KEYS[:configs]
    values = VALUES[:configs]
    brokers = tuple(s.Broker(i, f"b{i}", 9092, f"rack-{i % 3}") for i in range(1, 7))
    every = int(1 / changed) if changed > 0 else 0
    wanted: dict[str, d.DesiredTopic] = {}
    live: dict[str, s.TopicState] = {}
    for i in range(topics):
        name = f"team-{i % 200}.events-{i:06d}"
        cfg = dict(zip(keys, values, strict=True))
        wanted[name] = d.DesiredTopic(name=name, partitions=6, replication_factor=3, configs=cfg)
        live_cfg = dict(cfg)
        if every and i % every == 0:
            live_cfg["retention.ms"] = "86400000"
        assignment = tuple(tuple(((p + r) % 6) + 1 for r in range(3)) for p in range(6))
        live[name] = s.TopicState(name=name, assignment=assignment, configs=live_cfg)
    desired_state = d.DesiredState(
        topics=wanted,
        ownership=d.Ownership(topics=(d.NamePattern("prefix", "team-"),)),
    )
    cluster = s.ClusterState(
        cluster_id="bench",
        controller_id=1,
        brokers=brokers,
        topics=live,
        cluster_configs={"min.insync.replicas": "2"},
    )
    return desired_state, cluster


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=100_000)
    parser.add_argument("--configs", type=int, default=10)
    parser.add_argument("--changed", type=float, default=0.01)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    t0 = time.perf_counter()
    desired_state, cluster = build(args.topics, args.configs, args.changed)
    print(
        f"inputs: {args.topics} topics x {args.configs} configs, {args.changed:.1%} changed "
        f"(built in {time.perf_counter() - t0:.2f} s)"
    )
    gc.collect()

    times = []
    cpu = []
    result = None
    for _ in range(args.repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = plan(desired_state, cluster)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        result = None
        gc.collect()

    tracemalloc.start()
    result = plan(desired_state, cluster)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert result is not None
    summary = result.summary()
    print(
        f"plan(): best {min(times):.3f} s, median {statistics.median(times):.3f} s over {args.repeat} run(s); "
        f"CPU best {min(cpu):.3f} s"
    )
    print(f"peak memory allocated while planning: {peak / 2**20:.1f} MiB (tracemalloc)")
    print(f"process max RSS (inputs included): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f} MiB")
    print(f"result: {summary.line()} unchanged={summary.unchanged} warnings={len(result.warnings)}")


if __name__ == "__main__":
    main()

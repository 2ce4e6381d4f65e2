"""Benchmark the size of write requests: one request per write, tenths of it, or sized by cost, side by side.

Starts one KRaft node of the test harness (free ports) and, ``--runs`` times, for each way of sizing requests in
turn (interleaved, so load drifts hit every way alike; the order rotates each run, so none always follows another's
deletes): creates ``--topics`` topics of ``--partitions`` partitions and RF 1 through the adapter, waits until
Metadata lists them all, sets ``retention.ms`` on ``--configs`` of them (IncrementalAlterConfigs), then deletes the
topics and waits until they are gone. The ways:

* ``one``: as few requests as the controller's limits allow (10,000 records, 5,000 entities);
* ``tenths``: requests of a tenth of the write, at least 100 entities (the rule before sizing by cost);
* ``cost``: the shipped rule (``limits``: the first request at most ``FIRST_REQUEST_RECORDS`` records, each later one
  what the controller answers in ``ANSWER_EVERY_S`` at the rate it answered the one before).

Prints, per run and way, the requests sent and the wall times of create (answered), create + visible, configs
(answered), delete (answered) and delete + gone, with the load average; then the median of each and its ratio to
``one``, and the median of the per-run ratios (each run's ways ran next to each other). Asserts nothing.

    .venv/bin/python -m benchmarks.write_chunk_bench [--topics 1000] [--partitions 3] [--configs 500] [--runs 3]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import statistics
import time
from collections.abc import Iterator

from reconciler.kafka import limits
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import TopicSpec
from reconciler.model import payloads
from tests.kafka.cluster import KafkaCluster
from tests.kafka.kinds import single_node

FIGURES = ("create", "create+visible", "configs", "delete", "delete+gone")
WAYS = ("one", "tenths", "cost")


def say(text: str) -> None:
    print(text, flush=True)


@contextlib.contextmanager
def sized(way: str, count: int) -> Iterator[None]:
    """``limits`` set to size requests the ``way`` named, for writes of about ``count`` entities."""
    saved = limits.FIRST_REQUEST_RECORDS, limits.MAX_ENTITIES_PER_REQUEST
    if way == "one":
        limits.FIRST_REQUEST_RECORDS = limits.MAX_RECORDS_PER_REQUEST
    elif way == "tenths":
        limits.FIRST_REQUEST_RECORDS = limits.MAX_RECORDS_PER_REQUEST
        limits.MAX_ENTITIES_PER_REQUEST = max(100, -(-count // 10))
    try:
        yield
    finally:
        limits.FIRST_REQUEST_RECORDS, limits.MAX_ENTITIES_PER_REQUEST = saved


def one_trial(
    cluster: KafkaCluster, *, way: str, names: list[str], partitions: int, configs: int
) -> tuple[dict[str, int], list[float]]:
    """Create, change configs of, then delete ``names``: (requests per API, [seconds per figure])."""
    specs = [TopicSpec(n, partitions=partitions, replication_factor=1) for n in names]
    changes = {
        ("TOPIC", n): [payloads.ConfigOp("retention.ms", payloads.ConfigAction.SET, "86400000")]
        for n in names[:configs]
    }
    with KafkaAdapter(cluster.connection_settings(request_timeout_ms=120_000)) as adapter:
        adapter.reset_request_count()
        with sized(way, len(names)):
            started = time.perf_counter()
            created = adapter.create_topics(specs)
            create = time.perf_counter() - started
            missing = adapter.wait_topics_present(names, timeout_s=300)
            visible = time.perf_counter() - started
        with sized(way, configs):
            started = time.perf_counter()
            altered = adapter.incremental_alter_configs(changes)
            config = time.perf_counter() - started
        with sized(way, len(names)):
            started = time.perf_counter()
            deleted = adapter.delete_topics(names)
            delete = time.perf_counter() - started
            left = adapter.wait_topics_absent(names, timeout_s=300)
            gone = time.perf_counter() - started
        counts = {api: n for api, n in adapter.request_counts.items() if api != "Metadata"}
    failed = [r.describe() for r in [*created, *altered, *deleted] if not r.ok]
    if failed or missing or left:
        say(f"  {way}: {len(failed)} failed ({failed[:3]}), {len(missing)} not visible, {len(left)} left")
    return counts, [create, visible, config, delete, gone]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--partitions", type=int, default=3)
    parser.add_argument("--configs", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    say(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()}, Python {platform.python_version()}")
    cluster = single_node()
    times: dict[str, list[list[float]]] = {w: [] for w in WAYS}
    try:
        say(f"Kafka {cluster.version}, 1 KRaft node, {args.topics} topics x {args.partitions} partitions, RF 1")
        for run in range(1, args.runs + 1):
            order = WAYS[run % len(WAYS) :] + WAYS[: run % len(WAYS)]
            for way in order:
                names = [f"wcb{run}{way}t{i:04}" for i in range(args.topics)]
                counts, figures = one_trial(
                    cluster, way=way, names=names, partitions=args.partitions, configs=args.configs
                )
                times[way].append(figures)
                shown = ", ".join(f"{k} {v:.2f}s" for k, v in zip(FIGURES, figures, strict=True))
                load = os.getloadavg()[0]
                say(f"run {run} {way:>6} (load {load:.1f}; {dict(sorted(counts.items()))}): {shown}")
    finally:
        cluster.close()
    say(f"medians of {args.runs} runs (ratio to one request); load after {os.getloadavg()}")
    base = [statistics.median(f[i] for f in times["one"]) for i in range(len(FIGURES))]
    for way in WAYS:
        med = [statistics.median(f[i] for f in times[way]) for i in range(len(FIGURES))]
        paired = [
            statistics.median(mine[i] / one[i] for mine, one in zip(times[way], times["one"], strict=True))
            for i in range(len(FIGURES))
        ]
        shown = ", ".join(
            f"{k} {m:.2f}s (x{m / b:.2f}; per run x{p:.2f})"
            for k, m, b, p in zip(FIGURES, med, base, paired, strict=True)
        )
        say(f"{way:>6}: {shown}")


if __name__ == "__main__":
    main()

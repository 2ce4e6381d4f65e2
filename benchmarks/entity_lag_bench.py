"""Measure how long after its write a group config and a client-metrics subscription show on a broker, right after a
large create, on a real broker.

A broker applies the controller's metadata records in order: a config written after many new partitions shows in
DescribeConfigs only once the broker has created those partitions' logs. Starts one KRaft node of the test harness
and, ``--runs`` times on fresh names: creates ``--topics`` topics of ``--partitions`` partitions (100 per request),
then writes one group config and one client-metrics subscription (IncrementalAlterConfigs, answered by the
controller), and reads each back every 0.2 s (the read-back's targeted read) until it shows. Prints, per run, the
create's time and how long after its write each config showed. Asserts nothing.

    .venv/bin/python -m benchmarks.entity_lag_bench [--topics 300] [--partitions 12] [--runs 1]
"""

from __future__ import annotations

import argparse
import os
import time
import uuid

from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import TopicSpec
from reconciler.model import payloads, state
from reconciler.model.kinds import Kind
from tests.kafka.kinds import single_node

WRITES = {  # kind -> (resource type, key, value)
    Kind.GROUP_CONFIG: ("GROUP", "consumer.session.timeout.ms", "50000"),
    Kind.CLIENT_METRICS: ("CLIENT_METRICS", "interval.ms", "60000"),
}


def shown_after(adapter: KafkaAdapter, kind: Kind, name: str, written_at: float, *, limit_s: float = 600) -> float:
    """Seconds from ``written_at`` until the read-back's read of ``name`` shows the value written."""
    _, key, value = WRITES[kind]
    scope = state.ReadScope(
        group_configs=frozenset({name}) if kind is Kind.GROUP_CONFIG else frozenset(),
        client_metrics=frozenset({name}) if kind is Kind.CLIENT_METRICS else frozenset(),
    )
    while time.monotonic() - written_at < limit_s:
        live = adapter.read_state(kinds=frozenset({kind}), scope=scope)
        section = (live.group_configs if kind is Kind.GROUP_CONFIG else live.client_metrics) or {}
        if section.get(name, {}).get(key) == value:
            return time.monotonic() - written_at
        time.sleep(0.2)
    return float("inf")


def run(adapter: KafkaAdapter, args: argparse.Namespace, number: int) -> None:
    prefix = f"lag-{uuid.uuid4().hex[:6]}-"
    specs = [TopicSpec(f"{prefix}t{i:05}", args.partitions, 1, None, {}) for i in range(args.topics)]
    started = time.monotonic()
    for i in range(0, len(specs), 100):
        failed = [r for r in adapter.create_topics(specs[i : i + 100]) if not r.ok]
        if failed:
            raise SystemExit(f"create failed: {failed[0].describe()}")
    created_s = time.monotonic() - started
    changes = {
        (rtype, f"{prefix}{kind.value}"): [payloads.ConfigOp.set(key, value)]
        for kind, (rtype, key, value) in WRITES.items()
    }
    failed = [r for r in adapter.incremental_alter_configs(changes) if not r.ok]
    if failed:
        raise SystemExit(f"config write failed: {failed[0].describe()}")
    written_at = time.monotonic()
    lags = {kind: shown_after(adapter, kind, f"{prefix}{kind.value}", written_at) for kind in WRITES}
    print(
        f"run {number}: {args.topics} topics x {args.partitions} partitions created in {created_s:.1f} s; "
        + "; ".join(f"{kind.value} shown {lag:.1f} s after its write" for kind, lag in lags.items())
        + f"; load {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--topics", type=int, default=300)
    parser.add_argument("--partitions", type=int, default=12)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()}", flush=True)
    cluster = single_node()
    try:
        print(f"Kafka {cluster.version}, one KRaft node, {cluster.bootstrap}", flush=True)
        with KafkaAdapter(cluster.connection_settings(request_timeout_ms=120_000)) as adapter:
            for number in range(1, args.runs + 1):
                run(adapter, args, number)
    finally:
        cluster.close()


if __name__ == "__main__":
    main()

"""Generate the fleet benchmark's inputs once: manifest sets, live snapshots (JSON and Parquet), fleet files.

Usage: ``python benchmarks/fleet_snapshots.py [--clusters 200] [--topics 5000] [--configs 10] [--acls 1000]
[--sets 4] [--cache .cache/fleet-bench]``

Writes under ``<cache>/<topics>x<configs>x<acls>/``: ``manifests/set-<k>/`` (``--sets`` manifest sets, each
with an Ownership, ``--topics`` Topic documents of ``--configs`` configs and an Acl document of ``--acls``
bindings; cluster ``c`` uses set ``c % sets``), ``snapshots/cluster-<c>.json`` and ``.parquet`` (the set's
state with drift: 1% of topics with another retention, 0.2% missing, 5 undeclared owned topics, 1% of
the ACLs missing and 5 undeclared ones) and ``fleet-<n>-<format>.yaml`` for n in 10, 50, ``--clusters``.
Files already there are kept, so the first run pays for the generation and later runs reuse it.
Prints what it generated and how long it took; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reconciler import operations  # noqa: E402
from reconciler.fleet import sources  # noqa: E402
from reconciler.model import desired as d  # noqa: E402
from reconciler.model import state as s  # noqa: E402
from reconciler.snapshot import files  # noqa: E402

CONFIGS = (
    ("retention.ms", ("604800000", "86400000", "259200000")),
    ("cleanup.policy", ("delete", "compact")),
    ("min.insync.replicas", ("2",)),
    ("segment.bytes", ("1073741824", "536870912")),
    ("max.message.bytes", ("1048588", "2097152")),
    ("compression.type", ("producer", "zstd", "lz4")),
    ("message.timestamp.type", ("CreateTime", "LogAppendTime")),
    ("delete.retention.ms", ("86400000",)),
    ("segment.ms", ("604800000", "3600000")),
    ("retention.bytes", ("-1", "1073741824")),
    ("min.compaction.lag.ms", ("0", "60000")),
    ("max.compaction.lag.ms", ("9223372036854775807",)),
)
SIZES = (10, 50)


def topic_name(i: int) -> str:
    return f"bench.t{i:05d}"


def write_manifests(directory: Path, *, set_index: int, topics: int, configs: int, acls: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    out = [
        "apiVersion: kafka-reconciler/v1\nkind: Ownership\nmetadata: {name: bench}\nspec:\n"
        "  topics: [{prefix: bench.}]\n  principals: [{prefix: 'User:bench-'}]\n"
        "  delete: {topic: true, acl: true}\n"
    ]
    for i in range(topics):
        lines = [f"apiVersion: kafka-reconciler/v1\nkind: Topic\nmetadata: {{name: {topic_name(i)}}}\nspec:"]
        lines.append("  partitions: 6\n  replicationFactor: 3\n  configs:")
        for k, (key, values) in enumerate(CONFIGS[:configs]):
            lines.append(f"    {key}: '{values[(i + k + set_index) % len(values)]}'")
        out.append("\n".join(lines) + "\n")
    bindings = []
    for j in range(acls):
        op = "READ" if j % 2 else "WRITE"
        bindings.append(
            f"    - {{principal: 'User:bench-app{j % 97}', operation: {op}, resourceType: TOPIC, "
            f"resourceName: {topic_name(j % max(topics, 1))}}}"
        )
    if bindings:
        out.append(
            "apiVersion: kafka-reconciler/v1\nkind: Acl\nmetadata: {name: bench}\nspec:\n  bindings:\n"
            + "\n".join(bindings)
            + "\n"
        )
    (directory / "manifests.yaml").write_text("---\n".join(out), encoding="utf-8")


def live_state(wanted: d.DesiredState, *, cluster: int) -> s.ClusterState:
    rng = random.Random(cluster)
    brokers = tuple(s.Broker(b, f"broker-{b}", 9092, f"rack-{b % 3}") for b in range(1, 7))
    topics: dict[str, s.TopicState] = {}
    for name, t in wanted.topics.items():
        roll = rng.random()
        if roll < 0.002:
            continue  # missing: the plan creates it
        configs: dict[str, str | None] = dict(t.configs)
        if roll < 0.012:
            configs["retention.ms"] = "1000"  # drifted
        layout = tuple(tuple((p + r) % 6 + 1 for r in range(t.replication_factor)) for p in range(t.partitions))
        topics[name] = s.TopicState(name=name, assignment=layout, configs=configs, topic_id=f"id-{cluster}-{name}")
    for k in range(5):
        topics[f"bench.extra{k}"] = s.TopicState(name=f"bench.extra{k}", assignment=((1, 2, 3),))
    topics["__consumer_offsets"] = s.TopicState("__consumer_offsets", ((1, 2, 3),) * 50, internal=True)
    acl_list = [b for b in wanted.acls if rng.random() >= 0.01]
    acl_list += [
        s.AclBinding("TOPIC", "LITERAL", f"bench.t{k:05d}", "User:bench-rogue", "*", "ALL", "ALLOW") for k in range(5)
    ]
    return s.ClusterState(
        cluster_id=f"cluster-{cluster}",
        controller_id=1,
        brokers=brokers,
        topics=topics,
        acls=frozenset(acl_list),
        quotas={},
        scram_users={},
        broker_configs={},
        cluster_configs={"min.insync.replicas": "2"},
    )


def write_fleet(path: Path, *, clusters: int, sets: int, fmt: str) -> None:
    lines = ["clusters:"]
    for c in range(clusters):
        snapshot = f"snapshots/cluster-{c:04d}.{fmt}"
        lines.append(f"  - {{name: cluster-{c:04d}, manifests: manifests/set-{c % sets}, snapshot: {snapshot}}}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def generate(*, cache: Path, clusters: int, topics: int, configs: int, acls: int, sets: int) -> Path:
    """Generate what is missing; returns the data directory."""
    root = cache / f"{topics}x{configs}x{acls}"
    (root / "snapshots").mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    made = 0
    wanted: dict[int, d.DesiredState] = {}
    for k in range(sets):
        directory = root / "manifests" / f"set-{k}"
        if not (directory / "manifests.yaml").exists():
            write_manifests(directory, set_index=k, topics=topics, configs=configs, acls=acls)
    for c in range(clusters):
        json_path = root / "snapshots" / f"cluster-{c:04d}.json"
        parquet_path = json_path.with_suffix(".parquet")
        if json_path.exists() and parquet_path.exists():
            continue
        k = c % sets
        if k not in wanted:
            wanted[k] = operations.load_manifests([root / "manifests" / f"set-{k}"], env={}).desired
        live = live_state(wanted[k], cluster=c)
        files.write_snapshot(live, json_path)
        sources.write_parquet_snapshot(live, parquet_path)
        made += 1
    for n in (*SIZES, clusters):
        for fmt in ("json", "parquet"):
            write_fleet(root / f"fleet-{n}-{fmt}.yaml", clusters=min(n, clusters), sets=sets, fmt=fmt)
    json_mb = sum(p.stat().st_size for p in (root / "snapshots").glob("*.json")) / 1e6
    parquet_mb = sum(p.stat().st_size for p in (root / "snapshots").glob("*.parquet")) / 1e6
    print(
        f"fleet snapshots in {root}: {clusters} clusters "
        f"({made} generated now in {time.perf_counter() - started:.1f} s), "
        f"{topics} topics x {configs} configs + {acls} ACLs each; JSON {json_mb:.0f} MB, Parquet {parquet_mb:.0f} MB"
    )
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=200)
    parser.add_argument("--topics", type=int, default=5000)
    parser.add_argument("--configs", type=int, default=10)
    parser.add_argument("--acls", type=int, default=1000)
    parser.add_argument("--sets", type=int, default=4)
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache" / "fleet-bench")
    args = parser.parse_args()
    generate(
        cache=args.cache,
        clusters=args.clusters,
        topics=args.topics,
        configs=args.configs,
        acls=args.acls,
        sets=args.sets,
    )


if __name__ == "__main__":
    main()

"""The input of the impact golden renders: one plan with every kind of impact, computed from read evidence.

Three brokers. ``shop.orders`` shrinks its retention from 7 days to 1 day (two of its four partitions hold older
records); ``shop.ledger`` switches from compact to delete; ``shop.audit`` raises min.insync.replicas to 3 while
partition 1 has two in-sync replicas; ``shop.clicks`` goes from replication factor 2 to 3; ``shop.events`` doubles
its partitions while a consumer group reads it; ``shop.big`` lowers max.message.bytes; ``shop.legacy`` is deleted.
"""

from __future__ import annotations

from reconciler.model import desired as d
from reconciler.model import impact as im
from reconciler.model import plans
from reconciler.model import state as s
from reconciler.model.kinds import Kind
from reconciler.planner import plan

NOW = 1_795_000_000_000
DAY = 86_400_000
GB = 10**9
BROKERS = tuple(s.Broker(i, f"kafka-{i}.internal", 9092, f"eu-west-1{'abc'[i - 1]}") for i in (1, 2, 3))


def _rr(partitions: int, rf: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple((p + r) % 3 + 1 for r in range(rf)) for p in range(partitions))


def desired_state() -> d.DesiredState:
    src = d.Source("manifests/shop.yaml", 1, 3)
    topics = [
        d.DesiredTopic("shop.orders", 4, 3, {"retention.ms": str(DAY)}, None, src),
        d.DesiredTopic("shop.ledger", 2, 3, {"cleanup.policy": "delete"}, None, src),
        d.DesiredTopic("shop.audit", 3, 3, {"min.insync.replicas": "3"}, None, src),
        d.DesiredTopic("shop.clicks", 3, 3, {}, None, src),
        d.DesiredTopic("shop.events", 8, 3, {}, None, src),
        d.DesiredTopic("shop.big", 1, 3, {"max.message.bytes": "65536"}, None, src),
    ]
    return d.DesiredState(
        topics={t.name: t for t in topics},
        ownership=d.Ownership(topics=(d.NamePattern("prefix", "shop."),), delete={Kind.TOPIC: True}),
    )


def _partitions(
    assignment: tuple[tuple[int, ...], ...],
    offsets: list[tuple[int, int, int]],
    size: int,
    *,
    isr: dict[int, int] | None = None,
) -> tuple[im.PartitionEvidence, ...]:
    out = []
    for p, (replicas, (earliest, end, at_cutoff)) in enumerate(zip(assignment, offsets, strict=True)):
        keep = (isr or {}).get(p, len(replicas))
        out.append(
            im.PartitionEvidence(
                replicas[0], replicas, replicas[:keep], earliest, end, at_cutoff, {b: size for b in replicas}
            )
        )
    return tuple(out)


def live_state() -> s.ClusterState:
    topics = [
        s.TopicState("shop.orders", _rr(4, 3), configs={"retention.ms": str(7 * DAY)}),
        s.TopicState("shop.ledger", _rr(2, 3), configs={"cleanup.policy": "compact"}),
        s.TopicState("shop.audit", _rr(3, 3)),
        s.TopicState("shop.clicks", _rr(3, 2)),
        s.TopicState("shop.events", _rr(4, 3)),
        s.TopicState("shop.big", _rr(1, 3)),
        s.TopicState("shop.legacy", _rr(2, 3)),
    ]

    def ev(name: str, offsets: list[tuple[int, int, int]], size: int, **kw: object) -> im.TopicEvidence:
        live = {t.name: t for t in topics}[name]
        retention = kw.pop("retention_ms", None)
        return im.TopicEvidence(
            partitions=_partitions(live.assignment, offsets, size, **kw),  # type: ignore[arg-type]
            retention_ms=retention,  # type: ignore[arg-type]
            cutoff_ms=None if retention is None else NOW - int(retention),  # type: ignore[call-overload]
            sizes_read=True,
            offsets_read=True,
        )

    evidence = im.ImpactEvidence(
        topics={
            "shop.orders": ev(
                "shop.orders",
                [(0, 4_000_000, 1_000_000), (0, 4_000_000, -1), (0, 4_000_000, 0), (0, 0, -1)],
                12 * GB,
                retention_ms=DAY,
            ),
            "shop.ledger": ev("shop.ledger", [(0, 900_000, 600_000), (0, 900_000, 0)], 3 * GB, retention_ms=7 * DAY),
            "shop.audit": ev("shop.audit", [(0, 10, -1)] * 3, 10**6, isr={1: 2}),
            "shop.clicks": ev("shop.clicks", [(0, 10, -1)] * 3, 137 * GB),
            "shop.events": ev("shop.events", [(0, 500, -1)] * 4, 10**8),
            "shop.big": ev("shop.big", [(0, 10, -1)], 10**6),
            "shop.legacy": ev("shop.legacy", [(0, 250_000, -1), (0, 250_000, -1)], 2 * GB),
        },
        read_at_ms=NOW,
    )
    return s.ClusterState(
        cluster_id="Zx4kq1bETKu0nLwq9XqA2w",
        controller_id=1,
        brokers=BROKERS,
        topics={t.name: t for t in topics},
        cluster_configs={"min.insync.replicas": "2"},
        topic_usage={
            "shop.events": s.TopicUsage((500, 500, 500, 500), NOW - 1000, ("shop-fulfilment",), NOW),
            "shop.legacy": s.TopicUsage((250_000, 250_000), NOW - 60 * DAY, (), NOW),
        },
        impact=evidence,
    )


def impact_plan() -> plans.Plan:
    return plan(desired_state(), live_state())

"""Cluster and topic lint: risky settings reported as plan warnings (error severity blocks apply).

Checks: ``auto.create.topics.enable=true`` on the cluster; a declared replication factor below
``min.insync.replicas + 1`` (the topic's own value, else the cluster's, else Kafka's default 1);
a replication factor above the broker count (error); partitions whose replicas all sit on one rack
while the cluster spans several racks (for live topics the plan does not reassign, and for
reassignment targets).
"""

from __future__ import annotations

from reconciler import desired, plan, state
from reconciler.planner import common, views


def _min_isr(ctx: common.Context, topic: desired.DesiredTopic, live: state.TopicState | None) -> int | None:
    raw = topic.configs.get("min.insync.replicas")
    if raw is None and live is not None:
        raw = live.configs.get("min.insync.replicas")
    if raw is None:
        raw = ctx.live.cluster_configs.get("min.insync.replicas")
    try:
        return int(raw) if raw is not None else 1
    except ValueError:
        return None


def lint(ctx: common.Context) -> None:
    """Add lint warnings to ``ctx`` (call after the per-kind planners: it reads their changes)."""
    auto_create = ctx.live.cluster_configs.get("auto.create.topics.enable")
    if auto_create is not None and auto_create.strip().lower() == "true":
        ctx.warn(
            "auto.create.topics.enable is true: clients can create topics outside the manifests "
            "(a typo in a producer creates a topic with broker defaults)",
            code="auto-create-enabled",
        )
    brokers = ctx.live.brokers
    racks = {b.id: b.rack for b in brokers}
    multi_rack = len({r for r in racks.values() if r is not None}) > 1
    targets = {
        c.name: c.after["assignment"]
        for c in ctx.changes
        if c.kind == desired.KIND_TOPIC and c.phase is plan.Phase.REASSIGN and c.action is plan.Action.UPDATE
    }
    live_topics = ctx.live.topics or {}
    for name in sorted(ctx.desired.topics):
        topic = ctx.desired.topics[name]
        addr = views.address(desired.KIND_TOPIC, name)
        rf = topic.replication_factor
        if brokers and rf > len(brokers):
            ctx.warn(
                f"topic {name}: replication factor {rf} exceeds the {len(brokers)} broker(s) in the cluster",
                code="replication-factor-exceeds-brokers",
                address=addr,
                severity="error",
            )
        live = live_topics.get(name)
        min_isr = _min_isr(ctx, topic, live)
        if min_isr is not None and rf < min_isr + 1:
            consequence = (
                "producers with acks=all are always refused"
                if rf < min_isr
                else "producers with acks=all are refused while any one replica is down"
            )
            ctx.warn(
                f"topic {name}: replication factor {rf} is below min.insync.replicas {min_isr} + 1; {consequence}",
                code="replication-below-min-isr",
                address=addr,
            )
        if not multi_rack or rf < 2:
            continue
        layout = targets.get(name)
        if layout is None and live is not None:
            layout = live.assignment
        if not layout:
            continue
        single = sum(1 for r in layout if len(r) > 1 and len({racks.get(b) for b in r}) == 1)
        if single:
            ctx.warn(
                f"topic {name}: {single} of {len(layout)} partition(s) have all replicas on one rack; "
                "a rack outage takes them offline",
                code="single-rack",
                address=addr,
            )

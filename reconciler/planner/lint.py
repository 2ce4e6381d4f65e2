"""Cluster and topic lint: risky settings reported as plan warnings.

Checks: ``auto.create.topics.enable=true`` on the cluster; a declared replication factor below
``min.insync.replicas + 1`` (the topic's own value, else the cluster's, else Kafka's default 1);
partitions whose replicas all sit on one rack while the cluster spans several racks (for live topics the
plan does not reassign, for reassignment targets, and for the declared ``replicaAssignment``
of topics the plan creates).
"""

from __future__ import annotations

from typing import Any

from reconciler.model import payloads, plans
from reconciler.model.kinds import Kind
from reconciler.planner import common, views


def _parse_int(raw: str | None, *, default: int | None) -> int | None:
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        return None


def lint(ctx: common.Context) -> None:
    """Add lint warnings to ``ctx`` (call after the per-kind planners: it reads their changes)."""
    _warn_auto_create(ctx)
    brokers = ctx.live.brokers
    racks = {b.id: b.rack for b in brokers}
    multi_rack = len({r for r in racks.values() if r is not None}) > 1
    targets = {
        c.name: c.after.assignment
        for c in ctx.changes
        if isinstance(c.after, payloads.TopicPayload)
        and c.phase is plans.Phase.REASSIGN
        and c.action is plans.Action.UPDATE
    }
    live_topics = ctx.live.topics or {}
    cluster_min_isr = _parse_int(ctx.live.cluster_configs.get("min.insync.replicas"), default=1)
    single_rack = _SingleRack(racks) if multi_rack else None
    isr_key = "min.insync.replicas"
    parsed: dict[str, int | None] = {}
    below_isr: dict[tuple[int, int], list[str]] = {}
    for name, topic in ctx.desired.topics.items():
        rf = topic.replication_factor
        live = live_topics.get(name)
        raw = topic.configs.get(isr_key)
        if raw is None and live is not None:
            raw = live.configs.get(isr_key)
        min_isr = cluster_min_isr if raw is None else _parsed_once(raw, parsed=parsed)
        if min_isr is not None and rf <= min_isr:
            below_isr.setdefault((rf, min_isr), []).append(name)
        if single_rack is None or rf < 2:
            continue
        layout = targets.get(name)
        if layout is None:
            # a live topic the plan does not reassign keeps its layout; a new one gets the declared one, if any
            layout = live.assignment if live is not None else topic.assignment
        single = single_rack.count(layout) if layout else 0
        if single:
            ctx.warn(
                f"topic {name}: {single} of {len(layout or ())} partition(s) have all replicas on one rack; "
                "a rack outage takes them offline",
                code="single-rack",
                address=views.address(Kind.TOPIC, name),
            )
    _warn_below_isr(ctx, below_isr)


def _warn_auto_create(ctx: common.Context) -> None:
    auto_create = ctx.live.cluster_configs.get("auto.create.topics.enable")
    if auto_create is not None and auto_create.strip().lower() == "true":
        ctx.warn(
            "auto.create.topics.enable is true: clients can create topics outside the manifests "
            "(a typo in a producer creates a topic with broker defaults)",
            code="auto-create-enabled",
        )


def _parsed_once(raw: str, *, parsed: dict[str, int | None]) -> int | None:
    """``raw`` as an integer (``None`` if it is not one), parsed once per distinct text: most topics share few."""
    if raw not in parsed:
        parsed[raw] = _parse_int(raw, default=None)
    return parsed[raw]


def _warn_below_isr(ctx: common.Context, below: dict[tuple[int, int], list[str]]) -> None:
    """One warning per topic, or one per (replication factor, min.insync.replicas) pair past a few topics."""
    for (rf, min_isr), names in sorted(below.items()):
        if rf < min_isr:
            relation = f"below min.insync.replicas {min_isr}"
            consequence = "producers with acks=all are always refused"
        else:
            relation = f"equal to min.insync.replicas {min_isr}"
            consequence = "producers with acks=all are refused while any one replica is down"
        if len(names) <= _BELOW_ISR_EACH:
            for name in names:
                ctx.warn(
                    f"topic {name}: replication factor {rf} is {relation}; {consequence}",
                    code="replication-below-min-isr",
                    address=views.address(Kind.TOPIC, name),
                )
            continue
        ordered = sorted(names)
        shown = ", ".join(ordered[:_BELOW_ISR_EACH])
        ctx.warn(
            f"{len(names)} topics have replication factor {rf}, {relation} "
            f"({shown} and {len(names) - _BELOW_ISR_EACH} more); {consequence}",
            code="replication-below-min-isr",
        )


# Past this many topics with the same replication factor and min.insync.replicas, one warning names them all.
_BELOW_ISR_EACH = 3


class _SingleRack:
    """Counts partitions whose replicas share one rack; results are remembered per replica list."""

    def __init__(self, racks: dict[int, str | None]) -> None:
        self._racks = racks
        self._partitions: dict[tuple[int, ...], bool] = {}
        self._layouts: dict[Any, int] = {}

    def count(self, layout: Any) -> int:
        key = layout if isinstance(layout, tuple) else None
        if key is not None and key in self._layouts:
            return self._layouts[key]
        total = 0
        for replicas in layout:
            r = tuple(replicas)
            found = self._partitions.get(r)
            if found is None:
                found = self._partitions[r] = len(r) > 1 and len({self._racks.get(b) for b in r}) == 1
            total += found
        if key is not None:
            self._layouts[key] = total
        return total

"""Brokers that are down: named in replica assignments, absent from Metadata's live brokers.

A broker that is stopped, crashed or fenced is not in Metadata's broker list, but the replicas assigned to it stay
in every topic's assignment. The planner tells that apart from a cluster that is too small:

* a declared topic that exists with replicas on a down broker keeps its layout and gets a ``brokers-down``
  warning naming the broker(s) and its under-replicated partitions; nothing else is blocked by it;
* a change that needs more live brokers than there are (a create, a partition add or a replication factor change
  whose replication factor exceeds the live brokers) is blocked with ``placement_problem``'s reason, which names
  the down brokers when they are the cause;
* a reassignment of a topic with replicas on a down broker is blocked too: the target would move replicas off a
  broker that may only be restarting.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from reconciler.model import state
from reconciler.model.kinds import Kind
from reconciler.planner import common, views

# Past this many topics with replicas on down brokers, one warning names the first few and counts the rest.
_EACH = 3
_PARTITIONS_SHOWN = 10


def down_brokers(live: state.ClusterState) -> frozenset[int]:
    """Broker ids that hold replicas of a live topic but are not live (empty when the live brokers are unknown)."""
    live_ids = {b.id for b in live.brokers}
    if not live_ids or not live.topics:
        return frozenset()
    named: set[int] = set()
    seen: set[tuple[tuple[int, ...], ...]] = set()
    for topic in live.topics.values():
        if topic.assignment in seen:
            continue
        seen.add(topic.assignment)
        for replicas in topic.assignment:
            named.update(replicas)
    return frozenset(named - live_ids)


def _ids(brokers: Iterable[int]) -> str:
    return ", ".join(str(b) for b in sorted(brokers))


def placement_problem(rf: int, *, live_ids: set[int], down: frozenset[int]) -> str | None:
    """Why ``rf`` replicas cannot be placed on the live brokers (``None`` when they can, or the brokers are unknown)."""
    if not live_ids or rf <= len(live_ids):
        return None
    if rf <= len(live_ids) + len(down):
        return (
            f"replication factor {rf} needs {rf} live brokers, but only {len(live_ids)} are live: broker(s) "
            f"{_ids(down)} are down (replicas are assigned to them, Metadata does not list them); "
            "this change waits until they are back"
        )
    return f"replication factor {rf} exceeds the {len(live_ids)} broker(s) in the cluster"


def stranded(topic: state.TopicState, down: frozenset[int]) -> list[int]:
    """The partitions of ``topic`` with a replica on a down broker."""
    if not down:
        return []
    return [p for p, replicas in enumerate(topic.assignment) if not down.isdisjoint(replicas)]


def reassign_problem(topic: state.TopicState, down: frozenset[int]) -> str | None:
    """Why a reassignment of ``topic`` waits: some of its replicas are on down brokers."""
    hit = stranded(topic, down)
    if not hit:
        return None
    on = sorted(down.intersection(b for p in hit for b in topic.assignment[p]))
    return (
        f"{len(hit)} partition(s) have replicas on broker(s) {_ids(on)}, which are down: a reassignment now would "
        "move replicas off a broker that may only be restarting; this change waits until they are back"
    )


def warn_down(ctx: common.Context, down: frozenset[int], live_topics: Mapping[str, state.TopicState]) -> None:
    """A ``brokers-down`` warning per declared topic with replicas on a down broker (one summary past a few)."""
    if not down:
        return
    hit: list[tuple[str, list[int], list[int]]] = []
    for name in sorted(ctx.desired.topics):
        topic = live_topics.get(name)
        if topic is None:
            continue
        parts = stranded(topic, down)
        if parts:
            on = sorted(down.intersection(b for p in parts for b in topic.assignment[p]))
            hit.append((name, parts, on))
    if not hit:
        return
    if len(hit) <= _EACH:
        for name, parts, on in hit:
            shown = ", ".join(map(str, parts[:_PARTITIONS_SHOWN])) + (" ..." if len(parts) > _PARTITIONS_SHOWN else "")
            ctx.warn(
                f"topic {name}: broker(s) {_ids(on)} down (not live, replicas assigned): {len(parts)} of "
                f"{len(live_topics[name].assignment)} partition(s) under-replicated (partition(s) {shown}); the "
                "topic keeps its layout, changes that need those brokers wait",
                code="brokers-down",
                address=views.address(Kind.TOPIC, name),
            )
        return
    total = sum(len(parts) for _, parts, _ in hit)
    names = ", ".join(name for name, _, _ in hit[:_EACH])
    ctx.warn(
        f"broker(s) {_ids(down)} down (not live, replicas assigned): {total} partition(s) of {len(hit)} declared "
        f"topics under-replicated ({names} and {len(hit) - _EACH} more); the topics keep their layout, changes that "
        "need those brokers wait",
        code="brokers-down",
    )

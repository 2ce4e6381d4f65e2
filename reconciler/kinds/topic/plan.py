"""The topic kind's planner (its ``plan`` and ``usage_topics`` parts): create, partitions, replication factor and
assignment, configs, delete.

One topic can produce one change per phase (``PARTITIONS``, ``TOPIC_CONFIG``, ``REASSIGN``), all
sharing the address ``topic/<name>`` and the fingerprint of the live topic. Unchanged topics are
only counted, so a plan over 100,000 topics stays small. The topics' part of a plan's scope and of the live
fingerprint is ``scope``; down brokers are ``outage``'s, a computed reassignment target ``assignment``'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from reconciler.kinds.topic import assignment, outage, usage
from reconciler.model import configs, deletion, desired, payloads, plans, shown, state
from reconciler.model import views as model_views
from reconciler.model.kinds import Kind
from reconciler.planner import common, guards, views

# Topics run by Kafka itself or by well-known tools around it (``guards.INTERNAL_TOPIC_PATTERNS``). When
# undeclared they are never deleted, reset or listed, whatever the ownership rules say; a declared one is
# created or changed only when its manifest allows it (``allowInternal: true``).
is_internal = guards.is_internal


def _configs_shown(values: Mapping[str, str | None], sensitive: frozenset[str]) -> dict[str, str | None]:
    return {k: common.shown(values[k], sensitive=k in sensitive or common.is_sensitive(k)) for k in sorted(values)}


def plan_topics(ctx: common.Context) -> None:
    """Add every topic change of the run to ``ctx``."""
    live_topics = ctx.live.topics
    wanted = ctx.desired.topics
    if live_topics is None:
        if wanted or (ctx.desired.ownership.topics and ctx.manages_undeclared(Kind.TOPIC)):
            ctx.unreadable(
                Kind.TOPIC,
                "topics could not be read from the cluster; topics are not planned",
                code="topics-unreadable",
            )
        return
    broker_ids = {b.id for b in ctx.live.brokers}
    down = outage.down_brokers(ctx.live)
    outage.warn_down(ctx, down, live_topics)
    ownership = ctx.desired.ownership
    colliding = guards.live_collisions((n for n in wanted if n not in live_topics), live_topics)
    unchanged = 0
    for name, want in wanted.items():
        have = live_topics.get(name)
        start = len(ctx.changes)
        if have is None:
            _create(ctx, want, broker_ids, down, collides_with=colliding.get(name))
        elif (
            want.configs == have.configs
            and want.assignment is None
            and want.partitions == len(have.assignment)
            and set(map(len, have.assignment)) == {want.replication_factor}
        ):
            unchanged += 1  # the common case, kept cheap: 100,000 topics are compared in well under a second
        else:
            _update(ctx, want, have, broker_ids, down)
        if len(ctx.changes) > start and not want.allow_internal:
            reason = guards.internal_reason(name, have, ownership)
            if reason is not None:
                guards.block(ctx.changes, start, reason)
    if unchanged:
        ctx.unchanged[Kind.TOPIC] += unchanged
    if not ctx.manages_undeclared(Kind.TOPIC):
        return
    owns = ctx.desired.ownership.owns_topic
    deletable = ctx.may_delete(Kind.TOPIC)
    for name, have in live_topics.items():
        if name in wanted or not owns(name) or is_internal(name, have) or ownership.declares_internal(name):
            continue
        addr = views.address(Kind.TOPIC, name)
        if not deletable:
            ctx.keep_unmanaged(kind=Kind.TOPIC, name=name, address=addr)
            continue
        ctx.changes.append(_delete(ctx, name, have, addr))


def _delete(ctx: common.Context, name: str, have: state.TopicState, addr: str) -> plans.Change:
    """A topic delete with the evidence of use; blocked when the topic is in use and that is not allowed."""
    before = _summary(have)
    reasons = ["not declared in the manifests; deletion is enabled for topics"]
    warnings = [deletion.destroys(have.partitions)]
    action = plans.Action.DELETE
    found = None if ctx.live.topic_usage is None else ctx.live.topic_usage.get(name)
    if found is None:
        warnings.append("whether the topic is in use was not checked (no usage evidence was read)")
    else:
        before = dataclasses.replace(before, usage=found.evidence())
        lines = [f"evidence: {line}" for line in usage.evidence(found)]
        why = usage.in_use(found, window_ms=ctx.options.in_use_window_ms)
        if why and not ctx.options.allow_delete_in_use:
            action = plans.Action.BLOCKED
            reasons = [
                "the topic is in use: " + "; ".join(why),
                *lines,
                "stop its producers and consumers (and delete the groups' offsets) first, or plan with "
                "--allow-deleting-topics-in-use to delete it anyway",
            ]
        else:
            warnings += lines
            if why:
                warnings.append("in use (" + "; ".join(why) + "), deleted anyway: --allow-deleting-topics-in-use")
    return plans.Change(
        address=addr,
        kind=Kind.TOPIC,
        name=name,
        action=action,
        phase=plans.Phase.TOPIC_DELETE,
        before=before,
        reasons=tuple(reasons),
        warnings=tuple(warnings),
        fingerprint=views.fingerprint_of(model_views.topic_view(have)),
    )


def _summary(topic: state.TopicState) -> payloads.TopicPayload:
    return payloads.TopicPayload(
        partitions=topic.partitions,
        replication_factor=topic.replication_factor,
        configs=_configs_shown(dict(topic.configs), topic.sensitive),
    )


def _assignment_problem(want: desired.DesiredTopic, broker_ids: set[int]) -> str | None:
    if want.assignment is None:
        return None
    if len(want.assignment) != want.partitions or any(len(r) != want.replication_factor for r in want.assignment):
        return (
            f"the declared assignment has {len(want.assignment)} partition(s), but the topic declares "
            f"partitions {want.partitions} and replication_factor {want.replication_factor}"
        )
    if any(len(set(r)) != len(r) for r in want.assignment):
        return "the declared assignment lists a broker twice in one partition"
    unknown = sorted({b for r in want.assignment for b in r} - broker_ids) if broker_ids else []
    if unknown:
        return f"the declared assignment uses broker(s) {', '.join(map(str, unknown))}, which are not in the cluster"
    return None


def _create(
    ctx: common.Context,
    want: desired.DesiredTopic,
    broker_ids: set[int],
    down: frozenset[int],
    *,
    collides_with: str | None,
) -> None:
    addr = views.address(Kind.TOPIC, want.name)
    shown = _configs_shown(dict(want.configs), frozenset())
    after = payloads.TopicPayload(
        partitions=want.partitions,
        replication_factor=want.replication_factor,
        configs=shown,
        assignment=want.assignment,
    )
    attrs = [
        plans.AttributeChange("partitions", None, want.partitions),
        plans.AttributeChange("replication_factor", None, want.replication_factor),
    ]
    for key, value in shown.items():
        attrs.append(
            plans.AttributeChange(payloads.config_attribute(key), None, value, sensitive=common.is_sensitive(key))
        )
    if want.assignment is not None:
        attrs.append(plans.AttributeChange("assignment", None, [list(r) for r in want.assignment]))
    problem = (
        (guards.collision_problem(want.name, collides_with) if collides_with else None)
        or outage.placement_problem(want.replication_factor, live_ids=broker_ids, down=down)
        or _assignment_problem(want, broker_ids)
    )
    ctx.changes.append(
        plans.Change(
            address=addr,
            kind=Kind.TOPIC,
            name=want.name,
            action=plans.Action.BLOCKED if problem else plans.Action.CREATE,
            phase=plans.Phase.TOPIC_CREATE,
            after=after,
            attributes=tuple(attrs),
            reasons=(f"cannot create: {problem}",) if problem else ("declared in the manifests; not in the cluster",),
            source=common.source_text(want.source),
        )
    )


def _update(
    ctx: common.Context,
    want: desired.DesiredTopic,
    have: state.TopicState,
    broker_ids: set[int],
    down: frozenset[int],
) -> None:
    n_before = len(ctx.changes)
    fingerprint = views.fingerprint_of(model_views.topic_view(have))
    addr = views.address(Kind.TOPIC, want.name)
    source = common.source_text(want.source)

    def add(action: plans.Action, phase: plans.Phase, **fields: Any) -> None:
        ctx.changes.append(
            plans.Change(
                address=addr,
                kind=Kind.TOPIC,
                name=want.name,
                action=action,
                phase=phase,
                fingerprint=fingerprint,
                source=source,
                **fields,
            )
        )

    _resize(want, have, broker_ids=broker_ids, down=down, add=add)
    _reassign(ctx, want, have, broker_ids, down, add)
    diff = common.diff_configs(
        want.configs,
        have.configs,
        sensitive=lambda k: k in have.sensitive or common.is_sensitive(k),
        default_of=lambda k: have.defaults.get(k) or configs.topic_default(k),
        reset_undeclared=True,
    )
    if diff.ops:
        add(
            plans.Action.UPDATE,
            plans.Phase.TOPIC_CONFIG,
            before=payloads.TopicPayload(configs=diff.before),
            after=payloads.TopicPayload(config_ops=diff.ops),
            reasons=_config_reasons(diff.attributes),
        )
    if len(ctx.changes) == n_before:
        ctx.unchanged[Kind.TOPIC] += 1


def _resize(
    want: desired.DesiredTopic,
    have: state.TopicState,
    *,
    broker_ids: set[int],
    down: frozenset[int],
    add: Callable[..., None],
) -> None:
    """The PARTITIONS change: partitions added (blocked when they cannot be placed), or a refused shrink."""
    live_n = len(have.assignment)
    rf_changes = any(len(r) != want.replication_factor for r in have.assignment)
    if want.partitions > live_n:
        after = payloads.TopicPayload(partitions=want.partitions)
        # New partitions are created at the current replication factor; when it changes, the
        # reassignment that follows moves them to their declared replicas.
        if want.assignment is not None and len(want.assignment) == want.partitions and not rf_changes:
            after = dataclasses.replace(after, assignment=want.assignment[live_n:])
        # New partitions are placed on live brokers at the topic's current replication factor.
        problem = (
            None
            if after.assignment
            else outage.placement_problem(have.replication_factor, live_ids=broker_ids, down=down)
        )
        add(
            plans.Action.BLOCKED if problem else plans.Action.UPDATE,
            plans.Phase.PARTITIONS,
            before=payloads.TopicPayload(partitions=live_n),
            after=after,
            attributes=(plans.AttributeChange("partitions", live_n, want.partitions),),
            reasons=(f"cannot add partitions: {problem}",)
            if problem
            else (f"add {want.partitions - live_n} partition(s)",),
        )
    elif want.partitions < live_n:
        add(
            plans.Action.BLOCKED,
            plans.Phase.PARTITIONS,
            before=payloads.TopicPayload(partitions=live_n),
            after=payloads.TopicPayload(partitions=want.partitions),
            attributes=(plans.AttributeChange("partitions", live_n, want.partitions),),
            reasons=(
                f"Kafka cannot remove partitions: the topic has {live_n}, the manifests declare {want.partitions}",
                f"option 1: keep the partitions: declare partitions: {live_n}",
                f"option 2: create a new topic with {want.partitions} partitions, move producers and consumers "
                "to it, then remove this one from the manifests",
                "the planner never deletes and re-creates a topic to shrink it: that would lose its data",
            ),
        )


def _config_reasons(attrs: tuple[plans.AttributeChange, ...]) -> tuple[str, ...]:
    sets = sum(1 for a in attrs if a.after is not None)
    resets = len(attrs) - sets
    out = []
    if sets:
        out.append(f"set {sets} config(s) that differ from the manifests")
    if resets:
        out.append(f"reset {resets} config(s) set on the topic but not declared")
    return tuple(out)


def _reassign(
    ctx: common.Context,
    want: desired.DesiredTopic,
    have: state.TopicState,
    broker_ids: set[int],
    down: frozenset[int],
    add: Callable[..., None],
) -> None:
    rf_changes = any(len(r) != want.replication_factor for r in have.assignment)
    declared_moves = want.assignment is not None and tuple(want.assignment[: len(have.assignment)]) != tuple(
        have.assignment[: len(want.assignment)]
    )
    if not (rf_changes or declared_moves):
        return
    before = payloads.TopicPayload(replication_factor=have.replication_factor, assignment=have.assignment)
    problem = (
        outage.placement_problem(want.replication_factor, live_ids=broker_ids, down=down)
        or _assignment_problem(want, broker_ids)
        or outage.reassign_problem(have, down)
    )
    if problem is None and not broker_ids:
        problem = "the cluster's broker list is unknown, so no target assignment can be computed"
    if problem is not None:
        add(
            plans.Action.BLOCKED,
            plans.Phase.REASSIGN,
            before=before,
            attributes=(plans.AttributeChange("replication_factor", have.replication_factor, want.replication_factor),),
            reasons=(f"cannot reassign: {problem}",),
        )
        return
    target, why = _target(ctx, want, have)
    warnings = []
    moving = [r for r in ctx.live.reassignments if r.topic == want.name]
    if moving:
        warnings.append(f"{len(moving)} partition reassignment(s) of this topic are still in progress")
    after = payloads.TopicPayload(replication_factor=want.replication_factor, assignment=tuple(map(tuple, target)))
    add(
        plans.Action.UPDATE,
        plans.Phase.REASSIGN,
        before=before,
        after=after,
        attributes=shown.reassign_attributes(before, after),
        reasons=(why,),
        warnings=tuple(warnings),
    )


def _target(
    ctx: common.Context, want: desired.DesiredTopic, have: state.TopicState
) -> tuple[tuple[tuple[int, ...], ...], str]:
    """The replicas of every partition after the reassignment, and why: declared, or computed rack-aware."""
    if want.assignment is not None:
        return tuple(tuple(r) for r in want.assignment), "the declared assignment differs from the cluster's"
    target = assignment.target_assignment(
        have.assignment,
        partitions=max(want.partitions, len(have.assignment)),
        replication_factor=want.replication_factor,
        brokers=ctx.live.brokers,
    )
    why = (
        f"replication factor {have.replication_factor} -> {want.replication_factor}: "
        "rack-aware target assignment, existing replicas kept where possible"
    )
    return target, why


_USAGE_PHASES = (plans.Phase.TOPIC_DELETE, plans.Phase.PARTITIONS)


def usage_topics(change: plans.Change, wanted: desired.DesiredState) -> tuple[str, ...]:
    """The topic a delete or a partition increase changes: its usage evidence decides whether a delete of a topic in
    use is blocked, and what adding partitions does to keyed producers."""
    return (change.name,) if change.phase in _USAGE_PHASES and change.action is not plans.Action.NOOP else ()

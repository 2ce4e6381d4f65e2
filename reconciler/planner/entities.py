"""Group configs and client-metrics subscriptions: the planner both config-entity kinds share (``plan_entities``,
``scope_of``); each kind's own parts call it from its place (``reconciler.kinds.group_config.plan``,
``reconciler.kinds.client_metrics.plan``).

A declared entity (a group id, a subscription name) gets its configs set; keys set live but not declared are reset
for a subscription (it is declared whole: ``metrics``, ``interval.ms``, ``match``) and, for a group, when the delete
policy allows it for ``group_config`` (else they are listed as unmanaged). A live entity that is not declared but
owned by the Ownership rules (``groups``, ``clientMetrics``) is deleted, every key of it removed, when the delete
policy allows it for its kind, and listed as unmanaged otherwise. A group config may be declared before the group
exists: Kafka keeps it by id.

An entity whose configs the principal may not describe (``ClusterState.unread_entities``: a snapshot or read without
DESCRIBE_CONFIGS on that group) is not known, so nothing is proposed for it: a declared or owned one is a blocked
change with the refusal and its grant, and one error-level warning per kind names them (apply writes nothing until
it is granted, or the plan made again).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from reconciler.kinds import spec
from reconciler.model import desired, entities, payloads, plans, state
from reconciler.model.kinds import Kind
from reconciler.planner import common, views

PHASES: Mapping[Kind, plans.Phase] = {
    Kind.GROUP_CONFIG: plans.Phase.GROUP_CONFIG,
    Kind.CLIENT_METRICS: plans.Phase.CLIENT_METRICS,
}
_REASONS = {
    Kind.GROUP_CONFIG: "group configs differ from the manifests",
    Kind.CLIENT_METRICS: "the client-metrics subscription differs from the manifests",
}


def plan_entities(ctx: common.Context, kind: Kind) -> None:
    """Add the changes and unmanaged entries of ``kind`` (``GROUP_CONFIG`` or ``CLIENT_METRICS``) to ``ctx``."""
    wanted = entities.desired_section(ctx.desired, kind)
    live = entities.live_section(ctx.live, kind)
    if live is None:
        if wanted:
            ctx.unreadable(
                kind,
                f"{entities.LABELS[kind]} could not be read from the cluster; they are not planned",
                code=f"{kind.value}-unreadable",
            )
        return
    reset = entities.ENTITIES[kind].resets_undeclared or ctx.may_delete(kind)
    unread = _block_unread(ctx, kind, wanted=wanted)
    for name in sorted(wanted.keys() - unread):
        _plan_one(ctx, kind, name, want=wanted[name].configs, have=live.get(name) or {}, reset=reset,
                  source=common.source_text(wanted[name].source))  # fmt: skip
    if not ctx.manages_undeclared(kind):
        return
    rules = entities.rules(ctx.desired.ownership, kind)
    for name in sorted(live.keys() - wanted.keys() - unread):
        if not live[name] or not any(p.matches(name) for p in rules):
            continue
        address = views.address(kind, name)
        if not ctx.may_delete(kind):
            ctx.keep_unmanaged(kind=kind, name=name, address=address)
            continue
        have = live[name]
        removals = tuple(payloads.ConfigOp.delete(k) for k in sorted(have))
        ctx.changes.append(
            plans.Change(
                address=address,
                kind=kind,
                name=name,
                action=plans.Action.DELETE,
                phase=PHASES[kind],
                before=payloads.EntityConfigPayload(dict(sorted(have.items()))),
                after=payloads.EntityConfigPayload(config_ops=removals),
                reasons=(f"{entities.NOUNS[kind]} is not declared and is owned by the ownership rules",),
                fingerprint=views.fingerprint_of(entities.view(name, have)),
            )
        )


def _block_unread(ctx: common.Context, kind: Kind, *, wanted: Mapping[str, desired.DesiredEntityConfig]) -> set[str]:
    """Block each declared or owned entity of ``kind`` whose configs could not be read; return their names."""
    unread = ctx.live.unread_entities.get(kind.value, {})
    owned = ctx.manages_undeclared(kind) and bool(unread)
    rules = entities.rules(ctx.desired.ownership, kind) if owned else ()
    blocked = sorted(n for n in unread if n in wanted or any(p.matches(n) for p in rules))
    for name in blocked:
        ctx.changes.append(
            plans.Change(
                address=views.address(kind, name),
                kind=kind,
                name=name,
                action=plans.Action.BLOCKED,
                phase=PHASES[kind],
                reasons=(f"its configs could not be read, so no change is planned: {unread[name]}",),
                source=common.source_text(wanted[name].source) if name in wanted else None,
            )
        )
    if blocked:
        ctx.warn(
            f"{entities.LABELS[kind]} not planned, their configs could not be read: "
            + entities.unread_text(kind, unread, blocked),
            code=f"{kind.value}-unreadable",
            severity="error",
        )
    return set(unread)


def _plan_one(
    ctx: common.Context,
    kind: Kind,
    name: str,
    *,
    want: Mapping[str, str],
    have: Mapping[str, str | None],
    reset: bool,
    source: str | None,
) -> None:
    declared = entities.ENTITIES[kind]

    def default_of(key: str) -> str | None:
        # A group's keys fall back to the broker's own group.* settings, as the read reported them (None: not read).
        if declared.broker_fallbacks:
            return ctx.live.entity_defaults.get(kind.value, {}).get(key)
        spec = declared.catalogue.get(key)
        return spec.default if spec is not None else None

    diff = common.diff_configs(want, have, sensitive=common.is_sensitive, default_of=default_of, reset_undeclared=reset)
    address = views.address(kind, name)
    if diff.kept:
        ctx.unmanaged.append(
            plans.Unmanaged(
                address=address,
                kind=kind,
                name=name,
                reason=f"config(s) set on the group but not declared: {', '.join(diff.kept)}; "
                "resets are disabled for group configs",
            )
        )
    if not diff.ops:
        ctx.unchanged[kind] += 1
        return
    ctx.changes.append(
        plans.Change(
            address=address,
            kind=kind,
            name=name,
            action=plans.Action.UPDATE if have else plans.Action.CREATE,
            phase=PHASES[kind],
            before=payloads.EntityConfigPayload(diff.before) if have else None,
            after=payloads.EntityConfigPayload(config_ops=diff.ops),
            reasons=(_REASONS[kind],),
            fingerprint=views.fingerprint_of(entities.view(name, have)),
            source=source,
        )
    )


def scope_of(kind: Kind) -> spec.KindScope:
    """The part of a plan's scope of entity kind ``kind``: the entities its Ownership rules name, by name."""
    found = entities.ENTITIES[kind]

    def keep_entities(live: state.ClusterState, keep: Callable[[Any, Any], bool]) -> state.ClusterState:
        section = found.live_of(live)
        if section is None:
            return live
        kept: dict[str, Any] = {found.section: {n: c for n, c in section.items() if keep(n, c)}}
        return dataclasses.replace(live, **kept)

    def count(live: state.ClusterState) -> int | None:
        section = found.live_of(live)
        return None if section is None else sum(1 for c in section.values() if c)

    return spec.KindScope(
        rule_sets=(spec.RuleSet("entities", found.rules_of, by_kind=True),),
        owns=lambda rules, name, _: any(p.matches(name) for p in rules.get("entities", ())),
        keep=keep_entities,
        count=count,
    )

"""The client quota kind's planner (its ``plan``, ``scope`` and ``fingerprint_rows`` parts): per entity, per key set
or remove, compared numerically.

Ownership: an entity whose ``user`` part names a user is owned when ``User:<name>`` matches the
principal rules; an entity of any kind is owned when its name (``user=<default>``, ``client-id=batch``,
``ip=<default>``, ``client-id=x,user=y``) matches the ``quotaEntities`` rules. Other entities are managed
only when declared. A declared entity with no values (``values: {}``) has every quota removed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from reconciler.kinds import spec
from reconciler.model import desired, payloads, plans, shown, state
from reconciler.model import views as model_views
from reconciler.model.kinds import Kind
from reconciler.planner import common, views


def owned_entity(ownership: desired.Ownership, entity: state.QuotaEntity) -> bool:
    """Whether an undeclared live quota entity falls under the ownership rules."""
    user = dict(entity.parts).get("user")
    if user is not None and ownership.owns_principal(f"User:{user}"):
        return True
    return ownership.owns_quota_entity(model_views.quota_name(entity))


def _address(entity: state.QuotaEntity) -> str:
    """Sort key: entity parts may hold ``None`` (a default entity), which does not compare with names."""
    return entity.address


def _diff(want: Mapping[str, float], have: Mapping[str, float]) -> tuple[plans.AttributeChange, ...]:
    return shown.quota_attributes(have, want)


def plan_quotas(ctx: common.Context) -> None:
    """Add QUOTA-phase changes and unmanaged quota entities to ``ctx``."""
    wanted = ctx.desired.quotas
    live = ctx.live.quotas
    if live is None:
        if wanted:
            ctx.unreadable(
                Kind.QUOTA,
                "client quotas could not be read from the cluster; quotas are not planned",
                code="quotas-unreadable",
            )
        return
    for entity in sorted(wanted, key=_address):
        want = dict(wanted[entity].values)
        have = dict(live.get(entity) or {})
        attrs = _diff(want, have)
        if not attrs:
            ctx.unchanged[Kind.QUOTA] += 1
            continue
        if not want:
            ctx.changes.append(
                _delete(
                    entity,
                    have,
                    reason="declared with values: {}: every quota of the entity is removed",
                    source=common.source_text(wanted[entity].source),
                )
            )
            continue
        ctx.changes.append(
            plans.Change(
                address=entity.address,
                kind=Kind.QUOTA,
                name=model_views.quota_name(entity),
                action=plans.Action.UPDATE if have else plans.Action.CREATE,
                phase=plans.Phase.QUOTA,
                before=payloads.QuotaPayload(entity, dict(sorted(have.items()))) if have else None,
                after=payloads.QuotaPayload(entity, dict(sorted(want.items()))),
                attributes=attrs,
                reasons=("quota values differ from the manifests",) if have else ("declared; no quota set yet",),
                fingerprint=views.fingerprint_of(model_views.quota_view(entity, have)),
                source=common.source_text(wanted[entity].source),
            )
        )
    if not ctx.manages_undeclared(Kind.QUOTA):
        return
    for entity in sorted(live, key=_address):
        values = live[entity]
        if entity in wanted or not values or not owned_entity(ctx.desired.ownership, entity):
            continue
        if not ctx.may_delete(Kind.QUOTA):
            ctx.keep_unmanaged(kind=Kind.QUOTA, name=model_views.quota_name(entity), address=entity.address)
            continue
        ctx.changes.append(_delete(entity, values, reason="not declared; deletion is enabled for quotas"))


def _delete(
    entity: state.QuotaEntity, values: Mapping[str, float], *, reason: str, source: str | None = None
) -> plans.Change:
    return plans.Change(
        address=entity.address,
        kind=Kind.QUOTA,
        name=model_views.quota_name(entity),
        action=plans.Action.DELETE,
        phase=plans.Phase.QUOTA,
        before=payloads.QuotaPayload(entity, dict(sorted(values.items()))),
        attributes=tuple(plans.AttributeChange(k, v, None) for k, v in sorted(values.items())),
        reasons=(reason,),
        fingerprint=views.fingerprint_of(model_views.quota_view(entity, values)),
        source=source,
    )


def _owns_quota(rules: spec.Rules, entity: state.QuotaEntity, _: Any) -> bool:
    """Whether the rules own a quota entity: a user entity by the principal rules, any entity by the entity rules."""
    user = dict(entity.parts).get("user")
    if user is not None and any(p.matches(f"User:{user}") for p in rules.get("principals", ())):
        return True
    return any(p.matches(model_views.quota_name(entity)) for p in rules.get("quota_entities", ()))


def _keep_quotas(live: state.ClusterState, keep: Callable[[Any, Any], bool]) -> state.ClusterState:
    if live.quotas is None:
        return live
    return dataclasses.replace(live, quotas={e: v for e, v in live.quotas.items() if keep(e, v)})


# The quotas' part of a plan's scope (``reconciler.planner.scope``).
SCOPE = spec.KindScope(
    rule_sets=(
        spec.RuleSet("principals", lambda own: own.principals, by_kind=True),
        spec.RuleSet("quota_entities", lambda own: own.quota_entities),
    ),
    name=model_views.quota_name,
    owns=_owns_quota,
    keep=_keep_quotas,
    count=lambda live: None if live.quotas is None else sum(1 for v in live.quotas.values() if v),
)


def quota_rows(live: state.ClusterState) -> list[Any] | None:
    """The quotas' part of a live fingerprint (``reconciler.planner.views.live_fingerprint``): each entity holding a
    value, with its values."""
    if live.quotas is None:
        return None
    return [(e.parts, sorted(v.items())) for e, v in sorted(live.quotas.items(), key=lambda ev: ev[0].address) if v]

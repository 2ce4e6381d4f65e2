"""The ACL kind's planner (its ``plan``, ``scope`` and ``fingerprint_rows`` parts): the set difference of exact
bindings, and access-gap detection.

Apply deletes bindings in the first phase and creates them in the last, so a principal that loses
a grant which a new binding gives back in another form (literal ``orders`` replaced by prefixed
``ord``) has no access in between. ``access_gaps`` finds those pairs; both changes get a warning.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable, Container, Iterable
from typing import Any

from reconciler.kinds import spec
from reconciler.model import payloads, plans, state
from reconciler.model import views as model_views
from reconciler.model.acl_names import AclOperation as Op
from reconciler.model.kinds import Kind
from reconciler.planner import common, views

# Operations a binding implies besides its own (Kafka's authorizer rules).
_IMPLIED = {
    Op.READ: {Op.DESCRIBE},
    Op.WRITE: {Op.DESCRIBE},
    Op.DELETE: {Op.DESCRIBE},
    Op.ALTER: {Op.DESCRIBE},
    Op.ALTER_CONFIGS: {Op.DESCRIBE_CONFIGS},
}


def _operations(op: Op) -> set[Op]:
    if op is Op.ALL:
        return set(state.ACL_OPERATIONS) - {Op.ALL}
    return {op} | _IMPLIED.get(op, set())


def _resources_overlap(a: state.AclBinding, b: state.AclBinding) -> tuple[str, str] | None:
    """The most specific resource both bindings grant, as ``(pattern_type, name)``, or ``None``."""
    for x, y in ((a, b), (b, a)):
        if x.pattern_type == "LITERAL" and x.resource_name == "*":
            return (y.pattern_type, y.resource_name)
    if a.pattern_type == "LITERAL" and b.pattern_type == "LITERAL":
        return ("LITERAL", a.resource_name) if a.resource_name == b.resource_name else None
    if a.pattern_type == "PREFIXED" and b.pattern_type == "PREFIXED":
        longer, shorter = sorted((a.resource_name, b.resource_name), key=len, reverse=True)
        return ("PREFIXED", longer) if longer.startswith(shorter) else None
    literal, prefixed = (a, b) if a.pattern_type == "LITERAL" else (b, a)
    if literal.resource_name.startswith(prefixed.resource_name):
        return ("LITERAL", literal.resource_name)
    return None


def _covers(grant: state.AclBinding, *, principal: str, host: str, op: Op, pattern: tuple[str, str]) -> bool:
    """Whether ALLOW binding ``grant`` gives ``principal`` the operation on every name of ``pattern``."""
    if grant.principal not in (principal, "User:*") or grant.host not in (host, "*"):
        return False
    if op not in _operations(grant.operation):
        return False
    kind, name = pattern
    if grant.pattern_type == "LITERAL":
        return grant.resource_name == "*" or (kind == "LITERAL" and grant.resource_name == name)
    return name.startswith(grant.resource_name)


def access_gaps(
    deleted: Iterable[state.AclBinding], created: Iterable[state.AclBinding], kept: Iterable[state.AclBinding]
) -> list[tuple[state.AclBinding, state.AclBinding, str]]:
    """``(deleted, created, description)`` for each grant lost between the delete and create phases.

    A grant is lost when a deleted ALLOW binding and a created ALLOW binding overlap (same principal,
    resource type, an operation and resource names in common) and no binding that stays in place
    covers the overlap in the meantime.
    """
    by_key: dict[tuple[str, str], list[state.AclBinding]] = defaultdict(list)
    for c in created:
        if c.permission == "ALLOW":
            by_key[(c.resource_type, c.principal)].append(c)
    staying: dict[str, list[state.AclBinding]] = defaultdict(list)
    for k in kept:
        if k.permission == "ALLOW":
            staying[k.resource_type].append(k)
    out = []
    for d in sorted(deleted):
        if d.permission != "ALLOW":
            continue
        candidates = by_key.get((d.resource_type, d.principal), [])
        if d.principal != "User:*":
            candidates = candidates + by_key.get((d.resource_type, "User:*"), [])
        for c in sorted(candidates):
            if d.host != c.host and "*" not in (d.host, c.host):
                continue
            pattern = _resources_overlap(d, c)
            if pattern is None:
                continue
            host = c.host if d.host == "*" else d.host
            lost = sorted(
                op
                for op in _operations(d.operation) & _operations(c.operation)
                if not any(
                    _covers(k, principal=d.principal, host=host, op=op, pattern=pattern)
                    for k in staying[d.resource_type]
                )
            )
            if lost:
                what = f"{d.resource_type} {pattern[1]!r}" + (" (prefix)" if pattern[0] == "PREFIXED" else "")
                out.append((d, c, f"{d.principal} has no {'/'.join(lost)} access to {what}"))
    return out


def plan_acls(ctx: common.Context) -> None:
    """Add ACL_DELETE and ACL_CREATE changes, access-gap warnings, and unmanaged bindings to ``ctx``."""
    wanted = ctx.desired.acls
    live = ctx.live.acls
    if live is None:
        if wanted:
            ctx.unreadable(
                Kind.ACL,
                "ACLs could not be read: the cluster has no authorizer (or the principal may not describe ACLs); "
                "ACLs cannot be managed",
                code="acls-unavailable",
            )
        return
    created = sorted(b for b in wanted if b not in live)
    ctx.unchanged[Kind.ACL] += len(wanted) - len(created)
    deleted = _undeclared_to_delete(ctx, live=live, wanted=wanted)
    deleted_set = set(deleted)
    kept = [b for b in live if b not in deleted_set]
    notes = _access_gap_notes(ctx, deleted=deleted, created=created, kept=kept)
    for b in deleted:
        ctx.changes.append(
            plans.Change(
                address=b.address,
                kind=Kind.ACL,
                name=model_views.acl_name(b),
                action=plans.Action.DELETE,
                phase=plans.Phase.ACL_DELETE,
                before=payloads.AclPayload(b),
                reasons=("not declared; deletion is enabled for acls",),
                warnings=tuple(notes.get(b, ())),
                fingerprint=views.fingerprint_of(model_views.acl_view(b, True)),
            )
        )
    for b in created:
        ctx.changes.append(
            plans.Change(
                address=b.address,
                kind=Kind.ACL,
                name=model_views.acl_name(b),
                action=plans.Action.CREATE,
                phase=plans.Phase.ACL_CREATE,
                after=payloads.AclPayload(b),
                reasons=("declared in the manifests; not in the cluster",),
                warnings=tuple(notes.get(b, ())),
                source=common.source_text(wanted[b]),
            )
        )


def _undeclared_to_delete(
    ctx: common.Context, *, live: Iterable[state.AclBinding], wanted: Container[state.AclBinding]
) -> list[state.AclBinding]:
    """The owned, undeclared live bindings to delete (sorted); kept as unmanaged instead when deletion is off."""
    deleted: list[state.AclBinding] = []
    if not ctx.manages_undeclared(Kind.ACL):
        return deleted
    owns = ctx.desired.ownership.owns_principal
    for b in sorted(live):
        if b in wanted or not owns(b.principal):
            continue
        if ctx.may_delete(Kind.ACL):
            deleted.append(b)
        else:
            ctx.keep_unmanaged(kind=Kind.ACL, name=model_views.acl_name(b), address=b.address)
    return deleted


def _access_gap_notes(
    ctx: common.Context,
    *,
    deleted: list[state.AclBinding],
    created: list[state.AclBinding],
    kept: list[state.AclBinding],
) -> dict[state.AclBinding, list[str]]:
    """Per binding, the access gaps its deletion or late creation opens; one plan warning per gap."""
    notes: dict[state.AclBinding, list[str]] = defaultdict(list)
    for d, c, text in access_gaps(deleted, created, kept):
        notes[d].append(f"access gap: {text} until {c.address} is created in the acl create phase")
        notes[c].append(f"access gap: {text} from the acl delete phase (which removes {d.address}) until this runs")
        ctx.warn(
            f"access gap: {text} between the acl delete and acl create phases ({d.address} -> {c.address})",
            code="access-gap",
            address=d.address,
        )
    return notes


def _keep_acls(live: state.ClusterState, keep: Callable[[Any, Any], bool]) -> state.ClusterState:
    if live.acls is None:
        return live
    return dataclasses.replace(live, acls=frozenset(b for b in live.acls if keep(b, None)))


# The ACLs' part of a plan's scope (``reconciler.planner.scope``): the bindings of the principals the rules own.
SCOPE = spec.KindScope(
    rule_sets=(spec.RuleSet("principals", lambda own: own.principals, by_kind=True),),
    name=model_views.acl_name,
    owns=lambda rules, binding, _: any(p.matches(binding.principal) for p in rules.get("principals", ())),
    keep=_keep_acls,
    count=lambda live: None if live.acls is None else len(live.acls),
)


def acl_rows(live: state.ClusterState) -> list[Any] | None:
    """The ACLs' part of a live fingerprint (``reconciler.planner.views.live_fingerprint``): every binding's fields,
    sorted."""
    if live.acls is None:
        return None
    return sorted(
        (b.resource_type, b.pattern_type, b.resource_name, b.principal, b.host, b.operation, b.permission)
        for b in live.acls
    )

"""Kinds the cluster's version cannot manage: every declared resource of such a kind is a blocked change.

A cluster older than the admin APIs a kind needs (client quotas need Kafka 2.6, SCRAM users 2.7; see
``reconciler.model.capabilities``) is not read for that kind. Instead of stopping the whole plan, each declared
resource of the kind is shown as **blocked** with the reason (``not supported by this cluster (version): it
lacks DescribeClientQuotas, AlterClientQuotas (Kafka 2.6+)``), and one warning per kind says how many were
blocked. Nothing of the kind is written; apply reports the changes as blocked (exit 3). Undeclared live
resources of the kind cannot be seen, so none is deleted.
"""

from __future__ import annotations

from collections.abc import Iterable

from reconciler.kinds import registry
from reconciler.model import capabilities
from reconciler.model import plans as plan
from reconciler.model.kinds import Kind
from reconciler.planner import common

_PHASE = {
    Kind.TOPIC: plan.Phase.TOPIC_CREATE,
    Kind.ACL: plan.Phase.ACL_CREATE,
    Kind.QUOTA: plan.Phase.QUOTA,
    Kind.SCRAM_USER: plan.Phase.SCRAM,
    Kind.BROKER_CONFIG: plan.Phase.BROKER_CONFIG,
    Kind.GROUP_CONFIG: plan.Phase.GROUP_CONFIG,
    Kind.CLIENT_METRICS: plan.Phase.CLIENT_METRICS,
}
_LABEL = {
    Kind.TOPIC: "topics",
    Kind.ACL: "ACLs",
    Kind.QUOTA: "client quotas",
    Kind.SCRAM_USER: "SCRAM users",
    Kind.BROKER_CONFIG: "dynamic broker configs",
    Kind.GROUP_CONFIG: "group configs",
    Kind.CLIENT_METRICS: "client-metrics subscriptions",
}


def unsupported_kinds(ctx: common.Context, kinds: Iterable[Kind]) -> dict[Kind, str]:
    """Kind -> reason, for each of ``kinds`` the cluster's capabilities rule out."""
    caps = ctx.live.capabilities
    return {kind: reason for kind in kinds if (reason := capabilities.kind_unsupported(kind, caps)) is not None}


def _declared(ctx: common.Context, kind: Kind) -> list[tuple[str, str, str | None]]:
    """``(address, name, source)`` of each resource of ``kind`` the manifests declare, in address order."""
    return sorted((a, n, common.source_text(src)) for a, n, src in registry.spec(kind).declared(ctx.desired))


def block_kind(ctx: common.Context, kind: Kind, reason: str) -> None:
    """Add a blocked change for each declared resource of ``kind``, and one warning for the kind."""
    declared = _declared(ctx, kind)
    for address, name, source in declared:
        ctx.changes.append(
            plan.Change(
                address=address,
                kind=kind,
                name=name,
                action=plan.Action.BLOCKED,
                phase=_PHASE[kind],
                reasons=(f"{_LABEL[kind]} are {reason}; nothing of this kind is read or written",),
                source=source,
            )
        )
    what = f"{len(declared)} declared resource(s) blocked" if declared else "undeclared ones are not looked at"
    ctx.warn(f"{_LABEL[kind]}: {reason}; {what}", code="kind-unsupported")

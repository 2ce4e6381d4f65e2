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


def _phase(kind: Kind) -> plan.Phase:
    """The phase a blocked change of a declared resource of ``kind`` is listed in: where the kind creates, else
    updates, its resources."""
    phases = registry.spec(kind).phases
    writes = [p.phase for p in phases if plan.Action.CREATE in p.actions]
    return (writes or [p.phase for p in phases if plan.Action.UPDATE in p.actions])[0]


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
                phase=_phase(kind),
                reasons=(f"{registry.spec(kind).label} are {reason}; nothing of this kind is read or written",),
                source=source,
            )
        )
    what = f"{len(declared)} declared resource(s) blocked" if declared else "undeclared ones are not looked at"
    ctx.warn(f"{registry.spec(kind).label}: {reason}; {what}", code="kind-unsupported")

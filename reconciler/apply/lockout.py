"""The self-lockout check before the first write: ACL changes must not take from the connection's principal a right
it needs to keep managing (``guard``), unless it is a super user; a principal named by client-side rules is first
checked against what the brokers say (``access.check_principal_explains``)."""

from __future__ import annotations

from reconciler.apply import access, decoded, guard
from reconciler.kafka.port import AdminPort
from reconciler.model import plans, state
from reconciler.model.kinds import Kind


def check(
    adapter: AdminPort, ops: decoded.Operations, *, own: str | None, live: state.ClusterState, principal_given: bool
) -> None:
    """Refuse ACL changes that would take from the connection's principal a right it needs to keep managing."""
    deletes = ops.bindings(plans.Action.DELETE)
    creates = ops.bindings(plans.Action.CREATE)
    principal = own
    if principal and (deletes or creates) and access.is_super_user(adapter, principal, live.acls, creates):
        principal = None  # ACLs do not bind a super user: no ACL change can lock it out
    elif principal and (deletes or creates) and live.acls is not None and not principal_given:
        access.check_principal_explains(
            adapter,
            principal=principal,
            live_acls=live.acls,
            bindings=[*deletes, *creates],
            topics=sorted(ops.names(Kind.TOPIC)),
            source=adapter.principal_source,
        )
    guard.check_self_lockout(
        principal=principal,
        live_acls=live.acls,
        deletes=deletes,
        creates=creates,
        topics=sorted(ops.names(Kind.TOPIC)),
    )

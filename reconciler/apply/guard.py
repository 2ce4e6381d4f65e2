"""The self-lockout guard: refuse a plan whose ACL changes take away access the tool itself needs.

The check evaluates Kafka's authorization rules (DENY wins, ``ALL`` covers every operation,
``DESCRIBE`` is implied by ``READ``/``WRITE``/``DELETE``/``ALTER`` and ``DESCRIBE_CONFIGS`` by
``ALTER_CONFIGS``) on the tool's principal before and after the plan's ACL deletes and creates,
for the cluster resource, every topic the plan touches, and every resource pattern a deleted or
created binding names. Only access that the ACLs granted before and no longer grant afterwards is
reported. Super users (``super.users`` on the brokers) bypass ACLs and are invisible to this check:
they cannot be locked out by ACL changes, and the guard never fires for them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from reconciler.base import errors
from reconciler.kafka.port import AdminPort
from reconciler.model import state

CLUSTER_RESOURCE = "kafka-cluster"
ANY_PRINCIPAL = "User:*"

# What the tool uses, per ACL resource type.
TOOL_NEEDS: dict[str, tuple[str, ...]] = {
    "CLUSTER": ("DESCRIBE", "ALTER", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "CREATE"),
    "TOPIC": ("DESCRIBE", "CREATE", "DELETE", "ALTER", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"),
}
IMPLIED_BY: dict[str, frozenset[str]] = {
    "DESCRIBE": frozenset({"READ", "WRITE", "DELETE", "ALTER"}),
    "DESCRIBE_CONFIGS": frozenset({"ALTER_CONFIGS"}),
}


class SelfLockoutRisk(errors.ReconcilerError):
    """The plan removes access the connecting principal needs; nothing was written."""


@dataclasses.dataclass(frozen=True, slots=True)
class LostAccess:
    """One operation on one resource that the principal would lose."""

    operation: str
    resource_type: str
    resource_name: str
    because: str  # address of the binding deleted (or DENY created) that causes the loss

    def describe(self) -> str:
        return f"{self.operation} on {self.resource_type} {self.resource_name!r} (because of {self.because})"


def principal_from_username(username: str | None) -> str | None:
    """The principal Kafka gives a SASL user: ``User:<name>``; ``None`` when unauthenticated."""
    return f"User:{username}" if username else None


def _resource_matches(binding: state.AclBinding, resource_type: str, name: str) -> bool:
    if binding.resource_type != resource_type:
        return False
    if binding.pattern_type == "PREFIXED":
        return name.startswith(binding.resource_name)
    return binding.resource_name in (name, "*")


def _principal_matches(binding: state.AclBinding, principal: str) -> bool:
    return binding.principal in (principal, ANY_PRINCIPAL)


def is_allowed(
    acls: Iterable[state.AclBinding], *, principal: str, resource_type: str, name: str, operation: str
) -> bool:
    """Kafka's decision for ``principal`` doing ``operation`` on a resource, from ACLs alone (any host)."""
    relevant = [b for b in acls if _principal_matches(b, principal) and _resource_matches(b, resource_type, name)]
    if any(b.permission == "DENY" and b.operation in (operation, "ALL") for b in relevant):
        return False
    granting = {operation, "ALL"} | IMPLIED_BY.get(operation, frozenset())
    return any(b.permission == "ALLOW" and b.operation in granting for b in relevant)


def _probes(
    *, touched: Iterable[state.AclBinding], principal: str, topics: Iterable[str]
) -> list[tuple[str, str, str]]:
    """``(resource_type, name, because)`` resources to evaluate."""
    probes: list[tuple[str, str, str]] = [("CLUSTER", CLUSTER_RESOURCE, "")]
    probes += [("TOPIC", t, "") for t in sorted(set(topics))]
    for b in sorted(touched):
        if b.resource_type in TOOL_NEEDS and _principal_matches(b, principal):
            probes.append((b.resource_type, b.resource_name, b.address))
    return probes


def lost_access(
    *,
    principal: str,
    live_acls: Iterable[state.AclBinding] | None,
    deletes: Sequence[state.AclBinding],
    creates: Sequence[state.AclBinding],
    topics: Iterable[str] = (),
) -> list[LostAccess]:
    """Every (operation, resource) the ACLs grant ``principal`` now and would not after the plan."""
    before = set(live_acls or ()) | set(deletes)
    after = (before - set(deletes)) | set(creates)
    changed = [*deletes, *creates]
    lost: dict[tuple[str, str, str], LostAccess] = {}
    for resource_type, name, because in _probes(touched=changed, principal=principal, topics=topics):
        for op in TOOL_NEEDS[resource_type]:
            key = (op, resource_type, name)
            if key in lost:
                continue
            if is_allowed(before, principal=principal, resource_type=resource_type, name=name, operation=op) and not (
                is_allowed(after, principal=principal, resource_type=resource_type, name=name, operation=op)
            ):
                cause = because or _first_cause(changed, principal=principal, resource_type=resource_type, name=name)
                lost[key] = LostAccess(op, resource_type, name, cause)
    return list(lost.values())


def _first_cause(changed: Sequence[state.AclBinding], *, principal: str, resource_type: str, name: str) -> str:
    for b in changed:
        if _principal_matches(b, principal) and _resource_matches(b, resource_type, name):
            return b.address
    return "the plan's ACL changes"


def check_self_lockout(
    *,
    principal: str | None,
    live_acls: Iterable[state.AclBinding] | None,
    deletes: Sequence[state.AclBinding],
    creates: Sequence[state.AclBinding],
    topics: Iterable[str] = (),
) -> None:
    """Raise ``SelfLockoutRisk`` naming every lost permission; a no-op without a known principal."""
    if principal is None or not (deletes or creates):
        return
    lost = lost_access(principal=principal, live_acls=live_acls, deletes=deletes, creates=creates, topics=topics)
    if not lost:
        return
    listed = "; ".join(x.describe() for x in lost)
    raise SelfLockoutRisk(
        f"refusing to apply: the plan's ACL changes take away access that {principal} (the principal this tool "
        f"connects as) needs to keep managing the cluster: {listed}. Nothing was written. Change the manifests, "
        "or re-run with --allow-self-lockout-risk if this is intended."
    )


def connection_principal(adapter: AdminPort) -> str | None:
    """The connection's principal: the adapter's own answer (SASL user, OAuth ``sub``, certificate subject), else
    ``User:<name>`` for a SASL connection and ``User:ANONYMOUS`` for PLAINTEXT; ``None`` when unknown."""
    if (known := adapter.principal) is not None:
        return known
    settings = adapter.settings
    if settings is None:
        return None
    protocol = settings.security_protocol
    if protocol in ("SASL_PLAINTEXT", "SASL_SSL"):
        return principal_from_username(settings.username)
    if protocol == "PLAINTEXT":
        return "User:ANONYMOUS"
    return None

"""The self-lockout guard: before the first write, refuse a plan whose ACL changes take away access the tool itself
needs (``check``, unless ``--allow-self-lockout-risk``).

The check evaluates Kafka's authorization rules (DENY wins, ``ALL`` covers every operation,
``DESCRIBE`` is implied by ``READ``/``WRITE``/``DELETE``/``ALTER`` and ``DESCRIBE_CONFIGS`` by
``ALTER_CONFIGS``) on the tool's principal before and after the plan's ACL deletes and creates,
for the cluster resource, every topic the plan touches, and every resource pattern a deleted or
created binding names. Only access that the ACLs granted before and no longer grant afterwards is
reported. Super users (``super.users`` on the brokers) bypass ACLs and are invisible to this check:
the brokers are asked whether the principal's access comes from outside the ACLs (``is_super_user``), and then
they cannot be locked out by ACL changes, and the guard never fires for them. A principal the tool computed from
the connection settings is first checked against what the brokers grant it (``check_principal_explains``): rights
its ACLs cannot explain mean the brokers know the connection by another name, and the guard would protect the
wrong principal's ACLs.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Iterable, Sequence
from typing import Any

from reconciler.apply import decoded
from reconciler.base import errors
from reconciler.kafka.port import AdminPort
from reconciler.model import plans, state
from reconciler.model.kinds import Kind

CLUSTER_RESOURCE = "kafka-cluster"
ANY_PRINCIPAL = "User:*"
MAX_LISTED = 10

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


def is_super_user(
    adapter: AdminPort,
    principal: str,
    live_acls: Iterable[state.AclBinding] | None,
    creates: Sequence[state.AclBinding],
) -> bool:
    """True when the brokers give ``principal`` every operation the tool needs where no ACL grants it.

    Asks for the principal's operations on the cluster and on a topic name no binding can have been written for
    (a fresh random name). Access the ACLs do not explain comes from ``super.users`` (or from
    ``allow.everyone.if.no.acl.found``, which a DENY binding ends, so a plan that creates a DENY for the
    principal is never treated this way). Without the brokers' answer or the live ACLs: False.
    """
    if live_acls is None:
        return False
    if any(b.permission == "DENY" and b.principal in (principal, ANY_PRINCIPAL) for b in creates):
        return False
    probe = f"__kafka-reconciler-probe-{secrets.token_hex(6)}"
    ops = adapter.authorized_operations([probe])
    on_topic = ops.topics.get(probe)
    if ops.cluster is None or on_topic is None:
        return False
    if not (set(TOOL_NEEDS["CLUSTER"]) <= ops.cluster and set(TOOL_NEEDS["TOPIC"]) <= on_topic):
        return False
    acls = list(live_acls)
    return not any(
        is_allowed(acls, principal=principal, resource_type="TOPIC", name=probe, operation=op)
        for op in TOOL_NEEDS["TOPIC"]
    )


class PrincipalUnexplained(SelfLockoutRisk):
    """The brokers grant rights the ACLs of the computed principal do not explain: it is not the broker's."""


def unexplained_rights(
    ops: Any, *, principal: str, acls: Sequence[state.AclBinding], topics: Iterable[str]
) -> list[str]:
    """``"DESCRIBE on CLUSTER kafka-cluster"``-style rights the brokers grant that no ACL of ``principal`` grants."""
    found: list[str] = []
    probes = [("CLUSTER", CLUSTER_RESOURCE, ops.cluster)]
    probes += [("TOPIC", t, ops.topics.get(t)) for t in sorted(set(topics))]
    for resource_type, name, allowed in probes:
        for op in TOOL_NEEDS[resource_type]:
            rule = {"principal": principal, "resource_type": resource_type, "name": name, "operation": op}
            if allowed is not None and op in allowed and not is_allowed(acls, **rule):
                found.append(f"{op} on {resource_type} {name}")
    return found


def check_principal_explains(
    adapter: AdminPort,
    *,
    principal: str,
    live_acls: Iterable[state.AclBinding],
    bindings: Sequence[state.AclBinding],
    topics: Iterable[str],
    source: str,
) -> None:
    """Refuse when the brokers grant this connection rights that the ACLs of ``principal`` cannot explain.

    Called for a principal that is not a super user, before the self-lockout check relies on it: the rights the
    brokers report for the cluster, the plan's topics and every topic a changed binding names must each follow
    from an ACL of ``principal`` (or ``User:*``). If one does not, the brokers know this connection by another
    name (a principal builder, mapping rule or token claim the tool could not read), and the check would
    protect the wrong principal's ACLs.
    """
    names = set(topics) | {b.resource_name for b in bindings if b.resource_type == "TOPIC" and b.resource_name != "*"}
    ops = adapter.authorized_operations(sorted(names))
    unexplained = unexplained_rights(ops, principal=principal, acls=list(live_acls), topics=names)
    if not unexplained:
        return
    listed = ", ".join(unexplained[:MAX_LISTED]) + (
        f" and {len(unexplained) - MAX_LISTED} more" if len(unexplained) > MAX_LISTED else ""
    )
    raise PrincipalUnexplained(
        f"refusing to apply: the brokers grant this connection {listed}, which no ACL of {principal} grants, and "
        f"{principal} is not a super user; so the brokers do not know this connection as {principal} (computed "
        f"from {source}; a custom principal.builder.class, ssl.principal.mapping.rules or "
        "sasl.oauthbearer.sub.claim.name the tool could not read would do this). The self-lockout check cannot "
        "tell which of the plan's ACL changes remove this tool's own access, so nothing was written. Let the tool "
        "read the brokers' configuration (DESCRIBE_CONFIGS on the cluster), or re-run with "
        "--allow-self-lockout-risk if this is intended."
    )


def check(
    adapter: AdminPort, ops: decoded.Operations, *, own: str | None, live: state.ClusterState, principal_given: bool
) -> None:
    """Refuse ACL changes that would take from the connection's principal a right it needs to keep managing
    (``SelfLockoutRisk``), unless it is a super user (``is_super_user``); a principal the tool computed (not given)
    is first checked against what the brokers grant it (``check_principal_explains``)."""
    deletes = ops.bindings(plans.Action.DELETE)
    creates = ops.bindings(plans.Action.CREATE)
    principal = own
    topics = sorted(ops.names(Kind.TOPIC))
    if principal and (deletes or creates) and is_super_user(adapter, principal, live.acls, creates):
        principal = None  # ACLs do not bind a super user: no ACL change can lock it out
    elif principal and (deletes or creates) and live.acls is not None and not principal_given:
        check_principal_explains(
            adapter,
            principal=principal,
            live_acls=live.acls,
            bindings=[*deletes, *creates],
            topics=topics,
            source=adapter.principal_source,
        )
    check_self_lockout(principal=principal, live_acls=live.acls, deletes=deletes, creates=creates, topics=topics)


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

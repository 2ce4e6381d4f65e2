"""Before the first write: may the connecting principal do everything the plan needs?

The brokers say which operations the principal may perform on the cluster and on each existing topic
(KIP-430 authorized operations, which account for super users, prefixed and wildcard ACLs, and DENY rules).
Each change needs one operation on one resource (the table in docs/security.md); creating a topic needs
CREATE on the cluster or on the topic. For a topic that does not exist yet the broker cannot answer, so
its CREATE is judged from the ACLs when they were read, and otherwise left to the broker. When anything is
missing, the apply stops before writing and names every missing operation and the changes that need it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from reconciler.apply import guard
from reconciler.apply.ports import AdminPort
from reconciler.base import errors
from reconciler.model import plans, state
from reconciler.model.kinds import Kind

CLUSTER = "kafka-cluster"

# phase -> (resource type, operation); the resource name is the change's topic for TOPIC, else the cluster.
NEEDS: dict[plans.Phase, tuple[str, str]] = {
    plans.Phase.ACL_DELETE: ("CLUSTER", "ALTER"),
    plans.Phase.TOPIC_DELETE: ("TOPIC", "DELETE"),
    plans.Phase.TOPIC_CREATE: ("TOPIC", "CREATE"),
    plans.Phase.PARTITIONS: ("TOPIC", "ALTER"),
    plans.Phase.TOPIC_CONFIG: ("TOPIC", "ALTER_CONFIGS"),
    plans.Phase.REASSIGN: ("CLUSTER", "ALTER"),
    plans.Phase.QUOTA: ("CLUSTER", "ALTER_CONFIGS"),
    plans.Phase.SCRAM: ("CLUSTER", "ALTER"),
    plans.Phase.BROKER_CONFIG: ("CLUSTER", "ALTER_CONFIGS"),
    plans.Phase.ACL_CREATE: ("CLUSTER", "ALTER"),
}
MAX_LISTED = 10


class MissingAccess(errors.ReconcilerError):
    """The connecting principal lacks operations the plan needs; nothing was written."""


def missing_access(
    changes: Sequence[plans.Change],
    *,
    cluster_ops: frozenset[str] | None,
    topic_ops: Mapping[str, frozenset[str] | None],
    principal: str | None,
    live_acls: Iterable[state.AclBinding] | None,
    throttled: bool = False,
) -> dict[str, list[str]]:
    """``"CREATE on TOPIC orders" -> [addresses]`` for every operation the principal is known to lack.

    ``throttled``: reassignments run with a replication throttle, which also sets broker and topic configs.
    """
    acls = None if live_acls is None else list(live_acls)
    missing: dict[str, list[str]] = {}

    def lacks(what: str, address: str) -> None:
        missing.setdefault(what, []).append(address)

    for c in changes:
        resource_type, operation = NEEDS[c.phase]
        if throttled and c.phase is plans.Phase.REASSIGN:
            if cluster_ops is not None and "ALTER_CONFIGS" not in cluster_ops:
                lacks(f"ALTER_CONFIGS on CLUSTER {CLUSTER} (replication throttle)", c.address)
            on_topic = topic_ops.get(c.name)
            if on_topic is not None and "ALTER_CONFIGS" not in on_topic:
                lacks(f"ALTER_CONFIGS on TOPIC {c.name} (replication throttle)", c.address)
        if resource_type == "CLUSTER":
            if cluster_ops is not None and operation not in cluster_ops:
                lacks(f"{operation} on CLUSTER {CLUSTER}", c.address)
            continue
        if c.phase is plans.Phase.TOPIC_CREATE:
            if cluster_ops is None or "CREATE" in cluster_ops:
                continue  # allowed, or unknown: the broker decides
            allowed = topic_ops.get(c.name)
            if allowed is not None:
                if "CREATE" not in allowed:
                    lacks(f"CREATE on TOPIC {c.name} (or CREATE on CLUSTER {CLUSTER})", c.address)
            elif acls is not None and principal is not None:
                rule = {"principal": principal, "resource_type": "TOPIC", "name": c.name, "operation": "CREATE"}
                if not guard.is_allowed(acls, **rule):
                    lacks(f"CREATE on TOPIC {c.name} (or CREATE on CLUSTER {CLUSTER})", c.address)
            continue
        allowed = topic_ops.get(c.name)
        if allowed is not None and operation not in allowed:
            lacks(f"{operation} on TOPIC {c.name}", c.address)
    return missing


def check_access(
    adapter: AdminPort,
    changes: Sequence[plans.Change],
    *,
    principal: str | None,
    live: state.ClusterState,
    throttled: bool = False,
) -> int:
    """Raise ``MissingAccess`` naming what is missing; returns how many requests it sent."""
    if not changes:
        return 0
    topics = sorted(
        {c.name for c in changes if NEEDS[c.phase][0] == "TOPIC" or (throttled and c.phase is plans.Phase.REASSIGN)}
    )
    ops = adapter.authorized_operations(topics)
    acls = live.acls
    new_topics = [c for c in changes if c.phase is plans.Phase.TOPIC_CREATE and ops.topics.get(c.name) is None]
    if (
        acls is None
        and new_topics
        and principal is not None
        and ops.cluster is not None
        and "CREATE" not in ops.cluster
    ):
        # Whether the principal may create these names is in its ACLs (if it may read them).
        mine = adapter.read_state(
            kinds=frozenset({Kind.ACL}), scope=state.ReadScope(principals=frozenset({principal, "User:*"}))
        )
        acls = mine.acls
    missing = missing_access(
        changes, cluster_ops=ops.cluster, topic_ops=ops.topics, principal=principal, live_acls=acls, throttled=throttled
    )
    if missing:
        who = principal or "the connecting principal"
        lines = []
        for what, addresses in sorted(missing.items())[:MAX_LISTED]:
            more = f" and {len(addresses) - 3} more" if len(addresses) > 3 else ""
            lines.append(f"{what} (for {', '.join(addresses[:3])}{more})")
        if len(missing) > MAX_LISTED:
            lines.append(f"and {len(missing) - MAX_LISTED} more")
        raise MissingAccess(
            f"refusing to apply: {who} lacks {len(missing)} permission(s) the plan needs: "
            + "; ".join(lines)
            + ". Nothing was written. Grant them (docs/security.md lists the ACLs) or apply as a principal that "
            "has them."
        )
    return 2 if acls is live.acls else 3


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
    if any(b.permission == "DENY" and b.principal in (principal, guard.ANY_PRINCIPAL) for b in creates):
        return False
    probe = f"__kafka-reconciler-probe-{secrets.token_hex(6)}"
    ops = adapter.authorized_operations([probe])
    on_topic = ops.topics.get(probe)
    if ops.cluster is None or on_topic is None:
        return False
    if not (set(guard.TOOL_NEEDS["CLUSTER"]) <= ops.cluster and set(guard.TOOL_NEEDS["TOPIC"]) <= on_topic):
        return False
    acls = list(live_acls)
    return not any(
        guard.is_allowed(acls, principal=principal, resource_type="TOPIC", name=probe, operation=op)
        for op in guard.TOOL_NEEDS["TOPIC"]
    )


class PrincipalUnexplained(guard.SelfLockoutRisk):
    """The brokers grant rights the ACLs of the computed principal do not explain: it is not the broker's."""


def unexplained_rights(
    ops: Any, *, principal: str, acls: Sequence[state.AclBinding], topics: Iterable[str]
) -> list[str]:
    """``"DESCRIBE on CLUSTER kafka-cluster"``-style rights the brokers grant that no ACL of ``principal`` grants."""
    found: list[str] = []
    probes = [("CLUSTER", CLUSTER, ops.cluster)] + [("TOPIC", t, ops.topics.get(t)) for t in sorted(set(topics))]
    for resource_type, name, allowed in probes:
        for op in guard.TOOL_NEEDS[resource_type]:
            rule = {"principal": principal, "resource_type": resource_type, "name": name, "operation": op}
            if allowed is not None and op in allowed and not guard.is_allowed(acls, **rule):
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

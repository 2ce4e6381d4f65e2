"""Before the first write: may the connecting principal do everything the plan needs?

The brokers say which operations the principal may perform on the cluster and on each existing topic
(KIP-430 authorized operations, which account for super users, prefixed and wildcard ACLs, and DENY rules).
Each change needs one operation on one resource, as its kind declares it (``reconciler.kinds``; the table in
docs/security.md); creating a topic needs CREATE on the cluster or on the topic. For a topic that does not exist yet
the broker cannot answer, nor for a group (group configs need ALTER_CONFIGS and DESCRIBE_CONFIGS on the GROUP), so
these are judged from the principal's ACLs when they can be read (a super user passes), and otherwise left to the
broker. When anything is
missing, the apply stops before writing and names every missing operation and the changes that need it, in the
``grant OP on RESOURCE to PRINCIPAL`` form of the read refusals, with ready ``kafka-acls`` command lines. The check
covers what the apply will do, its read-back included: DESCRIBE and DESCRIBE_CONFIGS on every topic it changes
(``READ_BACK``), so a principal granted exactly what the refusal names is not stopped after writing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

from reconciler.apply import guard
from reconciler.base import errors
from reconciler.kafka.port import AdminPort
from reconciler.kinds import registry
from reconciler.model import plans, state
from reconciler.model.kinds import Kind

CLUSTER = "kafka-cluster"

# phase -> (resource type, operation) the write needs, as each kind declares it (``reconciler.kinds``); the resource
# name is the change's own for TOPIC and GROUP, else the cluster. Phases of a port without Kafka ACLs are absent.
NEEDS: dict[plans.Phase, tuple[str, str]] = {
    phase: (declared.write.resource_type, declared.write.operation)
    for phase, (_, declared) in registry.PHASES.items()
    if declared.write is not None
}
# phase -> (resource type, operation) the read-back after the write needs, besides the write's own operation: topic
# changes are read back with Metadata (DESCRIBE) and DescribeConfigs (DESCRIBE_CONFIGS) on the topic, group configs
# with DescribeConfigs on the group, the cluster-wide reads need DESCRIBE or DESCRIBE_CONFIGS on the cluster.
READ_BACK: dict[plans.Phase, tuple[tuple[str, str], ...]] = {
    phase: tuple((r.resource_type, r.operation) for r in declared.read_back)
    for phase, (_, declared) in registry.PHASES.items()
    if declared.read_back
}
MAX_LISTED = 10


class MissingAccess(errors.ReconcilerError):
    """The connecting principal lacks operations the plan needs; nothing was written."""


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class Grant:
    """One operation on one resource the principal lacks; ``why`` says what needs it beyond the write itself."""

    resource_type: str  # TOPIC, GROUP or CLUSTER
    name: str
    operation: str
    why: str = ""  # "", "read-back", "replication throttle"

    def text(self, principal: str | None) -> str:
        """``grant OP on RESOURCE to PRINCIPAL``, the form the read refusals use, with the alternative or the need."""
        who = principal or "the connecting principal"
        line = f"grant {self.operation} on {self.resource_type} {self.name} to {who}"
        if self.resource_type == "TOPIC" and self.operation == "CREATE":
            line += f" (or CREATE on CLUSTER {CLUSTER})"
        return line + (f" ({self.why})" if self.why else "")


def missing_access(
    changes: Sequence[plans.Change],
    *,
    cluster_ops: frozenset[str] | None,
    topic_ops: Mapping[str, frozenset[str] | None],
    principal: str | None,
    live_acls: Iterable[state.AclBinding] | None,
    throttled: bool = False,
    read_back: bool = True,
) -> dict[Grant, list[str]]:
    """Every operation the principal is known to lack -> the addresses of the changes that need it.

    ``throttled``: reassignments run with a replication throttle, which also sets broker and topic configs.
    ``read_back``: the apply reads its changes back, which needs DESCRIBE and DESCRIBE_CONFIGS (``READ_BACK``).
    For a topic that does not exist yet the broker may not answer; its operations are then judged from the ACLs
    when they were read, and otherwise left to the broker.
    """
    acls = None if live_acls is None else list(live_acls)
    missing: dict[Grant, list[str]] = {}

    def lacks(grant: Grant, address: str) -> None:
        missing.setdefault(grant, []).append(address)

    def check(resource_type: str, operation: str, c: plans.Change, why: str) -> None:
        if resource_type == "CLUSTER":
            if cluster_ops is not None and operation not in cluster_ops:
                lacks(Grant("CLUSTER", CLUSTER, operation, why), c.address)
            return
        allowed = topic_ops.get(c.name) if resource_type == "TOPIC" else None
        if allowed is not None:
            if operation not in allowed:
                lacks(Grant("TOPIC", c.name, operation, why), c.address)
        elif resource_type == "GROUP" or c.phase is plans.Phase.TOPIC_CREATE:
            # a group (the brokers report no group's rights before it is used) or a topic name that does not exist
            # yet, on brokers that do report rights: its ACLs decide, when they were read
            if cluster_ops is None or acls is None or not principal:
                return
            rule = {"principal": principal, "resource_type": resource_type, "name": c.name, "operation": operation}
            if not guard.is_allowed(acls, **rule):
                lacks(Grant(resource_type, c.name, operation, why), c.address)

    for c in changes:
        if c.phase not in NEEDS:
            continue  # written through a port Kafka's ACLs do not govern (Kafka Connect)
        resource_type, operation = NEEDS[c.phase]
        if throttled and c.phase is plans.Phase.REASSIGN:
            check("CLUSTER", "ALTER_CONFIGS", c, "replication throttle")
            if topic_ops.get(c.name) is not None:
                check("TOPIC", "ALTER_CONFIGS", c, "replication throttle")
        if c.phase is plans.Phase.TOPIC_CREATE and (cluster_ops is None or "CREATE" in cluster_ops):
            pass  # allowed by CREATE on the cluster, or unknown: the broker decides
        elif c.phase is not plans.Phase.TOPIC_CREATE or cluster_ops is not None:
            check(resource_type, operation, c, "")
        if read_back:
            for rtype, op in READ_BACK.get(c.phase, ()):
                check(rtype, op, c, "read-back")
    return missing


def acl_commands(grants: Iterable[Grant], *, principal: str | None, bootstrap: str | None) -> list[str]:
    """``kafka-acls`` command lines that add ``grants`` (resources needing the same operations share a line)."""
    by_resource: dict[tuple[str, str], set[str]] = {}
    for g in grants:
        by_resource.setdefault((g.resource_type, g.name), set()).add(g.operation)
    by_ops: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for (rtype, name), needed in sorted(by_resource.items()):
        by_ops.setdefault((rtype, tuple(sorted(needed))), []).append(name)
    lines = []
    for (rtype, ops), names in sorted(by_ops.items()):
        flags = " ".join(f"--operation {_camel(op)}" for op in ops)
        flag = "--group" if rtype == "GROUP" else "--topic"
        targets = "--cluster" if rtype == "CLUSTER" else " ".join(f"{flag} {n}" for n in names[:MAX_LISTED])
        more = f"  # and {len(names) - MAX_LISTED} more {rtype.lower()}(s)" if len(names) > MAX_LISTED else ""
        lines.append(
            f"kafka-acls --bootstrap-server {bootstrap or '<bootstrap>'} --command-config <admin.properties> --add "
            f"--allow-principal {principal or '<principal>'} {flags} {targets}{more}"
        )
    return lines


def _camel(operation: str) -> str:
    return "".join(part.capitalize() for part in operation.split("_"))


def check_access(
    adapter: AdminPort,
    changes: Sequence[plans.Change],
    *,
    principal: str | None,
    live: state.ClusterState,
    throttled: bool = False,
    read_back: bool = True,
) -> int:
    """Raise ``MissingAccess`` naming what is missing (the write's and the read-back's rights); returns how many
    requests it sent."""
    changes = [c for c in changes if c.phase in NEEDS]  # Kafka Connect has no Kafka ACL to check
    if not changes:
        return 0
    topics = sorted({c.name for c in changes if NEEDS[c.phase][0] == "TOPIC"})
    ops = adapter.authorized_operations(topics)
    acls = live.acls
    new_topics = [c for c in changes if c.phase is plans.Phase.TOPIC_CREATE and ops.topics.get(c.name) is None]
    groups = {c.name for c in changes if NEEDS[c.phase][0] == "GROUP"}
    sent = 2
    if acls is None and (new_topics or groups) and principal is not None and ops.cluster is not None:
        # Whether the principal may create and read back these names, and alter these groups, is in its ACLs (if
        # it may read them).
        mine = adapter.read_state(
            kinds=frozenset({Kind.ACL}), scope=state.ReadScope(principals=frozenset({principal, "User:*"}))
        )
        acls = mine.acls
        sent += 1
    missing = missing_access(
        changes,
        cluster_ops=ops.cluster,
        topic_ops=ops.topics,
        principal=principal,
        live_acls=acls,
        throttled=throttled,
        read_back=read_back,
    )
    if missing and principal is not None:
        # ACLs bind neither a super user nor anyone under allow.everyone.if.no.acl.found: the brokers decide.
        unknown = {c.name for c in new_topics}  # judged from the ACLs, which do not bind a super user

        def judged(g: Grant) -> bool:
            return g.resource_type == "GROUP" or (g.resource_type == "TOPIC" and g.name in unknown)

        if any(judged(g) for g in missing):
            sent += 1
            if guard.is_super_user(adapter, principal, acls, ()):
                missing = {g: a for g, a in missing.items() if not judged(g)}
    if missing:
        raise MissingAccess(refusal(missing, principal=principal, bootstrap=_bootstrap(adapter)))
    return sent


def refusal(missing: Mapping[Grant, Sequence[str]], *, principal: str | None, bootstrap: str | None) -> str:
    """The refusal: each missing right as ``grant OP on RESOURCE to PRINCIPAL`` with the changes that need it, then
    ready ``kafka-acls`` lines."""
    who = principal or "the connecting principal"
    lines = []
    for grant, addresses in sorted(missing.items())[:MAX_LISTED]:
        more = f" and {len(addresses) - 3} more" if len(addresses) > 3 else ""
        lines.append(f"  {grant.text(principal)}  (for {', '.join(addresses[:3])}{more})")
    if len(missing) > MAX_LISTED:
        lines.append(f"  and {len(missing) - MAX_LISTED} more")
    commands = acl_commands(missing, principal=principal, bootstrap=bootstrap)
    return (
        f"refusing to apply: {who} lacks {len(missing)} permission(s) the plan needs, the read-back included:\n"
        + "\n".join(lines)
        + "\nNothing was written. Grant them (docs/security.md lists the ACLs) or apply as a principal that has "
        "them; as kafka-acls commands:\n" + "\n".join(f"  {line}" for line in commands)
    )


def _bootstrap(adapter: AdminPort) -> str | None:
    settings = adapter.settings
    servers = getattr(settings, "bootstrap_servers", None) if settings is not None else None
    if isinstance(servers, str):
        return servers
    return ",".join(servers) if servers else None

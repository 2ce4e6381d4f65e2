"""Builders for test data in one line each: ACL bindings (as the tool and as plain kafka-python see them), desired
and live topics, whole desired and live states, and the plan look-ups the planner tests share."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from kafka.admin import ACL, ACLOperation, ACLPermissionType, ACLResourcePatternType, ResourcePattern
from kafka.admin import ResourceType as KafkaResourceType

from reconciler.model import desired as d
from reconciler.model import plans
from reconciler.model import state as s
from reconciler.model.defaults import APPLY_LOCK_GROUP
from reconciler.model.kinds import Kind

EMPTY: Mapping[str, object] = MappingProxyType({})


def brokers(count: int = 3, *, racks: Iterable[str] | None = None) -> tuple[s.Broker, ...]:
    rack_list = list(racks) if racks is not None else [None] * count
    return tuple(s.Broker(i + 1, f"broker{i + 1}", 9092, rack_list[i]) for i in range(count))


def round_robin(partitions: int, rf: int, broker_ids: int = 3) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple((p + r) % broker_ids + 1 for r in range(rf)) for p in range(partitions))


def live_topic(
    name: str,
    partitions: int = 3,
    rf: int = 3,
    *,
    configs: Mapping[str, str | None] | None = None,
    defaults: Mapping[str, str | None] | None = None,
    sensitive: Iterable[str] = (),
    assignment: tuple[tuple[int, ...], ...] | None = None,
    internal: bool = False,
    broker_ids: int = 3,
) -> s.TopicState:
    return s.TopicState(
        name=name,
        assignment=assignment if assignment is not None else round_robin(partitions, rf, broker_ids),
        internal=internal,
        configs=dict(configs or {}),
        defaults=dict(defaults or {}),
        sensitive=frozenset(sensitive),
    )


def topic(
    name: str,
    partitions: int = 3,
    rf: int = 3,
    *,
    configs: Mapping[str, str] | None = None,
    assignment: tuple[tuple[int, ...], ...] | None = None,
    allow_internal: bool = False,
) -> d.DesiredTopic:
    return d.DesiredTopic(
        name=name,
        partitions=partitions,
        replication_factor=rf,
        configs=dict(configs or {}),
        assignment=assignment,
        source=d.Source("topics.yaml", 3),
        allow_internal=allow_internal,
    )


def acl(
    principal: str,
    operation: str,
    name: str,
    *,
    pattern: str = "LITERAL",
    resource: str = "TOPIC",
    host: str = "*",
    permission: str = "ALLOW",
) -> s.AclBinding:
    """One exact binding; by default a literal topic ALLOW from any host."""
    return s.AclBinding(resource, pattern, name, principal, host, operation, permission)


def allow(
    principal: str, resource: str, name: str, *operations: str, pattern: str = "LITERAL", host: str = "*"
) -> set[s.AclBinding]:
    """The ALLOW bindings of each of ``operations`` on one resource, as a manifest grant expands into."""
    return {acl(principal, op, name, resource=resource, pattern=pattern, host=host) for op in operations}


def all_rights(principal: str, prefix: str) -> list[s.AclBinding]:
    """ALL on the cluster and on the topics starting with ``prefix``: what a tool principal gets in a test (an apply
    through the command line also needs ``lock_right``)."""
    return [
        acl(principal, "ALL", "kafka-cluster", resource="CLUSTER"),
        acl(principal, "ALL", prefix, pattern="PREFIXED"),
    ]


def lock_right(principal: str) -> s.AclBinding:
    """READ on the group of the cluster's apply lock (``reconciler.kafka.lock``), which every apply joins."""
    return acl(principal, "READ", APPLY_LOCK_GROUP, resource="GROUP")


def kafka_acl(binding: s.AclBinding) -> ACL:
    """``binding`` as plain kafka-python's ``ACL``, for setting a cluster up without the tool's own code."""
    return ACL(
        principal=binding.principal,
        host=binding.host,
        operation=ACLOperation[binding.operation],
        permission_type=ACLPermissionType[binding.permission],
        resource_pattern=ResourcePattern(
            KafkaResourceType[binding.resource_type],
            binding.resource_name,
            ACLResourcePatternType[binding.pattern_type],
        ),
    )


def scram_user(
    name: str, *, mechanism: str = "SCRAM-SHA-512", iterations: int = 8192, rotation: str | None = None
) -> d.DesiredScramUser:
    env = name.upper().replace("-", "_") + "_SCRAM_PASSWORD"
    return d.DesiredScramUser(name, mechanism, iterations, d.SecretRef(env=env), rotation, d.Source("users.yaml", 1))


def cluster(
    *,
    broker_list: tuple[s.Broker, ...] | None = None,
    topics: Iterable[s.TopicState] | None = (),
    acls: Iterable[s.AclBinding] | None = (),
    quotas: Mapping[s.QuotaEntity, Mapping[str, float]] | None = EMPTY,  # type: ignore[assignment]
    scram: Mapping[str, tuple[s.ScramCredential, ...]] | None = EMPTY,  # type: ignore[assignment]
    broker_configs: Mapping[str, Mapping[str, str | None]] | None = EMPTY,  # type: ignore[assignment]
    broker_config_sensitive: Iterable[str] = (),
    cluster_configs: Mapping[str, str | None] | None = None,
    reassignments: tuple[s.Reassignment, ...] = (),
) -> s.ClusterState:
    return s.ClusterState(
        cluster_id="test-cluster-id",
        controller_id=1,
        brokers=broker_list if broker_list is not None else brokers(),
        topics=None if topics is None else {t.name: t for t in topics},
        acls=None if acls is None else frozenset(acls),
        quotas=quotas,
        scram_users=scram,
        broker_configs=broker_configs,
        broker_config_sensitive=frozenset(broker_config_sensitive),
        cluster_configs=dict(cluster_configs or {}),
        reassignments=reassignments,
    )


def want(
    *,
    topics: Iterable[d.DesiredTopic] = (),
    acls: Iterable[s.AclBinding] = (),
    quotas: Mapping[s.QuotaEntity, Mapping[str, float]] | None = EMPTY,  # type: ignore[assignment]
    scram: Iterable[d.DesiredScramUser] = (),
    broker_configs: Mapping[str, Mapping[str, str]] | None = None,
    own_topics: Iterable[str] = (),
    own_principals: Iterable[str] = (),
    delete: Iterable[str] = (),
) -> d.DesiredState:
    return d.DesiredState(
        topics={t.name: t for t in topics},
        acls={b: d.Source("acls.yaml", 7, origin="grant consumer orders") for b in acls},
        quotas={e: d.DesiredQuota(e, dict(v)) for e, v in (quotas or {}).items()},
        scram_users={u.name: u for u in scram},
        broker_configs={b: d.DesiredBrokerConfig(b, dict(c)) for b, c in (broker_configs or {}).items()},
        ownership=d.Ownership(
            topics=tuple(d.NamePattern("prefix", x) for x in own_topics),
            principals=tuple(d.NamePattern("prefix", x) for x in own_principals),
            delete={Kind.parse(k): True for k in delete},
        ),
    )


Row = tuple[str, str, str]
"""``(symbol, phase, address)`` of one change."""


def rows(result: plans.Plan) -> list[Row]:
    """``(symbol, phase, address)`` of every change, in plan order."""
    return [(c.action.symbol, c.phase.name, c.address) for c in result.changes]


def only(result: plans.Plan, address: str, phase: plans.Phase | None = None) -> plans.Change:
    found = [c for c in result.changes if c.address == address and (phase is None or c.phase is phase)]
    assert len(found) == 1, [(c.address, c.phase.name) for c in result.changes]
    return found[0]


def attrs(change: plans.Change) -> dict[str, tuple[object, object]]:
    return {a.name: (a.before, a.after) for a in change.attributes}

"""Frozen live-state model of one Kafka cluster and its resource identities.

These types are the contract between the wire adapter (``reconciler.kafka.adapter``), which fills
them, the planner, which compares them with the desired state, and snapshot files
(``reconciler.model.snapshotfile``), which store them. Names of Kafka enums are kept as Kafka spells
them (``READ``, ``ALLOW``, ``PREFIXED``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from reconciler.model import impact as impact_mod
from reconciler.model.kinds import Kind

# The key of cluster-wide dynamic broker defaults in ``ClusterState.broker_configs``;
# per-broker dynamic configs use the broker id as a string.
CLUSTER_DEFAULT = "<default>"

ACL_OPERATIONS = (
    "ALL",
    "READ",
    "WRITE",
    "CREATE",
    "DELETE",
    "ALTER",
    "DESCRIBE",
    "CLUSTER_ACTION",
    "DESCRIBE_CONFIGS",
    "ALTER_CONFIGS",
    "IDEMPOTENT_WRITE",
    "CREATE_TOKENS",
    "DESCRIBE_TOKENS",
)
ACL_RESOURCE_TYPES = ("TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER")
ACL_PATTERN_TYPES = ("LITERAL", "PREFIXED")
ACL_PERMISSIONS = ("ALLOW", "DENY")
QUOTA_ENTITY_TYPES = ("user", "client-id", "ip")
SCRAM_MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class AclBinding:
    """One exact ACL binding, as DescribeAcls returns it and CreateAcls/DeleteAcls take it."""

    resource_type: str  # TOPIC, GROUP, CLUSTER, TRANSACTIONAL_ID, DELEGATION_TOKEN, USER
    pattern_type: str  # LITERAL or PREFIXED
    resource_name: str
    principal: str  # "User:alice"
    host: str  # "*" for any host
    operation: str  # READ, WRITE, ...
    permission: str  # ALLOW or DENY

    @property
    def address(self) -> str:
        """Stable, readable identity used in plans: ``acl/User:alice/ALLOW/READ/TOPIC:LITERAL:orders@*``."""
        return (
            f"{Kind.ACL.prefix}{self.principal}/{self.permission}/{self.operation}/"
            f"{self.resource_type}:{self.pattern_type}:{self.resource_name}@{self.host}"
        )

    def to_dict(self) -> dict[str, str]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AclBinding:
        """From ``to_dict``'s form; each field's string is interned (a snapshot repeats the same few thousand)."""
        return cls(*(sys.intern(str(data[name])) for name in _ACL_FIELDS))


_ACL_FIELDS = tuple(f.name for f in dataclasses.fields(AclBinding))


# Characters of a quota entity name that an address writes percent-encoded (as URL encoding does, which is how
# Kafka stores entity names in ZooKeeper): the part separator, the default marker's brackets, and ``%`` itself.
_QUOTA_ESCAPES = {c: f"%{ord(c):02X}" for c in "%,<>"}


def quota_name_text(name: str | None) -> str:
    """How a quota entity name is written in an address: ``<default>`` for the default entity, otherwise the name
    with ``%``, ``,``, ``<`` and ``>`` percent-encoded, so ``client-id="a,user=b"`` reads
    ``client-id=a%2Cuser=b`` and can never be taken for two parts (nor a name ``<default>`` for the default)."""
    if name is None:
        return "<default>"
    return "".join(_QUOTA_ESCAPES.get(c, c) for c in name)


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class QuotaEntity:
    """A client-quota entity: sorted ``(entity_type, name)`` pairs; a name of ``None`` is the default.

    ``QuotaEntity((("user", "alice"),))`` is user alice; ``QuotaEntity((("client-id", None), ("user", "bob")))``
    is the default client-id of user bob.
    """

    parts: tuple[tuple[str, str | None], ...]

    @classmethod
    def of(cls, **kwargs: str | None) -> QuotaEntity:
        """Build from keyword names: ``QuotaEntity.of(user="alice", client_id=None)``."""
        return cls(tuple(sorted((k.replace("_", "-"), v) for k, v in kwargs.items())))

    @property
    def address(self) -> str:
        """``quota/client-id=<default>,user=alice`` (parts in sorted order; names written by ``quota_name_text``)."""
        return Kind.QUOTA.address(",".join(f"{t}={quota_name_text(n)}" for t, n in self.parts))

    def to_list(self) -> list[dict[str, str | None]]:
        return [{"type": t, "name": n} for t, n in self.parts]

    @classmethod
    def from_list(cls, data: Iterable[Mapping[str, Any]]) -> QuotaEntity:
        return cls(tuple(sorted((str(d["type"]), None if d["name"] is None else str(d["name"])) for d in data)))


@dataclasses.dataclass(frozen=True, slots=True)
class Broker:
    """One broker from Metadata: id, advertised address and rack (``None`` when unset)."""

    id: int
    host: str
    port: int
    rack: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class TopicState:
    """A live topic.

    ``assignment[p]`` is the replica list of partition ``p`` (leader-preferred first).
    ``configs`` holds only what is set on the topic itself (source ``DYNAMIC_TOPIC_CONFIG``);
    ``defaults`` holds the value each other key falls back to, when the adapter read it, so the plan
    can say what a reset returns to. ``sensitive`` names keys the broker flags as sensitive; their
    values are stored as ``None`` and never leave the adapter.
    """

    name: str
    assignment: tuple[tuple[int, ...], ...]
    internal: bool = False
    configs: Mapping[str, str | None] = dataclasses.field(default_factory=dict)
    defaults: Mapping[str, str | None] = dataclasses.field(default_factory=dict)
    sensitive: frozenset[str] = frozenset()
    topic_id: str | None = None

    @property
    def partitions(self) -> int:
        return len(self.assignment)

    @property
    def replication_factor(self) -> int:
        return min((len(r) for r in self.assignment), default=0)


@dataclasses.dataclass(frozen=True, slots=True)
class ScramCredential:
    """A SCRAM credential as DescribeUserScramCredentials reports it (no secret material)."""

    mechanism: str  # SCRAM-SHA-256 or SCRAM-SHA-512
    iterations: int


@dataclasses.dataclass(frozen=True, slots=True)
class Reassignment:
    """An ongoing partition reassignment."""

    topic: str
    partition: int
    replicas: tuple[int, ...]
    adding: tuple[int, ...]
    removing: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class TopicUsage:
    """Evidence that a topic is in use, read for topics a plan would delete (``reconciler.kafka.usage``).

    ``end_offsets[p]`` is partition ``p``'s end offset (``-1`` unknown); ``latest_timestamp_ms`` the timestamp of
    its newest record (``None``: no record, or a broker too old to say); ``groups`` the consumer groups holding
    committed offsets on it; ``read_at_ms`` when the evidence was read (wall clock, ms since the epoch).
    """

    end_offsets: tuple[int, ...]
    latest_timestamp_ms: int | None
    groups: tuple[str, ...]
    read_at_ms: int

    def evidence(self) -> dict[str, Any]:
        """The facts as plain data (a plan's ``before.usage``; when they were read is left out)."""
        return {
            "groups": list(self.groups),
            "end_offsets": list(self.end_offsets),
            "latest_timestamp_ms": self.latest_timestamp_ms,
        }

    @classmethod
    def from_dict(cls, u: Mapping[str, Any]) -> TopicUsage:
        """Read back ``evidence()`` with ``read_at_ms`` (snapshots, fleet rows)."""
        ts = u["latest_timestamp_ms"]
        return cls(
            end_offsets=tuple(int(o) for o in u["end_offsets"]),
            latest_timestamp_ms=None if ts is None else int(ts),
            groups=tuple(str(g) for g in u["groups"]),
            read_at_ms=int(u["read_at_ms"]),
        )


@dataclasses.dataclass(frozen=True, slots=True)
class ReadScope:
    """The resources a targeted read asks for; a field left ``None`` reads that kind whole.

    ``topics`` are topic names, ``brokers`` broker ids as strings or ``CLUSTER_DEFAULT``, ``principals`` the ACL
    principals whose bindings are read (``User:alice``), ``quota_entities`` and ``scram_users`` the entities and
    users. An empty set reads none of that kind. ``topic_config_keys`` asks only for those configs of the named
    topics (apply's read-back: the keys its operations wrote; an empty set reads no topic config).
    """

    topics: frozenset[str] | None = None
    brokers: frozenset[str] | None = None
    principals: frozenset[str] | None = None
    quota_entities: frozenset[QuotaEntity] | None = None
    scram_users: frozenset[str] | None = None
    topic_config_keys: frozenset[str] | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterState:
    """Everything read from one cluster. A section that was not read (not needed, or unsupported) is ``None``.

    ``broker_configs`` maps ``CLUSTER_DEFAULT`` or a broker id (as a string) to the dynamic configs set
    there. ``cluster_configs`` holds effective broker settings the planner lints (e.g.
    ``auto.create.topics.enable``, ``min.insync.replicas``), whatever their source.
    ``capabilities`` maps admin API names (``"CreateTopics"``) to the highest version the cluster
    supports. ``unavailable`` maps a kind whose section is ``None`` although it was asked for to the
    reason (no authorizer, API missing), so a plan can say why instead of guessing.
    """

    cluster_id: str | None
    controller_id: int | None
    brokers: tuple[Broker, ...]
    topics: Mapping[str, TopicState] | None = None
    broker_configs: Mapping[str, Mapping[str, str | None]] | None = None
    broker_config_sensitive: frozenset[str] = frozenset()
    cluster_configs: Mapping[str, str | None] = dataclasses.field(default_factory=dict)
    acls: frozenset[AclBinding] | None = None
    quotas: Mapping[QuotaEntity, Mapping[str, float]] | None = None
    scram_users: Mapping[str, tuple[ScramCredential, ...]] | None = None
    reassignments: tuple[Reassignment, ...] = ()
    capabilities: Mapping[str, int] = dataclasses.field(default_factory=dict)
    # kind (a ``kinds.Kind`` value) -> plain reason why that section could not be read (e.g. no authorizer).
    unavailable: Mapping[str, str] = dataclasses.field(default_factory=dict)
    # Usage evidence of the topics a plan would delete (read after a first plan); None when not read.
    topic_usage: Mapping[str, TopicUsage] | None = None
    # Impact evidence (sizes, offsets, in-sync replicas) of the topics a plan changes; None when not read.
    impact: impact_mod.ImpactEvidence | None = None


def canonical_json(value: Any) -> bytes:
    """``value`` (plain data: dicts with string keys, lists or tuples, strings, numbers, booleans, ``None``) as
    canonical JSON: keys sorted, no whitespace, ASCII with ``\\u`` escapes. Equal values give equal bytes in any
    process or Python version; anything JSON cannot hold raises ``TypeError`` instead of being stringified."""
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode("ascii")


def fingerprint(value: Any) -> str:
    """A short, stable fingerprint of a plain-data value: the first 16 hex digits of the SHA-256 of its
    ``canonical_json``."""
    return hashlib.sha256(canonical_json(value)).hexdigest()[:16]

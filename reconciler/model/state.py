"""Frozen live-state model of one Kafka cluster and its resource identities.

These types are the contract between the wire adapter (``reconciler.kafka.adapter``), which fills
them, the planner, which compares them with the desired state, and snapshot files
(``reconciler.snapshot.files``), which store them. Names of Kafka enums are kept as Kafka spells
them (``READ``, ``ALLOW``, ``PREFIXED``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from reconciler.model import identities
from reconciler.model import impact as impact_mod
from reconciler.model.kinds import Kind

# The key of cluster-wide dynamic broker defaults in ``ClusterState.broker_configs``;
# per-broker dynamic configs use the broker id as a string.
CLUSTER_DEFAULT = "<default>"

# The identities the live state is keyed by, shared with the desired state (model.identities).
ACL_OPERATIONS = identities.ACL_OPERATIONS
ACL_RESOURCE_TYPES = identities.ACL_RESOURCE_TYPES
ACL_PATTERN_TYPES = identities.ACL_PATTERN_TYPES
ACL_PERMISSIONS = identities.ACL_PERMISSIONS
QUOTA_ENTITY_TYPES = identities.QUOTA_ENTITY_TYPES
SCRAM_MECHANISMS = identities.SCRAM_MECHANISMS
AclBinding = identities.AclBinding
QuotaEntity = identities.QuotaEntity
quota_name_text = identities.quota_name_text


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
    group_configs: frozenset[str] | None = None  # group ids whose configs are read
    client_metrics: frozenset[str] | None = None  # client-metrics subscription names


@dataclasses.dataclass(frozen=True, slots=True)
class EntityFilter:
    """Which group configs or client-metrics subscriptions a read covers: the ``declared`` names, and the live ones
    ``owns`` accepts (listing them takes a request; ``None``: no rules, nothing is listed)."""

    declared: frozenset[str] = frozenset()
    owns: Callable[[str], bool] | None = None


CONNECTOR_STATES = ("running", "paused", "stopped")  # what a Connector manifest may declare


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectorTask:
    """One task of a Kafka Connect connector as its status reports it; ``trace`` is the first line of a failure."""

    id: int
    state: str  # RUNNING, FAILED, PAUSED, UNASSIGNED, RESTARTING (as Connect spells it)
    worker: str | None = None
    trace: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectorState:
    """A live Kafka Connect connector: its config as Connect stores it (strings, without ``name``) and its status.

    A secret's value never reaches this type: the reading port replaces it by ``secret_marker`` of a digest
    (``reconciler.connect.secrets``). ``state`` is Connect's (``RUNNING``, ``PAUSED``, ``STOPPED``, ``FAILED``,
    ``UNASSIGNED``); ``trace`` the first line of the connector's failure, if any.
    """

    name: str
    config: Mapping[str, str]
    state: str
    tasks: tuple[ConnectorTask, ...] = ()
    type: str | None = None
    trace: str | None = None

    @property
    def class_name(self) -> str:
        return self.config.get("connector.class", "")


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectCluster:
    """One Kafka Connect cluster of several: where it was read and the connector plugins its workers have."""

    url: str
    plugins: tuple[str, ...] | None = None
    plugin_versions: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectState:
    """What one plan read from the Kafka Connect cluster of the Cluster profile.

    ``connectors`` is every connector (one ``GET /connectors?expand=info&expand=status``); ``plugins`` the connector
    classes the workers have; ``validation`` maps a declared connector whose config the plan changes to the field
    errors Connect's validate endpoint reported (``(key, message)``, key ``""`` for the connector as a whole);
    ``secret_digests`` maps a declared connector to the digests of its referenced secrets, resolved at plan time
    (compared with the digests of the live values, never printed); ``kept_offsets`` maps a live connector the
    manifests would delete to the offsets Connect keeps for it (``GET /connectors/{name}/offsets``, one
    ``partition -> offset`` text each), read only for those; ``plugin_versions`` maps each connector class to the
    versions of it the workers have (KIP-891, from the same plugin list; empty from a worker older than 4.1 that
    reports none).
    """

    url: str
    connectors: Mapping[str, ConnectorState]
    plugins: tuple[str, ...] | None = None
    validation: Mapping[str, tuple[tuple[str, str], ...]] = dataclasses.field(default_factory=dict)
    secret_digests: Mapping[str, Mapping[str, str]] = dataclasses.field(default_factory=dict)
    kept_offsets: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    plugin_versions: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    # A declared connector whose declared offsets the plan alters: the offsets Connect holds for it now, as
    # canonical ``(partition, offset)`` JSON texts (``GET /connectors/{name}/offsets``, read only for those).
    current_offsets: Mapping[str, tuple[tuple[str, str], ...]] = dataclasses.field(default_factory=dict)
    # Several Connect clusters (``reconciler.model.connect_clusters``): each one read, by name (its connectors are keyed
    # ``<cluster>/<name>`` in ``connectors``); empty for the only one. ``unreachable``: each one that could not be
    # read, with why (its connectors are not in ``connectors``: not planned, never taken for deleted).
    clusters: Mapping[str, ConnectCluster] = dataclasses.field(default_factory=dict)
    unreachable: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def for_connector(self, key: str) -> ConnectState:
        """This state with the plugins of the Connect cluster connector ``key`` runs on (itself for the only one)."""
        if not self.clusters:
            return self
        cluster = self.clusters.get(key.partition("/")[0])
        if cluster is None:
            return dataclasses.replace(self, plugins=None, plugin_versions={})
        return dataclasses.replace(self, plugins=cluster.plugins, plugin_versions=cluster.plugin_versions)


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterState:
    """Everything read from one cluster. A section that was not read (not needed, or unsupported) is ``None``.

    ``broker_configs`` maps ``CLUSTER_DEFAULT`` or a broker id (as a string) to the dynamic configs set
    there. ``cluster_configs`` holds effective broker settings the planner lints (e.g.
    ``auto.create.topics.enable``, ``min.insync.replicas``), whatever their source.
    ``capabilities`` maps admin API names (``"CreateTopics"``) to the highest version the cluster
    supports. ``unavailable`` maps a kind whose section is ``None`` although it was asked for to the
    reason (no authorizer, API missing), so a plan can say why instead of guessing.
    ``group_configs`` maps a group id to the configs set on the group (source ``DYNAMIC_GROUP_CONFIG``);
    ``client_metrics`` a client-metrics subscription's name to its settings (``metrics``, ``interval.ms``,
    ``match``, as Kafka stores them). Both hold only entities with at least one config set.
    ``unread_entities`` maps a kind (``group_config``, ``client_metrics``) to the entities of it whose configs the
    principal may not describe, each with the refusal and the grant to ask for: they are absent from the section,
    and nothing about them is known (a plan blocks them instead of treating them as empty).
    ``sections`` holds the live sections of kinds declared in a place of their own (``reconciler/kinds/<kind>/``),
    by kind, each of the type that kind defines and reads through accessors of its own; a kind absent was not
    read (like a ``None`` field).
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
    group_configs: Mapping[str, Mapping[str, str | None]] | None = None
    client_metrics: Mapping[str, Mapping[str, str | None]] | None = None
    capabilities: Mapping[str, int] = dataclasses.field(default_factory=dict)
    # kind (a ``kinds.Kind`` value) -> plain reason why that section could not be read (e.g. no authorizer).
    unavailable: Mapping[str, str] = dataclasses.field(default_factory=dict)
    # kind value -> entity name -> why its configs could not be read (a refused DescribeConfigs and the grant to ask)
    unread_entities: Mapping[str, Mapping[str, str]] = dataclasses.field(default_factory=dict)
    # kind value -> config key -> the value a key not set on an entity falls back to (the broker's group.* setting),
    # as DescribeConfigs reported it: what a plan's reset of that key returns to
    entity_defaults: Mapping[str, Mapping[str, str | None]] = dataclasses.field(default_factory=dict)
    # Usage evidence of the topics a plan would delete (read after a first plan); None when not read.
    topic_usage: Mapping[str, TopicUsage] | None = None
    # Impact evidence (sizes, offsets, in-sync replicas) of the topics a plan changes; None when not read.
    impact: impact_mod.ImpactEvidence | None = None
    # The Kafka Connect cluster's connectors (None: not read, no connector declared or owned).
    connect: ConnectState | None = None
    # The sections of kinds declared in a place of their own, by kind (absent: not read; see the docstring).
    sections: Mapping[Kind, Any] = dataclasses.field(default_factory=dict)


def canonical_json(value: Any) -> bytes:
    """``value`` (plain data: dicts with string keys, lists or tuples, strings, numbers, booleans, ``None``) as
    canonical JSON: keys sorted, no whitespace, ASCII with ``\\u`` escapes. Equal values give equal bytes in any
    process or Python version; anything JSON cannot hold raises ``TypeError`` instead of being stringified."""
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode("ascii")


def fingerprint(value: Any) -> str:
    """A short, stable fingerprint of a plain-data value: the first 16 hex digits of the SHA-256 of its
    ``canonical_json``."""
    return hashlib.sha256(canonical_json(value)).hexdigest()[:16]

"""The normalised desired state: what the validated manifests ask the cluster to hold.

The manifests layer (``reconciler.manifests``) turns YAML documents into a ``DesiredState``:
defaults and overlays applied, ``${VAR}`` substituted, sizes and durations converted to Kafka's
strings, role grants expanded into exact ``AclBinding``s. The planner compares it with a
``ClusterState``. Nothing here does I/O; secrets are references, never values.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
from collections.abc import Mapping
from typing import Any

from reconciler.base.secret import SecretRef as SecretRef
from reconciler.model.identities import AclBinding, QuotaEntity
from reconciler.model.kinds import Kind


@dataclasses.dataclass(frozen=True, slots=True)
class Source:
    """Where a desired resource was declared: file, 1-based line and column, and an origin label.

    ``origin`` says how it came about when it is not a plain declaration, e.g.
    ``"grant consumer orders-service"`` for an ACL expanded from a role grant.
    """

    file: str
    line: int
    column: int = 1
    origin: str | None = None

    def __str__(self) -> str:
        text = f"{self.file}:{self.line}:{self.column}"
        return f"{text} ({self.origin})" if self.origin else text


@dataclasses.dataclass(frozen=True, slots=True)
class DesiredTopic:
    """A topic as declared. ``configs`` values are Kafka strings after normalisation (``7d`` -> ``"604800000"``)."""

    name: str
    partitions: int
    replication_factor: int
    configs: Mapping[str, str] = dataclasses.field(default_factory=dict)
    assignment: tuple[tuple[int, ...], ...] | None = None  # explicit replica assignment, if declared
    source: Source | None = None
    allow_internal: bool = False  # the manifests allow creating and changing this internal topic


def topic_collision_key(name: str) -> str:
    """Topic names equal once '.' and '_' are treated alike collide in Kafka's metric names (the broker refuses
    the second with INVALID_TOPIC_EXCEPTION)."""
    return name.replace(".", "_")


@dataclasses.dataclass(frozen=True, slots=True)
class DesiredScramUser:
    """A SCRAM credential to hold. The password is resolved only by apply, from ``password``.

    ``rotation`` is an opaque marker the user bumps to ask for a password change; see
    docs/manifests.md (the planner upserts the credential when asked to rotate).
    """

    name: str
    mechanism: str  # SCRAM-SHA-256 or SCRAM-SHA-512
    iterations: int
    password: SecretRef
    rotation: str | None = None
    source: Source | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class DesiredQuota:
    """Client-quota values for one entity (keys such as ``producer_byte_rate``)."""

    entity: QuotaEntity
    values: Mapping[str, float]
    source: Source | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class DesiredBrokerConfig:
    """Dynamic broker configs for the cluster default (``broker=CLUSTER_DEFAULT``) or one broker id."""

    broker: str
    configs: Mapping[str, str]
    source: Source | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class DesiredEntityConfig:
    """The configs of one config entity that is neither a topic nor a broker: a group's configs (by group id) or a
    client-metrics subscription's settings (by name), as Kafka strings (``metrics`` and ``match`` comma-joined)."""

    name: str
    configs: Mapping[str, str]
    source: Source | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class DesiredConnector:
    """A Kafka Connect connector as declared: ``config`` holds Connect's strings (``connector.class`` and
    ``tasks.max`` included, ``${file:...}`` placeholders untouched); ``secrets`` the keys whose value is read from a
    reference at plan and apply time, never held here. ``state`` is ``running``, ``paused`` or ``stopped``.
    ``reset_offsets`` asks for the connector's offsets to be reset when it is created again under its name.
    ``offsets`` are the positions declared (KIP-875): ``(partition, offset)`` pairs as canonical JSON texts (an offset
    ``null`` resets that partition); ``config`` then holds their digest under ``connector_offsets.RECORD_KEY``.
    ``positions`` gives the declaration of each config key (a validate error is shown there). ``acl_type``
    (``source``/``sink``) is what its ACLs were derived as when it names a ConnectWorker grant, else ``None``.
    ``name`` is the connector's key (``reconciler.model.connect_clusters``): its Connect name, prefixed with
    ``cluster/`` when the manifest names a Connect cluster (``connectCluster``), and once placed when the profile
    has several."""

    name: str
    config: Mapping[str, str]
    state: str = "running"
    secrets: Mapping[str, SecretRef] = dataclasses.field(default_factory=dict)
    reset_offsets: bool = False
    source: Source | None = None
    positions: Mapping[str, Source] = dataclasses.field(default_factory=dict)
    acl_type: str | None = None
    offsets: tuple[tuple[str, str], ...] = ()
    cluster: str | None = None  # the Connect cluster its manifest names (connectCluster); None: not named
    cluster_source: Source | None = None  # where connectCluster is written

    @property
    def class_name(self) -> str:
        return self.config.get("connector.class", "")


@dataclasses.dataclass(frozen=True, slots=True)
class NamePattern:
    """A name rule: ``prefix``, ``glob`` (fnmatch) or ``regex`` (full match)."""

    kind: str  # "prefix" | "glob" | "regex" | "exact"
    value: str

    def matches(self, name: str) -> bool:
        if self.kind == "prefix":
            return name.startswith(self.value)
        if self.kind == "exact":
            return name == self.value
        if self.kind == "glob":
            return fnmatch.fnmatchcase(name, self.value)
        return re.fullmatch(self.value, name) is not None


@dataclasses.dataclass(frozen=True, slots=True)
class Ownership:
    """Which live resources this repository manages, and whether undeclared ones may be deleted.

    A live resource outside these rules is invisible to the plan (never a deletion). ``topics`` rules
    match topic names; ``principals`` rules match ACL principals, SCRAM user names (as ``User:name``)
    and quota users. ``delete`` maps a kind to whether undeclared managed resources of that kind are
    deleted (default: no deletions). ``managed_kinds`` lists the kinds this repository manages at all;
    a kind not listed is not read or diffed. Declared resources are always managed. ``rules`` holds the rules of
    kinds declared in a place of their own (``reconciler/kinds/<kind>/``), by kind, each a tuple of the rule type
    that kind defines (absent: no rules).
    """

    topics: tuple[NamePattern, ...] = ()
    principals: tuple[NamePattern, ...] = ()
    delete: Mapping[Kind, bool] = dataclasses.field(default_factory=dict)
    managed_kinds: frozenset[Kind] = frozenset(Kind)
    source: Source | None = None
    internal_topics: tuple[NamePattern, ...] = ()  # more names to treat as internal (custom Connect topics)
    quota_entities: tuple[NamePattern, ...] = ()  # quota entities by name (``client-id=batch``, ``ip=<default>``)
    max_deletes: int | None = None  # most resources one plan may delete (None: reconciler.planner.blast's default)
    groups: tuple[NamePattern, ...] = ()  # group ids whose configs are managed (declared or not)
    client_metrics: tuple[NamePattern, ...] = ()  # client-metrics subscriptions managed by name
    connectors: tuple[NamePattern, ...] = ()  # Kafka Connect connectors managed by name
    rules: Mapping[Kind, tuple[Any, ...]] = dataclasses.field(default_factory=dict)  # see the docstring

    def owns_connector(self, name: str) -> bool:
        """Whether a rule matches the connector's key or its Connect name (``<cluster>/<name>`` keys: a rule may
        name a Connect cluster, ``prefix: sinks/``, or match names on every one)."""
        plain = name.rpartition("/")[2]
        return any(p.matches(name) or p.matches(plain) for p in self.connectors)

    def owns_topic(self, name: str) -> bool:
        return any(p.matches(name) for p in self.topics)

    def owns_principal(self, principal: str) -> bool:
        return any(p.matches(principal) for p in self.principals)

    def may_delete(self, kind: Kind) -> bool:
        return bool(self.delete.get(kind, False))

    def owns_quota_entity(self, name: str) -> bool:
        """Whether a quota entity, by its plan name (``user=<default>``, ``client-id=x,user=y``), is owned by name."""
        return any(p.matches(name) for p in self.quota_entities)

    def owns_entity(self, kind: Kind, name: str) -> bool:
        """Whether a group id (``GROUP_CONFIG``) or subscription name (``CLIENT_METRICS``) is owned by the rules."""
        rules = {Kind.GROUP_CONFIG: self.groups, Kind.CLIENT_METRICS: self.client_metrics}.get(kind, ())
        return any(p.matches(name) for p in rules)

    def declares_internal(self, name: str) -> bool:
        """Whether ``name`` is internal by the manifests' own rules (``internalTopics``, Connect storage topics)."""
        return any(p.matches(name) for p in self.internal_topics)


@dataclasses.dataclass(frozen=True, slots=True)
class DesiredState:
    """Everything the manifests declare for one cluster, normalised and expanded. ``sections`` holds the declared
    resources of kinds declared in a place of their own (``reconciler/kinds/<kind>/``), by kind: name -> the
    declared type that kind defines (absent: none declared)."""

    topics: Mapping[str, DesiredTopic] = dataclasses.field(default_factory=dict)
    acls: Mapping[AclBinding, Source | None] = dataclasses.field(default_factory=dict)
    quotas: Mapping[QuotaEntity, DesiredQuota] = dataclasses.field(default_factory=dict)
    scram_users: Mapping[str, DesiredScramUser] = dataclasses.field(default_factory=dict)
    broker_configs: Mapping[str, DesiredBrokerConfig] = dataclasses.field(default_factory=dict)
    group_configs: Mapping[str, DesiredEntityConfig] = dataclasses.field(default_factory=dict)
    client_metrics: Mapping[str, DesiredEntityConfig] = dataclasses.field(default_factory=dict)
    ownership: Ownership = dataclasses.field(default_factory=Ownership)
    connectors: Mapping[str, DesiredConnector] = dataclasses.field(default_factory=dict)
    sections: Mapping[Kind, Mapping[str, Any]] = dataclasses.field(default_factory=dict)

    def needs(self) -> frozenset[Kind]:
        """The kinds the live read must cover: declared kinds plus kinds the ownership rules manage."""
        present: dict[Kind, bool] = {
            Kind.TOPIC: bool(self.topics),
            Kind.ACL: bool(self.acls),
            Kind.QUOTA: bool(self.quotas),
            Kind.SCRAM_USER: bool(self.scram_users),
            Kind.BROKER_CONFIG: bool(self.broker_configs),
            Kind.GROUP_CONFIG: bool(self.group_configs),
            Kind.CLIENT_METRICS: bool(self.client_metrics),
            Kind.CONNECTOR: bool(self.connectors),
        }
        owned: dict[Kind, bool] = {
            Kind.TOPIC: bool(self.ownership.topics),
            Kind.ACL: bool(self.ownership.principals),
            Kind.QUOTA: bool(self.ownership.principals or self.ownership.quota_entities),
            Kind.SCRAM_USER: bool(self.ownership.principals),
            Kind.BROKER_CONFIG: False,
            Kind.GROUP_CONFIG: bool(self.ownership.groups),
            Kind.CLIENT_METRICS: bool(self.ownership.client_metrics),
            Kind.CONNECTOR: bool(self.ownership.connectors),
        }
        managed = self.ownership.managed_kinds
        # the kinds declared in a place of their own: by their sections and rules
        present.update((kind, bool(section)) for kind, section in self.sections.items())
        owned.update((kind, bool(rules)) for kind, rules in self.ownership.rules.items())
        return frozenset(k for k in Kind if present.get(k) or (owned.get(k) and k in managed))

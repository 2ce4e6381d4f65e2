"""Pydantic models of every manifest kind: the strict shape of each document (``extra="forbid"``).

These models check structure and field types only; Kafka rules that need the config catalogue,
other documents or positions (names, config values, cross-references) live in ``rules.py`` and
``build.py``. The JSON Schemas in ``schemas/`` are generated from these models (``schema.py``).
Field names are snake_case in Python and camelCase in YAML.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    field_validator,
    model_validator,
)

from reconciler.kinds.schema_subject.manifest import SchemaSubjectSpec, SubjectRuleSpec
from reconciler.manifests import rules
from reconciler.manifests.connection_specs import ConnectClusterSpec as ConnectClusterSpec
from reconciler.manifests.connection_specs import ConnectSpec as ConnectSpec
from reconciler.manifests.connection_specs import TlsSpec as TlsSpec
from reconciler.manifests.connector_spec import ConnectorSpec
from reconciler.manifests.fields import (
    INT32_MAX,
    BrokerId,
    Configs,
    Flag,
    Mechanism,
    Name,
    Operation,
    Partitions,
    PatternType,
    Permission,
    ReplicationFactor,
    ResourceType,
    SaslMechanism,
    SecurityProtocol,
    Strict,
)
from reconciler.manifests.fields import RefField as RefField  # defined there (the Connector kind uses it too)
from reconciler.manifests.fields import ResourceRef as ResourceRef
from reconciler.manifests.fields import SecretRefSpec as SecretRefSpec  # defined there; used as models.SecretRefSpec
from reconciler.model import kinds
from reconciler.model.acl_names import AclPatternType, AclPermission
from reconciler.model.kinds import Manifest

API_VERSION = "kafka-reconciler/v1"


class Metadata(Strict):
    """``metadata``: the document's name (for most kinds, the resource name) and free-form labels."""

    name: Name
    labels: dict[str, str] = Field(default_factory=dict)


def _checked(check: Callable[[str], list[str]]) -> AfterValidator:
    """A field validator from one of Kafka's rules in ``rules.py`` (so it is reported with the other field errors)."""

    def validate(value: str) -> str:
        problems = check(value)
        if problems:
            raise ValueError("; ".join(problems))
        return value

    return AfterValidator(validate)


Principal = Annotated[str, Field(min_length=1), _checked(rules.principal_problems)]
Host = Annotated[str, Field(min_length=1), _checked(rules.host_problems)]


# ----------------------------------------------------------------------------------------- topics
class TopicSpec(Strict):
    """``Topic`` spec. Unset partitions/replicationFactor/configs come from TopicDefaults."""

    partitions: Partitions | None = None
    replication_factor: ReplicationFactor | None = None
    configs: Configs = Field(default_factory=dict)
    replica_assignment: list[list[BrokerId]] | None = None
    defaults: Name | None = None
    allow_internal: bool = Field(
        default=False,
        description="Allow the tool to create and change this topic although it is internal to Kafka or a tool "
        "around it (__consumer_offsets, _schemas, Connect storage, Kafka Streams changelog/repartition topics).",
    )


class TopicDefaultsSpec(Strict):
    """``TopicDefaults`` spec: shared topic settings, used by name or for a directory subtree."""

    scope: Literal["named", "directory"] = "named"
    partitions: Partitions | None = None
    replication_factor: ReplicationFactor | None = None
    configs: Configs = Field(default_factory=dict)


# ------------------------------------------------------------------------------------------- ACLs
class AclBindingSpec(Strict):
    """One exact ACL binding, or several when ``operations`` lists more than one operation."""

    principal: Principal
    host: Host = "*"
    operation: Operation | None = None
    operations: list[Operation] | None = None
    permission: Permission = AclPermission.ALLOW
    resource_type: ResourceType
    resource_name: Name | None = None
    pattern_type: PatternType = AclPatternType.LITERAL

    @model_validator(mode="after")
    def _one_operation_field(self) -> AclBindingSpec:
        if (self.operation is None) == (self.operations is None):
            raise ValueError("give exactly one of operation or operations")
        if self.operations is not None and not self.operations:
            raise ValueError("operations must not be empty")
        return self


class AclSpec(Strict):
    """``Acl`` spec: a list of exact bindings."""

    bindings: Annotated[list[AclBindingSpec], Field(min_length=1)]


class GrantBase(Strict):
    """Fields shared by the role grants: who gets the rights, from which host."""

    principal: Principal
    host: Host = "*"


class ProducerSpec(GrantBase):
    """``Producer``: write to topics; optionally transactional and/or idempotent (older brokers)."""

    topics: Annotated[list[RefField], Field(min_length=1)]
    transactional_id: RefField | None = None
    idempotent: Flag = False


class ConsumerSpec(GrantBase):
    """``Consumer``: read topics as members of the given consumer groups."""

    topics: Annotated[list[RefField], Field(min_length=1)]
    groups: Annotated[list[RefField], Field(min_length=1)]


class StreamsAppSpec(GrantBase):
    """``StreamsApp``: a Kafka Streams application with its internal topics and group named by applicationId."""

    application_id: Name
    input_topics: list[RefField] = Field(default_factory=list)
    output_topics: list[RefField] = Field(default_factory=list)
    exactly_once: Flag = False


class ConnectWorkerSpec(GrantBase):
    """``ConnectWorker``: a Kafka Connect worker group, its storage topics and its connectors' topics."""

    group_id: Name
    config_storage_topic: Name
    offset_storage_topic: Name
    status_storage_topic: Name
    source_topics: list[RefField] = Field(default_factory=list)
    sink_topics: list[RefField] = Field(default_factory=list)
    sink_group_prefix: Name = "connect-"


# ------------------------------------------------------------------------------- quotas and users
class QuotaEntitySpec(Strict):
    """A quota entity: ``user`` and/or ``clientId``, or ``ip``; each a name or ``default``."""

    user: str | None = None
    client_id: str | None = None
    ip: str | None = None


class ClientQuotaSpec(Strict):
    """``ClientQuota`` spec: the entity and its quota values by Kafka key."""

    entity: QuotaEntitySpec
    values: Annotated[
        dict[str, float | int | str],
        Field(description="Quota values by Kafka key; {} removes every quota of the entity."),
    ]


class ScramUserSpec(Strict):
    """``ScramUser`` spec: one SCRAM credential; the password only by reference."""

    mechanism: Mechanism = "SCRAM-SHA-512"
    iterations: Annotated[int, Field(strict=True, ge=4096, le=16384)] = 8192
    password_from: SecretRefSpec
    rotation: str | None = None


class BrokerConfigSpec(Strict):
    """``BrokerConfig`` spec: dynamic configs for the cluster default (``broker: default``) or one broker id."""

    broker: Annotated[str, Field(pattern=r"^(default|[0-9]+)$")] = "default"
    configs: Annotated[Configs, Field(min_length=1)]

    @field_validator("broker")
    @classmethod
    def _broker_id_fits(cls, broker: str) -> str:
        if broker != "default" and (len(broker) > 10 or int(broker) > INT32_MAX):
            raise ValueError(f"broker id {broker} is out of range (a broker id is an INT32, at most {INT32_MAX})")
        return broker


class GroupConfigSpec(Strict):
    """``GroupConfig`` spec: dynamic configs of one consumer, share or streams group, by exact group id (they apply
    before the group exists)."""

    group: Name | None = None
    configs: Annotated[Configs, Field(min_length=1)]


class ClientMetricsSpec(Strict):
    """``ClientMetrics`` spec: a client-metrics subscription (KIP-714): which metrics matching clients push, how
    often."""

    metrics: list[Annotated[str, Field(min_length=1)]]
    interval_ms: Annotated[int, Field(strict=True)] | str | None = None
    match: dict[str, Annotated[str, Field(min_length=1)]] = Field(default_factory=dict)


class SchemaRegistrySpec(Strict):
    """The Schema Registry of a ``Cluster`` profile: its URL (or URLs, tried in order), TLS, basic auth and the bound
    of one request."""

    url: Name | None = None
    urls: Annotated[list[Name], Field(min_length=1)] | None = None
    tls: TlsSpec | None = None
    username: Name | None = None
    password_from: SecretRefSpec | None = None
    timeout: Annotated[str, Field(pattern=r"^[0-9]+(\.[0-9]+)?(ms|s|m)$")] | None = None


# ------------------------------------------------------------------------------ cluster profiles
class OAuthSpec(Strict):
    """OAUTHBEARER client credentials of a ``Cluster`` profile, as in the Java client's JAAS line."""

    token_endpoint_url: Name
    client_id: Name | None = None
    client_secret_from: SecretRefSpec | None = None
    scope: Name | None = None


class ClusterSpec(Strict):
    """``Cluster`` spec: how to connect; either explicit settings or a Kafka CLI ``commandConfig`` file."""

    bootstrap_servers: Annotated[list[Name], Field(min_length=1)] | Name | None = None
    security_protocol: SecurityProtocol | None = None  # unset: commandConfig, KAFKA_* or PLAINTEXT decide
    sasl_mechanism: SaslMechanism | None = None
    username: Name | SecretRefSpec | None = None
    password_from: SecretRefSpec | None = None
    tls: TlsSpec | None = None
    oauth: OAuthSpec | None = None
    command_config: Name | None = None
    connect: ConnectSpec | None = None
    schema_registry: SchemaRegistrySpec | None = None


# ------------------------------------------------------------------------------------ ownership
class NamePatternSpec(Strict):
    """One name rule: exactly one of ``name``, ``prefix``, ``glob`` (fnmatch) or ``regex`` (full match)."""

    name: Name | None = None
    prefix: Name | None = None
    glob: Name | None = None
    regex: Name | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> NamePatternSpec:
        if sum(v is not None for v in (self.name, self.prefix, self.glob, self.regex)) != 1:
            raise ValueError("give exactly one of name, prefix, glob or regex")
        return self


ManagedKind = Literal[
    "topic", "acl", "quota", "scramUser", "brokerConfig", "groupConfig", "clientMetrics", "connector", "schemaSubject"
]


class DeletePolicySpec(Strict):
    """Per kind, whether undeclared live resources matched by the ownership rules are deleted (default no)."""

    topic: Flag = False
    acl: Flag = False
    quota: Flag = False
    scram_user: Flag = False
    broker_config: Flag = False
    group_config: Flag = False
    client_metrics: Flag = False
    connector: Flag = False
    schema_subject: Flag = False


class OwnershipSpec(Strict):
    """``Ownership`` spec: what this repository manages and may delete."""

    topics: list[NamePatternSpec] = Field(default_factory=list)
    principals: list[NamePatternSpec] = Field(default_factory=list)
    managed_kinds: list[ManagedKind] | None = None
    delete: DeletePolicySpec = Field(default_factory=DeletePolicySpec)
    quota_entities: list[NamePatternSpec] = Field(
        default_factory=list,
        description="Client-quota entities managed by name, whatever their kind: user=<default>, client-id=batch, "
        "client-id=<default>, ip=10.0.0.1, ip=<default>, client-id=x,user=y (a name may also be user=y,client-id=x; a "
        "prefix, glob or regex lists client-id first).",
    )
    groups: list[NamePatternSpec] = Field(
        default_factory=list,
        description="Name rules of the group ids whose dynamic group configs this repository manages.",
    )
    client_metrics: list[NamePatternSpec] = Field(
        default_factory=list,
        description="Name rules of the client-metrics subscriptions this repository manages.",
    )
    internal_topics: list[NamePatternSpec] = Field(
        default_factory=list,
        description="More topic names to treat as internal (e.g. Kafka Connect storage topics with custom names).",
    )
    connectors: list[NamePatternSpec] = Field(
        default_factory=list,
        description="Kafka Connect connectors managed by name: an undeclared one is shown as drift, or deleted "
        "with delete.connector.",
    )
    schema_subjects: list[SubjectRuleSpec] = Field(
        default_factory=list,
        description="Schema Registry subjects managed by name: an undeclared one is shown as drift, or deleted with "
        "delete.schemaSubject (soft, unless the rule says permanent).",
    )
    max_deletes: int | None = Field(
        default=None,
        strict=True,
        ge=0,
        description="Most resources one plan may delete (default 10); a plan deleting more is refused unless a run "
        "raises the limit with --max-deletes N.",
    )


# -------------------------------------------------------------------------------------- documents
SPECS: dict[str, type[BaseModel]] = {
    Manifest.TOPIC: TopicSpec,
    Manifest.TOPIC_DEFAULTS: TopicDefaultsSpec,
    Manifest.ACL: AclSpec,
    Manifest.PRODUCER: ProducerSpec,
    Manifest.CONSUMER: ConsumerSpec,
    Manifest.STREAMS_APP: StreamsAppSpec,
    Manifest.CONNECT_WORKER: ConnectWorkerSpec,
    Manifest.CLIENT_QUOTA: ClientQuotaSpec,
    Manifest.SCRAM_USER: ScramUserSpec,
    Manifest.BROKER_CONFIG: BrokerConfigSpec,
    Manifest.GROUP_CONFIG: GroupConfigSpec,
    Manifest.CLIENT_METRICS: ClientMetricsSpec,
    Manifest.CONNECTOR: ConnectorSpec,
    Manifest.SCHEMA_SUBJECT: SchemaSubjectSpec,
    Manifest.CLUSTER: ClusterSpec,
    Manifest.OWNERSHIP: OwnershipSpec,
}
GRANT_KINDS = kinds.GRANT_KINDS


def _document_model(kind: str, spec: type[BaseModel]) -> type[Strict]:
    namespace: dict[str, Any] = {
        "__annotations__": {
            "api_version": Literal["kafka-reconciler/v1"],
            "kind": Literal[kind],
            "metadata": Metadata,
            "spec": spec,
        },
        "__doc__": f"A ``{kind}`` document.",
        "__module__": __name__,
    }
    return type(f"{kind}Document", (Strict,), namespace)


DOCUMENTS: dict[str, type[Strict]] = {kind: _document_model(kind, spec) for kind, spec in SPECS.items()}

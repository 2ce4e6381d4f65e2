"""Pydantic models of every manifest kind: the strict shape of each document (``extra="forbid"``).

These models check structure and field types only; Kafka rules that need the config catalogue,
other documents or positions (names, config values, cross-references) live in ``rules.py`` and
``build.py``. The JSON Schemas in ``schemas/`` are generated from these models (``schema.py``).
Field names are snake_case in Python and camelCase in YAML.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    field_validator,
    model_validator,
)

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
from reconciler.manifests.ownership import DeletePolicySpec as DeletePolicySpec
from reconciler.manifests.ownership import ManagedKind as ManagedKind
from reconciler.manifests.ownership import NamePatternSpec as NamePatternSpec
from reconciler.manifests.ownership import OwnershipSpec as OwnershipSpec
from reconciler.manifests.ownership import ownership_spec
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


# -------------------------------------------------------------------------------------- documents
# The spec models of the documents this package validates itself (a kind's own are read from its manifest part; the
# Ownership model with every kind's rule fields is ``ownership_spec``).
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


def _own_keys(model: type[BaseModel]) -> frozenset[str]:
    return frozenset(k for name, f in model.model_fields.items() for k in (name, f.alias or name))


_OWNERSHIP_KEYS = _own_keys(OwnershipSpec)


def _spec_model(kind: str) -> type[BaseModel]:
    if kind == Manifest.OWNERSHIP:
        return ownership_spec()
    found = SPECS.get(kind)
    if found is None:
        from reconciler.manifests import parts

        found = parts.of(kind).model
    return found


class _Documents(Mapping[str, type[Strict]]):
    """Every manifest kind's document model, in ``Manifest`` order, each built when first asked for: the model of
    a kind with a place of its own comes from its manifest part there (``parts.of``), read only for such a document."""

    def __init__(self) -> None:
        self._built: dict[str, type[Strict]] = {}

    def __getitem__(self, kind: str) -> type[Strict]:
        found = self._built.get(kind)
        if found is None:
            if kind not in self:
                raise KeyError(kind)
            found = self._built[kind] = _document_model(kind, _spec_model(kind))
        return found

    def __contains__(self, kind: object) -> bool:
        return kind in _MANIFESTS

    def __iter__(self) -> Iterator[str]:
        return (m.value for m in Manifest)

    def __len__(self) -> int:
        return len(Manifest)


_MANIFESTS = frozenset(m.value for m in Manifest)
DOCUMENTS: Mapping[str, type[Strict]] = _Documents()
_LIGHT_OWNERSHIP = _document_model(Manifest.OWNERSHIP, OwnershipSpec)


def document_model(kind: str, data: Any) -> type[Strict]:
    """The model to validate document ``data`` of ``kind`` with: ``DOCUMENTS[kind]``, except for an Ownership
    document that names only this package's own rule fields, which needs no kind's own manifest part."""
    if kind == Manifest.OWNERSHIP:
        spec = data.get("spec") if isinstance(data, dict) else None
        if isinstance(spec, dict) and set(spec) <= _OWNERSHIP_KEYS:
            return _LIGHT_OWNERSHIP
    return DOCUMENTS[kind]

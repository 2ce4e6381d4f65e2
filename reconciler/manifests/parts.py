"""What the manifests need of a resource kind (``ManifestPart``), and where they find it (``of``).

A kind's declaration names its manifest part (``KindSpec.manifest``, a ``Part``): the model of its documents'
``spec``, how a validated document is added to the desired state, the Ownership rule fields it adds and the hover
text of its ``delete`` flag. A kind with a place of its own in ``reconciler.kinds`` keeps its part there, by convention
``MANIFEST`` in ``<place>.documents`` (``reconciler.kinds.places``); the manifests import it only when a document (or
an Ownership rule field) needs it (``of``), and never through the registry: ``validate`` reads no declaration, nor the
plan and apply code the declarations import.

The older kinds are still built by this package's own code (``build.Builder``): their parts are the records here,
which their declarations name, and which ``of`` answers first (``BUILT_IN``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from reconciler.kinds import places
from reconciler.manifests import models
from reconciler.manifests.connector_spec import ConnectorSpec
from reconciler.model.kinds import Kind, Manifest

if TYPE_CHECKING:
    from reconciler.manifests import build, loader
    from reconciler.model import desired

Build = Callable[["build.Builder", "loader.Document"], None]
HOST = "Host the principal connects from: * (default) or an IP address."  # hover text shared with the grants
SECRET = "Where to read it: {env: VARIABLE} or {file: path} (relative to the manifest's directory)."


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ManifestPart:
    """A kind's manifest documents (``kind.manifest``), as the manifests validate and build them."""

    model: type[Any]  # the model of a document's ``spec`` (a pydantic model, strict, camelCase YAML keys)
    # Where its documents go in the desired state: a field of its own (the older kinds), or its kind for a kind
    # declared in a place of its own (``DesiredState.sections``); ``declared_in`` reads either.
    section: str | Kind
    noun: str  # one of its resources, as ``validate``'s summary counts them ("topic": "3 topics")
    build: Build  # adds one validated document to the builder (its errors through ``builder.error``)
    delete_hover: str  # what its Ownership ``delete.<ownership_key>`` flag means, as an editor shows it
    # The fields it adds to an Ownership document's spec: name -> (annotation, pydantic ``Field``). Its rules'
    # ``rule()`` fill ``desired.Ownership.rules`` under its kind (``ownership_kinds``).
    ownership: Mapping[str, tuple[Any, Any]] = dataclasses.field(default_factory=dict)
    # What each field of its models means, as an editor shows it on hover: model -> YAML key -> text, for the fields
    # whose model gives no ``description`` of its own (``descriptions.FIELDS`` holds the other documents').
    hover: Mapping[str, Mapping[str, str]] = dataclasses.field(default_factory=dict)


def _add_topic(builder: build.Builder, doc: loader.Document) -> None:
    builder.topic_builder.add_topic(doc)


def _add_group_config(builder: build.Builder, doc: loader.Document) -> None:
    builder.entity_builder.add_group_config(doc)


def _add_client_metrics(builder: build.Builder, doc: loader.Document) -> None:
    builder.entity_builder.add_client_metrics(doc)


def _add_acl(builder: build.Builder, doc: loader.Document) -> None:
    builder.add_acl(doc)


def _add_quota(builder: build.Builder, doc: loader.Document) -> None:
    builder.add_quota(doc)


def _add_scram(builder: build.Builder, doc: loader.Document) -> None:
    builder.add_scram(doc)


def _add_broker_config(builder: build.Builder, doc: loader.Document) -> None:
    builder.add_broker_config(doc)


def _add_connector(builder: build.Builder, doc: loader.Document) -> None:
    builder.add_connector(doc)


TOPIC = ManifestPart(
    model=models.TopicSpec,
    section="topics",
    noun="topic",
    build=_add_topic,
    delete_hover="Delete live topics inside the ownership rules that are not declared (default false).",
    hover={
        "TopicSpec": {
            "partitions": "Partition count, 1..2147483647. Required here or in a TopicDefaults. The tool only adds "
            "partitions: Kafka cannot remove them.",
            "replicationFactor": "Replicas per partition, 1..32767 and at most the number of brokers. Required here or "
            "in a TopicDefaults.",
            "configs": "Topic-level Kafka configs (retention.ms, cleanup.policy, ...). Durations such as 7d and sizes "
            "such as 1GiB are converted; a key left out is reset to the broker default.",
            "defaults": "Name of a TopicDefaults document (scope: named) whose settings apply under this topic's own.",
            "replicaAssignment": "Broker ids of each partition's replicas: one list per partition, replicationFactor "
            "distinct ids each; the first is the preferred leader.",
            "allowInternal": "Let the tool create and change this topic although it is internal to Kafka or a tool "
            "around it (__consumer_offsets, _schemas, Connect storage, Streams changelogs).",
        },
    },
)
ACL = ManifestPart(
    model=models.AclSpec,
    section="acls",
    noun="ACL",
    build=_add_acl,
    delete_hover="Delete live ACL bindings of owned principals that are not declared (default false).",
    hover={
        "AclSpec": {"bindings": "The ACL bindings of this document; each entry is one binding (or one per operation)."},
        "AclBindingSpec": {
            "principal": "Who the binding is for: User:<name>, or User:* for every user.",
            "host": HOST,
            "operation": "The operation allowed or denied (READ, WRITE, DESCRIBE, ...). Give operation or operations.",
            "operations": "Several operations: one binding each, otherwise identical. Give operation or operations.",
            "permission": "ALLOW (default) or DENY.",
            "resourceType": "TOPIC, GROUP, CLUSTER, TRANSACTIONAL_ID, DELEGATION_TOKEN or USER.",
            "resourceName": "The resource's name (* with LITERAL: every resource of the type). Optional for CLUSTER.",
            "patternType": "LITERAL (default): the name exactly; PREFIXED: every name starting with it.",
        },
    },
)
QUOTA = ManifestPart(
    model=models.ClientQuotaSpec,
    section="quotas",
    noun="quota",
    build=_add_quota,
    delete_hover="Delete owned client quotas that are not declared (default false).",
    hover={
        "ClientQuotaSpec": {
            "entity": "Whom the quota applies to: user and/or clientId, or ip; default for a type's default entity.",
        },
        "QuotaEntitySpec": {
            "user": "A user name, or default for every user without a quota of their own.",
            "clientId": "A client.id, or default for every client id without a quota of its own.",
            "ip": "An IP address, or default for every address (connection_creation_rate only).",
        },
    },
)
SCRAM_USER = ManifestPart(
    model=models.ScramUserSpec,
    section="scram_users",
    noun="SCRAM user",
    build=_add_scram,
    delete_hover="Delete SCRAM users of owned principals that are not declared (default false).",
    hover={
        "ScramUserSpec": {
            "mechanism": "SCRAM-SHA-256 or SCRAM-SHA-512 (default).",
            "iterations": "Hash iterations, 4096..16384 (default 8192).",
            "passwordFrom": "The password, read by apply. " + SECRET,
            "rotation": "Opaque marker: change it (a date, a ticket) to have the next apply set the password again.",
        },
    },
)
BROKER_CONFIG = ManifestPart(
    model=models.BrokerConfigSpec,
    section="broker_configs",
    noun="broker config set",
    build=_add_broker_config,
    delete_hover="Reset dynamic broker configs of declared entries that are not declared (default false).",
    hover={
        "BrokerConfigSpec": {
            "broker": "default for the cluster-wide dynamic default, or a broker id.",
            "configs": "Dynamic broker configs; values as in topics (durations, sizes).",
        },
    },
)
GROUP_CONFIG = ManifestPart(
    model=models.GroupConfigSpec,
    section="group_configs",
    noun="group config set",
    build=_add_group_config,
    delete_hover="Remove the configs of owned groups that are not declared, and reset undeclared keys of declared "
    "groups (default false).",
    hover={
        "GroupConfigSpec": {
            "group": "The group id, exactly (default: metadata.name); the configs apply before the group exists.",
            "configs": "Dynamic group configs (consumer.session.timeout.ms, share.auto.offset.reset, ...); durations "
            "as in topics. The broker bounds them by its group.*.min/max settings.",
        },
    },
)
CLIENT_METRICS = ManifestPart(
    model=models.ClientMetricsSpec,
    section="client_metrics",
    noun="client-metrics subscription",
    build=_add_client_metrics,
    delete_hover="Delete owned client-metrics subscriptions that are not declared (default false).",
    hover={
        "ClientMetricsSpec": {
            "metrics": "Metric name prefixes the matching clients push (org.apache.kafka.producer.); [*] for every "
            "metric, [] for none.",
            "intervalMs": "How often the clients push, 100 ms..1h (default 5m); a number of ms or a duration (30s).",
            "match": "Selector -> regular expression a client must match, all of them (client_id, client_instance_id, "
            "client_software_name, client_software_version, client_source_address, client_source_port); {} "
            "matches every client.",
        },
    },
)
CONNECTOR = ManifestPart(
    model=ConnectorSpec,
    section="connectors",
    noun="connector",
    build=_add_connector,
    delete_hover="Delete live Kafka Connect connectors matched by the connectors rules that are not declared "
    "(default false). Their offsets stay with Connect.",
)
# The kinds this package builds itself, by manifest kind (their declarations name these records).
BUILT_IN: Mapping[str, ManifestPart] = {
    Manifest.TOPIC: TOPIC,
    Manifest.ACL: ACL,
    Manifest.CLIENT_QUOTA: QUOTA,
    Manifest.SCRAM_USER: SCRAM_USER,
    Manifest.BROKER_CONFIG: BROKER_CONFIG,
    Manifest.GROUP_CONFIG: GROUP_CONFIG,
    Manifest.CLIENT_METRICS: CLIENT_METRICS,
    Manifest.CONNECTOR: CONNECTOR,
}
_KINDS = {k.manifest: k for k in Kind}


def of(manifest: str) -> ManifestPart:
    """The manifest part of the kind declared by ``manifest`` documents: this package's record of a kind it builds
    itself, else the part in the kind's place (``places.manifest``: its module imported now, no declaration read)."""
    found: ManifestPart | None = BUILT_IN.get(manifest)
    if found is None:
        found = places.manifest(_KINDS[manifest])
    return found


def declared() -> Iterator[tuple[Kind, ManifestPart]]:
    """Every kind's manifest part, in ``Kind`` order: the one its declaration names (``KindSpec.manifest``;
    ``tests/unit/test_kinds_registry.py`` holds the two together), found as ``of`` finds it."""
    for kind in Kind:
        yield kind, of(kind.manifest)


def ownership_fields() -> Iterator[tuple[str, tuple[Any, Any]]]:
    """The Ownership fields the kinds add, in ``Kind`` order (the parts of kinds not built here are imported)."""
    for manifest in _KINDS:
        yield from of(manifest).ownership.items()


def ownership_rules(spec: models.OwnershipSpec) -> dict[Kind, tuple[Any, ...]]:
    """The rules of the fields a kind's own manifest part adds to the Ownership spec (``ManifestPart.ownership``), by
    the kind that adds them (``desired.Ownership.rules``; a kind without rules is left out)."""
    added = [name for name in type(spec).model_fields if name not in models.OwnershipSpec.model_fields]
    if not added:
        return {}
    kinds = ownership_kinds()
    found = ((kinds[name], tuple(rule.rule() for rule in getattr(spec, name))) for name in added)
    return {kind: rules for kind, rules in found if rules}


def ownership_kinds() -> dict[str, Kind]:
    """The kind each Ownership field a kind adds belongs to, by field name (``ownership_fields``' names)."""
    return {name: kind for manifest, kind in _KINDS.items() for name in of(manifest).ownership}


def declared_in(part: ManifestPart, wanted: desired.DesiredState) -> Mapping[Any, Any]:
    """The resources ``wanted`` declares of the kind ``part`` builds (``ManifestPart.section``)."""
    if isinstance(part.section, Kind):
        return wanted.sections.get(part.section, {})
    found: Mapping[Any, Any] = getattr(wanted, part.section)
    return found

"""The resource kinds the tool manages: one enum, each member carrying every name the kind goes by.

A ``Kind`` is a ``str`` whose value is the kind as plans, fleet rows and ownership rules write it
(``topic``, ``scram_user``); plan addresses are ``<value>/<name>``. Each member also knows the
manifest ``kind:`` it is declared with, its key under an Ownership document's ``managedKinds`` and
``delete``, and its title in rendered plans. Adding a kind starts with one member here.
"""

from __future__ import annotations

import enum


class Manifest(str, enum.Enum):
    """A manifest document kind, as the YAML ``kind:`` field spells it. Resource kinds map to one ``Kind``; the
    others configure (``Ownership``, ``Cluster``, ``TopicDefaults``) or expand into ACLs (the grant kinds)."""

    TOPIC = "Topic"
    TOPIC_DEFAULTS = "TopicDefaults"
    ACL = "Acl"
    PRODUCER = "Producer"
    CONSUMER = "Consumer"
    STREAMS_APP = "StreamsApp"
    CONNECT_WORKER = "ConnectWorker"
    CLIENT_QUOTA = "ClientQuota"
    SCRAM_USER = "ScramUser"
    BROKER_CONFIG = "BrokerConfig"
    GROUP_CONFIG = "GroupConfig"
    CLIENT_METRICS = "ClientMetrics"
    CONNECTOR = "Connector"
    SCHEMA_SUBJECT = "SchemaSubject"
    CLUSTER = "Cluster"
    OWNERSHIP = "Ownership"

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


GRANT_KINDS = (Manifest.PRODUCER, Manifest.CONSUMER, Manifest.STREAMS_APP, Manifest.CONNECT_WORKER)


class Kind(str, enum.Enum):
    """A resource kind; ``str(kind)`` and JSON give its plain value (``"topic"``)."""

    manifest: str  # the YAML ``kind:`` that declares it (grant kinds such as Producer also expand into ACLs)
    ownership_key: str  # its key under Ownership ``managedKinds`` and ``delete``
    heading: str  # heading in rendered plans

    TOPIC = ("topic", Manifest.TOPIC.value, "topic", "Topics")
    ACL = ("acl", Manifest.ACL.value, "acl", "ACLs")
    QUOTA = ("quota", Manifest.CLIENT_QUOTA.value, "quota", "Client quotas")
    SCRAM_USER = ("scram_user", Manifest.SCRAM_USER.value, "scramUser", "SCRAM users")
    BROKER_CONFIG = ("broker_config", Manifest.BROKER_CONFIG.value, "brokerConfig", "Broker configs")
    GROUP_CONFIG = ("group_config", Manifest.GROUP_CONFIG.value, "groupConfig", "Group configs")
    CLIENT_METRICS = ("client_metrics", Manifest.CLIENT_METRICS.value, "clientMetrics", "Client-metrics subscriptions")
    CONNECTOR = ("connector", Manifest.CONNECTOR.value, "connector", "Connectors")
    SCHEMA_SUBJECT = ("schema_subject", Manifest.SCHEMA_SUBJECT.value, "schemaSubject", "Schema Registry subjects")

    def __new__(cls, value: str, manifest: str, ownership_key: str, heading: str) -> Kind:
        member = str.__new__(cls, value)
        member._value_ = value
        member.manifest = manifest
        member.ownership_key = ownership_key
        member.heading = heading
        return member

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    @property
    def prefix(self) -> str:
        """The start of every address of this kind: ``topic/``."""
        return f"{self.value}/"

    def address(self, name: str) -> str:
        """The plan address of a resource of this kind: ``topic/orders``, ``broker_config/<default>``."""
        return f"{self.value}/{name}"

    @classmethod
    def parse(cls, value: object) -> Kind:
        """The kind a plan file or row names; ``ValueError`` naming the known kinds for anything else."""
        if isinstance(value, Kind):
            return value
        for kind in cls:
            if value == kind.value:
                return kind
        raise ValueError(f"unknown resource kind {value!r} (known: {', '.join(k.value for k in cls)})")

"""What each manifest field means, as editors show it on hover: the ``description`` of every property of the
generated JSON Schemas (``reconciler.manifests.schema``), by model and YAML key.

A field whose model declares its own ``description`` keeps it; a test checks that every property of every schema
has one, so a new field needs its line here (or in its model). Plain text, no markup: editors show it as is.
What belongs to a kind (its ``delete`` flag, the kinds a Schema Registry holds) is read from the kinds' declarations
through the registry: only the schema generation reads this module.
"""

from __future__ import annotations

from reconciler.kinds import registry
from reconciler.manifests import parts
from reconciler.model.kinds import Kind

_WHO = "Principal granted the rights: User:<name>."
_HOST = parts.HOST
_REFS = "Topic references: {name: x} for one topic, {prefix: x} for every topic starting with x."
_SECRET = parts.SECRET
_STORE = "Store type: PEM, PKCS12 or JKS (default: from the file name)."


def _written_through(port: str) -> str:
    """The manifest kinds of the kinds written through ``port`` (``"registry"``: a Schema Registry)."""
    return ", ".join(d.kind.manifest for d in registry.KINDS.values() if d.port == port)


FIELDS: dict[str, dict[str, str]] = {
    "Metadata": {
        "name": "Name of the resource (a topic's name, a profile's name, ...).",
        "labels": "Free-form labels for people and tools; the reconciler ignores them.",
    },
    "TopicDefaultsSpec": {
        "scope": "named: applies to topics that say defaults: <name>. directory: applies to every topic declared in "
        "this file's directory or below it.",
        "partitions": "Default partition count for the topics it applies to.",
        "replicationFactor": "Default replication factor for the topics it applies to.",
        "configs": "Default topic configs, merged key by key under each topic's own.",
    },
    "ResourceRef": {
        "name": "One resource by its exact name.",
        "prefix": "Every resource whose name starts with this (a PREFIXED ACL).",
    },
    "ProducerSpec": {
        "principal": _WHO,
        "host": _HOST,
        "topics": "Topics written to. " + _REFS,
        "transactionalId": "Transactional id (or {prefix: ...}) a transactional producer uses.",
        "idempotent": "Grant IDEMPOTENT_WRITE on the cluster (needed by brokers older than 2.8).",
    },
    "ConsumerSpec": {
        "principal": _WHO,
        "host": _HOST,
        "topics": "Topics read. " + _REFS,
        "groups": "Consumer groups used: {name: x} or {prefix: x}.",
    },
    "StreamsAppSpec": {
        "principal": _WHO,
        "host": _HOST,
        "applicationId": "The Kafka Streams application.id (also the prefix of its internal topics).",
        "inputTopics": "Topics the application reads. " + _REFS,
        "outputTopics": "Topics the application writes. " + _REFS,
        "exactlyOnce": "processing.guarantee=exactly_once_v2: adds the transactional rights it needs.",
    },
    "ConnectWorkerSpec": {
        "principal": _WHO,
        "host": _HOST,
        "groupId": "The worker group (group.id).",
        "configStorageTopic": "The workers' config.storage.topic (counts as an internal topic).",
        "offsetStorageTopic": "The workers' offset.storage.topic (counts as an internal topic).",
        "statusStorageTopic": "The workers' status.storage.topic (counts as an internal topic).",
        "sourceTopics": "Topics source connectors write. " + _REFS,
        "sinkTopics": "Topics sink connectors read. " + _REFS,
        "sinkGroupPrefix": "Prefix of sink connectors' consumer groups (default connect-).",
    },
    "SecretRefSpec": {
        "env": "Name of the environment variable holding the value.",
        "file": "Path of a file holding the value (relative to the manifest's directory).",
    },
    "ClusterSpec": {
        "bootstrapServers": "host:port of the brokers: a list, or a comma-separated string.",
        "securityProtocol": "PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL; when left out, commandConfig or "
        "KAFKA_SECURITY_PROTOCOL decides.",
        "saslMechanism": "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or AWS_MSK_IAM (with a SASL protocol).",
        "username": "SASL user name: a string, or {env: VARIABLE} / {file: path}.",
        "passwordFrom": "SASL password. " + _SECRET + " An inline password: is refused.",
        "tls": "Certificates and stores for SSL and SASL_SSL.",
        "oauth": "OAUTHBEARER client credentials: token endpoint, client id, secret, scope.",
        "commandConfig": "A Kafka CLI client properties file (as --command-config).",
        "connect": "The cluster's Kafka Connect workers (REST URLs, TLS, basic auth), where Connector documents run.",
        "schemaRegistry": "The cluster's Schema Registry (URL, TLS, basic auth), where "
        f"{_written_through('registry')} documents live.",
    },
    "SchemaRegistrySpec": {
        "url": "REST URL of the registry (http(s)://host:port[/path]); or urls.",
        "urls": "REST URLs of the registry's servers, tried in order; or url.",
        "tls": "Certificates and stores for an https URL (the same formats as for brokers).",
        "username": "HTTP basic auth user name (with passwordFrom).",
        "passwordFrom": "HTTP basic auth password. " + _SECRET,
        "timeout": "Bound of one request: 500ms, 30s, 2m (default 30s); the command's deadline bounds it too.",
    },
    "ConnectSpec": {
        "urls": "REST URLs of the Connect workers (http(s)://host:port), tried in order: the one Connect cluster, "
        "named default.",
        "tls": "Certificates and stores for https URLs (the same formats as for brokers).",
        "username": "HTTP basic auth user name.",
        "passwordFrom": "HTTP basic auth password. " + _SECRET,
        "clusters": "Several Kafka Connect clusters by name, each with urls, tls, username, passwordFrom (instead of "
        "those here); a Connector names its own with connectCluster.",
    },
    "ConnectClusterSpec": {
        "urls": "REST URLs of this Connect cluster's workers (http(s)://host:port), tried in order.",
        "tls": "Certificates and stores for https URLs (the same formats as for brokers).",
        "username": "HTTP basic auth user name.",
        "passwordFrom": "HTTP basic auth password. " + _SECRET,
    },
    "TlsSpec": {
        "caFile": "PEM file of the CA certificates the brokers' certificates are checked against.",
        "certFile": "PEM file of the client certificate (mutual TLS).",
        "keyFile": "PEM file of the client's private key (mutual TLS).",
        "keyPasswordFrom": "Password of an encrypted keyFile. " + _SECRET,
        "truststore": "Trust store file (PKCS12, JKS or PEM) instead of caFile.",
        "truststoreType": _STORE,
        "truststorePasswordFrom": "Password of the trust store. " + _SECRET,
        "keystore": "Key store file (PKCS12, JKS or PEM) instead of certFile and keyFile.",
        "keystoreType": _STORE,
        "keystorePasswordFrom": "Password of the key store. " + _SECRET,
        "endpointIdentification": "Check that the broker's certificate names the host connected to (default true).",
        "principalMappingRules": "The brokers' ssl.principal.mapping.rules, to compute the principal they see.",
    },
    "OAuthSpec": {
        "tokenEndpointUrl": "The OAuth token endpoint (sasl.oauthbearer.token.endpoint.url).",
        "clientId": "The OAuth client id.",
        "clientSecretFrom": "The OAuth client secret. " + _SECRET,
        "scope": "The OAuth scope to ask for (optional).",
    },
    "NamePatternSpec": {
        "name": "Exactly this name.",
        "prefix": "Every name starting with this.",
        "glob": "Names matching this shell pattern (*, ?, [...]).",
        "regex": "Names this regular expression (Python syntax) matches in full.",
    },
    # -- the manifests' parts: the fields of each kind's models, and its delete flag, as its part describes them
    **{model: dict(texts) for _, part in parts.declared() for model, texts in part.hover.items()},
    "DeletePolicySpec": {kind.ownership_key: part.delete_hover for kind, part in parts.declared()},
    "OwnershipSpec": {
        "topics": "Name rules of the live topics this repository manages.",
        "principals": "Name rules of the principals (User:x) whose ACLs, SCRAM users and quotas it manages.",
        "managedKinds": f"Kinds managed at all: {', '.join(k.ownership_key for k in Kind)} (default: all).",
        "delete": "Per kind, whether undeclared managed resources are deleted (default: none).",
    },
}

ENVELOPE = {
    "apiVersion": "Always kafka-reconciler/v1.",
    "kind": "The kind of resource this document declares.",
    "metadata": "The document's name (and optional labels).",
}  # spec: described by its model's docstring

# Keys of a ClientQuota's values (KIP-13, KIP-124, KIP-599, KIP-612), as an editor shows them on hover.
QUOTA_VALUES = {
    "producer_byte_rate": "Bytes per second the entity's producers may send to each broker (long; sizes such as "
    "10MiB are accepted). user and/or clientId entities.",
    "consumer_byte_rate": "Bytes per second the entity's consumers may fetch from each broker (long; sizes such as "
    "10MiB are accepted). user and/or clientId entities.",
    "request_percentage": "Share of each broker's request handler and network threads the entity may use, in "
    "percent of one thread (200 means two threads). user and/or clientId entities.",
    "controller_mutation_rate": "Partitions per second the entity may create, add or delete through the "
    "controller. user and/or clientId entities.",
    "connection_creation_rate": "New connections per second each broker accepts from the address (int). ip "
    "entities only.",
}

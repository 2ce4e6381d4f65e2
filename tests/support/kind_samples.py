"""One resource of every registered kind, declared (``WANTED``) and live (``LIVE``), for the tests that hold every
kind to the same guarantee over the kinds registry (fleet rows, mass-delete counting). A registered kind missing
here fails those tests: add a resource of it to both.

``SECRET_BEARING`` says, for every registered kind, where one of its resources carries a secret (a function
planting a given secret value in the sample: declared, live or behind a reference in the environment), or ``None``
for a kind with no secret-bearing field; the secrets-never-printed test fails for a registered kind missing there."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from reconciler.connect import port as connect_port
from reconciler.kinds.schema_subject import dryrun
from reconciler.kinds.schema_subject import state as subjects
from reconciler.model import desired as d
from reconciler.model import state as s
from reconciler.model.kinds import Kind
from reconciler.registry.port import Features, SchemaVersion

SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
BINDING = s.AclBinding("TOPIC", "PREFIXED", "orders", "User:app", "*", "READ", "ALLOW")
OTHER_BINDING = s.AclBinding("GROUP", "LITERAL", "billing", "User:app", "*", "READ", "ALLOW")
ENTITY = s.QuotaEntity.of(user="app")
ORDER_V1 = '{"type": "record", "name": "Order", "fields": [{"name": "id", "type": "string"}]}'
ORDER_V2 = (
    '{"type": "record", "name": "Order", "fields": [{"name": "id", "type": "string"}, '
    '{"name": "note", "type": ["null", "string"], "default": null}]}'
)
WANTED = d.DesiredState(
    topics={"orders": d.DesiredTopic("orders", 3, 1, {"retention.ms": "3600000"})},
    acls={BINDING: d.Source("m.yaml", 3, 1)},
    quotas={ENTITY: d.DesiredQuota(ENTITY, {"producer_byte_rate": 1048576.0})},
    scram_users={"app": d.DesiredScramUser("app", "SCRAM-SHA-256", 8192, d.SecretRef(env="APP_PASSWORD"))},
    broker_configs={"<default>": d.DesiredBrokerConfig("<default>", {"log.cleaner.threads": "2"})},
    group_configs={"billing": d.DesiredEntityConfig("billing", {"consumer.session.timeout.ms": "50000"})},
    client_metrics={"producers": d.DesiredEntityConfig("producers", {"metrics": "org.apache.kafka.producer."})},
    connectors={"sink": d.DesiredConnector("sink", {"connector.class": SINK, "tasks.max": "1", "topics": "orders"})},
    sections={
        Kind.SCHEMA_SUBJECT: {
            "orders-value": subjects.DesiredSubject(
                "orders-value", ORDER_V2, compatibility="BACKWARD", topics=("orders",), source=d.Source("m.yaml", 9, 1)
            )
        }
    },
)
LIVE = s.ClusterState(
    cluster_id="c-1",
    controller_id=1,
    brokers=(s.Broker(1, "b1", 9092),),
    topics={"orders": s.TopicState("orders", ((1,), (1,)), configs={"retention.ms": "60000"})},
    broker_configs={"<default>": {"log.cleaner.threads": "1"}},
    acls=frozenset({OTHER_BINDING}),
    quotas={ENTITY: {"producer_byte_rate": 1024.0}},
    scram_users={"app": (s.ScramCredential("SCRAM-SHA-512", 4096),)},
    group_configs={"billing": {"consumer.heartbeat.interval.ms": "5000"}},
    client_metrics={"consumers": {"metrics": "org.apache.kafka.consumer.", "interval.ms": "60000"}},
    connect=s.ConnectState(
        url="http://c:8083",
        connectors={"sink": s.ConnectorState("sink", {"connector.class": SINK, "tasks.max": "2"}, "RUNNING")},
        plugins=(SINK,),
    ),
    sections={
        Kind.SCHEMA_SUBJECT: subjects.LiveSubjects(
            {
                "orders-value": subjects.LiveSubject(
                    "orders-value", SchemaVersion("orders-value", 1, 1, ORDER_V1), "BACKWARD"
                )
            },
            Features(mode=False, schema_types=("AVRO", "JSON", "PROTOBUF")),
            "BACKWARD",
            # as read with the registry: who references the subject (nobody), what it answers of the new version
            evidence=dryrun.Evidence(referrers={"orders-value": ()}),
        )
    },
)

# A planted secret: the desired and live states carrying it, and the environment the references read it from.
Planted = tuple[d.DesiredState, s.ClusterState, dict[str, str]]
SENSITIVE_BROKER_KEY = "listener.name.internal.ssl.key.password"  # a sensitive broker config, by Kafka's naming


def plant_scram_password(secret: str) -> Planted:
    """The SCRAM user's password, behind the env reference ``WANTED`` declares."""
    return WANTED, LIVE, {"APP_PASSWORD": secret}


def plant_broker_config(secret: str) -> Planted:
    """A sensitive broker config value declared in the manifests (Kafka never returns it: live, it is unset)."""
    default = WANTED.broker_configs["<default>"]
    declared = dataclasses.replace(default, configs={**default.configs, SENSITIVE_BROKER_KEY: secret})
    wanted = dataclasses.replace(WANTED, broker_configs={"<default>": declared})
    live = dataclasses.replace(
        LIVE, broker_configs={"<default>": {**(LIVE.broker_configs or {})["<default>"], SENSITIVE_BROKER_KEY: None}}
    )
    return wanted, live, {}


def plant_connector(secret: str) -> Planted:
    """A connector's password: declared as a secret reference, and as the worker answers it (in clear) to the read,
    under the declared key and under an undeclared key that names a password."""
    sink = WANTED.connectors["sink"]
    declared = dataclasses.replace(sink, secrets={"connection.password": d.SecretRef(env="SINK_PASSWORD")})
    wanted = dataclasses.replace(WANTED, connectors={"sink": declared})
    assert LIVE.connect is not None
    config = {**LIVE.connect.connectors["sink"].config, "connection.password": secret, "ssl.key.password": secret}
    answer = {
        "info": {"name": "sink", "config": {"name": "sink", **config}, "type": "sink"},
        "status": {"name": "sink", "connector": {"state": "RUNNING"}, "tasks": [], "type": "sink"},
    }
    read = connect_port.connector_state("sink", answer, declared_secrets={"connection.password"})
    live = dataclasses.replace(LIVE, connect=dataclasses.replace(LIVE.connect, connectors={"sink": read}))
    return wanted, live, {"SINK_PASSWORD": secret}


SECRET_BEARING: Mapping[Kind, Callable[[str], Planted] | None] = {
    Kind.TOPIC: None,  # topic configs hold no secret (Kafka has no sensitive topic config)
    Kind.ACL: None,
    Kind.QUOTA: None,
    Kind.SCRAM_USER: plant_scram_password,
    Kind.BROKER_CONFIG: plant_broker_config,
    Kind.GROUP_CONFIG: None,  # group and client-metrics configs have no sensitive key
    Kind.CLIENT_METRICS: None,
    Kind.CONNECTOR: plant_connector,
    Kind.SCHEMA_SUBJECT: None,  # a subject holds no secret (the registry's basic auth is the Cluster profile's)
}

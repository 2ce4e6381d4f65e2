"""One resource of every registered kind, declared (``WANTED``) and live (``LIVE``), for the tests that hold every
kind to the same guarantee over the kinds registry (fleet rows, mass-delete counting). A registered kind missing
here fails those tests: add a resource of it to both."""

from __future__ import annotations

from reconciler.model import desired as d
from reconciler.model import state as s

SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
BINDING = s.AclBinding("TOPIC", "PREFIXED", "orders", "User:app", "*", "READ", "ALLOW")
OTHER_BINDING = s.AclBinding("GROUP", "LITERAL", "billing", "User:app", "*", "READ", "ALLOW")
ENTITY = s.QuotaEntity.of(user="app")
WANTED = d.DesiredState(
    topics={"orders": d.DesiredTopic("orders", 3, 1, {"retention.ms": "3600000"})},
    acls={BINDING: d.Source("m.yaml", 3, 1)},
    quotas={ENTITY: d.DesiredQuota(ENTITY, {"producer_byte_rate": 1048576.0})},
    scram_users={"app": d.DesiredScramUser("app", "SCRAM-SHA-256", 8192, d.SecretRef(env="APP_PASSWORD"))},
    broker_configs={"<default>": d.DesiredBrokerConfig("<default>", {"log.cleaner.threads": "2"})},
    group_configs={"billing": d.DesiredEntityConfig("billing", {"consumer.session.timeout.ms": "50000"})},
    client_metrics={"producers": d.DesiredEntityConfig("producers", {"metrics": "org.apache.kafka.producer."})},
    connectors={"sink": d.DesiredConnector("sink", {"connector.class": SINK, "tasks.max": "1", "topics": "orders"})},
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
)

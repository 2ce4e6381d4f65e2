"""The input of the golden render files: one plan that uses every kind of change, warning and section."""

from __future__ import annotations

from reconciler.kinds.schema_subject.dryrun import Evidence
from reconciler.kinds.schema_subject.state import DesiredSubject, LiveSubject, LiveSubjects
from reconciler.model import desired as d
from reconciler.model import plans
from reconciler.model import state as s
from reconciler.model.kinds import Kind
from reconciler.planner import PlanOptions, plan
from reconciler.registry.port import Compatibility, Features, SchemaVersion
from tests.support.builders import acl

BROKERS = (
    s.Broker(1, "kafka-1.internal", 9092, "eu-west-1a"),
    s.Broker(2, "kafka-2.internal", 9092, "eu-west-1b"),
    s.Broker(3, "kafka-3.internal", 9092, "eu-west-1c"),
)


def _src(line: int, origin: str | None = None) -> d.Source:
    return d.Source("manifests/payments.yaml", line, 3, origin)


def desired_state() -> d.DesiredState:
    topics = [
        d.DesiredTopic(
            "payments.orders", 6, 3, {"retention.ms": "604800000", "cleanup.policy": "delete"}, None, _src(4)
        ),
        d.DesiredTopic("payments.ledger", 6, 3, {"retention.ms": "604800000"}, None, _src(12)),
        d.DesiredTopic("payments.events", 4, 3, {}, None, _src(20)),
        d.DesiredTopic("payments.audit", 3, 3, {"min.insync.replicas": "2"}, None, _src(26)),
        d.DesiredTopic("payments.clicks", 3, 2, {"segment.bytes": "1073741824"}, None, _src(32)),
    ]
    acls = {
        acl("User:payments-api", "READ", "payments.", pattern="PREFIXED"): _src(40, "grant consumer payments-api"),
        acl("User:payments-api", "WRITE", "payments.orders"): _src(41, "grant producer payments-api"),
    }
    quotas = {
        s.QuotaEntity.of(user="payments-api"): d.DesiredQuota(
            s.QuotaEntity.of(user="payments-api"), {"producer_byte_rate": 1048576.0}, _src(50)
        ),
        s.QuotaEntity.of(user="payments-batch"): d.DesiredQuota(
            s.QuotaEntity.of(user="payments-batch"), {"consumer_byte_rate": 4194304.0}, _src(54)
        ),
    }
    users = {
        "payments-api": d.DesiredScramUser(
            "payments-api", "SCRAM-SHA-512", 8192, d.SecretRef(env="PAYMENTS_API_SCRAM_PASSWORD"), None, _src(60)
        ),
        "payments-batch": d.DesiredScramUser(
            "payments-batch", "SCRAM-SHA-512", 8192, d.SecretRef(file="/run/secrets/batch"), "2026-05", _src(66)
        ),
    }
    brokers = {
        s.CLUSTER_DEFAULT: d.DesiredBrokerConfig(s.CLUSTER_DEFAULT, {"log.cleaner.threads": "2"}, _src(70)),
        "1": d.DesiredBrokerConfig("1", {"listener.name.internal.ssl.key.password": "not-shown-anywhere"}, _src(74)),
    }
    ownership = d.Ownership(
        topics=(d.NamePattern("prefix", "payments."), d.NamePattern("prefix", "__")),
        principals=(d.NamePattern("prefix", "User:payments-"),),
        delete={Kind.TOPIC: True, Kind.ACL: True, Kind.CLIENT_METRICS: True, Kind.CONNECTOR: True},
        groups=(d.NamePattern("prefix", "payments-"),),
        client_metrics=(d.NamePattern("prefix", "payments-"),),
        connectors=(d.NamePattern("prefix", "payments-"),),
    )
    groups = {
        "payments-api": d.DesiredEntityConfig(
            "payments-api", {"consumer.session.timeout.ms": "50000", "share.auto.offset.reset": "earliest"}, _src(80)
        ),
    }
    subscriptions = {
        "payments-producers": d.DesiredEntityConfig(
            "payments-producers",
            {"metrics": "org.apache.kafka.producer.", "interval.ms": "60000", "match": "client_id=payments-.*"},
            _src(86),
        ),
    }
    return d.DesiredState(
        topics={t.name: t for t in topics},
        acls=acls,
        quotas=quotas,
        scram_users=users,
        broker_configs=brokers,
        group_configs=groups,
        client_metrics=subscriptions,
        ownership=ownership,
        connectors=connectors(),
        sections={Kind.SCHEMA_SUBJECT: {"payments.orders-value": _order_subject()}},
    )


ORDER_V1 = '{"type": "record", "name": "Order", "namespace": "payments", "fields": [{"name": "id", "type": "string"}]}'
ORDER_V2 = (
    '{"type": "record", "name": "Order", "namespace": "payments", "fields": [{"name": "id", "type": "string"}, '
    '{"name": "amount", "type": "long", "default": 0}]}'
)


def _order_subject() -> DesiredSubject:
    return DesiredSubject(
        "payments.orders-value",
        ORDER_V2,
        topics=("payments.orders",),
        schema_origin="schemas/order.avsc",
        source=_src(120),
    )


def subjects_state() -> LiveSubjects:
    """The registry as read for the plan: the order subject's version 1 under BACKWARD, and the registry's own check
    of the declared schema against it (compatible)."""
    held = SchemaVersion("payments.orders-value", 1, 11, ORDER_V1)
    return LiveSubjects(
        {"payments.orders-value": LiveSubject("payments.orders-value", held, "BACKWARD")},
        Features(mode=False, schema_types=("AVRO", "JSON", "PROTOBUF")),
        "BACKWARD",
        evidence=Evidence(answers={"payments.orders-value": (Compatibility(True, 1),)}),
    )


FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"


def connectors() -> dict[str, d.DesiredConnector]:
    sink = {"connector.class": FILE_SINK, "tasks.max": "2", "topics": "payments.orders", "file": "/data/orders.txt"}
    source = {"connector.class": FILE_SOURCE, "tasks.max": "1", "topic": "payments.events", "file": "/data/in.txt"}
    found = [
        d.DesiredConnector("payments-orders-sink", sink, "running", source=_src(80), positions={"file": _src(86)}),
        d.DesiredConnector(
            "payments-events-source",
            {**source, "batch.size": "500"},
            "paused",
            secrets={"sasl.jaas.config": d.SecretRef(env="EVENTS_JAAS")},
            source=_src(90),
        ),
        d.DesiredConnector(
            "payments-audit-sink",
            {**sink, "topics": "payments.audit", "file": "relative.txt"},
            source=_src(100),
            positions={"file": _src(105)},
        ),
        d.DesiredConnector(
            "payments-mirror", {"connector.class": "MirorSourceConnector", "tasks.max": "1"}, source=_src(110)
        ),
    ]
    return {c.name: c for c in found}


def connect_state() -> s.ConnectState:
    from reconciler.connect import secrets

    def task(i: int, state: str = "RUNNING", trace: str | None = None) -> s.ConnectorTask:
        return s.ConnectorTask(i, state, "10.0.0.7:8083", trace)

    source = {"connector.class": FILE_SOURCE, "tasks.max": "1", "topic": "payments.events", "file": "/data/in.txt"}
    jaas = secrets.digest("payments-events-source", "sasl.jaas.config", "old")
    live = [
        s.ConnectorState(
            "payments-events-source",
            {**source, "batch.size": "200", "sasl.jaas.config": jaas},
            "RUNNING",
            (task(0, "FAILED", "org.apache.kafka.connect.errors.ConnectException: /data/in.txt: no such file"),),
            "source",
        ),
        s.ConnectorState("payments-legacy-sink", {"connector.class": FILE_SINK, "topics": "x"}, "RUNNING", (task(0),)),
        s.ConnectorState("shipping-sink", {"connector.class": FILE_SINK, "topics": "y"}, "RUNNING", (task(0),)),
    ]
    return s.ConnectState(
        url="http://connect-1.internal:8083",
        connectors={c.name: c for c in live},
        plugins=(FILE_SINK, FILE_SOURCE, "org.apache.kafka.connect.mirror.MirrorSourceConnector"),
        validation={"payments-audit-sink": (("file", "File path must be absolute"),)},
        secret_digests={"payments-events-source": {"sasl.jaas.config": secrets.digest("x", "y", "new")}},
    )


def live_state() -> s.ClusterState:
    def rr(partitions: int, rf: int) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple((p + r) % 3 + 1 for r in range(rf)) for p in range(partitions))

    topics = [
        s.TopicState(
            "payments.ledger",
            rr(3, 3),
            configs={"retention.ms": "86400000", "cleanup.policy": "compact"},
            defaults={"cleanup.policy": "delete"},
        ),
        s.TopicState("payments.events", rr(6, 3)),
        s.TopicState("payments.audit", rr(3, 2), configs={"min.insync.replicas": "2"}),
        s.TopicState("payments.clicks", rr(3, 2), configs={"segment.bytes": "1073741824"}),
        s.TopicState("payments.legacy", rr(2, 3)),
        s.TopicState("__consumer_offsets", rr(50, 3), internal=True),
        s.TopicState("shipping.orders", rr(3, 3)),
    ]
    return s.ClusterState(
        cluster_id="Zx4kq1bETKu0nLwq9XqA2w",
        controller_id=2,
        brokers=BROKERS,
        topics={t.name: t for t in topics},
        broker_configs={
            s.CLUSTER_DEFAULT: {"log.cleaner.threads": "1", "log.retention.check.interval.ms": "60000"},
        },
        broker_config_sensitive=frozenset({"listener.name.internal.ssl.key.password"}),
        cluster_configs={"auto.create.topics.enable": "true", "min.insync.replicas": "2"},
        acls=frozenset(
            {
                acl("User:payments-api", "READ", "payments.orders"),
                acl("User:payments-api", "WRITE", "payments.orders"),
                acl("User:payments-old", "READ", "payments.events"),
                acl("User:shipping", "READ", "shipping.orders"),
            }
        ),
        quotas={
            s.QuotaEntity.of(user="payments-batch"): {"consumer_byte_rate": 2097152.0},
            s.QuotaEntity.of(user="payments-legacy"): {"request_percentage": 25.0},
            s.QuotaEntity.of(client_id="shipping"): {"producer_byte_rate": 100.0},
        },
        scram_users={
            "payments-batch": (s.ScramCredential("SCRAM-SHA-512", 4096),),
            "payments-ops": (s.ScramCredential("SCRAM-SHA-256", 4096),),
        },
        group_configs={
            "payments-api": {"consumer.session.timeout.ms": "45000"},
            "payments-batch": {"consumer.heartbeat.interval.ms": "6000"},
        },
        client_metrics={"payments-all": {"metrics": "*", "interval.ms": "30000"}},
        # The evidence of use read for the topic the plan deletes: no group, last written 40 days before the plan.
        topic_usage={"payments.legacy": s.TopicUsage((1520, 1498), 1_791_544_000_000, (), 1_795_000_000_000)},
        connect=connect_state(),
        sections={Kind.SCHEMA_SUBJECT: subjects_state()},
    )


def example_plan() -> plans.Plan:
    return plan(desired_state(), live_state(), options=PlanOptions(rotate_scram_users=frozenset({"payments-api"})))

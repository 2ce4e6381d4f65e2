"""``convert --from strimzi`` on the sample KafkaTopic/KafkaUser files: the output loads and matches the source."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reconciler import manifests
from reconciler.base import errors
from reconciler.convert import build_conversion, convert
from reconciler.model.kinds import Kind
from reconciler.model.state import QuotaEntity
from tests.support.builders import acl

SAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "convert" / "strimzi"
ENV = {"SCRAM_PASSWORD_ORDERS_SERVICE": "x", "SCRAM_PASSWORD_LEGACY_BATCH": "y"}


@pytest.fixture
def converted(tmp_path: Path) -> tuple[manifests.LoadResult, Path, list[str]]:
    report = convert("strimzi", [SAMPLES], out_dir=tmp_path / "out", force=False)
    result = manifests.load([tmp_path / "out"], env=ENV)
    return result, tmp_path / "out", report.lines()


def test_topics_keep_name_partitions_replicas_and_configs(
    converted: tuple[manifests.LoadResult, Path, list[str]],
) -> None:
    result, out, _ = converted
    topics = result.desired.topics
    assert sorted(topics) == ["audit-log", "customer-profiles", "orders.created"]  # spec.topicName wins
    orders = topics["orders.created"]
    assert (orders.partitions, orders.replication_factor) == (12, 3)
    assert dict(orders.configs) == {
        "retention.ms": "604800000",
        "min.insync.replicas": "2",
        "cleanup.policy": "delete",
        "compression.type": "zstd",
    }
    assert dict(topics["customer-profiles"].configs) == {
        "cleanup.policy": "compact",
        "min.cleanable.dirty.ratio": "0.2",
        "segment.bytes": "268435456",
    }
    # No partitions/replicas in the KafkaTopic: a TopicDefaults the user must check, reported as a TODO.
    assert (topics["audit-log"].partitions, topics["audit-log"].replication_factor) == (1, 1)
    assert dict(topics["audit-log"].configs) == {"retention.ms": "-1"}
    assert "strimzi.io/cluster: prod-cluster" in (out / "topics.yaml").read_text()


def test_user_acls_become_exact_bindings_per_principal(converted: tuple[manifests.LoadResult, Path, list[str]]) -> None:
    result, out, _ = converted
    orders, analytics, batch = "User:orders-service", "User:CN=analytics", "User:legacy-batch"
    assert set(result.desired.acls) == {
        acl(orders, "WRITE", "orders.created"),
        acl(orders, "DESCRIBE", "orders.created"),
        acl(orders, "WRITE", "orders-tx-", resource="TRANSACTIONAL_ID", pattern="PREFIXED"),
        acl(orders, "DESCRIBE", "orders-tx-", resource="TRANSACTIONAL_ID", pattern="PREFIXED"),
        acl(orders, "IDEMPOTENT_WRITE", "kafka-cluster", resource="CLUSTER"),
        acl(analytics, "READ", "orders.", pattern="PREFIXED"),
        acl(analytics, "DESCRIBE", "orders.", pattern="PREFIXED"),
        acl(analytics, "DESCRIBE_CONFIGS", "orders.", pattern="PREFIXED"),
        acl(analytics, "READ", "analytics-", resource="GROUP", pattern="PREFIXED"),
        acl(analytics, "WRITE", "customer-profiles", host="10.20.30.40", permission="DENY"),
        acl(batch, "READ", "audit-log"),
        acl(batch, "WRITE", "audit-log"),
        acl(batch, "READ", "legacy-batch", resource="GROUP"),
    }
    assert sorted(p.name for p in (out / "acls").iterdir()) == [
        "CN-analytics.yaml",
        "legacy-batch.yaml",
        "orders-service.yaml",
    ]


def test_scram_users_and_quotas(converted: tuple[manifests.LoadResult, Path, list[str]]) -> None:
    result, out, _ = converted
    users = result.desired.scram_users
    assert {u: (s.mechanism, s.iterations, s.password.env) for u, s in users.items()} == {
        "orders-service": ("SCRAM-SHA-512", 4096, "SCRAM_PASSWORD_ORDERS_SERVICE"),
        "legacy-batch": ("SCRAM-SHA-512", 4096, "SCRAM_PASSWORD_LEGACY_BATCH"),
    }
    assert "Secret legacy-batch-credentials (key: password)" in (out / "users.yaml").read_text()
    assert {e: dict(q.values) for e, q in result.desired.quotas.items()} == {
        QuotaEntity.of(user="orders-service"): {"producer_byte_rate": 1048576.0, "request_percentage": 55.0},
        QuotaEntity.of(user="CN=analytics"): {"consumer_byte_rate": 2097152.0, "controller_mutation_rate": 10.0},
    }


def test_ownership_is_exactly_the_converted_resources(converted: tuple[manifests.LoadResult, Path, list[str]]) -> None:
    ownership = converted[0].desired.ownership
    assert ownership.owns_topic("orders.created") and not ownership.owns_topic("orders.other")
    assert {p.value for p in ownership.principals} == {"User:orders-service", "User:CN=analytics", "User:legacy-batch"}
    assert not any(ownership.may_delete(k) for k in (Kind.TOPIC, Kind.ACL, Kind.QUOTA, Kind.SCRAM_USER))


def test_what_has_no_equivalent_is_printed_and_written(converted: tuple[manifests.LoadResult, Path, list[str]]) -> None:
    _, out, lines = converted
    text = "\n".join(lines)
    assert "KafkaUser/analytics: tls authentication (client certificates) has no equivalent" in text
    assert "Kafka/prod-cluster: not a Strimzi KafkaTopic or KafkaUser; ignored" in text
    assert "SCRAM_PASSWORD_ORDERS_SERVICE" in text
    report = (out / "CONVERSION.md").read_text()
    assert report.startswith("# Conversion from Strimzi\n")
    assert "tls authentication (client certificates) has no equivalent" in report
    assert "## To do" in report and "broker-defaults" in report


def test_bad_values_are_left_out_with_a_note(tmp_path: Path) -> None:
    source = tmp_path / "in.yaml"
    source.write_text(
        textwrap.dedent(
            """\
            apiVersion: kafka.strimzi.io/v1beta2
            kind: KafkaTopic
            metadata: {name: t1}
            spec:
              partitions: 0
              replicas: 1
              config: {retention.ms: 1000, confluent.tier.enable: true, cleanup.policy: shred}
            ---
            apiVersion: kafka.strimzi.io/v1beta2
            kind: KafkaUser
            metadata: {name: u1}
            spec:
              authorization:
                type: opa
              quotas: {producerByteRate: fast, consumerByteRate: 10}
            ---
            apiVersion: kafka.strimzi.io/v1beta2
            kind: KafkaUser
            metadata: {name: u2}
            spec:
              authorization:
                type: simple
                acls:
                  - resource: {type: topic, name: t1}
                    operations: [Read, Fly]
                  - resource: {type: cluster}
                    operation: Read
            """
        )
    )
    _, report = build_conversion("strimzi", [source])
    text = "\n".join(report.lines())
    assert "partitions 0 is not a positive whole number" in text
    assert "confluent.tier.enable=True is not a topic config" in text
    assert "'shred' is not one of compact, delete" in text
    assert "authorization type 'opa' has no equivalent" in text
    assert "quota producerByteRate='fast' is not a number" in text
    assert "operation 'Fly' is not a Kafka ACL operation" in text
    assert "operation READ does not apply to CLUSTER" in text
    convert("strimzi", [source], out_dir=tmp_path / "out", force=False)
    result = manifests.load([tmp_path / "out"])
    assert dict(result.desired.topics["t1"].configs) == {"retention.ms": "1000"}
    assert {(b.principal, b.operation) for b in result.desired.acls} == {("User:u2", "READ")}
    assert {e: dict(q.values) for e, q in result.desired.quotas.items()} == {
        QuotaEntity.of(user="u1"): {"consumer_byte_rate": 10.0}
    }


def test_unreadable_inputs_are_clear_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("kind: KafkaTopic\nmetadata: {name: [\n")
    with pytest.raises(errors.ConfigError, match=r"broken\.yaml:\d+:\d+: YAML syntax error"):
        build_conversion("strimzi", [broken])
    with pytest.raises(errors.ConfigError, match="no such file"):
        build_conversion("strimzi", [tmp_path / "missing.yaml"])
    with pytest.raises(errors.ConfigError, match="unknown input format 'terraform'"):
        build_conversion("terraform", [SAMPLES])
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("x")
    with pytest.raises(errors.ConfigError, match="not empty"):
        convert("strimzi", [SAMPLES], out_dir=tmp_path / "out", force=False)

"""Batched writes against a real broker: one request per call, per-entity answers, validate-only dry runs.

Each test mixes a failing entity into the batch and checks, with plain kafka-python or a second adapter,
that the others were applied and the failing one was not.
"""

from __future__ import annotations

from typing import Any, TypeVar

import pytest
from kafka.admin import ConfigResource

from reconciler.connection.settings import Secret
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import ScramDeletion, ScramUpsert, TopicSpec
from reconciler.model import state
from reconciler.model.kinds import Kind
from reconciler.model.payloads import ConfigOp
from tests.kafka.cluster import KafkaCluster
from tests.kafka.dist import selected_release
from tests.support.polling import eventually

# On every Kafka version: each kind's per-entity answers and the broker's messages differ between releases.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]
T = TypeVar("T")


def topic_names(cluster: KafkaCluster, prefix: str) -> set[str]:
    with cluster.admin_session() as admin:
        return {t for t in admin.list_topics() if t.startswith(prefix)}


def partition_count(cluster: KafkaCluster, topic: str) -> int:
    with cluster.admin_session() as admin:
        (described,) = admin.describe_topics([topic])
    return len(described["partitions"])


def modified_configs(cluster: KafkaCluster, topic: str) -> dict[str, str]:
    with cluster.admin_session() as admin:
        found = admin.describe_configs([ConfigResource("TOPIC", topic)])["topic"][topic]
    return {k: v["value"] for k, v in found.items() if v["config_source"] == "DYNAMIC_TOPIC_CONFIG"}


def test_create_topics_one_invalid_config_does_not_stop_the_others(
    kafka_single: KafkaCluster, topic_prefix: str
) -> None:
    good, bad, assigned = f"{topic_prefix}good", f"{topic_prefix}bad", f"{topic_prefix}assigned"
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        results = adapter.create_topics(
            [
                TopicSpec(good, partitions=2, replication_factor=1, configs={"retention.ms": "7200000"}),
                TopicSpec(bad, partitions=1, replication_factor=1, configs={"retention.ms": "seven days"}),
                TopicSpec(assigned, assignment=((1,), (1,), (1,)), configs={"cleanup.policy": "compact"}),
            ]
        )
        # One CreateTopics for the whole batch, plus the one-off controller lookup of a fresh adapter.
        assert adapter.request_counts == {"Metadata": 1, "CreateTopics": 1}
        assert adapter.wait_topics_present([good, assigned]) == frozenset()

    by_key = {r.key: r for r in results}
    assert [r.key for r in results] == [good, bad, assigned]
    assert by_key[good].ok and by_key[assigned].ok
    assert by_key[bad].error_name == "INVALID_CONFIG" and "retention.ms" in (by_key[bad].message or "")
    # KIP-525: the broker says what it resolved for the topics it created.
    assert by_key[good].extra["partitions"] == 2 and by_key[good].extra["replication_factor"] == 1
    assert by_key[good].extra["configs"]["retention.ms"] == "7200000"
    assert by_key[good].extra["configs"]["cleanup.policy"] == "delete"
    assert by_key[good].extra["dynamic_configs"] == ["retention.ms"]

    assert topic_names(kafka_single, topic_prefix) == {good, assigned}
    assert partition_count(kafka_single, assigned) == 3
    assert modified_configs(kafka_single, good) == {"retention.ms": "7200000"}
    assert modified_configs(kafka_single, assigned) == {"cleanup.policy": "compact"}


def test_create_topics_validate_only_creates_nothing(kafka_single: KafkaCluster, topic_prefix: str) -> None:
    name = f"{topic_prefix}dry"
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        (ok, too_many_replicas) = adapter.create_topics(
            [
                TopicSpec(name, partitions=4, replication_factor=1, configs={"segment.ms": "600000"}),
                TopicSpec(f"{topic_prefix}rf3", partitions=1, replication_factor=3),
            ],
            validate_only=True,
        )
    assert ok.ok and ok.extra["partitions"] == 4 and ok.extra["configs"]["segment.ms"] == "600000"
    assert too_many_replicas.error_name == "INVALID_REPLICATION_FACTOR"
    # A barrier instead of a pause: the broker publishes topic creations in order, so once a topic created after
    # the dry run shows in the metadata, a topic the dry run had created would show too.
    marker = f"{topic_prefix}marker"
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        assert adapter.create_topics([TopicSpec(marker, partitions=1, replication_factor=1)])[0].ok
    eventually(lambda: marker in topic_names(kafka_single, topic_prefix), what=f"{marker} in the metadata")
    assert topic_names(kafka_single, topic_prefix) == {marker}


def test_delete_topics_reports_unknown_topics_and_waits_until_gone(
    kafka_single: KafkaCluster, topic_prefix: str
) -> None:
    doomed, ghost = f"{topic_prefix}doomed", f"{topic_prefix}ghost"
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        assert adapter.create_topics([TopicSpec(doomed, partitions=1, replication_factor=1)])[0].ok
        assert adapter.wait_topics_present([doomed]) == frozenset()
        deleted, unknown = adapter.delete_topics([doomed, ghost])
        assert adapter.wait_topics_absent([doomed, ghost]) == frozenset()
    assert deleted.ok and deleted.key == doomed
    assert unknown.error_name == "UNKNOWN_TOPIC_OR_PARTITION" and unknown.key == ghost
    assert topic_names(kafka_single, topic_prefix) == set()


def test_create_partitions_mixed_with_a_decrease_and_validate_only(
    kafka_single: KafkaCluster, topic_prefix: str
) -> None:
    grow, shrink = f"{topic_prefix}grow", f"{topic_prefix}shrink"
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        adapter.create_topics(
            [TopicSpec(grow, partitions=1, replication_factor=1), TopicSpec(shrink, partitions=3, replication_factor=1)]
        )
        adapter.wait_topics_present([grow, shrink])
        dry = adapter.create_partitions({grow: 5}, validate_only=True)
        assert [r.ok for r in dry] == [True]
        assert partition_count(kafka_single, grow) == 1
        grown, shrunk = adapter.create_partitions({grow: 4, shrink: 2})
    assert grown.ok
    assert shrunk.error_name == "INVALID_PARTITIONS"
    assert eventually(lambda: partition_count(kafka_single, grow) == 4, what="4 partitions")
    assert partition_count(kafka_single, shrink) == 3


def test_incremental_alter_configs_per_resource_results(kafka_single: KafkaCluster, topic_prefix: str) -> None:
    a, b, c = (f"{topic_prefix}{x}" for x in "abc")
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        adapter.create_topics(
            [
                TopicSpec(a, partitions=1, replication_factor=1),
                TopicSpec(b, partitions=1, replication_factor=1),
                TopicSpec(
                    c, partitions=1, replication_factor=1, configs={"retention.ms": "100000", "segment.ms": "900000"}
                ),
            ]
        )
        adapter.wait_topics_present([a, b, c])
        changes = {
            ("TOPIC", a): [ConfigOp.set("retention.ms", "123456")],
            ("TOPIC", b): [ConfigOp.set("min.insync.replicas", "not-a-number")],
            ("TOPIC", c): [ConfigOp.delete("retention.ms")],
            ("TOPIC", f"{topic_prefix}missing"): [ConfigOp.set("retention.ms", "1")],
        }
        dry = adapter.incremental_alter_configs(changes, validate_only=True)
        assert modified_configs(kafka_single, a) == {}
        results = adapter.incremental_alter_configs(changes)
        assert adapter.request_counts["IncrementalAlterConfigs"] == 2

    # Kafka 2.8's ZooKeeper-mode admin manager wraps a config value it cannot parse in INVALID_REQUEST; 3.x and
    # 4.x answer INVALID_CONFIG (observed on 2.8.2, 3.9.2 in both modes, 4.4.0).
    invalid_value_error = "INVALID_REQUEST" if selected_release() < (3, 0, 0) else "INVALID_CONFIG"
    for answers in (dry, results):
        assert [r.key for r in answers] == [f"topic:{a}", f"topic:{b}", f"topic:{c}", f"topic:{topic_prefix}missing"]
        assert [r.ok for r in answers] == [True, False, True, False]
        assert answers[1].error_name == invalid_value_error
        assert answers[3].error_name == "UNKNOWN_TOPIC_OR_PARTITION"
    # Configs reach the broker's view asynchronously after the answer: poll until both writes show.
    assert eventually(lambda: modified_configs(kafka_single, a) == {"retention.ms": "123456"}, what="a's config")
    assert eventually(lambda: modified_configs(kafka_single, c) == {"segment.ms": "900000"}, what="c's reset")
    assert modified_configs(kafka_single, b) == {}


def test_alter_client_quotas_sets_removes_and_reports_bad_keys(kafka_single: KafkaCluster, topic_prefix: str) -> None:
    user = state.QuotaEntity.of(user=f"{topic_prefix}app")
    client = state.QuotaEntity.of(client_id=f"{topic_prefix}cli")
    bad = state.QuotaEntity.of(user=f"{topic_prefix}bad")

    def read() -> dict[state.QuotaEntity, dict[str, float]]:
        with KafkaAdapter(kafka_single.connection_settings()) as reader:
            quotas = reader.read_state(kinds=frozenset({Kind.QUOTA})).quotas or {}
        return {e: dict(v) for e, v in quotas.items() if e in (user, client, bad)}

    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        changes: dict[state.QuotaEntity, dict[str, float | None]] = {
            user: {"producer_byte_rate": 1e6, "consumer_byte_rate": 2e6},
            bad: {"bytes_per_fortnight": 1.0},
            client: {"request_percentage": 50.0},
        }
        dry = adapter.alter_client_quotas(changes, validate_only=True)
        assert read() == {}
        results = adapter.alter_client_quotas(changes)
        assert [r.key for r in results] == [user.address, bad.address, client.address]
        assert [r.ok for r in dry] == [r.ok for r in results] == [True, False, True]
        assert results[1].error_name == "INVALID_REQUEST"
        assert eventually(
            lambda: (
                read()
                == {user: {"producer_byte_rate": 1e6, "consumer_byte_rate": 2e6}, client: {"request_percentage": 50.0}}
            ),
            what="quotas",
        )

        removed = adapter.alter_client_quotas(
            {user: {"consumer_byte_rate": None}, client: {"request_percentage": None}}
        )
        assert all(r.ok for r in removed)
    assert eventually(lambda: read() == {user: {"producer_byte_rate": 1e6}}, what="quota removal")


def test_alter_scram_credentials_mixed_results_and_password_stays_secret(
    kafka_single: KafkaCluster, topic_prefix: str
) -> None:
    alice, weak, gone = f"{topic_prefix}alice", f"{topic_prefix}weak", f"{topic_prefix}nobody"
    password = Secret("correct horse battery staple")
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        results = adapter.alter_scram_credentials(
            upserts=[
                ScramUpsert(alice, "SCRAM-SHA-256", 8192, password),
                ScramUpsert(alice, "SCRAM-SHA-512", 4096, password),
                ScramUpsert(weak, "SCRAM-SHA-256", 10, password),  # below Kafka's minimum of 4096
            ],
            deletions=[ScramDeletion(gone, "SCRAM-SHA-512")],
        )
        assert adapter.request_counts == {"AlterUserScramCredentials": 2}  # alice names two mechanisms
    assert [r.key for r in results] == [alice, weak, gone]
    assert results[0].ok
    assert results[1].error_name == "UNACCEPTABLE_CREDENTIAL"
    assert results[2].error_name == "RESOURCE_NOT_FOUND"
    assert all("correct horse" not in repr(r) for r in results)

    def described() -> dict[str, Any]:
        with kafka_single.admin_session() as admin:
            found: dict[str, Any] = admin.describe_user_scram_credentials()
        return {u: v for u, v in found.items() if u.startswith(topic_prefix)}

    creds = eventually(lambda: described() or None, what="SCRAM users")
    assert set(creds) == {alice}
    assert sorted((c["mechanism"].name, c["iterations"]) for c in creds[alice]["credential_infos"]) == [
        ("SCRAM_SHA_256", 8192),
        ("SCRAM_SHA_512", 4096),
    ]
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        (dropped,) = adapter.alter_scram_credentials(deletions=[ScramDeletion(alice, "SCRAM-SHA-512")])
    assert dropped.ok
    eventually(lambda: len(described().get(alice, {}).get("credential_infos", [])) == 1, what="one credential left")


def test_partition_reassignment_errors_are_per_partition(kafka_single: KafkaCluster, topic_prefix: str) -> None:
    name = f"{topic_prefix}moves"
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        adapter.create_topics([TopicSpec(name, partitions=2, replication_factor=1)])
        adapter.wait_topics_present([name])
        to_nowhere, cancel_nothing = adapter.alter_partition_reassignments({(name, 0): [42], (name, 1): None})
        assert adapter.list_partition_reassignments() == ()
    assert to_nowhere.key == f"{name}:0" and not to_nowhere.ok
    assert cancel_nothing.key == f"{name}:1" and cancel_nothing.error_name == "NO_REASSIGNMENT_IN_PROGRESS"


def test_empty_batches_send_nothing(kafka_single: KafkaCluster) -> None:
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        assert adapter.create_topics([]) == []
        assert adapter.delete_topics([]) == []
        assert adapter.create_acls([]) == []
        assert adapter.alter_client_quotas({}) == []
        assert adapter.alter_scram_credentials() == []
        assert adapter.alter_partition_reassignments({}) == []
        assert adapter.incremental_alter_configs({}) == []
        assert adapter.request_count == 0


def test_ip_quota_and_a_users_default_client_id(kafka_single: KafkaCluster, topic_prefix: str) -> None:
    ip = state.QuotaEntity.of(ip="127.0.0.9")  # an address no test connects from
    users_default = state.QuotaEntity.of(user=f"{topic_prefix}team", client_id=None)
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        results = adapter.alter_client_quotas(
            {ip: {"connection_creation_rate": 5.0}, users_default: {"producer_byte_rate": 4096.0}}
        )
        assert [r.ok for r in results] == [True, True], [r.describe() for r in results]
        assert users_default.address == f"quota/client-id=<default>,user={topic_prefix}team"

        def read() -> dict[state.QuotaEntity, dict[str, float]] | None:
            quotas = adapter.read_state(kinds=frozenset({Kind.QUOTA})).quotas or {}
            found = {e: dict(v) for e, v in quotas.items() if e in (ip, users_default)}
            return found if len(found) == 2 else None

        assert eventually(read, what="ip and default client-id quotas") == {
            ip: {"connection_creation_rate": 5.0},
            users_default: {"producer_byte_rate": 4096.0},
        }
        cleared = adapter.alter_client_quotas({ip: {"connection_creation_rate": None}})
        assert cleared[0].ok


def test_a_rejected_secret_value_is_masked_in_the_broker_message(kafka_single: KafkaCluster) -> None:
    secret = Secret("n0t-a-number-but-s3cret")
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        (result,) = adapter.incremental_alter_configs(
            {("BROKER", state.CLUSTER_DEFAULT): [ConfigOp.set("log.cleaner.backoff.ms", secret)]}, validate_only=True
        )
    assert result.key == "broker:<default>"
    assert result.error_name == "INVALID_REQUEST"
    assert "***" in (result.message or "")  # the broker quoted the value; it is masked
    assert "s3cret" not in repr(result)

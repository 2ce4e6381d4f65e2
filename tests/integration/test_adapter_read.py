"""Reading a real cluster: topics and configs, broker configs, quotas, SCRAM users, request counts, snapshots.

Facts are set up and checked with plain kafka-python (or a second adapter where kafka-python has no admin
call), so the adapter is never checked against itself alone.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, TypeVar

import pytest
from kafka.admin import ConfigResource, UserScramCredentialUpsertion

from reconciler.base import errors
from reconciler.connection.settings import ConnectionSettings
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import state
from reconciler.model.capabilities import API_SINCE, explain_unsupported, kind_unsupported
from reconciler.model.entities import ENTITY_KINDS
from reconciler.model.kinds import Kind
from reconciler.model.payloads import ConfigOp
from reconciler.snapshot import files
from tests.kafka.cluster import KafkaCluster
from tests.kafka.dist import selected_release
from tests.support.integration import closed_port
from tests.support.polling import eventually

# On every Kafka version: capability detection and each kind's read, per release.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]
ALL_KINDS = frozenset(Kind)
CLASSIC_KINDS = ALL_KINDS - frozenset(ENTITY_KINDS)  # the kinds every tested release (2.8 on) can manage
T = TypeVar("T")


def create_topics(cluster: KafkaCluster, topics: dict[str, dict[str, object]]) -> None:
    """Create topics with plain kafka-python and wait until they have leaders."""
    with cluster.admin_session() as admin:
        admin.create_topics(topics, wait_for_metadata=True)


def test_topics_with_replicas_ids_and_only_dynamic_configs(kafka_single: KafkaCluster, topic_prefix: str) -> None:
    orders, audit = f"{topic_prefix}orders", f"{topic_prefix}audit"
    create_topics(
        kafka_single,
        {
            orders: {"num_partitions": 3, "replication_factor": 1, "configs": {"retention.ms": "3600000"}},
            audit: {"num_partitions": 1, "replication_factor": 1, "configs": {"cleanup.policy": "compact"}},
        },
    )
    with kafka_single.admin_session() as admin:
        described = {t["name"]: t for t in admin.describe_topics([orders, audit])}

    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        live = adapter.read_state(kinds=frozenset({Kind.TOPIC}), topic_filter=lambda n: n.startswith(topic_prefix))
        assert adapter.request_counts == {"Metadata": 1, "DescribeConfigs": 1, "ListPartitionReassignments": 1}

    assert set(live.topics or {}) == {orders, audit}
    topic = (live.topics or {})[orders]
    assert topic.assignment == ((1,), (1,), (1,))
    assert topic.topic_id == str(described[orders]["topic_id"])
    assert topic.internal is False
    assert dict(topic.configs) == {"retention.ms": "3600000"}
    assert topic.defaults["cleanup.policy"] == "delete"
    assert topic.defaults["retention.ms"] == "604800000"  # what a reset of the override returns to
    assert "retention.ms" not in (live.topics or {})[audit].configs
    assert dict((live.topics or {})[audit].configs) == {"cleanup.policy": "compact"}
    assert live.brokers == (state.Broker(id=1, host="127.0.0.1", port=int(kafka_single.bootstrap.split(":")[1])),)
    assert live.cluster_id == kafka_single.cluster_id
    assert live.controller_id == 1
    assert live.cluster_configs["auto.create.topics.enable"] == "false"
    assert live.cluster_configs["min.insync.replicas"] == "1"
    # Sections not asked for are not read.
    assert live.acls is None and live.quotas is None and live.scram_users is None and live.broker_configs is None


def test_full_read_request_count_does_not_grow_with_topics(kafka_single: KafkaCluster, topic_prefix: str) -> None:
    def full_read_count() -> tuple[int, int, dict[str, int]]:
        with KafkaAdapter(kafka_single.connection_settings()) as adapter:
            live = adapter.read_state(kinds=CLASSIC_KINDS, topic_filter=lambda n: n.startswith(topic_prefix))
            return len(live.topics or {}), adapter.request_count, adapter.request_counts

    spec = {"num_partitions": 1, "replication_factor": 1, "configs": {"retention.ms": "86400000"}}
    create_topics(kafka_single, {f"{topic_prefix}{i:03d}": spec for i in range(5)})
    small_topics, small_count, small_by_api = full_read_count()
    create_topics(kafka_single, {f"{topic_prefix}{i:03d}": spec for i in range(5, 200)})
    large_topics, large_count, large_by_api = full_read_count()

    assert (small_topics, large_topics) == (5, 200)
    assert small_count == large_count == 6  # 5 + one DescribeConfigs per broker
    assert large_by_api == small_by_api
    assert all(n == 1 for n in large_by_api.values()), large_by_api


def test_dynamic_broker_configs_cluster_default_and_per_broker(kafka_single: KafkaCluster) -> None:
    key = "log.cleaner.backoff.ms"
    with KafkaAdapter(kafka_single.connection_settings()) as writer:
        results = writer.incremental_alter_configs(
            {
                ("BROKER", state.CLUSTER_DEFAULT): [ConfigOp.set(key, "16000")],
                ("BROKER", "1"): [ConfigOp.set(key, "17000")],
            }
        )
        assert [r.ok for r in results] == [True, True], [r.describe() for r in results]
    try:

        def described() -> dict[str, Any] | None:
            with kafka_single.admin_session() as admin:
                found = admin.describe_configs([ConfigResource("BROKER", "1")], include_synonyms=True)["broker"]["1"]
            entry: dict[str, Any] | None = found.get(key)
            return entry if entry is not None and entry["value"] == "17000" else None

        broker = eventually(described, what=f"{key}=17000 on broker 1")  # KRaft applies it asynchronously
        assert broker["config_source"] == "DYNAMIC_BROKER_CONFIG"
        assert [(s["value"], s["source"]) for s in broker["synonyms"]][:2] == [
            ("17000", "DYNAMIC_BROKER_CONFIG"),
            ("16000", "DYNAMIC_DEFAULT_BROKER_CONFIG"),
        ]

        with KafkaAdapter(kafka_single.connection_settings()) as adapter:
            live = adapter.read_state(kinds=frozenset({Kind.BROKER_CONFIG}))
        assert live.broker_configs is not None
        assert live.broker_configs[state.CLUSTER_DEFAULT][key] == "16000"
        assert live.broker_configs["1"] == {key: "17000"}  # only what is set on the broker itself
        assert live.topics is None
    finally:
        with KafkaAdapter(kafka_single.connection_settings()) as writer:
            writer.incremental_alter_configs(
                {
                    ("BROKER", state.CLUSTER_DEFAULT): [ConfigOp.delete(key)],
                    ("BROKER", "1"): [ConfigOp.delete(key)],
                }
            )


def test_quotas_and_scram_users_are_read(kafka_single: KafkaCluster, topic_prefix: str) -> None:
    user = f"{topic_prefix}svc"
    client = f"{topic_prefix}client"
    with kafka_single.admin_session() as admin:
        # Kafka accepts one alteration per user and request.
        for upsertion in (
            UserScramCredentialUpsertion(user, "SCRAM-SHA-256", "pw-one", iterations=8192),
            UserScramCredentialUpsertion(user, "SCRAM-SHA-512", "pw-two", iterations=4096),
        ):
            assert admin.alter_user_scram_credentials([upsertion]) == {user: None}
    with KafkaAdapter(kafka_single.connection_settings()) as writer:
        assert all(
            r.ok
            for r in writer.alter_client_quotas(
                {
                    state.QuotaEntity.of(user=user): {"producer_byte_rate": 1024.0},
                    state.QuotaEntity.of(user=user, client_id=client): {"consumer_byte_rate": 2048.0},
                }
            )
        )
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        live = adapter.read_state(kinds=frozenset({Kind.QUOTA, Kind.SCRAM_USER}))
        assert adapter.request_counts == {"Metadata": 1, "DescribeClientQuotas": 1, "DescribeUserScramCredentials": 1}
    assert live.quotas is not None and live.scram_users is not None
    assert live.quotas[state.QuotaEntity.of(user=user)] == {"producer_byte_rate": 1024.0}
    assert live.quotas[state.QuotaEntity.of(user=user, client_id=client)] == {"consumer_byte_rate": 2048.0}
    assert live.scram_users[user] == (
        state.ScramCredential("SCRAM-SHA-256", 8192),
        state.ScramCredential("SCRAM-SHA-512", 4096),
    )

    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        filtered = adapter.read_state(
            kinds=frozenset({Kind.QUOTA, Kind.SCRAM_USER}), principal_filter=lambda p: p != f"User:{user}"
        )
    assert user not in (filtered.scram_users or {})
    assert state.QuotaEntity.of(user=user) not in (filtered.quotas or {})


def test_acls_without_an_authorizer_are_reported_plainly(kafka_single: KafkaCluster) -> None:
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        live = adapter.read_state(kinds=frozenset({Kind.ACL}))
    assert live.acls is None
    assert "SECURITY_DISABLED" in live.unavailable[Kind.ACL]
    assert "no authorizer" in live.unavailable[Kind.ACL]


def test_snapshot_round_trip_of_a_real_read(kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path) -> None:
    create_topics(
        kafka_single,
        {f"{topic_prefix}snap": {"num_partitions": 2, "replication_factor": 1, "configs": {"segment.ms": "3600000"}}},
    )
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        live = adapter.read_state(kinds=ALL_KINDS)
    path = tmp_path / "snapshot.json"
    files.write_snapshot(live, path)
    again = files.read_snapshot(path)
    assert again == live
    assert files.to_json_dict(again) == files.to_json_dict(live)
    assert again.topics is not None and again.topics[f"{topic_prefix}snap"].configs == {"segment.ms": "3600000"}
    assert path.stat().st_mode & 0o077 == 0


def test_capabilities_and_missing_apis(kafka_single: KafkaCluster) -> None:
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        capabilities = adapter.capabilities()
        assert capabilities["CreateTopics"] >= 5  # KIP-525: resolved configs in the CreateTopics answer
        assert capabilities["DescribeClientQuotas"] >= 0
        assert adapter.missing_apis(CLASSIC_KINDS) == []
        adapter.require(CLASSIC_KINDS)
        assert adapter.request_count == 0  # capabilities come from the connection handshake
        # Every admin API the tool may use is there on every tested release (2.8 is the oldest), but for the listing
        # of Kafka 4's config entities (group configs: 4.1, client-metrics subscriptions: 4.0, or 3.7 in KRaft mode);
        # the refusal itself is tested on plain data too (tests/unit/test_planner_unsupported.py).
        kafka_4 = selected_release() >= (4, 1, 0)
        assert sorted(set(API_SINCE) - capabilities.keys()) == ([] if kafka_4 else ["ListConfigResources"])
        refused = [k for k in sorted(ALL_KINDS) if kind_unsupported(k, capabilities)]
        assert refused == ([] if kafka_4 else [Kind.CLIENT_METRICS, Kind.GROUP_CONFIG])
        assert adapter.missing_apis(ALL_KINDS) == (
            [] if kafka_4 else ["cluster does not support ListConfigResources (needs Kafka 4.0+)"]
        )
        live = adapter.read_state(kinds=ALL_KINDS)
        assert live.capabilities == capabilities
        # Only the ACLs are not read for another reason than the version: this node runs without an authorizer.
        assert sorted(live.unavailable) == sorted([Kind.ACL, *refused])
        assert "no authorizer configured" in live.unavailable[Kind.ACL]


def test_missing_apis_are_explained_with_the_kafka_release_that_added_them() -> None:
    old_cluster = {"Metadata": 9, "DescribeConfigs": 2, "CreateTopics": 4}  # what a Kafka 2.5 broker lacks
    assert explain_unsupported("DescribeClientQuotas", old_cluster) == (
        "cluster does not support DescribeClientQuotas (needs Kafka 2.6+)"
    )
    assert explain_unsupported("CreateTopics", old_cluster) is None


def test_unreachable_cluster_fails_plainly_without_leaking_threads() -> None:
    threads_before = threading.active_count()
    settings = ConnectionSettings(bootstrap_servers=(f"127.0.0.1:{closed_port()}",), request_timeout_ms=1500)
    adapter = KafkaAdapter(settings)  # lazy: constructing does not connect
    started = time.monotonic()
    with pytest.raises(errors.ConnectionFailed) as info:
        adapter.read_state(kinds=ALL_KINDS)
    assert time.monotonic() - started < 15
    address = settings.bootstrap_servers[0]
    assert str(info.value) == (
        f"cannot connect to Kafka at {address} (PLAINTEXT): {address}: connection refused "
        "(is a broker listening on that port?)"
    )
    assert info.value.__cause__ is None and info.value.__suppress_context__
    adapter.close()
    eventually(
        lambda: threading.active_count() <= threads_before, what="the client's threads to end", timeout=5, interval=0.1
    )

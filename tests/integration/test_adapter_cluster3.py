"""The adapter on three brokers in two racks: racks, per-broker configs, controller routing, reassignments."""

from __future__ import annotations

from typing import Any

import pytest
from kafka.admin import ConfigResource

from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import TopicSpec
from reconciler.model import state
from reconciler.model.entities import ENTITY_KINDS
from reconciler.model.kinds import Kind
from reconciler.model.payloads import ConfigOp
from tests.kafka.cluster import KafkaCluster
from tests.support.polling import eventually

# On every Kafka version: controller routing and reassignment differ between KRaft and ZooKeeper mode.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]


def test_full_read_of_three_brokers(kafka_cluster3: KafkaCluster, topic_prefix: str) -> None:
    kafka_cluster3.ensure_running()
    name = f"{topic_prefix}replicated"
    with KafkaAdapter(kafka_cluster3.connection_settings()) as adapter:
        (created,) = adapter.create_topics([TopicSpec(name, partitions=3, replication_factor=3)])
        assert created.ok, created.describe()
        assert adapter.wait_topics_present([name]) == frozenset()
        adapter.reset_request_count()
        live = adapter.read_state(
            kinds=frozenset(Kind) - frozenset(ENTITY_KINDS), topic_filter=lambda n: n.startswith(topic_prefix)
        )
        # Metadata, one DescribeConfigs per broker, DescribeAcls, quotas, SCRAM, reassignments.
        assert adapter.request_count == 5 + 3
        assert adapter.request_counts["DescribeConfigs"] == 3

    assert [(b.id, b.rack) for b in live.brokers] == [(1, "r1"), (2, "r1"), (3, "r2")]
    assert live.controller_id in {1, 2, 3}
    topic = (live.topics or {})[name]
    assert topic.partitions == 3 and topic.replication_factor == 3
    assert all(sorted(replicas) == [1, 2, 3] for replicas in topic.assignment)
    assert live.broker_configs is not None and set(live.broker_configs) == {state.CLUSTER_DEFAULT, "1", "2", "3"}
    assert live.acls is None and "SECURITY_DISABLED" in live.unavailable[Kind.ACL]


def test_per_broker_config_goes_to_that_broker(kafka_cluster3: KafkaCluster) -> None:
    kafka_cluster3.ensure_running()
    key = "log.cleaner.backoff.ms"
    with KafkaAdapter(kafka_cluster3.connection_settings()) as adapter:
        results = adapter.incremental_alter_configs(
            {("BROKER", "2"): [ConfigOp.set(key, "21000")], ("BROKER", "3"): [ConfigOp.set(key, "soon")]}
        )
    try:
        assert [r.key for r in results] == ["broker:2", "broker:3"]
        assert results[0].ok, results[0].describe()
        assert results[1].error_name == "INVALID_REQUEST" and "soon" in (results[1].message or "")

        def on_broker_2() -> dict[str, Any] | None:
            with kafka_cluster3.admin_session() as admin:
                found = admin.describe_configs([ConfigResource("BROKER", "2")])["broker"]["2"]
            return dict(found[key]) if found.get(key, {}).get("value") == "21000" else None

        entry = eventually(on_broker_2, what=f"{key}=21000 on broker 2")
        assert entry["value"] == "21000" and entry["config_source"] == "DYNAMIC_BROKER_CONFIG"

        with KafkaAdapter(kafka_cluster3.connection_settings()) as adapter:
            live = adapter.read_state(kinds=frozenset({Kind.BROKER_CONFIG}))
        assert live.broker_configs is not None
        assert live.broker_configs["2"].get(key) == "21000"
        assert key not in live.broker_configs["1"] and key not in live.broker_configs["3"]
    finally:
        with KafkaAdapter(kafka_cluster3.connection_settings()) as adapter:
            adapter.incremental_alter_configs({("BROKER", "2"): [ConfigOp.delete(key)]})


def test_reassignment_moves_replicas_and_is_listed_until_done(kafka_cluster3: KafkaCluster, topic_prefix: str) -> None:
    kafka_cluster3.ensure_running()
    name = f"{topic_prefix}moving"
    with KafkaAdapter(kafka_cluster3.connection_settings()) as adapter:
        adapter.create_topics([TopicSpec(name, assignment=((1, 2), (2, 3)))])
        assert adapter.wait_topics_present([name]) == frozenset()
        moved, bad = adapter.alter_partition_reassignments({(name, 0): [3, 1], (name, 1): [2, 7]})
        assert moved.ok, moved.describe()
        assert bad.key == f"{name}:1" and not bad.ok

        def moved_and_done() -> state.ClusterState | None:
            live = adapter.read_state(kinds=frozenset({Kind.TOPIC}), topic_filter=lambda n: n == name)
            if (live.topics or {})[name].assignment[0] == (3, 1) and not live.reassignments:
                return live
            assert all(r.topic == name and r.partition == 0 for r in live.reassignments)
            return None

        live = eventually(moved_and_done, what=f"{name}:0 moved to [3, 1] with no reassignment listed", timeout=30)
        assert (live.topics or {})[name].assignment == ((3, 1), (2, 3))
        assert live.reassignments == ()
        assert adapter.list_partition_reassignments() == ()

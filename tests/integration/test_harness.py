"""The Kafka test harness gives real, working clusters: PLAINTEXT, SASL with ACLs, and a 3-node rack-aware quorum."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from kafka import KafkaConsumer
from kafka.admin import ConfigResource, ConfigResourceType, UserScramCredentialUpsertion
from kafka.errors import KafkaError, TopicAuthorizationFailedError

from tests.kafka.cluster import KafkaCluster
from tests.support.integration import produce_records
from tests.support.polling import eventually

# On every Kafka version: the harness's clusters on each release and mode (ZooKeeper paths).
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]


def partitions_of(cluster: KafkaCluster, topic: str) -> list[dict[str, Any]]:
    """The topic's partitions as a fresh connection sees them (brokers learn of new topics asynchronously)."""

    def describe() -> dict[str, Any] | None:
        with cluster.admin_session() as admin:
            (described,) = admin.describe_topics([topic])
        return described if described["error_code"] == 0 and described["partitions"] else None

    described = eventually(describe, timeout=20, what=f"topic {topic} in the metadata", retry_on=(KafkaError,))
    return sorted(described["partitions"], key=lambda p: p["partition_index"])


def consume_all(cluster: KafkaCluster, topic: str, *, expected: int) -> list[bytes]:
    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=cluster.bootstrap,
        group_id=None,
        auto_offset_reset="earliest",
        consumer_timeout_ms=20000,
        **cluster.client_kwargs(),
    )
    values: list[bytes] = []
    try:
        for record in consumer:
            values.append(record.value)
            if len(values) >= expected:
                break
    finally:
        consumer.close()
    return values


def test_single_node_topic_created_on_one_connection_is_seen_from_another(
    kafka_single: KafkaCluster, topic_prefix: str
) -> None:
    topic = f"{topic_prefix}orders"
    with kafka_single.admin_session() as creator:
        creator.create_topics({topic: {"num_partitions": 3, "replication_factor": 1}}, wait_for_metadata=True)

    with kafka_single.admin_session() as reader:
        assert topic in reader.list_topics()
        (described,) = reader.describe_topics([topic])
    assert len(described["partitions"]) == 3
    assert {p["leader_id"] for p in described["partitions"]} == {1}


def test_sasl_node_denies_a_user_without_acls_and_allows_admin(kafka_sasl: KafkaCluster, topic_prefix: str) -> None:
    topic = f"{topic_prefix}payments"
    with kafka_sasl.admin_session("alice") as alice, pytest.raises(TopicAuthorizationFailedError):
        alice.create_topics({topic: {"num_partitions": 1, "replication_factor": 1}})

    with kafka_sasl.admin_session() as admin:
        admin.create_topics({topic: {"num_partitions": 1, "replication_factor": 1}}, wait_for_metadata=True)
        assert topic in admin.list_topics()
        configs = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])
    assert topic in str(configs)

    with kafka_sasl.admin_session("alice") as alice:
        assert topic not in alice.list_topics()


def test_sasl_node_rejects_a_wrong_password(kafka_sasl: KafkaCluster) -> None:
    bob = kafka_sasl.client_kwargs("bob")
    kafka_sasl.admin_client(**bob, bootstrap_timeout_ms=5000).close()  # bob's own password is accepted
    with pytest.raises(KafkaError):
        kafka_sasl.admin_client(**{**bob, "sasl_plain_password": "not-bobs-password"}, bootstrap_timeout_ms=5000)


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_sasl_node_accepts_a_scram_user_created_by_admin(
    kafka_sasl: KafkaCluster, topic_prefix: str, mechanism: str
) -> None:
    user, password = f"{topic_prefix}scram", secrets.token_urlsafe(12)
    with kafka_sasl.admin_session() as admin:
        errors = admin.alter_user_scram_credentials([UserScramCredentialUpsertion(user, mechanism, password)])
    assert errors == {user: None}

    def scram_login_works() -> bool:
        client = kafka_sasl.admin_client(**kafka_sasl.client_kwargs(user, mechanism=mechanism, password=password))
        try:
            return isinstance(client.list_topics(), list)
        finally:
            client.close()

    assert eventually(scram_login_works, timeout=20, what=f"{mechanism} login of {user}", retry_on=(KafkaError,))


def test_three_node_cluster_spreads_replicas_across_both_racks(kafka_cluster3: KafkaCluster, topic_prefix: str) -> None:
    topic = f"{topic_prefix}replicated"

    def broker_racks() -> dict[int, str] | None:
        racks = {b["broker_id"]: b["rack"] for b in kafka_cluster3.describe()["brokers"]}
        return racks if len(racks) == 3 else None

    racks = eventually(
        broker_racks, timeout=30, what="all three brokers in the cluster description", retry_on=(KafkaError,)
    )
    assert sorted(racks.values()) == ["r1", "r1", "r2"]
    with kafka_cluster3.admin_session() as admin:
        admin.create_topics({topic: {"num_partitions": 2, "replication_factor": 3}}, wait_for_metadata=True)

    for partition in partitions_of(kafka_cluster3, topic):
        assert sorted(partition["replica_nodes"]) == [1, 2, 3]
        assert {racks[r] for r in partition["replica_nodes"]} == {"r1", "r2"}


def test_three_node_cluster_survives_a_killed_node_which_then_rejoins(
    kafka_cluster3: KafkaCluster, topic_prefix: str
) -> None:
    topic = f"{topic_prefix}failover"
    values = [f"message-{i}".encode() for i in range(30)]
    with kafka_cluster3.admin_session() as admin:
        admin.create_topics({topic: {"num_partitions": 3, "replication_factor": 3}}, wait_for_metadata=True)
    controller = kafka_cluster3.describe()["controller_id"]
    produce_records(kafka_cluster3, topic, values)

    victim = next(node for node in kafka_cluster3.nodes if node.node_id == controller)
    survivors = {1, 2, 3} - {victim.node_id}
    try:
        victim.kill()
        assert not victim.running
        eventually(
            lambda: kafka_cluster3.live_brokers() == survivors,
            what=f"broker {victim.node_id} to be fenced",
            timeout=60,
            retry_on=(KafkaError,),
        )
        eventually(
            lambda: all(p["leader_id"] in survivors for p in partitions_of(kafka_cluster3, topic)),
            what="new partition leaders on the surviving brokers",
            timeout=60,
            retry_on=(KafkaError,),
        )
        assert sorted(consume_all(kafka_cluster3, topic, expected=len(values))) == sorted(values)

        victim.start()
        assert kafka_cluster3.live_brokers() == {1, 2, 3}
        eventually(
            lambda: all(sorted(p["isr_nodes"]) == [1, 2, 3] for p in partitions_of(kafka_cluster3, topic)),
            what=f"broker {victim.node_id} back in every in-sync replica set",
            timeout=60,
            retry_on=(KafkaError,),
        )
    finally:
        kafka_cluster3.ensure_running()


def test_three_node_cluster_node_stops_gracefully_and_restarts(kafka_cluster3: KafkaCluster) -> None:
    node = kafka_cluster3.nodes[2]
    try:
        node.stop()
        assert not node.running
        eventually(
            lambda: kafka_cluster3.live_brokers() == {1, 2},
            what="broker 3 to leave the cluster",
            timeout=60,
            retry_on=(KafkaError,),
        )
        node.start()
        assert kafka_cluster3.live_brokers() == {1, 2, 3}
    finally:
        kafka_cluster3.ensure_running()

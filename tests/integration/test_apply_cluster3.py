"""Replication-factor changes on a real 3-node, two-rack cluster: reassignment runs to completion."""

from __future__ import annotations

import pytest
from kafka.admin import NewTopic

from reconciler import planner
from reconciler.apply import ApplyEvent, ApplyOptions, EventKind, Outcome, apply_plan
from reconciler.connection.settings import DEFAULT_REQUEST_TIMEOUT_MS
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import desired, plans
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.support.polling import eventually

pytestmark = pytest.mark.kafka


def replicas(cluster: KafkaCluster, topic: str) -> list[list[int]]:
    with cluster.admin_session() as admin:
        (described,) = admin.describe_topics([topic])
    return [p["replica_nodes"] for p in sorted(described["partitions"], key=lambda p: p["partition_index"])]


def racks(cluster: KafkaCluster) -> dict[int, str]:
    with KafkaAdapter(cluster.connection_settings(request_timeout_ms=DEFAULT_REQUEST_TIMEOUT_MS)) as adapter:
        live = adapter.read_state(kinds=frozenset())
    return {b.id: str(b.rack) for b in live.brokers}


@pytest.mark.parametrize("throttle", [None, 10_000_000])
def test_replication_factor_one_to_three_completes_across_both_racks(
    kafka_cluster3: KafkaCluster, topic_prefix: str, throttle: int | None
) -> None:
    topic = f"{topic_prefix}grow"
    with kafka_cluster3.admin_session() as admin:
        admin.create_topics([NewTopic(topic, 4, 1)], wait_for_metadata=True)
    wanted = desired.DesiredState(topics={topic: desired.DesiredTopic(topic, 4, 3)})
    events: list[ApplyEvent] = []
    with KafkaAdapter(kafka_cluster3.connection_settings(request_timeout_ms=DEFAULT_REQUEST_TIMEOUT_MS)) as adapter:
        # The broker the adapter reads from learns of the new topic from the metadata log a moment later.
        def reassign_plan() -> plans.Plan | None:
            p = planner.plan(wanted, adapter.read_state(kinds=frozenset({Kind.TOPIC})))
            return p if [c.phase for c in p.actionable] == [plans.Phase.REASSIGN] else None

        p = eventually(reassign_plan, what="a plan that only reassigns the new topic")
        report = apply_plan(
            p, adapter, options=ApplyOptions(deadline_s=120, replication_throttle=throttle), events=events.append
        )
        assert report.exit_code == 0, report.to_json()
        assert report.items[0].outcome is Outcome.APPLIED and report.still_moving == ()
        assert report.phases[0].requests_by_api.get("AlterPartitionReassignments") == 1
        again = planner.plan(wanted, adapter.read_state(kinds=frozenset({Kind.TOPIC})))
        assert again.actionable == ()
        if throttle:
            topic_configs = (adapter.read_state(kinds=frozenset({Kind.TOPIC})).topics or {})[topic].configs
            assert not any("throttled" in k for k in topic_configs)  # removed after the move
    by_rack = racks(kafka_cluster3)
    for partition in replicas(kafka_cluster3, topic):
        assert sorted(partition) == [1, 2, 3]
        assert len({by_rack[b] for b in partition}) == 2
    assert any(e.kind is EventKind.PHASE_FINISHED and e.phase is plans.Phase.REASSIGN for e in events)

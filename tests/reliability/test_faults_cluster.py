"""Brokers killed in the middle of an apply of 300 topics on the 3-node cluster: the report tells the truth,
a re-run converges, nothing is lost or duplicated."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from kafka.admin import NewTopic
from kafka.errors import KafkaError

from reconciler.apply import ApplyEvent, ApplyOptions, EventKind, Outcome, apply_plan
from reconciler.apply.apply_report import ApplyReport
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import desired, plans
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.kafka.node import KafkaNode
from tests.support.integration import kraft_only
from tests.support.live import plan_now, settings, topic_configs, topics_state
from tests.support.polling import eventually

EXISTING = 60
NEW = 240
OLD_RETENTION = "3600000"
NEW_RETENTION = "7200000"


# A broker killed in ZooKeeper mode keeps its session (and its ephemeral broker znode) until the session times
# out, so restarting it at once fails with NodeExists; the kill tests below need KRaft's fencing.
ZK_KILL = "a killed ZooKeeper-mode broker cannot rejoin until its ZooKeeper session expires"


def wanted_state(prefix: str) -> desired.DesiredState:
    """60 existing topics grow to 2 partitions and get a config; 240 new topics with a config (300 topics)."""
    topics = {
        f"{prefix}e{i:03d}": desired.DesiredTopic(f"{prefix}e{i:03d}", 2, 2, {"retention.ms": OLD_RETENTION})
        for i in range(EXISTING)
    }
    topics |= {
        f"{prefix}n{i:03d}": desired.DesiredTopic(f"{prefix}n{i:03d}", 1, 2, {"retention.ms": NEW_RETENTION})
        for i in range(NEW)
    }
    return desired.DesiredState(
        topics=topics, ownership=desired.Ownership(topics=(desired.NamePattern("prefix", prefix),))
    )


def quorum_leader(cluster: KafkaCluster) -> int:
    with cluster.admin_session() as admin:
        quorum = admin.describe_metadata_quorum()
    return int(quorum["topics"][0]["partitions"][0]["leader_id"])


def pick_victim(cluster: KafkaCluster, *, controller: bool, routed_to: int | None) -> KafkaNode:
    """The active KRaft controller, or a node that is not it (preferably the one the tool's requests go to)."""
    leader = quorum_leader(cluster)
    if controller:
        return next(n for n in cluster.nodes if n.node_id == leader)
    others = [n for n in cluster.nodes if n.node_id != leader]
    return next((n for n in others if n.node_id == routed_to), others[0])


def assert_report_is_true(cluster: KafkaCluster, report: ApplyReport, wanted: desired.DesiredState) -> None:
    """Every item the report calls applied is on the cluster, as plain kafka-python sees it.

    Brokers learn of new topics, partitions and configs from the metadata log a moment after the controller
    accepted them, so the check polls for a while before calling the report wrong.
    """
    applied = [i for i in report.items if i.outcome is Outcome.APPLIED]
    prefix = next(iter(wanted.topics))[:9]
    shaped = {i.name for i in applied if i.phase in (plans.Phase.TOPIC_CREATE, plans.Phase.PARTITIONS)}
    configured = {i.name for i in applied if i.phase in (plans.Phase.TOPIC_CREATE, plans.Phase.TOPIC_CONFIG)}

    def shapes_there() -> bool:
        on_cluster = topics_state(cluster, prefix)
        return all(on_cluster.get(n) == wanted.topics[n].partitions for n in shaped)

    def configs_there() -> bool:
        found = topic_configs(cluster, configured)
        return all(found[n].get("retention.ms") == wanted.topics[n].configs["retention.ms"] for n in configured)

    eventually(
        shapes_there, what="every topic and partition count reported applied", timeout=30, retry_on=(KafkaError,)
    )
    eventually(configs_there, what="every config reported applied", timeout=30, retry_on=(KafkaError,))


@pytest.mark.slow
@kraft_only(f"the victim is chosen by the metadata quorum's leader (DescribeQuorum); {ZK_KILL}")
@pytest.mark.parametrize("victim_kind", ["broker", "controller"])
def test_node_killed_mid_apply(kafka_cluster3: KafkaCluster, topic_prefix: str, victim_kind: str) -> None:
    wanted = wanted_state(topic_prefix)
    with kafka_cluster3.admin_session() as admin:
        admin.create_topics(
            [NewTopic(n, 1, 2, topic_configs={"retention.ms": "60000"}) for n in wanted.topics if "e" in n[9:10]]
        )
    eventually(
        lambda: len(topics_state(kafka_cluster3, topic_prefix)) == EXISTING,
        what="the existing topics",
        retry_on=(KafkaError,),
    )

    killed = threading.Event()
    expected = {
        plans.Phase.TOPIC_CREATE: NEW,
        plans.Phase.PARTITIONS: EXISTING,
        plans.Phase.TOPIC_CONFIG: EXISTING,
    }
    with KafkaAdapter(settings(kafka_cluster3, request_timeout_ms=10_000)) as adapter:
        # The broker the adapter reads from may learn of the 60 new topics a moment after the one asked above.
        seen: list[plans.Plan] = []

        def planned_as_expected() -> bool:
            seen.append(plan_now(adapter, wanted))
            return Counter(c.phase for c in seen[-1].actionable) == expected

        eventually(planned_as_expected, what="a plan with the expected phases", retry_on=(KafkaError,))
        p = seen[-1]
        victim = pick_victim(
            kafka_cluster3, controller=victim_kind == "controller", routed_to=adapter._wire.controller_id
        )

        def kill_once_started(event: ApplyEvent) -> None:
            if event.kind is EventKind.PHASE_STARTED and not killed.is_set():
                killed.set()
                if victim_kind == "broker":
                    victim.kill()  # before the first write request leaves: it goes to a dead broker
                else:
                    threading.Timer(0.05, victim.kill).start()  # while the first write is in flight

        report = apply_plan(p, adapter, options=ApplyOptions(deadline_s=120), events=kill_once_started)
    assert killed.is_set() and not victim.running
    counts = report.counts()
    print(f"\n{victim_kind} node {victim.node_id} killed: {counts}, converged={report.converged}")
    print("not converged:", report.not_converged, "notes:", report.notes)
    assert len(report.items) == NEW + 2 * EXISTING  # one outcome per change, none lost from the report
    assert_report_is_true(kafka_cluster3, report, wanted)

    victim.start()
    with KafkaAdapter(settings(kafka_cluster3)) as adapter:
        again = plan_now(adapter, wanted)
        remaining = len(again.actionable)
        if again.actionable:
            rerun = apply_plan(again, adapter, options=ApplyOptions(deadline_s=120))
            assert rerun.exit_code == 0, rerun.to_json()
        final = plan_now(adapter, wanted)
    print(f"re-run had {remaining} change(s) left; plan after the re-run: {final.summary().line()}")
    assert final.actionable == ()

    on_cluster = topics_state(kafka_cluster3, topic_prefix)
    assert on_cluster == {n: t.partitions for n, t in wanted.topics.items()}  # nothing lost, nothing extra
    found = topic_configs(kafka_cluster3, wanted.topics)
    assert {n: c.get("retention.ms") for n, c in found.items()} == {
        n: t.configs["retention.ms"] for n, t in wanted.topics.items()
    }


@kraft_only(
    "in ZooKeeper mode only the controller answers ListPartitionReassignments (NOT_CONTROLLER elsewhere) and none "
    f"is elected until the killed one's session expires; {ZK_KILL}"
)
def test_reads_go_around_a_broker_that_just_died(kafka_cluster3: KafkaCluster, topic_prefix: str) -> None:
    """Regression: a killed broker stays in Metadata until it is fenced; reads routed to it used to fail the
    whole read (and so the apply's read-back, which then reported "not converged" for a converged cluster)."""
    topic = f"{topic_prefix}alive"
    with kafka_cluster3.admin_session() as admin:
        admin.create_topics([NewTopic(topic, 1, 3, topic_configs={"retention.ms": OLD_RETENTION})])
    with KafkaAdapter(settings(kafka_cluster3, request_timeout_ms=5_000)) as adapter:
        eventually(
            lambda: topic in (adapter.read_state(kinds=frozenset({Kind.TOPIC})).topics or {}),
            what=f"{topic} in the adapter's read",
            retry_on=(KafkaError,),
        )
        victim = kafka_cluster3.nodes[0]
        victim.kill()
        # Point the adapter at the dead broker, as a Metadata answer given just before the kill would; the
        # client's own metadata still lists it, so the fallback must not pick it again.
        adapter._wire.controller_id = victim.node_id
        adapter._wire.home = victim.node_id
        live = adapter.read_state(kinds=frozenset({Kind.TOPIC}), topic_filter=lambda n: n == topic)
        assert (live.topics or {})[topic].configs["retention.ms"] == OLD_RETENTION
        adapter._wire.controller_id = victim.node_id
        assert adapter.list_partition_reassignments() == ()

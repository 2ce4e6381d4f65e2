"""A ZooKeeper-mode controller that moves as the create phase starts: NOT_CONTROLLER is followed to the new one.

A real 3-node Kafka 3.9.2 cluster in ZooKeeper mode is started here (whatever ``KAFKA_MODE`` says), so the suite
checks this on every run. Deleting the ``/controller`` znode makes the controller resign and the brokers elect one
again (the same broker may win: the znode is deleted again until another does). The tool still holds the old
controller's id from its first read, so its CreateTopics goes to a broker that is no longer the controller and is
answered NOT_CONTROLLER for every topic; the apply must look the controller up again, send the request there, and
report each topic as the cluster holds it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kafka.errors import KafkaError

from reconciler.apply import ApplyEvent, ApplyOptions, EventKind, Outcome, apply_plan
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import desired, plans
from tests.kafka.cluster import KafkaCluster
from tests.kafka.kinds import three_node_cluster
from tests.support.live import plan_now, settings, topics_state
from tests.support.polling import eventually

pytestmark = [pytest.mark.kafka, pytest.mark.slow]
VERSION = "3.9.2"
ELECTIONS = 6  # deletions of /controller tried until a broker other than the old controller wins


@pytest.fixture(scope="module")
def zk_cluster() -> Iterator[KafkaCluster]:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("KAFKA_MODE", "zookeeper")
        cluster = three_node_cluster(version=VERSION)
        try:
            assert cluster.zookeeper is not None
            yield cluster
        finally:
            cluster.close()


def controller_of(cluster: KafkaCluster) -> int | None:
    found = cluster.describe()["controller_id"]
    return None if found is None else int(found)


def move_controller(cluster: KafkaCluster, old: int) -> int:
    """Delete ``/controller`` until a broker other than ``old`` is elected; returns the new controller's id."""
    assert cluster.zookeeper is not None
    for _ in range(ELECTIONS):
        cluster.zookeeper.delete("/controller")
        new = eventually(
            lambda: controller_of(cluster), what="a controller elected again", timeout=60, retry_on=(KafkaError,)
        )
        if new != old:
            return new
    pytest.fail(f"broker {old} won all {ELECTIONS} elections")


def test_create_topics_follows_a_zookeeper_controller_move(zk_cluster: KafkaCluster, topic_prefix: str) -> None:
    names = [f"{topic_prefix}moved-{i:02d}" for i in range(60)]
    wanted = desired.DesiredState(
        topics={n: desired.DesiredTopic(n, 3, 3, {"retention.ms": "3600000"}) for n in names},
        ownership=desired.Ownership(topics=(desired.NamePattern("prefix", topic_prefix),)),
    )
    moves: list[tuple[int, int]] = []
    answers: list[tuple[int | None, list[int]]] = []
    with KafkaAdapter(settings(zk_cluster, request_timeout_ms=30_000)) as adapter:
        wire = adapter._wire
        plain = wire._send

        def send(request: Any, *, node: int | None, timeout_ms: int | None) -> Any:
            response = plain(request, node=node, timeout_ms=timeout_ms)
            if type(request).__name__ == "CreateTopicsRequest":
                answers.append((node, sorted({int(t.error_code) for t in response.topics})))
            return response

        wire._send = send  # type: ignore[method-assign]

        def move_as_the_create_phase_starts(event: ApplyEvent) -> None:
            if event.kind is EventKind.PHASE_STARTED and event.phase is plans.Phase.TOPIC_CREATE:
                old = wire.controller_id
                assert old is not None, "the tool has read the controller before its first write"
                moves.append((old, move_controller(zk_cluster, old)))

        p = plan_now(adapter, wanted)
        report = apply_plan(p, adapter, options=ApplyOptions(deadline_s=180), events=move_as_the_create_phase_starts)
    print(f"\ncontroller moves {moves}; CreateTopics answers (broker, error codes): {answers}; {report.counts()}")
    [(old, new)] = moves
    assert answers[0] == (old, [41]), "the first CreateTopics went to the old controller and was refused"
    assert answers[-1] == (new, [0]), "then to the new controller, which created every topic"
    assert [i.outcome for i in report.items] == [Outcome.APPLIED] * len(names)
    assert report.converged is True and report.exit_code == 0, report.to_json()
    assert topics_state(zk_cluster, topic_prefix) == dict.fromkeys(names, 3)

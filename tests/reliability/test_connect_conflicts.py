"""Kafka Connect answering ``409 Conflict`` (a rebalance in progress) to writes, in front of a real worker.

A worker answers 409 to a write while its group rebalances; the apply retries such a write with a short back-off
within its deadline. The 409s here come from a relay between the apply and the harness's real worker
(``tests.support.http_conflict``) that answers the first writes itself, as a rebalancing worker does, and forwards
everything else: the writes retried after them reach the real worker, which carries them out. Two cases: 409 for a
while (retried, applied, exit 0, well inside the deadline) and 409 until the deadline (the apply ends at its
deadline, every write reported failed with Connect's answer, nothing claimed applied, exit 3).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.apply import ApplyOptions, apply_plan, stopping
from reconciler.apply.apply_report import ApplyReport, Outcome
from reconciler.connect.http import ConnectClient
from reconciler.connect.port import RestConnectPort
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kinds.connector import evidence
from reconciler.model import desired as d
from reconciler.model import plans
from reconciler.model import state as s
from reconciler.planner import plan
from tests.kafka.cluster import KafkaCluster
from tests.kafka.connect import FILE_SINK, ConnectWorker
from tests.support.http_conflict import MESSAGE, ConflictingRelay
from tests.support.polling import eventually

pytestmark = pytest.mark.kafka
SLACK_S = 20.0  # a loaded 2-core machine


@pytest.fixture(scope="module")
def connect_worker(private_connect_worker: ConnectWorker) -> ConnectWorker:
    """A worker of this module's own, not the session's: the 8 s deadline case ended with "the deadline passed
    before Kafka Connect answered" instead of Connect's 409 (twice, at load 15) when the session's worker also held
    tests/integration/test_connectors.py's connectors, and passed on a worker of its own."""
    return private_connect_worker


@pytest.fixture
def relay(connect_worker: ConnectWorker) -> Iterator[ConflictingRelay]:
    found = ConflictingRelay(("127.0.0.1", connect_worker.port))
    try:
        yield found
    finally:
        found.close()


def sinks(prefix: str, tmp_path: Path, count: int) -> d.DesiredState:
    return d.DesiredState(
        connectors={
            f"{prefix}{i}": d.DesiredConnector(
                f"{prefix}{i}",
                {
                    "connector.class": FILE_SINK,
                    "tasks.max": "1",
                    "topics": f"{prefix}t",
                    "file": str(tmp_path / f"{i}"),
                },
            )
            for i in range(count)
        }
    )


def plan_from(worker: ConnectWorker, cluster: KafkaCluster, wanted: d.DesiredState) -> plans.Plan:
    """The plan, read from the worker itself (the validate requests are writes the relay would refuse)."""
    with KafkaAdapter(cluster.connection_settings()) as adapter:
        live = adapter.read_state(kinds=frozenset())
    port = RestConnectPort(ConnectClient([worker.url]))
    connect = evidence.read_for_plan(port, wanted, deadline=time.monotonic() + 60)
    return plan(wanted, s.ClusterState(cluster_id=live.cluster_id, controller_id=None, brokers=(), connect=connect))


def apply_through(
    relay: ConflictingRelay, cluster: KafkaCluster, p: plans.Plan, wanted: d.DesiredState, *, deadline_s: float
) -> tuple[ApplyReport, RestConnectPort, float]:
    port = RestConnectPort(ConnectClient([relay.url]))
    began = time.monotonic()
    with KafkaAdapter(cluster.connection_settings()) as adapter:
        report = apply_plan(
            p, adapter, options=ApplyOptions(deadline_s=deadline_s, ports={"connect": port}, desired=wanted)
        )
    return report, port, time.monotonic() - began


def held(worker: ConnectWorker, prefix: str) -> dict[str, dict[str, object]]:
    found = worker.rest("GET", "/connectors?expand=status")
    return {name: entry for name, entry in found.items() if name.startswith(prefix)}


def test_writes_answered_409_for_a_while_are_retried_and_applied_within_the_deadline(
    connect_worker: ConnectWorker,
    kafka_single: KafkaCluster,
    topic_prefix: str,
    tmp_path: Path,
    relay: ConflictingRelay,
) -> None:
    wanted = sinks(topic_prefix, tmp_path, 3)
    p = plan_from(connect_worker, kafka_single, wanted)
    assert [c.action for c in p.actionable] == [plans.Action.CREATE] * 3
    relay.conflicts = 5
    report, port, took = apply_through(relay, kafka_single, p, wanted, deadline_s=90)

    assert report.exit_code == 0, report.to_json()
    assert {i.name: i.outcome for i in report.items} == {n: Outcome.APPLIED for n in wanted.connectors}
    assert relay.answered == ["POST /connectors"] * 5  # every create met 409 at least once ...
    assert port.request_counts["POST /connectors"] == 3 + 5  # ... and was sent again until the worker took it
    assert took < 90, f"the apply took {took:.1f}s"
    found = held(connect_worker, topic_prefix)
    assert set(found) == set(wanted.connectors)
    assert {e["status"]["connector"]["state"] for e in found.values()} == {"RUNNING"}  # type: ignore[index]
    assert not plan_from(connect_worker, kafka_single, wanted).actionable


def test_writes_answered_409_until_the_deadline_fail_at_the_deadline_with_connects_answer(
    connect_worker: ConnectWorker,
    kafka_single: KafkaCluster,
    topic_prefix: str,
    tmp_path: Path,
    relay: ConflictingRelay,
) -> None:
    wanted = sinks(topic_prefix, tmp_path, 3)
    p = plan_from(connect_worker, kafka_single, wanted)
    relay.always = True
    deadline_s = 8.0
    report, _, took = apply_through(relay, kafka_single, p, wanted, deadline_s=deadline_s)

    assert report.exit_code == 3, report.to_json()
    items = {i.name: i for i in report.items}
    assert {n: i.outcome for n, i in items.items()} == {n: Outcome.FAILED for n in wanted.connectors}
    for item in items.values():
        assert "HTTP 409" in (item.message or "") and MESSAGE in (item.message or ""), item.message
    assert len(relay.answered) >= 2 * len(wanted.connectors), relay.answered  # each create was retried
    # Writes are retried until the part of the deadline kept for the read-back (``stopping``), not before.
    writes_s = deadline_s - stopping.reserve_s(deadline_s)
    assert writes_s - 1 <= took < deadline_s + SLACK_S, f"the apply took {took:.1f}s, deadline {deadline_s:.0f}s"
    assert held(connect_worker, topic_prefix) == {}  # nothing written, as the report says

    relay.always = False  # the rebalance is over: the same plan applies
    report, _, _ = apply_through(relay, kafka_single, p, wanted, deadline_s=90)
    assert report.exit_code == 0, report.to_json()
    eventually(lambda: set(held(connect_worker, topic_prefix)) == set(wanted.connectors) or None, what="created")

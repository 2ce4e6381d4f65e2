"""Kafka Connect under faults: a black-holed REST endpoint, a worker killed mid-apply, a second worker joining.

Each case must stay bounded by the command's deadline, report truthfully what happened (nothing claimed applied
that the worker does not hold), and converge when run again. The Connect cluster is the harness's real worker
(one per module, next to a real broker); the black hole is a local socket whose kernel accepts connections and
whose owner never answers. Durations are bound checks with slack, not timings.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.apply import ApplyOptions, apply_plan
from reconciler.apply.apply_report import ApplyReport, Outcome
from reconciler.base import errors
from reconciler.connect import evidence
from reconciler.connect.http import ConnectClient, ConnectError
from reconciler.connect.port import RestConnectPort
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import desired as d
from reconciler.model import plans
from reconciler.model import state as s
from reconciler.planner import plan
from tests.kafka.cluster import KafkaCluster
from tests.kafka.connect import FILE_SINK, ConnectWorker
from tests.support.polling import eventually

pytestmark = pytest.mark.kafka


@pytest.fixture
def black_hole() -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of a socket that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        yield f"http://127.0.0.1:{server.getsockname()[1]}"


def connectors(prefix: str, tmp_path: Path, count: int, **config: str) -> d.DesiredState:
    found = {
        f"{prefix}{i}": d.DesiredConnector(
            f"{prefix}{i}",
            {
                "connector.class": FILE_SINK,
                "tasks.max": "1",
                "topics": f"{prefix}t",
                "file": str(tmp_path / f"{i}.txt"),
                **config,
            },
        )
        for i in range(count)
    }
    return d.DesiredState(connectors=found)


def plan_with(port: RestConnectPort, cluster: KafkaCluster, wanted: d.DesiredState) -> plans.Plan:
    with KafkaAdapter(cluster.connection_settings()) as adapter:
        live = adapter.read_state(kinds=frozenset())
    connect = evidence.read_for_plan(port, wanted, deadline=time.monotonic() + 60)
    return plan(
        wanted,
        s.ClusterState(cluster_id=live.cluster_id, controller_id=live.controller_id, brokers=(), connect=connect),
    )


def apply_with(
    port: RestConnectPort, cluster: KafkaCluster, p: plans.Plan, wanted: d.DesiredState, deadline_s: float
) -> ApplyReport:
    with KafkaAdapter(cluster.connection_settings()) as adapter:
        return apply_plan(p, adapter, options=ApplyOptions(deadline_s=deadline_s, connect=port, desired=wanted))


def running(worker: ConnectWorker, names: list[str]) -> bool:
    found = worker.rest("GET", "/connectors?expand=status")
    return all(
        n in found
        and found[n]["status"]["connector"]["state"] == "RUNNING"
        and [t["state"] for t in found[n]["status"]["tasks"]] == ["RUNNING"]
        for n in names
    )


def test_a_black_holed_endpoint_ends_plan_and_apply_at_the_deadline_and_the_next_url_answers(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path, black_hole: str
) -> None:
    wanted = connectors(topic_prefix, tmp_path, 2)
    hole = RestConnectPort(ConnectClient([black_hole], request_timeout_s=2))
    began = time.monotonic()
    with pytest.raises(ConnectError) as failed:
        evidence.read_for_plan(hole, wanted, deadline=time.monotonic() + 3)
    assert time.monotonic() - began < 10
    assert "timed out" in str(failed.value) and black_hole in str(failed.value)

    good = RestConnectPort(ConnectClient([connect_worker.url]))
    p = plan_with(good, kafka_single, wanted)
    began = time.monotonic()
    with pytest.raises(errors.ReconcilerError):
        apply_with(hole, kafka_single, p, wanted, deadline_s=3)  # the read before the writes cannot be made
    assert time.monotonic() - began < 15
    assert not set(wanted.connectors) & set(connect_worker.rest("GET", "/connectors"))  # nothing was written

    both = RestConnectPort(ConnectClient([black_hole, connect_worker.url], request_timeout_s=2))
    report = apply_with(both, kafka_single, p, wanted, deadline_s=90)
    assert report.exit_code == 0, report.items
    assert running(connect_worker, list(wanted.connectors))


def test_a_worker_killed_mid_apply_is_reported_and_a_rerun_converges(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    wanted = connectors(topic_prefix, tmp_path, 24)
    port = RestConnectPort(ConnectClient([connect_worker.url], request_timeout_s=5))
    p = plan_with(port, kafka_single, wanted)
    result: list[ApplyReport | BaseException] = []

    def run() -> None:
        try:
            result.append(apply_with(port, kafka_single, p, wanted, deadline_s=20))
        except BaseException as exc:  # the report or the error, whichever the apply ends with
            result.append(exc)

    began = time.monotonic()
    thread = threading.Thread(target=run)
    thread.start()
    eventually(lambda: set(connect_worker.rest("GET", "/connectors")) & set(wanted.connectors), what="a first create")
    connect_worker.kill()
    thread.join(timeout=60)
    assert not thread.is_alive() and time.monotonic() - began < 60
    [outcome] = result
    if isinstance(outcome, ApplyReport):  # truthful: whatever it says applied, the worker had read back
        assert outcome.exit_code == 3
        assert any(i.outcome is Outcome.FAILED for i in outcome.items)
    else:
        assert isinstance(outcome, errors.ReconcilerError)

    connect_worker.start()
    port = RestConnectPort(ConnectClient([connect_worker.url]))
    again = plan_with(port, kafka_single, wanted)
    report = apply_with(port, kafka_single, again, wanted, deadline_s=120)
    assert report.exit_code == 0, report.items
    assert not plan_with(port, kafka_single, wanted).actionable
    eventually(lambda: running(connect_worker, list(wanted.connectors)), what="every connector running", timeout=60)


def test_a_second_worker_joining_during_apply_does_not_break_it(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    wanted = connectors(topic_prefix, tmp_path, 16)
    port = RestConnectPort(ConnectClient([connect_worker.url]))
    p = plan_with(port, kafka_single, wanted)
    second = ConnectWorker(
        bootstrap=kafka_single.bootstrap, workdir=tmp_path / "second", group_id=connect_worker.group_id
    )
    try:
        second.launch()  # joins the group while the apply runs: the group rebalances
        report = apply_with(port, kafka_single, p, wanted, deadline_s=120)
        assert report.exit_code == 0, report.items
        second.wait_ready(deadline=time.monotonic() + 90)
        eventually(lambda: running(connect_worker, list(wanted.connectors)), what="every connector running", timeout=60)
        assert not plan_with(port, kafka_single, wanted).actionable
    finally:
        second.close()

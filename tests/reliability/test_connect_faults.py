"""Kafka Connect under faults: a black-holed REST endpoint, a worker killed mid-apply, a second worker joining.

Each case must stay bounded by the command's deadline, report truthfully what happened (nothing claimed applied
that the worker does not hold), and converge when run again. The Connect cluster is the harness's real worker (one
of this module's own, next to a real broker); the black hole is a local socket whose kernel accepts connections and
whose owner never answers. Durations are bound checks with slack, not timings.

Through the command line too: ``plan --timeout`` and ``apply --timeout`` end at their bound on a black-holed
endpoint, and plans made and applied round after round while a worker joins the group are never refused as stale
(a connector between two assignments is UNASSIGNED for a while: its target state has not changed).
"""

from __future__ import annotations

import collections
import functools
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler import manifests, operations
from reconciler.apply import ApplyOptions, apply_plan
from reconciler.apply.apply_report import ApplyReport, Outcome
from reconciler.base import errors
from reconciler.connect import http as connect_http
from reconciler.connect import settings as connect_settings
from reconciler.connect.http import ConnectClient, ConnectError
from reconciler.connect.port import RestConnectPort
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kinds.connector import evidence
from reconciler.model import desired as d
from reconciler.model import plans
from reconciler.model import state as s
from reconciler.planner import plan
from tests.kafka.cluster import KafkaCluster
from tests.kafka.connect import FILE_SINK, FILE_SOURCE, ConnectWorker
from tests.support.black_hole import black_hole as silent_listener
from tests.support.connect_manifests import write_connect_manifests as write
from tests.support.http_drop import AnswerDropper
from tests.support.live import cli
from tests.support.polling import eventually

pytestmark = pytest.mark.kafka
BOUND_S = 3  # the command line's --timeout
SLACK_S = 20.0  # interpreter and import start-up of a CLI process on a loaded 2-core machine, and then some
APPLY_DEADLINE_S = 20.0


@pytest.fixture(scope="module")
def connect_worker(private_connect_worker: ConnectWorker) -> ConnectWorker:
    """A worker of this module's own, not the session's: these tests kill it, restart it and join others to it."""
    return private_connect_worker


@pytest.fixture
def black_hole() -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of a socket that accepts connections (the kernel's backlog) and never answers."""
    with silent_listener() as address:
        yield f"http://{address}"


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
        return apply_plan(
            p, adapter, options=ApplyOptions(deadline_s=deadline_s, ports={"connect": port}, desired=wanted)
        )


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
        assert any(i.outcome.is_problem for i in outcome.items)
    else:
        assert isinstance(outcome, errors.ReconcilerError)

    connect_worker.start()
    if isinstance(outcome, ApplyReport):
        applied = {i.name for i in outcome.items if i.outcome is Outcome.APPLIED}
        found = eventually(lambda: set(connect_worker.rest("GET", "/connectors")) or None, what="the connectors held")
        assert applied <= found, applied - found
        unsent = {i.name for i in outcome.items if i.outcome in (Outcome.FAILED, Outcome.NOT_SENT)}
        assert not unsent & found, unsent & found  # what was never sent (or read back absent) is not there
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


def sources(prefix: str, workdir: Path, count: int, *, batch: int = 100) -> str:
    """A topic and ``count`` running FileStream source connectors writing to it."""
    out = f"""\
---
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {{name: {prefix}lines}}
spec: {{partitions: 1, replicationFactor: 1}}
"""
    for i in range(count):
        out += f"""\
---
apiVersion: kafka-reconciler/v1
kind: Connector
metadata: {{name: {prefix}src-{i:02d}}}
spec:
  class: {FILE_SOURCE}
  tasksMax: 1
  state: running
  config: {{topic: {prefix}lines, file: "{workdir / f"in-{i:02d}.txt"}", batch.size: {batch}}}
"""
    return out


def plan_of(directory: Path) -> tuple[plans.Plan, manifests.LoadResult]:
    loaded = manifests.load([directory])
    target = operations.Target(profiles=loaded.profiles)
    return operations.compute_plan(loaded, target=target, request=operations.PlanRequest(), deadline_s=60), loaded


def port_of(loaded: manifests.LoadResult) -> RestConnectPort:
    profile = connect_settings.profile_for(cluster="test", profiles=loaded.profiles, explicit=False)
    assert profile is not None
    return connect_settings.port_for(profile)


def apply_manifests(
    cluster: KafkaCluster, loaded: manifests.LoadResult, p: plans.Plan, port: RestConnectPort
) -> ApplyReport:
    options = ApplyOptions(deadline_s=APPLY_DEADLINE_S, ports={"connect": port}, desired=loaded.desired)
    with KafkaAdapter(cluster.connection_settings()) as adapter:
        return apply_plan(p, adapter, options=options)


def held(worker: ConnectWorker, prefix: str) -> dict[str, Any]:
    """The worker's connectors of this test, config and status, read with plain HTTP."""
    found = worker.rest("GET", "/connectors?expand=info&expand=status")
    return {name: entry for name, entry in found.items() if name.startswith(prefix)}


def workers_of(worker: ConnectWorker, prefix: str) -> set[str]:
    """The workers running this test's connectors and tasks, as the group's status says."""
    found = held(worker, prefix).values()
    return {t["worker_id"] for e in found for t in e["status"]["tasks"]} | {
        e["status"]["connector"]["worker_id"] for e in found
    }


def all_running(worker: ConnectWorker, prefix: str, count: int, batch: int) -> bool:
    found = held(worker, prefix)
    return len(found) == count and all(
        e["info"]["config"]["batch.size"] == str(batch)
        and e["status"]["connector"]["state"] == "RUNNING"
        and [t["state"] for t in e["status"]["tasks"]] == ["RUNNING"]
        for e in found.values()
    )


def converge(cluster: KafkaCluster, directory: Path) -> None:
    """Plan and apply until the plan has no change (at most twice), then assert a last plan is empty."""
    for _ in range(2):
        p, loaded = plan_of(directory)
        if not p.actionable:
            break
        report = apply_manifests(cluster, loaded, p, port_of(loaded))
        assert report.exit_code == 0, report.to_json()
    assert not plan_of(directory)[0].actionable


@pytest.fixture
def statuses(monkeypatch: pytest.MonkeyPatch) -> Iterator[collections.Counter[int]]:
    """HTTP statuses of the Connect answers the tool reads while the test runs."""
    counts: collections.Counter[int] = collections.Counter()
    exchange = connect_http.ConnectClient._exchange

    def counted(self: connect_http.ConnectClient, *args: Any, **kwargs: Any) -> tuple[int, Any]:
        status, answer = exchange(self, *args, **kwargs)
        counts[status] += 1
        return status, answer

    monkeypatch.setattr(connect_http.ConnectClient, "_exchange", counted)
    yield counts


@pytest.mark.parametrize("command", ["plan", "apply"])
def test_the_command_lines_timeout_bounds_a_black_holed_endpoint_writing_nothing(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path, command: str, black_hole: str
) -> None:
    url = black_hole
    directory = write(tmp_path / "m", kafka_single, url, sources(topic_prefix, tmp_path, 1))
    args = [command, str(directory), "--timeout", str(BOUND_S)]
    started = time.monotonic()
    result = cli([*args, "--auto-approve"] if command == "apply" else args, timeout=120)
    took = time.monotonic() - started
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    print(f"\n{command}: exit 1 after {took:.1f}s: {lines[0]}")
    assert lines[0] == f"error: GET /connectors: Kafka Connect could not be reached ({url}: timed out)", lines[0]
    assert took < BOUND_S + SLACK_S, f"{command} took {took:.1f}s"
    with kafka_single.admin_session() as admin:
        assert f"{topic_prefix}lines" not in admin.list_topics()  # the plan was refused before any write


def test_plans_made_while_a_worker_joins_the_group_are_not_stale_and_converge(
    connect_worker: ConnectWorker,
    kafka_single: KafkaCluster,
    topic_prefix: str,
    tmp_path: Path,
    statuses: collections.Counter[int],
) -> None:
    count = 10
    directory = write(tmp_path / "m", kafka_single, connect_worker.url, sources(topic_prefix, tmp_path, count))
    converge(kafka_single, directory)
    second = ConnectWorker(bootstrap=kafka_single.bootstrap, workdir=tmp_path / "w2", group_id=connect_worker.group_id)
    joined = threading.Event()

    def join() -> None:
        try:
            second.start()
        finally:
            joined.set()

    starter = threading.Thread(target=join, daemon=True)
    try:
        starter.start()
        batch, rounds, after_join = 100, 0, 0
        while after_join < 2:  # applies while the worker starts and joins, and two once it answers
            after_join += joined.is_set()
            batch += 1
            write(directory, kafka_single, connect_worker.url, sources(topic_prefix, tmp_path, count, batch=batch))
            p, loaded = plan_of(directory)
            assert len(p.actionable) == count
            started = time.monotonic()
            report = apply_manifests(kafka_single, loaded, p, port_of(loaded))
            assert report.exit_code == 0, report.to_json()
            assert time.monotonic() - started < APPLY_DEADLINE_S + 10
            # The configs are Connect's durable record: as declared at once. The apply's read-back saw every
            # connector and task RUNNING; the rebalance the join starts may still move a task (UNASSIGNED while it
            # moves), so their states are asked until they settle again.
            configs = {n: e["info"]["config"]["batch.size"] for n, e in held(connect_worker, topic_prefix).items()}
            assert len(configs) == count and set(configs.values()) == {str(batch)}, configs
            eventually(
                functools.partial(all_running, connect_worker, topic_prefix, count, batch),
                what="every connector and task running again",
                timeout=60,
            )
            rounds += 1
        starter.join(timeout=120)
        assert second.running, second.log_tail()
        # A member of the group reports the same once its status view has read the group's status topic (the
        # rebalance that its joining started may still be moving tasks when start() returns).
        eventually(
            lambda: all_running(second, topic_prefix, count, batch) or None,
            what="the joined worker reporting every connector and task running",
            timeout=60,
        )
        workers = workers_of(second, topic_prefix)
        print(f"\n{rounds} applies while a worker joined; statuses {dict(statuses)}; {len(workers)} worker(s) run them")
        assert not plan_of(directory)[0].actionable
    finally:
        starter.join(timeout=120)
        second.close()


@pytest.mark.parametrize("silent_after", [False, True])
def test_a_write_whose_answer_is_lost_is_read_back_before_it_is_reported(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path, silent_after: bool
) -> None:
    """Connect carried out two creates but their answers never came back: read afterwards, they are applied. With
    the worker silent from then on (nothing can be read), they are unknown, not failed (they do exist)."""
    dropper = AnswerDropper(("127.0.0.1", connect_worker.port))
    try:
        count = 3
        directory = write(tmp_path / "m", kafka_single, dropper.url, sources(topic_prefix, tmp_path, count))
        p, loaded = plan_of(directory)
        dropper.drop_writes, dropper.then_silent = 2, silent_after
        report = apply_manifests(kafka_single, loaded, p, port_of(loaded))
    finally:
        dropper.close()
    outcomes = {i.name: i for i in report.items if i.name.startswith(f"{topic_prefix}src-")}
    assert dropper.dropped >= 2
    found = eventually(lambda: len(held(connect_worker, topic_prefix)) == count or None, what="three connectors")
    assert found  # Connect carried out all three creates
    lost = {n for n, i in outcomes.items() if "answer was lost" in (i.message or "")}
    assert len(lost) == dropper.dropped if not silent_after else len(lost) >= 2, {
        n: (i.outcome, i.message) for n, i in outcomes.items()
    }
    if silent_after:
        assert report.exit_code == 3
        assert {outcomes[n].outcome for n in lost} == {Outcome.UNKNOWN}
    else:
        assert report.exit_code == 0, report.to_json()
        assert {i.outcome for i in outcomes.values()} == {Outcome.APPLIED}
        assert all("shows it as declared" in (outcomes[n].message or "") for n in lost)
    converge(kafka_single, write(directory, kafka_single, connect_worker.url, sources(topic_prefix, tmp_path, count)))


def test_a_create_resent_after_a_lost_answer_finds_it_exists_and_does_not_wait_out_the_deadline(
    connect_worker: ConnectWorker, topic_prefix: str, tmp_path: Path
) -> None:
    """The first URL carries the create out and loses its answer; the client sends it again to the second URL,
    which answers 409 'already exists' (not a rebalance): the config is written there at once."""
    dropper = AnswerDropper(("127.0.0.1", connect_worker.port))
    name = f"{topic_prefix}twice"
    config = {"connector.class": FILE_SOURCE, "topic": f"{topic_prefix}x", "file": str(tmp_path / "in.txt")}
    try:
        dropper.drop_writes = 1
        port = RestConnectPort(ConnectClient([dropper.url, connect_worker.url]))
        began = time.monotonic()
        port.create(name, config, initial_state="running", deadline=time.monotonic() + 60)
        took = time.monotonic() - began
    finally:
        dropper.close()
    assert dropper.dropped == 1
    assert took < 15, f"the create took {took:.1f}s"
    assert connect_worker.rest("GET", f"/connectors/{name}/config") == {**config, "name": name}


def test_a_config_put_whose_answer_is_lost_and_that_fails_the_restarted_task_is_reported_failed(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """Connect carried out a config PUT whose answer never came back, and the restarted task failed on the new
    config: read back, the connector is not applied, with the task's trace (not the old tasks' RUNNING)."""
    name = f"{topic_prefix}moved"
    sink = f"""\
---
apiVersion: kafka-reconciler/v1
kind: Connector
metadata: {{name: {name}}}
spec:
  class: {FILE_SINK}
  tasksMax: 1
  config:
    topics: {topic_prefix}x
    file: @FILE@
"""
    dropper = AnswerDropper(("127.0.0.1", connect_worker.port))
    try:
        directory = write(tmp_path / "m", kafka_single, dropper.url, sink.replace("@FILE@", str(tmp_path / "out.txt")))
        converge(kafka_single, directory)
        missing = f"/nonexistent-{topic_prefix}/out.txt"
        write(directory, kafka_single, dropper.url, sink.replace("@FILE@", missing))
        p, loaded = plan_of(directory)
        dropper.drop_writes = 1
        report = apply_manifests(kafka_single, loaded, p, port_of(loaded))
    finally:
        dropper.close()
    assert dropper.dropped == 1
    assert connect_worker.rest("GET", f"/connectors/{name}/config")["file"] == missing
    assert report.exit_code == 3, report.to_json()
    [item] = [i for i in report.items if i.name == name]
    assert item.outcome is Outcome.FAILED, item
    message = item.message or ""
    assert "answer was lost" in message and "not applied: task 0 FAILED after the write: " in message, message
    assert missing in message

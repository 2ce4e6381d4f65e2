"""The connector phases of apply against the in-memory Connect worker: what is sent, what is read back, what is told.

Each test plans manifests' connectors against ``tests.support.connect_fake.FakeConnectWorker`` (the planner and the
plan's decode as the tool runs them), runs ``reconciler.kinds.connector.phases.run_write`` or ``run_delete`` with the
port on that worker, and asserts what the worker holds afterwards and what each item reports. Time is the test's
clock: the worker applies a write a moment after answering it, the read-back's sleeps advance the clock, nothing waits
for real.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Mapping

from reconciler.apply import decoded, retry
from reconciler.apply.apply_report import ItemOutcome, Outcome
from reconciler.apply.batch import ApplyContext
from reconciler.apply.events import ApplyEvent
from reconciler.connect.port import RestConnectPort
from reconciler.kinds.connector import evidence
from reconciler.kinds.connector import phases as connector_phases
from reconciler.kinds.connector import restart as connector_restart
from reconciler.kinds.connector import writes as connector_writes
from reconciler.model import desired as d
from reconciler.model import state as s
from reconciler.model.kinds import Kind
from reconciler.planner import plan
from tests.support.connect_fake import FILE_SINK, FakeConnectWorker

MISSING = "/nonexistent"
TRACE = "org.apache.kafka.connect.errors.ConnectException: Couldn't find or create file '/nonexistent/out'"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def fails_on_missing_directory(config: Mapping[str, str]) -> str | None:
    """A FileStream sink fails at its start when its file's directory does not exist."""
    return TRACE if config.get("file", "").startswith(MISSING) else None


def sink(name: str, *, file: str | None = None, batch: str = "1", state: str = "running") -> d.DesiredConnector:
    config = {
        "connector.class": FILE_SINK,
        "tasks.max": "1",
        "topics": "t",
        "file": file or f"/tmp/{name}.txt",
        "batch.size": batch,
    }
    return d.DesiredConnector(name, config, state)


def wanted(*connectors: d.DesiredConnector, owned: tuple[str, ...] = ()) -> d.DesiredState:
    rules = d.Ownership(
        connectors=tuple(d.NamePattern("exact", n) for n in owned),
        managed_kinds=frozenset({Kind.CONNECTOR}),
        delete={Kind.CONNECTOR: True},
    )
    return d.DesiredState(connectors={c.name: c for c in connectors}, ownership=rules)


class World:
    """The fake worker, the port on it and the test's clock."""

    def __init__(self, **worker: object) -> None:
        self.clock = Clock()
        self.worker = FakeConnectWorker(clock=self.clock, task_fails=fails_on_missing_directory, **worker)  # type: ignore[arg-type]
        self.port = RestConnectPort(self.worker)
        self.events: list[ApplyEvent] = []

    def settle(self) -> None:
        """Let the worker apply what it was sent (the clock moves on; one read lets it publish)."""
        self.clock.sleep(10.0)
        self.port.read_connectors(deadline=time.monotonic() + 10)

    def apply(self, want: d.DesiredState, *, deadline_s: float = 120.0) -> list[ItemOutcome]:
        connect = evidence.read_for_plan(self.port, want, deadline=time.monotonic() + 30)
        live = s.ClusterState(cluster_id=None, controller_id=None, brokers=(), connect=connect)
        p = plan(want, live)
        ops = decoded.decode(p).of(Kind.CONNECTOR)
        ctx = ApplyContext(
            adapter=None,  # type: ignore[arg-type]  # the connector phases call only the Connect port
            policy=retry.RetryPolicy(),
            pacer=retry.Pacer(sleep=self.clock.sleep, rand=lambda: 0.0),
            deadline=retry.Deadline(deadline_s, clock=self.clock),
            events=self.events.append,
            dry_run=False,
            ports={"connect": self.port},
        )
        deletes = [op for op in ops if isinstance(op.request, connector_writes.DeleteConnector)]
        writes = [op for op in ops if isinstance(op.request, connector_writes.WriteConnector)]
        out = connector_phases.run_delete(ctx, deletes, live=live) if deletes else []
        return out + (connector_phases.run_write(ctx, writes, live=live) if writes else [])

    def held(self, name: str) -> tuple[str, list[str], dict[str, str]]:
        c = self.worker.connectors[name]
        return c.state, [t["state"] for t in c.tasks], c.config


def outcomes(items: list[ItemOutcome]) -> dict[str, tuple[Outcome, str]]:
    return {i.name: (i.outcome, i.message or "") for i in items}


def test_connectors_are_created_in_their_declared_state_and_read_back_running() -> None:
    world = World()
    items = world.apply(wanted(sink("a"), sink("b", state="paused"), sink("c", state="stopped")))
    assert outcomes(items) == {
        "a": (Outcome.APPLIED, "created running"),
        "b": (Outcome.APPLIED, "created paused"),
        "c": (Outcome.APPLIED, "created stopped"),
    }
    assert world.held("a")[:2] == ("RUNNING", ["RUNNING"])
    assert world.held("b")[:2] == ("PAUSED", ["PAUSED"])
    assert world.held("c")[:2] == ("STOPPED", [])
    assert world.worker.request_counts["POST /connectors"] == 3


def test_a_config_change_is_written_once_and_read_back_only_once_the_tasks_run_it() -> None:
    world = World()
    world.apply(wanted(sink("a"), sink("b")))
    world.settle()
    before = dict(world.worker.request_counts)
    items = world.apply(wanted(sink("a", batch="7"), sink("b")))
    assert outcomes(items) == {"a": (Outcome.APPLIED, "config written")}
    assert world.held("a")[2]["batch.size"] == "7" and world.worker.connectors["a"].task_configs[0]["batch.size"] == "7"
    sent = {k: v - before.get(k, 0) for k, v in world.worker.request_counts.items() if v != before.get(k, 0)}
    assert sent["PUT /connectors/{name}/config"] == 1  # b, already as declared, is not written (a PUT restarts)
    assert sent["GET /connectors/{name}/tasks"] >= 1  # the evidence that Connect generated the new task configs
    assert "GET /connectors/{name}/status" not in sent  # every connector is watched in the one list request


def test_a_task_that_fails_right_after_a_config_change_is_caught_not_the_old_tasks_running_state() -> None:
    # The new task configs show 0.4 s after the write; the old task's RUNNING is reported 0.4 s longer, then the
    # new task's FAILED (as measured on a 4.3.1 worker: 0.3 s). Believing RUNNING with the new configs is wrong.
    world = World(regenerate_s=0.4, restart_s=0.8)
    world.apply(wanted(sink("a")))
    world.settle()
    items = world.apply(wanted(sink("a", file=f"{MISSING}/out")))
    [(outcome, message)] = outcomes(items).values()
    assert outcome is Outcome.FAILED and message == f"task 0 FAILED after the write: {TRACE}"
    assert world.held("a")[1] == ["FAILED"]


def test_every_changed_connector_is_watched_in_one_list_request_a_round() -> None:
    world = World()
    names = [f"c{i}" for i in range(20)]
    world.apply(wanted(*(sink(n) for n in names)))
    world.settle()
    before = dict(world.worker.request_counts)
    world.events.clear()
    items = world.apply(wanted(*(sink(n, batch="9") for n in names)))
    assert {i.outcome for i in items} == {Outcome.APPLIED}
    lists = world.worker.request_counts["GET /connectors"] - before["GET /connectors"]
    tasks = world.worker.request_counts["GET /connectors/{name}/tasks"] - before.get("GET /connectors/{name}/tasks", 0)
    rounds = sum(1 for e in world.events if e.message and e.message.startswith("connectors:"))
    assert lists == rounds + 1  # the plan's read, then one list request per read-back round for all 20
    per_connector = collections.Counter(r.path for r in world.worker.sent if r.path.endswith("/tasks"))
    assert len(per_connector) == len(names) and sum(per_connector.values()) == tasks  # each one's asked for ...
    assert max(per_connector.values()) < rounds  # ... until they showed the new config, not every round


def test_a_failed_task_of_a_running_connector_is_restarted_and_read_back() -> None:
    world = World()
    world.apply(wanted(sink("a")))
    world.settle()
    world.worker.task_fails = lambda _config: "java.lang.IllegalStateException: gone for a moment"
    world.worker.connectors["a"].events.clear()
    world.worker._configure("a", world.worker.connectors["a"])  # the task fails once, then works again
    world.settle()
    assert world.held("a")[1] == ["FAILED"]
    world.worker.task_fails = fails_on_missing_directory
    items = world.apply(wanted(sink("a")))
    assert outcomes(items) == {"a": (Outcome.APPLIED, "restarted what failed (task 0)")}
    assert world.worker.request_counts["POST /connectors/{name}/restart"] == 1
    assert world.worker.sent[-1].path != "/connectors/a/restart"  # read back after the restart
    assert world.held("a")[1] == ["RUNNING"]


def test_a_task_that_fails_again_after_its_restart_is_reported_failed_again() -> None:
    world = World()
    world.apply(wanted(sink("a", file=f"{MISSING}/out")))
    world.settle()
    items = world.apply(wanted(sink("a", file=f"{MISSING}/out")))
    [(outcome, message)] = outcomes(items).values()
    assert outcome is Outcome.FAILED and message.startswith("task 0 FAILED again after its restart")
    assert connector_restart.SETTLE_S > 0


def test_an_owned_connector_no_longer_declared_is_deleted_and_read_back_gone() -> None:
    world = World()
    world.apply(wanted(sink("keep"), sink("old")))
    world.settle()
    items = world.apply(wanted(sink("keep"), owned=("keep", "old")))
    assert outcomes(items) == {"old": (Outcome.APPLIED, outcomes(items)["old"][1])}
    assert set(world.worker.connectors) == {"keep"}


def test_a_config_write_whose_answer_was_lost_is_read_back_and_reported_applied() -> None:
    world = World()
    world.apply(wanted(sink("a")))
    world.settle()
    world.worker.lose("PUT /connectors/{name}/config")
    items = world.apply(wanted(sink("a", batch="3")))
    assert outcomes(items) == {"a": (Outcome.APPLIED, connector_phases.LOST_NOTE)}
    assert world.held("a")[2]["batch.size"] == "3"


def test_a_create_the_worker_keeps_pushing_back_fails_by_the_deadline_with_its_answer() -> None:
    world = World()
    world.worker.refuse("POST /connectors", 503, times=10_000)
    items = world.apply(wanted(sink("a")), deadline_s=3.0)
    [(outcome, message)] = outcomes(items).values()
    assert outcome is Outcome.FAILED and "503" in message
    assert "a" not in world.worker.connectors


def test_writes_pushed_back_by_a_rebalance_are_sent_again_and_applied() -> None:
    world = World()
    world.worker.refuse("POST /connectors", 409, times=4)
    items = world.apply(wanted(sink("a"), sink("b")))
    assert {i.outcome for i in items} == {Outcome.APPLIED}
    assert world.worker.request_counts["POST /connectors"] == 6
    assert world.port.pace.refusals == 4

"""Ctrl-C during an apply, on plain data: the first stops new writes (phases and the requests of a phase), the report
says what was applied and what was not started (exit 130); a second exits at once; and the apply lock's seam: taken
before the first read, released after, its refusal for a missing right named with the other missing rights.

The signal handling is exercised with real SIGINTs sent to this process; the cluster is a ``RecordingAdapter``.
"""

from __future__ import annotations

import dataclasses
import os
import signal
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from reconciler.apply import Outcome, apply_plan
from reconciler.apply.access import MissingAccess
from reconciler.apply.lock import LockRequest
from reconciler.base import errors, interrupt
from reconciler.kafka import access as kafka_access
from reconciler.kafka import limits
from reconciler.kafka.results import ItemResult
from reconciler.model.desired import DesiredState, DesiredTopic
from reconciler.planner import plan
from tests.support.apply_runs import apply_options, one_replica_topic
from tests.support.recording import RecordingAdapter


@pytest.fixture(autouse=True)
def _no_interrupt_left() -> Any:
    yield
    interrupt._flag.clear()


def test_the_first_sigint_asks_to_stop_and_the_second_exits_at_once_with_130() -> None:
    said: list[str] = []
    exits: list[int] = []
    before = signal.getsignal(signal.SIGINT)  # Python's, or one an earlier test's library installed (Spark does)
    with interrupt.handling(say=said.append, exit_now=exits.append):
        assert signal.getsignal(signal.SIGINT) is not before
        assert not interrupt.requested()
        os.kill(os.getpid(), signal.SIGINT)
        assert interrupt.requested() and said == [interrupt.FIRST] and exits == []
        os.kill(os.getpid(), signal.SIGINT)
        assert said == [interrupt.FIRST, interrupt.SECOND] and exits == [130]
    assert not interrupt.requested()  # cleared when the block ends
    assert signal.getsignal(signal.SIGINT) is before  # and the previous handler is back
    assert "outcome of the requests in flight is unknown" in interrupt.SECOND


def test_a_write_stops_between_two_requests_once_interrupted() -> None:
    sent: list[list[str]] = []

    def send(chunk: Sequence[str]) -> list[ItemResult]:
        sent.append(list(chunk))
        interrupt.request()  # Ctrl-C while the first request was in flight: its answer still counts
        return [ItemResult(key=k, error_code=0, error_name=None, message=None) for k in chunk]

    names = [f"t{i:03d}" for i in range(300)]  # 20 records each: more than the first request may carry
    results = limits.send_within_limit(names, weight=lambda _: 20, send=send, key=lambda n: n)

    [first] = sent  # the later requests were never sent
    assert 0 < len(first) < len(names) and first == names[: len(first)]
    assert [r.ok for r in results[: len(first)]] == [True] * len(first)
    assert {r.error_name for r in results[len(first) :]} == {interrupt.INTERRUPTED}
    assert [r.key for r in results] == names


def wanted_topics(names: Sequence[str], **configs: str) -> DesiredState:
    return DesiredState(topics={n: DesiredTopic(n, 1, 1, dict(configs)) for n in names})


def test_no_phase_starts_after_an_interrupt_and_the_report_says_what_was_applied() -> None:
    adapter = RecordingAdapter(topics={"t-old": one_replica_topic("t-old", configs={"retention.ms": "1000"})})
    topics = {n: DesiredTopic(n, 1, 1) for n in ("t-a", "t-b")} | {
        "t-old": DesiredTopic("t-old", 1, 1, {"retention.ms": "2000"})
    }
    wanted = DesiredState(topics=topics)
    p = plan(wanted, adapter.read_state(kinds=wanted.needs()))
    asked: list[int] = []

    def interrupted() -> bool:  # Ctrl-C during the first phase (the topic creates): asked once per phase, then after
        asked.append(1)
        return len(asked) > 1

    report = apply_plan(p, adapter, options=dataclasses.replace(apply_options(), interrupted=interrupted))

    outcomes = {i.address: (i.outcome, i.error_name) for i in report.items}
    assert outcomes == {
        "topic/t-a": (Outcome.APPLIED, None),
        "topic/t-b": (Outcome.APPLIED, None),
        "topic/t-old": (Outcome.NOT_SENT, interrupt.INTERRUPTED),
    }
    assert [name for name, _ in adapter.writes()] == ["create_topics"]  # the config phase was never sent
    assert report.interrupted and report.exit_code == 130 and report.to_json_dict()["interrupted"] is True
    assert report.converged is None  # not read back: the note says to run plan
    [note] = [n for n in report.notes if n.startswith("interrupted")]
    assert note.startswith("interrupted (Ctrl-C): 2 of 3 change(s) applied, 1 not started;") and "run plan" in note


@dataclasses.dataclass
class FakePort:
    """A port whose ``apply_lock`` is ``take`` (the lock's seam, ``reconciler.apply.lock.LockingPort``)."""

    take: Callable[[float], FakeLock]

    def apply_lock(
        self, *, plan: str, wait_s: float, deadline_s: float, on_wait: Callable[[str], None] | None = None
    ) -> FakeLock:
        return self.take(deadline_s)


@dataclasses.dataclass
class FakeLock:
    events: list[str]
    lost_why: str | None = None

    def lost(self) -> str | None:
        return self.lost_why

    def release(self) -> None:
        self.events.append("release")


def test_the_lock_is_taken_before_the_first_read_and_released_after_the_writes() -> None:
    events: list[str] = []
    adapter = RecordingAdapter()
    wanted = wanted_topics(["t-a"])
    p = plan(wanted, adapter.read_state(kinds=wanted.needs()))
    adapter.calls.clear()
    original = adapter.read_state

    def read_state(**kwargs: Any) -> Any:
        events.append("read")
        return original(**kwargs)

    adapter.read_state = read_state  # type: ignore[method-assign]

    def take(left_s: float) -> FakeLock:
        assert left_s > 0
        events.append("lock")
        return FakeLock(events, lost_why="the apply lock was lost while applying")

    report = apply_plan(
        p, adapter, options=dataclasses.replace(apply_options(), lock=LockRequest().bound(FakePort(take)))
    )

    assert events[0] == "lock" and events[-1] == "release" and "read" in events
    assert report.exit_code == 0, report.items
    assert "the apply lock was lost while applying" in report.notes


def test_a_lock_refused_for_a_missing_right_is_named_with_the_other_missing_rights_and_nothing_is_written() -> None:
    adapter = RecordingAdapter()
    wanted = wanted_topics(["t-a"])
    p = plan(wanted, adapter.read_state(kinds=wanted.needs()))
    grant = "grant READ on GROUP kafka-reconciler.apply-lock to User:ci"
    command = "kafka-acls --bootstrap-server b:9092 --add --allow-principal User:ci --operation Read --group g"

    def refused(_left_s: float) -> FakeLock:
        raise errors.GrantMissing(f"refusing to apply: {grant}", grant=grant, command=command)

    options = dataclasses.replace(apply_options(), lock=LockRequest().bound(FakePort(refused)))
    with pytest.raises(errors.GrantMissing, match="refusing to apply"):
        apply_plan(p, adapter, options=options)  # every other check passes: the lock's refusal alone
    assert adapter.writes() == []

    denied = kafka_access.AuthorizedOperations(cluster=frozenset(), topics={"t-a": frozenset()})
    adapter = RecordingAdapter(operations=denied, principal="User:ci")
    with pytest.raises(MissingAccess) as caught:
        apply_plan(p, adapter, options=dataclasses.replace(options, principal="User:ci"))
    message = str(caught.value)
    assert "User:ci lacks" in message and "grant CREATE on TOPIC t-a" in message, message
    assert message.endswith(f"And for the cluster's apply lock (or apply with --no-lock):\n  {grant}\n  {command}")
    assert adapter.writes() == []

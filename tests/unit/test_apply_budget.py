"""An apply keeps the last part of its deadline for reading back, and says ``not sent`` of what it never sent.

The cluster is a ``RecordingAdapter`` (plain data) on a fake clock that behaves as the wire does with the apply's
limit (``limit_waits``): a stalled write is waited for until the time writes are given runs out (its answer lost,
though the write was carried out), no write is sent after that, and no read after the deadline itself. The report
must say what the cluster holds: what was sent and is there is applied; what was never sent is ``not sent``, and its
message does not speak of a lost answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from reconciler import operations
from reconciler.apply import Outcome, apply_plan
from reconciler.apply.apply_report import ApplyReport
from reconciler.base import errors
from reconciler.commands import apply_display
from reconciler.connection.settings import ConnectionSettings
from reconciler.kafka import results
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.wire import Wire
from reconciler.model import payloads, state
from reconciler.model.desired import DesiredState, DesiredTopic, NamePattern, Ownership
from reconciler.planner import plan
from tests.support.apply_runs import apply_options, one_replica_topic
from tests.support.recording import FakeClock, RecordingAdapter

OWN = Ownership(topics=(NamePattern("prefix", "t"),))
NEW, CHANGED = 20, 10


class StallingWire(RecordingAdapter):
    """CreateTopics is carried out, then its answer stalls until the time given to writes is spent (as the wire
    waits on a connection that passed 12 bytes of the answer); no write is sent after that, no read past the end."""

    clock: FakeClock
    deadline_at = writes_until = float("inf")

    def limit_waits(self, seconds: float, *, named_s: float | None = None, reserve_s: float = 0.0) -> None:
        super().limit_waits(seconds, named_s=named_s, reserve_s=reserve_s)
        self.deadline_at = self.clock.now + seconds
        self.writes_until = self.deadline_at - reserve_s

    def _write(self, api: str) -> None:
        if self.clock.now >= self.writes_until:
            raise errors.DeadlineReached(f"gave up before sending {api} to broker 1: the time limit is spent")

    def _read(self) -> None:
        if self.clock.now >= self.deadline_at:
            raise errors.DeadlineReached("gave up before sending Metadata to broker 1: the time limit is spent")

    def create_topics(self, specs: Sequence[results.TopicSpec], **kwargs: Any) -> list[results.ItemResult]:
        self._write("CreateTopics")
        super().create_topics(specs, **kwargs)
        self.clock.now = self.writes_until  # the stalled answer is waited for as long as writes may take
        raise results.ConnectionLost(
            "CreateTopics to broker 1 failed: no answer within 15s; the request may or may not have been applied",
            api="CreateTopics",
            timed_out=True,
        )

    def incremental_alter_configs(
        self, changes: Mapping[tuple[str, str], Sequence[payloads.ConfigOp]], *, validate_only: bool = False
    ) -> list[results.ItemResult]:
        self._write("IncrementalAlterConfigs")
        return super().incremental_alter_configs(changes, validate_only=validate_only)

    def read_state(self, **kwargs: Any) -> state.ClusterState:
        self._read()
        return super().read_state(**kwargs)

    def wait_topics_present(
        self, names: Iterable[str], *, timeout_s: float = 30.0, poll_s: float = 0.25
    ) -> frozenset[str]:
        self._read()
        return super().wait_topics_present(names, timeout_s=timeout_s, poll_s=poll_s)


def stalled_apply() -> tuple[StallingWire, ApplyReport]:
    """20 topic creates whose answer stalls, then 10 config changes, under a 20 s limit."""
    clock = FakeClock()
    existing = {f"t-old{i}": one_replica_topic(f"t-old{i}", configs={"retention.ms": "1000"}) for i in range(CHANGED)}
    adapter = StallingWire(topics=existing)
    adapter.clock = clock
    topics = {f"t-new{i:02d}": DesiredTopic(f"t-new{i:02d}", 1, 1, {}) for i in range(NEW)}
    topics |= {name: DesiredTopic(name, 1, 1, {"retention.ms": "2000"}) for name in existing}
    wanted = DesiredState(topics=topics, ownership=OWN)
    p = plan(wanted, adapter.read_state(kinds=wanted.needs()))
    return adapter, apply_plan(p, adapter, options=apply_options(clock, deadline_s=20.0, timeout_given_s=20.0))


def test_creates_whose_answer_stalled_are_read_back_as_applied_in_the_time_kept_for_it() -> None:
    adapter, report = stalled_apply()
    created = {i.name: i for i in report.items if i.name.startswith("t-new")}
    assert set(adapter.topics) >= set(created)  # the creates were carried out
    assert {i.outcome for i in created.values()} == {Outcome.APPLIED}, [i.message for i in created.values()][:1]
    assert all("answer was lost" in (i.message or "") for i in created.values())
    assert adapter.clock.now <= 20.0


def test_what_the_time_limit_kept_from_being_sent_is_not_sent_and_says_so_without_a_lost_answer() -> None:
    adapter, report = stalled_apply()
    changed = [i for i in report.items if i.name.startswith("t-old")]
    assert len(changed) == CHANGED and {i.outcome for i in changed} == {Outcome.NOT_SENT}, changed[0]
    for item in changed:
        assert "time limit" in (item.message or "") and "lost" not in (item.message or ""), item.message
    assert all(t.configs.get("retention.ms") == "1000" for n, t in adapter.topics.items() if n.startswith("t-old"))
    assert report.exit_code == 3
    assert report.counts()["not sent"] == CHANGED and report.counts()["failed"] == 0
    line = apply_display.summary_line(report)
    assert f"{NEW} applied" in line and f"{CHANGED} changes not sent (the time limit came first)" in line, line


def test_a_write_not_sent_because_the_time_is_spent_is_not_sent_not_failed() -> None:
    """A lookup after a lost answer that the time limit refuses leaves the item in doubt (read back later), and a
    first request the time limit refuses leaves its items not sent."""
    clock = FakeClock()
    adapter = StallingWire()
    adapter.clock = clock
    wanted = DesiredState(topics={"t1": DesiredTopic("t1", 1, 1, {})}, ownership=OWN)
    p = plan(wanted, adapter.read_state(kinds=wanted.needs()))
    adapter.writes_until = -1.0  # nothing may be written any more
    adapter.limit_waits = lambda *a, **k: None  # type: ignore[method-assign]
    report = apply_plan(p, adapter, options=apply_options(clock, deadline_s=20.0))
    (item,) = report.items
    assert item.outcome is Outcome.NOT_SENT and item.attempts == 0, item
    assert "lost" not in (item.message or "")
    assert "t1" not in adapter.topics


def test_the_apply_keeps_a_share_of_its_deadline_for_reading_back() -> None:
    adapter, _ = stalled_apply()
    assert adapter.deadline_at - adapter.writes_until == pytest.approx(5.0)  # a quarter of 20 s


def test_the_wire_sends_no_write_in_the_time_kept_for_reading_back_but_still_reads() -> None:
    wire = Wire(ConnectionSettings(bootstrap_servers=("127.0.0.1:9092",)))
    wire.limit(10.0, reserve_s=4.0)
    assert wire._bound_ms(60_000, doing="before sending CreateTopics", write=True) <= 6_000
    assert wire._bound_ms(60_000, doing="before sending Metadata") > 9_000
    wire.limit(3.0, named_s=20.0, reserve_s=4.0)
    with pytest.raises(errors.DeadlineReached, match=r"20s for talking to the cluster is nearly spent: the rest is"):
        wire._bound_ms(60_000, doing="before sending CreateTopics to broker 1", write=True)
    assert wire._bound_ms(60_000, doing="before sending Metadata") > 2_000


def test_a_connections_deadline_runs_from_the_call_what_comes_before_the_client_inside_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``apply PATHS --timeout 5``: the 5 s run from when planning asks for a connection, the Kafka client's import
    (a second or more on a loaded machine; here a slow constructor stands for it) inside them, and are named as 5 s."""
    original = KafkaAdapter.__init__

    def slow(self: KafkaAdapter, *args: Any, **kwargs: Any) -> None:
        time.sleep(0.5)
        original(self, *args, **kwargs)

    monkeypatch.setattr(KafkaAdapter, "__init__", slow)
    before = time.monotonic()
    adapter = operations.Target(bootstrap_server="127.0.0.1:9").connect(deadline_s=5.0)
    wire = adapter._wire
    assert wire.deadline_at <= before + 5.1, wire.deadline_at - before
    assert wire.deadline_s == 5.0


def test_an_apply_whose_time_for_writes_is_spent_before_the_first_write_says_its_time_limit_was_reached() -> None:
    """Planning left the apply so little time that no write fits before the part kept for reading back: every change
    is not sent, the apply ends before its deadline (nothing sent, nothing to read back), and a note still names the
    --timeout given and that it was reached."""
    clock = FakeClock()
    adapter = StallingWire()
    adapter.clock = clock
    wanted = DesiredState(topics={f"t{i}": DesiredTopic(f"t{i}", 1, 1, {}) for i in range(3)}, ownership=OWN)
    p = plan(wanted, adapter.read_state(kinds=wanted.needs()))
    report = apply_plan(p, adapter, options=apply_options(clock, deadline_s=0.4, timeout_given_s=5.0))
    assert {i.outcome for i in report.items} == {Outcome.NOT_SENT} and not adapter.topics
    assert report.exit_code == 3
    assert any("time limit of 5s (--timeout" in n and "was reached" in n for n in report.notes), report.notes

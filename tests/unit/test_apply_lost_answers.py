"""Answers lost on the way are resolved by reading the cluster; the apply's deadline bounds every wait.

The cluster is a ``RecordingAdapter`` (plain data) whose writes lose their answer: the write is carried out (or
not), then the call raises ``ConnectionLost`` as a reset connection does. The report must say what the cluster
holds: applied, not applied, or unknown only when the read fails too. A deadline reached names the --timeout given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from reconciler.apply import Outcome, apply_plan
from reconciler.apply.apply_report import ApplyReport
from reconciler.base import errors
from reconciler.commands import apply_display
from reconciler.connection.settings import ConnectionSettings
from reconciler.kafka import results
from reconciler.kafka.wire import Wire
from reconciler.model import payloads, state
from reconciler.model.desired import DesiredState, DesiredTopic, NamePattern, Ownership
from reconciler.planner import plan
from tests.support.apply_runs import apply_options, one_replica_topic
from tests.support.recording import FakeClock, RecordingAdapter

OWN = Ownership(topics=(NamePattern("prefix", "t"),))


def lost(api: str) -> results.ConnectionLost:
    return results.ConnectionLost(
        f"{api} to broker 1 failed: connection reset by peer; the request may or may not have been applied", api=api
    )


class LosesAnswers(RecordingAdapter):
    """Every config change and create loses its answer; ``carry_out`` says whether the write happened first;
    ``reads_fail_after_write``: every read after the first write fails too (the cluster is unreachable)."""

    carry_out: bool = True
    reads_fail_after_write: bool = False
    wrote: bool = False

    def incremental_alter_configs(
        self, changes: Mapping[tuple[str, str], Sequence[payloads.ConfigOp]], *, validate_only: bool = False
    ) -> list[results.ItemResult]:
        if self.carry_out:
            super().incremental_alter_configs(changes, validate_only=validate_only)
        self.wrote = True
        raise lost("IncrementalAlterConfigs")

    def create_topics(self, specs: Sequence[results.TopicSpec], **kwargs: Any) -> list[results.ItemResult]:
        if self.carry_out:
            super().create_topics(specs, **kwargs)
        self.wrote = True
        raise lost("CreateTopics")

    def read_state(self, **kwargs: Any) -> state.ClusterState:
        if self.wrote and self.reads_fail_after_write:
            raise results.ConnectionLost("Metadata to the cluster failed: connection refused", api="Metadata")
        return super().read_state(**kwargs)


def retention(adapter: RecordingAdapter) -> ApplyReport:
    wanted = DesiredState(topics={"t1": DesiredTopic("t1", 1, 1, {"retention.ms": "2000"})}, ownership=OWN)
    p = plan(wanted, adapter.read_state(kinds=wanted.needs()))
    return apply_plan(p, adapter, options=apply_options(deadline_s=60))


def test_a_config_change_whose_answers_were_lost_but_which_the_cluster_shows_is_applied() -> None:
    adapter = LosesAnswers(topics={"t1": one_replica_topic("t1", configs={"retention.ms": "1000"})})
    report = retention(adapter)
    (item,) = report.items
    assert item.outcome is Outcome.APPLIED, item
    assert "the answer was lost" in (item.message or "") and "shows it applied" in (item.message or "")
    assert report.converged is True and report.exit_code == 0
    assert any("answer(s) lost on the way; read from the cluster: 1 applied, 0 not applied" in n for n in report.notes)


def test_a_config_change_whose_answers_were_lost_and_which_the_cluster_does_not_show_failed() -> None:
    adapter = LosesAnswers(topics={"t1": one_replica_topic("t1", configs={"retention.ms": "1000"})})
    adapter.carry_out = False
    report = retention(adapter)
    (item,) = report.items
    assert item.outcome is Outcome.FAILED and item.error_name == "CONNECTION_ERROR", item
    assert "not applied: the cluster, read afterwards, differs" in (item.message or ""), item.message
    assert "retention.ms is '1000', wanted '2000'" in (item.message or "")
    assert report.exit_code == 3


def test_an_answer_lost_while_the_cluster_cannot_be_read_either_is_unknown() -> None:
    adapter = LosesAnswers(topics={"t1": one_replica_topic("t1", configs={"retention.ms": "1000"})})
    adapter.reads_fail_after_write = True
    report = retention(adapter)
    (item,) = report.items
    assert item.outcome is Outcome.UNKNOWN, item
    assert "reading the cluster to learn whether it was applied failed too" in (item.message or "")
    assert report.exit_code == 3
    line = apply_display.summary_line(report)
    assert "1 unknown" in line and "1 change unknown (answer lost, cluster unreadable: run plan to see)" in line
    assert "not carried out" not in line, line


def test_a_create_whose_answer_was_lost_is_looked_up_before_it_is_sent_again() -> None:
    adapter = LosesAnswers()
    wanted = DesiredState(topics={f"t{i}": DesiredTopic(f"t{i}", 1, 1, {}) for i in range(3)}, ownership=OWN)
    p = plan(wanted, adapter.read_state(kinds=wanted.needs()))
    report = apply_plan(p, adapter, options=apply_options(deadline_s=60))
    assert adapter.request_counts["create_topics"] == 1  # not re-sent: the cluster shows the topics
    assert [i.outcome for i in report.items] == [Outcome.APPLIED] * 3
    assert all(
        "its answer was lost; the cluster, read afterwards, shows it applied" in (i.message or "") for i in report.items
    )
    assert report.exit_code == 0


def test_the_apply_deadline_bounds_every_wait_on_the_cluster_from_its_first_read() -> None:
    adapter = RecordingAdapter(topics={"t1": one_replica_topic("t1", configs={"retention.ms": "1000"})})
    retention(adapter)
    assert adapter.limits == [60]


class SlowCreate(RecordingAdapter):
    """Creates topics, answered 3 s later on ``clock`` (past the apply's deadline)."""

    clock: FakeClock

    def create_topics(self, *args: Any, **kw: Any) -> Any:
        answer = super().create_topics(*args, **kw)
        self.clock.now += 3.0
        return answer


def deadline_reached(**kw: Any) -> ApplyReport:
    """A create answered after the apply's 2 s deadline (a fake clock) was spent."""
    clock = FakeClock()
    adapter = SlowCreate()
    adapter.clock = clock
    wanted = DesiredState(topics={"t1": DesiredTopic("t1", 1, 1, {})}, ownership=OWN)
    p = plan(wanted, adapter.read_state(kinds=wanted.needs()))
    return apply_plan(p, adapter, options=apply_options(clock, deadline_s=2.0, **kw))


def test_the_deadline_note_names_the_timeout_given_and_what_planning_left_of_it() -> None:
    """``apply PATHS --timeout 5`` whose planning took 3 s: the note names the 5 s the user gave, and the 2 s left."""
    report = deadline_reached(timeout_given_s=5.0)
    [note] = [n for n in report.notes if "was reached" in n]
    assert note.startswith(
        "the time limit of 5s (--timeout, planning included: 2s of it were left for the apply) was reached: "
        "1 of 1 change(s) known applied"
    ), note
    assert report.exit_code == 3


def test_the_deadline_note_of_an_apply_given_its_whole_limit_names_it_once() -> None:
    [note] = [n for n in deadline_reached().notes if "was reached" in n]
    assert note.startswith("the apply's time limit of 2s (--timeout) was reached: "), note
    [note] = [n for n in deadline_reached(timeout_given_s=2.0).notes if "was reached" in n]
    assert note.startswith("the apply's time limit of 2s (--timeout) was reached: "), note


def test_the_connection_bound_by_what_planning_left_names_the_timeout_given() -> None:
    """The apply's own limit on the connection (``limit_waits``) names the --timeout given, not what was left."""
    wire = Wire(ConnectionSettings(bootstrap_servers=("127.0.0.1:9092",)))
    wire.limit(0.0, named_s=5.0)
    with pytest.raises(errors.DeadlineReached, match=r"the time limit of 5s for talking to the cluster is spent"):
        wire._bound_ms(1000, doing="sending Metadata")
    unnamed = Wire(ConnectionSettings(bootstrap_servers=("127.0.0.1:9092",)))
    unnamed.limit(0.0)
    with pytest.raises(errors.DeadlineReached, match=r"the time limit of 0s for talking"):
        unnamed._bound_ms(1000, doing="sending Metadata")

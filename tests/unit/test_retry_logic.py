"""Retry decisions after a lost answer, on plain data: a write whose answer was lost may have gone through."""

from __future__ import annotations

from collections.abc import Sequence

from reconciler.apply import retry
from reconciler.apply.batch import ApplyContext, send_batched
from reconciler.apply.events import ApplyEvent
from reconciler.kafka.results import ConnectionLost, ItemResult
from reconciler.model import plans


def context(events: list[ApplyEvent]) -> ApplyContext:
    return ApplyContext(
        adapter=None,  # type: ignore[arg-type]  # send_batched only calls the given function
        policy=retry.RetryPolicy(),
        pacer=retry.Pacer(sleep=lambda _s: None, rand=lambda: 0.0),
        deadline=retry.Deadline(60.0),
        events=events.append,
        dry_run=False,
    )


class FlakyCluster:
    """Creates topics, but the answer to the first request is lost (the connection drops after the write)."""

    def __init__(self) -> None:
        self.topics: set[str] = set()
        self.calls = 0

    def create(self, names: Sequence[str]) -> list[ItemResult]:
        self.calls += 1
        results = []
        for name in names:
            code, error = (36, "TOPIC_ALREADY_EXISTS") if name in self.topics else (0, None)
            self.topics.add(name)
            results.append(ItemResult(name, code, error, None))
        if self.calls == 1:
            raise ConnectionLost("CreateTopics to broker 1 failed: socket disconnected", api="CreateTopics", node=1)
        return results


def test_already_exists_after_a_lost_answer_counts_as_created() -> None:
    cluster = FlakyCluster()
    events: list[ApplyEvent] = []
    final = send_batched(
        context(events),
        phase=plans.Phase.TOPIC_CREATE,
        keys=["a", "b"],
        call=cluster.create,
        already_done_after_timeout=frozenset({"TOPIC_ALREADY_EXISTS"}),
    )
    assert cluster.calls == 2 and cluster.topics == {"a", "b"}
    assert {k: r.ok for k, r in final.items()} == {"a": True, "b": True}
    assert final["a"].note == "completed by an earlier attempt whose answer was lost"
    assert any("CONNECTION_ERROR" in (e.message or "") for e in events)


def test_already_exists_without_a_lost_answer_is_still_a_failure() -> None:
    cluster = FlakyCluster()
    cluster.calls = 1  # no lost answer this time
    cluster.topics.add("a")
    final = send_batched(
        context([]),
        phase=plans.Phase.TOPIC_CREATE,
        keys=["a"],
        call=cluster.create,
        already_done_after_timeout=frozenset({"TOPIC_ALREADY_EXISTS"}),
    )
    assert not final["a"].ok and final["a"].error_name == "TOPIC_ALREADY_EXISTS"


def test_throttling_does_not_use_up_the_attempts() -> None:
    """Regression: with a mutation quota, 1,000 topics met THROTTLING_QUOTA_EXCEEDED more than 8 times each and
    the apply gave up on most of them long before its deadline."""
    answers = iter([*[("THROTTLING_QUOTA_EXCEEDED", 89)] * 12, (None, 0)])
    slept: list[float] = []

    def create(names: Sequence[str]) -> list[ItemResult]:
        error, code = next(answers)
        return [ItemResult(n, code, error, None, extra={"throttle_time_ms": 250} if code else {}) for n in names]

    ctx = context([])
    ctx.pacer = retry.Pacer(sleep=slept.append, rand=lambda: 0.0)
    final = send_batched(ctx, phase=plans.Phase.TOPIC_CREATE, keys=["a"], call=create)
    assert final["a"].ok and final["a"].attempts == 13
    assert slept == [0.25] * 12  # each wait is the broker's throttle time


def test_throttling_still_stops_at_the_deadline() -> None:
    now = [0.0]
    ctx = context([])
    ctx.deadline = retry.Deadline(10.0, clock=lambda: now[0])

    def sleep(seconds: float) -> None:
        now[0] += seconds

    ctx.pacer = retry.Pacer(sleep=sleep, rand=lambda: 0.0)

    def create(names: Sequence[str]) -> list[ItemResult]:
        return [ItemResult(n, 89, "THROTTLING_QUOTA_EXCEEDED", None, extra={"throttle_time_ms": 1000}) for n in names]

    final = send_batched(ctx, phase=plans.Phase.TOPIC_CREATE, keys=["a"], call=create)
    assert not final["a"].ok and final["a"].error_name == "THROTTLING_QUOTA_EXCEEDED"
    assert "the apply deadline was reached" in (final["a"].note or "")
    assert 9.0 <= now[0] <= 10.0

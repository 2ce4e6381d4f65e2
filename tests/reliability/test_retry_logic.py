"""Retry decisions after a lost answer, on plain data: a write whose answer was lost may have gone through."""

from __future__ import annotations

from collections.abc import Sequence

from reconciler.apply import retry
from reconciler.apply.batch import ApplyContext, send_batched
from reconciler.apply.events import ApplyEvent
from reconciler.kafka.results import ConnectionLost, ItemResult
from reconciler.plan import Phase


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
        phase=Phase.TOPIC_CREATE,
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
        phase=Phase.TOPIC_CREATE,
        keys=["a"],
        call=cluster.create,
        already_done_after_timeout=frozenset({"TOPIC_ALREADY_EXISTS"}),
    )
    assert not final["a"].ok and final["a"].error_name == "TOPIC_ALREADY_EXISTS"

"""Splitting writes under the controller's record limit, on plain data (a stand-in broker that counts records)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconciler.base import answers as progress
from reconciler.kafka import limits, write
from reconciler.kafka.results import ConnectionLost, ItemResult, TopicSpec

TOO_LARGE = "Unable to perform excessively large batch operation."


def ok(key: str) -> ItemResult:
    return ItemResult(key=key, error_code=0, error_name=None, message=None)


class Controller:
    """Answers like the KRaft controller: a request over ``limit`` records fails every item with POLICY_VIOLATION,
    or (``per_item``) fails the items past the limit with a bare UNKNOWN_SERVER_ERROR."""

    def __init__(self, limit: int, *, per_item: bool = False) -> None:
        self.limit = limit
        self.per_item = per_item
        self.requests: list[list[str]] = []

    def send(self, weights: dict[str, int]) -> limits.Send[str]:
        def answer(chunk: Sequence[str]) -> list[ItemResult]:
            self.requests.append(list(chunk))
            total = 0
            out = []
            for key in chunk:
                total += weights[key]
                over = total > self.limit
                if over and self.per_item:
                    out.append(ItemResult(key=key, error_code=-1, error_name="UNKNOWN_SERVER_ERROR", message=None))
                else:
                    out.append(ok(key))
            if total > self.limit and not self.per_item:
                return [
                    ItemResult(key=k, error_code=44, error_name="POLICY_VIOLATION", message=TOO_LARGE) for k in chunk
                ]
            return out

        return answer


def test_a_thousand_topics_of_twelve_partitions_and_three_configs_fill_two_requests_by_records() -> None:
    specs = [
        TopicSpec(f"t{i:04}", partitions=12, replication_factor=3, configs={"a": "1", "b": "2", "c": "3"})
        for i in range(1000)
    ]
    assert write.topic_records(specs[0]) == 16  # topic + 3 configs + 12 partitions; replicas are not records
    runs = limits.pack(specs, write.topic_records, max_entities=10_000)
    assert [len(r) for r in runs] == [625, 375]
    assert all(sum(map(write.topic_records, r)) <= limits.MAX_RECORDS_PER_REQUEST for r in runs)
    assert [s for r in runs for s in r] == specs


def test_an_explicit_assignment_counts_its_partitions() -> None:
    spec = TopicSpec("t", assignment=((1, 2), (2, 3), (3, 1)), configs={"x": "y"})
    assert write.topic_records(spec) == 5


def test_entity_cap_applies_to_one_record_items() -> None:
    runs = limits.pack(list(range(12_000)), write.one_record, max_entities=5_000)
    assert [len(r) for r in runs] == [5_000, 5_000, 2_000]


class Timed:
    """A controller that takes ``seconds_per_record`` per metadata record to answer, on a clock of its own."""

    def __init__(self, seconds_per_record: float) -> None:
        self.cost = seconds_per_record
        self.now = 0.0
        self.requests: list[tuple[int, float]] = []  # (records, seconds) of each request

    def clock(self) -> float:
        return self.now

    def send(self, weight: limits.Weight[str]) -> limits.Send[str]:
        def answer(chunk: Sequence[str]) -> list[ItemResult]:
            records = sum(weight(k) for k in chunk)
            self.now += records * self.cost
            self.requests.append((records, records * self.cost))
            return [ok(k) for k in chunk]

        return answer


def _sized(keys: list[str], weight: limits.Weight[str], broker: Timed) -> list[int]:
    """Send ``keys`` through ``send_within_limit`` on ``broker``'s clock: the items answered per request."""
    answered: list[int] = []
    with progress.listening(answered.append):
        results = limits.send_within_limit(keys, weight=weight, send=broker.send(weight), clock=broker.clock)
    assert [r.key for r in results] == keys and all(r.ok for r in results)
    return answered


def test_a_write_the_controller_commits_quickly_goes_in_one_or_two_requests() -> None:
    """Cut into tenths, 500 config changes took 10 IncrementalAlterConfigs and twice as long at load as in one."""
    fast = 0.0002  # seconds per record: 1,000 records answered in 0.2 s
    assert _sized([f"d{i:04}" for i in range(1000)], write.one_record, Timed(fast)) == [1000]  # 1,000 deletes
    assert _sized([f"c{i:03}" for i in range(500)], lambda k: 2, Timed(fast)) == [500]  # 500 changes of 2 keys
    creates = [f"t{i:04}" for i in range(1000)]  # 1,000 topics of 3 partitions: 4 records each
    assert _sized(creates, lambda k: 4, Timed(fast)) == [250, 750]


def test_a_slow_controller_answers_every_second_or_two_and_each_answer_is_counted() -> None:
    broker = Timed(0.004)  # a loaded broker: 1,000 records take 4 s
    answered = _sized([f"t{i:04}" for i in range(1000)], lambda k: 16, broker)  # 16,000 records
    assert answered[0] == 62  # the first request: at most FIRST_REQUEST_RECORDS (62 topics of 16 records)
    assert sum(answered) == 1000
    assert all(seconds <= limits.ANSWER_EVERY_S * limits.TAIL for _, seconds in broker.requests[1:])
    assert all(records <= limits.MAX_RECORDS_PER_REQUEST for records, _ in broker.requests)


def test_requests_grow_at_most_fourfold_and_never_past_the_controller_limits() -> None:
    assert limits.next_request_records(1_000, 0.001, current=1_000) == 4_000
    assert limits.next_request_records(1_000, 3.0, current=1_000) == 500
    assert limits.next_request_records(10, 60.0, current=1_000) == limits.MIN_REQUEST_RECORDS
    broker = Timed(0.0)  # answers at once: the records limit and the entity bound still hold
    answered = _sized([f"a{i:05}" for i in range(20_000)], write.one_record, broker)
    assert answered == [1_000, 4_000, 5_000, 5_000, 5_000]
    heavy = Timed(0.0)
    assert _sized([f"b{i:05}" for i in range(6_000)], lambda k: 3, heavy)[:3] == [333, 1_333, 3_333]
    assert [records for records, _ in heavy.requests[:3]] == [999, 3_999, 9_999]  # never past 10,000 records


@pytest.fixture
def unsized(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests as large as the controller's limits allow (the size by cost left out), for the limit tests."""
    monkeypatch.setattr(limits, "FIRST_REQUEST_RECORDS", 10**9)


def test_an_item_heavier_than_the_limit_goes_alone() -> None:
    runs = limits.pack(["a", "big", "b"], {"a": 3, "big": 50, "b": 3}.__getitem__, max_records=10)
    assert runs == [["a"], ["big"], ["b"]]


@given(st.lists(st.integers(min_value=1, max_value=40), max_size=200), st.integers(min_value=40, max_value=400))
def test_packing_keeps_order_respects_the_limit_and_uses_the_fewest_ordered_runs(
    weights: list[int], limit: int
) -> None:
    items = list(range(len(weights)))
    runs = limits.pack(items, weights.__getitem__, max_records=limit, max_entities=10_000)
    assert [i for r in runs for i in r] == items
    assert all(sum(weights[i] for i in r) <= limit for r in runs)
    # Each run stopped only because the next item would not fit: no two neighbours could be merged.
    for left, right in itertools.pairwise(runs):
        assert sum(weights[i] for i in left) + weights[right[0]] > limit
    assert len(runs) >= math.ceil(sum(weights) / limit)


@pytest.mark.usefixtures("unsized")
def test_a_refused_request_is_halved_and_later_requests_are_smaller() -> None:
    weights = {f"t{i:03}": 16 for i in range(1000)}
    broker = Controller(limit=5_000)  # a stricter controller than the limit encoded in the adapter
    results = limits.send_within_limit(
        list(weights), weight=weights.__getitem__, send=broker.send(weights), max_entities=10_000
    )
    assert [r.key for r in results] == list(weights)
    assert all(r.ok for r in results)
    # 625 topics (10,000 records) refused; then every request holds at most 5,000 records (312 topics).
    assert [len(r) for r in broker.requests] == [625, 312, 312, 312, 64]
    sent_ok = broker.requests[1:]
    assert sorted(k for r in sent_ok for k in r) == sorted(weights)


@pytest.mark.usefixtures("unsized")
def test_items_past_the_limit_with_a_bare_server_error_are_sent_again() -> None:
    weights = {f"p{i}": 100 for i in range(150)}  # 15,000 records; the controller takes 10,000
    broker = Controller(limit=9_000, per_item=True)
    results = limits.send_within_limit(
        list(weights),
        weight=weights.__getitem__,
        send=broker.send(weights),
        refused=lambda r: limits.too_large(r, overflow_per_item=True),
    )
    assert all(r.ok for r in results) and len(results) == 150
    first = broker.requests[0]
    assert len(first) == 100
    # The 10 refused at the tail of the first request go again first, then the remaining 50, at 5,000 records.
    assert broker.requests[1:] == [first[90:] + list(weights)[100:140], list(weights)[140:]]


def test_an_item_refused_on_its_own_says_why_and_is_not_sent_forever() -> None:
    weights = {"huge": 12_000, "small": 2}
    broker = Controller(limit=10_000)
    huge, small = limits.send_within_limit(["huge", "small"], weight=weights.__getitem__, send=broker.send(weights))
    assert small.ok
    assert huge.error_name == "POLICY_VIOLATION"
    assert huge.message is not None and TOO_LARGE in huge.message
    assert "12000 metadata record(s)" in huge.message and "10000" in huge.message
    assert len(broker.requests) == 2


def test_a_policy_violation_from_a_topic_policy_is_not_taken_for_size() -> None:
    refusal = ItemResult(key="t", error_code=44, error_name="POLICY_VIOLATION", message="names must start with app.")
    assert not limits.too_large(refusal)
    assert limits.too_large(ItemResult(key="t", error_code=44, error_name="POLICY_VIOLATION", message=TOO_LARGE))
    kraft4 = "Cannot remove more than 10000 acls in a single delete operation."
    assert limits.too_large(ItemResult(key="a", error_code=42, error_name="INVALID_REQUEST", message=kraft4))
    bare = ItemResult(key="p", error_code=-1, error_name="UNKNOWN_SERVER_ERROR", message=None)
    assert limits.too_large(bare, overflow_per_item=True) and not limits.too_large(bare)


def test_nothing_to_send_sends_nothing() -> None:
    broker = Controller(limit=10)
    assert limits.send_within_limit([], weight=write.one_record, send=broker.send({})) == []
    assert broker.requests == []


class SlowBroker:
    """Answers a read of at most ``fits`` items; a larger one gets no answer within the request timeout."""

    def __init__(self, fits: int) -> None:
        self.fits = fits
        self.sizes: list[int] = []

    def send(self, items: list[int]) -> list[ItemResult]:
        self.sizes.append(len(items))
        if len(items) > self.fits:
            raise ConnectionLost(
                "DescribeConfigs to broker 1 failed: no answer within the request timeout (30000 ms)",
                api="DescribeConfigs",
                node=1,
                timed_out=True,
            )
        return [ok(str(i)) for i in items]


def test_a_read_that_times_out_is_halved_until_the_broker_answers() -> None:
    broker = SlowBroker(fits=1_500)
    answers = limits.split_on_timeout(list(range(5_000)), broker.send, what="DescribeConfigs", min_items=250)
    assert [r.key for r in answers] == [str(i) for i in range(5_000)]
    assert broker.sizes == [5_000, 2_500, 1_250, 1_250, 2_500, 1_250, 1_250]


def test_a_read_still_unanswered_at_the_floor_names_the_cause() -> None:
    broker = SlowBroker(fits=100)
    with pytest.raises(ConnectionLost) as raised:
        limits.split_on_timeout(list(range(1_000)), broker.send, what="DescribeConfigs", min_items=250)
    message = str(raised.value)
    assert "DescribeConfigs of 250 resource(s) got no answer within the request timeout" in message
    assert "split into requests of at most 250" in message and "request.timeout.ms" in message
    assert raised.value.node == 1 and raised.value.timed_out


def test_a_broken_connection_is_not_split() -> None:
    def refuse(items: list[int]) -> list[ItemResult]:
        raise ConnectionLost("DescribeConfigs to broker 1 failed: connection refused", api="DescribeConfigs", node=1)

    with pytest.raises(ConnectionLost, match="connection refused"):
        limits.split_on_timeout(list(range(1_000)), refuse, what="DescribeConfigs", min_items=250)


def test_a_read_failing_every_entity_with_a_server_error_is_halved() -> None:
    sizes: list[int] = []

    def short_of_memory(items: list[int]) -> list[ItemResult]:
        sizes.append(len(items))
        code = -1 if len(items) > 600 else 0
        return [ItemResult(key=str(i), error_code=code, error_name=None, message=None) for i in items]

    answers = limits.split_on_timeout(list(range(1_000)), short_of_memory, what="DescribeConfigs", min_items=250)
    assert all(r.ok for r in answers) and sizes == [1_000, 500, 500]

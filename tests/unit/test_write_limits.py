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


def test_a_thousand_small_topic_creates_go_in_requests_of_a_hundred() -> None:
    # ~4,000 records fit one request by the record limit; the entity bound cuts them so progress can advance.
    specs = [TopicSpec(f"t{i:04}", partitions=3, replication_factor=1) for i in range(1000)]
    runs = limits.pack(specs, write.topic_records)
    assert [len(r) for r in runs] == [100] * 10
    assert [s for r in runs for s in r] == specs


def test_a_write_is_cut_into_about_ten_requests_of_at_least_a_hundred_and_at_most_five_thousand() -> None:
    assert [len(r) for r in limits.pack(list(range(20_000)), write.one_record)] == [2_000] * 10
    assert [len(r) for r in limits.pack(list(range(60)), write.one_record)] == [60]
    assert [len(r) for r in limits.pack(list(range(1_050)), write.one_record)] == [105] * 10
    assert limits.entities_per_request(200_000) == limits.MAX_ENTITIES_PER_REQUEST == 5_000


def test_the_entity_bound_holds_while_sending_and_each_answer_is_counted() -> None:
    weights = {f"a{i:03}": 1 for i in range(250)}
    broker = Controller(limit=10_000)
    answered: list[int] = []
    with progress.listening(answered.append):
        results = limits.send_within_limit(list(weights), weight=weights.__getitem__, send=broker.send(weights))
    assert all(r.ok for r in results) and [r.key for r in results] == list(weights)
    assert [len(r) for r in broker.requests] == [100, 100, 50]
    assert answered == [100, 100, 50]


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

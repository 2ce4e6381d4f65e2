"""Properties of the rack-aware target assignment used for replication-factor changes."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.kinds.topic.assignment import target_assignment
from reconciler.model.state import Broker


def _brokers(rack_sizes: list[int]) -> list[Broker]:
    out: list[Broker] = []
    for r, size in enumerate(rack_sizes):
        for _ in range(size):
            broker_id = len(out) + 1
            out.append(Broker(broker_id, "h", 9092, f"rack-{r}"))
    return out


@st.composite
def _layouts(draw: st.DrawFn, *, equal_racks: bool) -> tuple[list[Broker], int, int]:
    racks = draw(st.integers(1, 4))
    if equal_racks:
        size = draw(st.integers(1, 4))
        sizes = [size] * racks
    else:
        sizes = draw(st.lists(st.integers(1, 4), min_size=racks, max_size=racks))
    brokers = _brokers(sizes)
    if draw(st.booleans()):
        brokers = [Broker(b.id, b.host, b.port, None) for b in brokers]
    rf = draw(st.integers(1, len(brokers)))
    partitions = draw(st.integers(1, 40))
    return brokers, partitions, rf


def _rack_count(brokers: list[Broker]) -> int:
    return len({b.rack if b.rack is not None else f"id-{b.id}" for b in brokers})


def _assert_valid(result: tuple[tuple[int, ...], ...], brokers: list[Broker], partitions: int, rf: int) -> None:
    ids = {b.id for b in brokers}
    rack = {b.id: b.rack if b.rack is not None else f"id-{b.id}" for b in brokers}
    assert len(result) == partitions
    for replicas in result:
        assert len(replicas) == rf
        assert len(set(replicas)) == rf, replicas
        assert set(replicas) <= ids
        assert len({rack[b] for b in replicas}) == min(rf, _rack_count(brokers)), replicas


@settings(max_examples=300, deadline=None)
@given(_layouts(equal_racks=False), st.data())
def test_every_partition_gets_distinct_brokers_spanning_racks(
    layout: tuple[list[Broker], int, int], data: st.DataObject
) -> None:
    brokers, partitions, rf = layout
    ids = sorted(b.id for b in brokers)
    current = data.draw(
        st.lists(st.lists(st.sampled_from([*ids, 99]), max_size=5), max_size=partitions), label="current"
    )
    result = target_assignment(current, partitions=partitions, replication_factor=rf, brokers=brokers)
    _assert_valid(result, brokers, partitions, rf)


@settings(max_examples=300, deadline=None)
@given(_layouts(equal_racks=True))
def test_fresh_assignment_balances_replicas_and_leaders(layout: tuple[list[Broker], int, int]) -> None:
    brokers, partitions, rf = layout
    result = target_assignment([], partitions=partitions, replication_factor=rf, brokers=brokers)
    _assert_valid(result, brokers, partitions, rf)
    replicas = Counter(b for r in result for b in r)
    leaders = Counter(r[0] for r in result)
    n = len(brokers)
    for broker in brokers:
        assert math.floor(partitions * rf / n) <= replicas[broker.id] <= math.ceil(partitions * rf / n)
        assert math.floor(partitions / n) <= leaders[broker.id] <= math.ceil(partitions / n)


@settings(max_examples=200, deadline=None)
@given(_layouts(equal_racks=True))
def test_growing_replication_factor_keeps_every_replica(layout: tuple[list[Broker], int, int]) -> None:
    brokers, partitions, rf = layout
    if rf == len(brokers):
        rf -= 1
    if rf == 0:
        return
    before = target_assignment([], partitions=partitions, replication_factor=rf, brokers=brokers)
    after = target_assignment(before, partitions=partitions, replication_factor=rf + 1, brokers=brokers)
    _assert_valid(after, brokers, partitions, rf + 1)
    for old, new in zip(before, after, strict=True):
        assert set(old) <= set(new)


def test_same_inputs_give_the_same_assignment() -> None:
    brokers = _brokers([2, 2, 2])
    current = [[1, 2], [3, 4], [5, 6], [1, 3]]
    first = target_assignment(current, partitions=6, replication_factor=3, brokers=brokers)
    second = target_assignment(current, partitions=6, replication_factor=3, brokers=list(reversed(brokers)))
    assert first == second


def test_shrinking_keeps_the_preferred_leader() -> None:
    brokers = _brokers([1, 1, 1])
    current = [[1, 2, 3], [2, 3, 1], [3, 1, 2]]
    result = target_assignment(current, partitions=3, replication_factor=2, brokers=brokers)
    assert [r[0] for r in result] == [1, 2, 3]
    assert all(set(r) <= set(c) for r, c in zip(result, current, strict=True))


def test_replicas_on_removed_brokers_are_replaced() -> None:
    brokers = _brokers([1, 1, 1])
    result = target_assignment([[1, 7], [7, 2]], partitions=2, replication_factor=2, brokers=brokers)
    assert all(7 not in r for r in result)
    assert 1 in result[0] and 2 in result[1]


@pytest.mark.parametrize("rf", [0, 4])
def test_impossible_replication_factor_is_refused(rf: int) -> None:
    with pytest.raises(ValueError, match="needs between 1 and 3 brokers"):
        target_assignment([], partitions=1, replication_factor=rf, brokers=_brokers([1, 1, 1]))

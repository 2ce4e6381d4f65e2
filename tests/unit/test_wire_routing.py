"""Routing of free-to-route requests in ``Wire.send`` when brokers stop answering (pure: ``_send`` is replaced)."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.connection.settings import ConnectionSettings
from reconciler.kafka.results import ConnectionLost
from reconciler.kafka.wire import Wire


class RoutedWire(Wire):
    """A Wire whose brokers are a list and whose dead ones refuse every request."""

    def __init__(self, brokers: list[int], dead: set[int], *, least_loaded: int) -> None:
        super().__init__(ConnectionSettings(bootstrap_servers=("127.0.0.1:9092",)))
        self.brokers = brokers
        self.dead = dead
        self.least_loaded = least_loaded
        self.sent_to: list[int] = []

    def broker_ids(self) -> list[int]:
        return sorted(self.brokers)

    def _send(self, request: Any, *, node: int | None, timeout_ms: int | None) -> Any:
        target = self.least_loaded if node is None else node
        self.sent_to.append(target)
        if target in self.dead:
            if node is not None:
                self.unreachable.add(node)
            raise ConnectionLost(f"to broker {target} failed", api="X", node=node)
        if node is not None:
            self.unreachable.discard(node)
        return f"answer from {target}"


class DescribeConfigsRequest:
    """Only the type name matters for routing: it makes the request a read."""


class CreateTopicsRequest:
    """Only the type name matters for routing: it makes the request a write."""


def read() -> Any:
    return DescribeConfigsRequest()


def test_a_read_whose_home_broker_died_is_answered_by_another_and_that_one_becomes_home() -> None:
    wire = RoutedWire([0, 1, 2], dead={0}, least_loaded=0)
    wire.home = 0
    assert wire.send(read()) == "answer from 1"
    assert wire.sent_to == [0, 1]
    assert wire.home == 1
    assert wire.send(read()) == "answer from 1"  # no second detour through the dead broker


def test_when_the_client_picks_a_dead_broker_itself_the_read_still_goes_around_it() -> None:
    wire = RoutedWire([0, 1, 2], dead={1}, least_loaded=1)
    wire.unreachable = {1}  # seen failing before
    assert wire.send(read()) == "answer from 0"
    assert wire.sent_to == [1, 0]  # brokers not seen failing are tried first


def test_a_read_gives_up_after_a_bounded_number_of_detours_with_the_last_failure() -> None:
    wire = RoutedWire(list(range(10)), dead=set(range(10)), least_loaded=0)
    wire.home = 0
    with pytest.raises(ConnectionLost, match="to broker 3 failed"):
        wire.send(read())
    assert wire.sent_to == [0, 1, 2, 3]
    assert wire.home is None


def test_a_write_is_never_resent_elsewhere_because_its_outcome_is_unknown() -> None:
    wire = RoutedWire([0, 1, 2], dead={0}, least_loaded=0)
    wire.home = 0
    with pytest.raises(ConnectionLost):
        wire.send(CreateTopicsRequest())
    assert wire.sent_to == [0]


def test_a_request_for_a_chosen_broker_goes_only_there() -> None:
    wire = RoutedWire([0, 1, 2], dead={2}, least_loaded=0)
    with pytest.raises(ConnectionLost):
        wire.send(read(), node=2)
    assert wire.sent_to == [2]

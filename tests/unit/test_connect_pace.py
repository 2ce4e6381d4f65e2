"""The write pace: how many Connect writes are outstanding at a time, on a worker whose throughput is simulated.

A simulated worker answers ``rate(limit)`` writes a second at a given limit (a herder that applies writes one after
another, the time around each overlapping); the pace must climb while that rate improves, stop where it does not,
come back after a loss, halve on push-back and stay within its floor and ceiling.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from reconciler.connect import pace


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def drive(p: pace.WritePace, clock: Clock, rate: Callable[[int], float], writes: int) -> list[int]:
    """Answer ``writes`` writes at ``rate(limit)`` a second; the limit after each answer."""
    seen = []
    for _ in range(writes):
        clock.now += 1.0 / rate(p.limit)
        p.answered()
        seen.append(p.limit)
    return seen


def test_the_limit_climbs_while_the_worker_answers_more_writes_a_second_and_holds_where_it_stops() -> None:
    clock = Clock()
    p = pace.WritePace(clock=clock)
    herder = lambda limit: min(limit, 16) * 2.0  # noqa: E731  # throughput grows up to 16 outstanding, then flat
    seen = drive(p, clock, herder, 400)
    assert seen[0] == pace.START and max(seen) > 16
    assert 16 <= seen[-1] <= 16 + 16 // 4  # one step past the knee at most, never the ceiling
    assert p.peak < pace.CEILING


def test_a_limit_past_the_knee_that_answers_fewer_writes_goes_back_to_the_best() -> None:
    clock = Clock()
    p = pace.WritePace(clock=clock)
    collapse = lambda limit: limit * 2.0 if limit <= 10 else 5.0  # noqa: E731  # past 10 outstanding: thrashing
    seen = drive(p, clock, collapse, 300)
    assert max(seen) == 12  # one step past 10 at most, tried now and then ...
    tail = seen[len(seen) // 2 :]
    assert tail.count(10) > len(tail) // 2  # ... and back to 10, where it stays most of the time


def test_the_limit_never_leaves_its_floor_and_ceiling() -> None:
    clock = Clock()
    p = pace.WritePace(clock=clock, start=2, floor=2, ceiling=6)
    assert max(drive(p, clock, lambda limit: limit * 10.0, 300)) == 6
    for _ in range(5):
        p.refused(429)
    assert p.limit == 2


@pytest.mark.parametrize("status", sorted(pace.RETRIED))
def test_push_back_halves_the_limit_and_the_climb_starts_again(status: int) -> None:
    clock = Clock()
    p = pace.WritePace(clock=clock, start=16)
    p.refused(status)
    assert p.limit == 8 and p.refusals == 1
    seen = drive(p, clock, lambda limit: limit * 3.0, 100)
    assert seen[-1] > 8


def test_a_start_outside_the_bounds_is_refused() -> None:
    with pytest.raises(ValueError):
        pace.WritePace(start=40, ceiling=32)


def test_a_climb_stopped_by_one_slow_window_is_tried_again() -> None:
    clock = Clock()
    p = pace.WritePace(clock=clock)
    slow_once = [True]

    def noisy(limit: int) -> float:
        """Throughput grows up to 24 outstanding; the first window at 10 is slow (another load for a moment)."""
        if limit == 10 and slow_once[0]:
            slow_once[0] = p._in_window < 9
            return 1.0
        return min(limit, 24) * 2.0

    seen = drive(p, clock, noisy, 600)
    assert not slow_once[0] and max(seen) >= 24

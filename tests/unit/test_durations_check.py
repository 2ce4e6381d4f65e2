"""The durations check of ``make test`` (tests/support/durations.py) flags a module at twice its baseline, and only
modules slow enough for the comparison to mean something."""

from __future__ import annotations

from tests.support.durations import FLOOR_S, slower


def test_a_module_at_twice_its_baseline_is_flagged_and_one_just_under_is_not() -> None:
    baseline = {"test_a.py": 20.0, "test_b.py": 20.0}
    now = {"test_a.py": 40.0, "test_b.py": 39.9}
    assert slower(now, baseline) == [("test_a.py", 40.0, 20.0)]


def test_short_modules_and_modules_without_a_baseline_are_not_flagged() -> None:
    baseline = {"test_tiny.py": 0.2, "test_small.py": 1.0}
    now = {"test_tiny.py": FLOOR_S - 0.1, "test_small.py": FLOOR_S, "test_new.py": 500.0}
    # tiny went 0.2 -> 4.9 s: under the floor; small went 1 -> 5 s: at the floor and 2x of the floor's half
    assert slower(now, baseline) == [("test_small.py", FLOOR_S, 1.0)]

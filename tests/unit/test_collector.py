"""The garbage collector is paused in one place: the loader and the planner never touch it (they are pure), the
library steps the commands call pause it around them and switch it back on (``reconciler.base.collector``)."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

from reconciler import manifests, operations, planner
from reconciler.base import collector
from reconciler.fleet import planning, rows
from tests.support.builders import cluster, live_topic, topic, want

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "platform"


@pytest.fixture
def switches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every gc.disable / gc.enable call made while the test runs, in order."""
    calls: list[str] = []
    disable, enable = gc.disable, gc.enable

    def recording_disable() -> None:
        calls.append("disable")
        disable()

    def recording_enable() -> None:
        calls.append("enable")
        enable()

    monkeypatch.setattr(gc, "disable", recording_disable)
    monkeypatch.setattr(gc, "enable", recording_enable)
    return calls


def test_the_planner_and_the_loader_leave_the_process_collector_alone(switches: list[str]) -> None:
    wanted = want(topics=[topic("orders", configs={"retention.ms": "1000"})])
    live = cluster(topics=[live_topic("orders")])
    first = planner.plan(wanted, live, assess_impact=False)
    planner.with_impact(first, wanted, live)
    planner.plan(wanted, live)
    manifests.load([EXAMPLES], env={})
    assert switches == []


def test_the_library_steps_pause_the_collector_while_they_plan_and_load(
    monkeypatch: pytest.MonkeyPatch, switches: list[str]
) -> None:
    seen: list[bool] = []
    plan, load = planner.plan, manifests.load

    def watched_plan(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return plan(*args, **kwargs)

    def watched_load(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return load(*args, **kwargs)

    monkeypatch.setattr(planner, "plan", watched_plan)
    monkeypatch.setattr(manifests, "load", watched_load)
    wanted = want(topics=[topic("orders")])
    operations.make_plan(wanted, cluster(topics=[]))
    operations.load_manifests([EXAMPLES], env={})
    planning.plan_joined("c", planning.hash_join(rows.desired_rows(wanted), rows.live_rows(cluster(topics=[]))))
    assert seen == [False, False, False]
    assert gc.isenabled() and switches == ["disable", "enable"] * 3


def test_a_pause_ends_with_its_step_however_it_ends(switches: list[str]) -> None:
    with pytest.raises(ValueError), collector.paused():
        assert not gc.isenabled()
        raise ValueError("the step failed")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled(), "a collector that was off stays off"
    finally:
        gc.enable()

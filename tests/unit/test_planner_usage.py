"""Planned topic deletes carry the usage evidence; a topic in use is blocked unless allowed."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from reconciler.model import payloads, plans
from reconciler.model import state as s
from reconciler.planner import PlanOptions, plan
from reconciler.snapshot import files
from tests.support.builders import cluster, live_topic, want

NOW = 1_795_000_000_000
HOUR = 3_600_000


def plan_delete(usage: s.TopicUsage | None, **options: object) -> plans.Change:
    live = dataclasses.replace(
        cluster(topics=[live_topic("team-old")]), topic_usage=None if usage is None else {"team-old": usage}
    )
    result = plan(want(own_topics=["team-"], delete=["topic"]), live, options=PlanOptions(**options))  # type: ignore[arg-type]
    [change] = result.changes
    return change


@pytest.mark.parametrize(
    ("usage", "options", "action", "first_reason"),
    [
        pytest.param(
            s.TopicUsage((10, 0, 2), NOW - 30 * 24 * HOUR, ("billing",), NOW),
            {},
            plans.Action.BLOCKED,
            "the topic is in use: consumer group(s) billing have committed offsets on it",
            id="group-with-offsets",
        ),
        pytest.param(
            s.TopicUsage((1, 0, 0), NOW - 2 * HOUR - 5000, (), NOW),
            {},
            plans.Action.BLOCKED,
            "the topic is in use: its latest record is 2h 5s old, within the in-use window of 7d",
            id="recent-record",
        ),
        pytest.param(
            s.TopicUsage((1, 0, 0), NOW - 2 * HOUR, (), NOW),
            {"in_use_window_ms": HOUR},
            plans.Action.DELETE,
            "not declared in the manifests; deletion is enabled for topics",
            id="record-older-than-the-window",
        ),
        pytest.param(
            s.TopicUsage((1, 0, 0), NOW - 2 * HOUR, (), NOW),
            {"in_use_window_ms": 0},
            plans.Action.DELETE,
            "not declared in the manifests; deletion is enabled for topics",
            id="window-off",
        ),
        pytest.param(
            s.TopicUsage((0, 0, 0), None, (), NOW),
            {},
            plans.Action.DELETE,
            "not declared in the manifests; deletion is enabled for topics",
            id="empty-and-unread",
        ),
        pytest.param(
            s.TopicUsage((10, 0, 2), NOW - HOUR, ("billing",), NOW),
            {"allow_delete_in_use": True},
            plans.Action.DELETE,
            "not declared in the manifests; deletion is enabled for topics",
            id="allowed",
        ),
    ],
)
def test_delete_of_a_topic_by_its_usage(
    usage: s.TopicUsage, options: dict[str, object], action: plans.Action, first_reason: str
) -> None:
    change = plan_delete(usage, **options)
    assert change.action is action
    assert change.reasons[0] == first_reason
    assert payloads.encode(change.before)["usage"] == usage.evidence()
    shown = change.reasons if action is plans.Action.BLOCKED else change.warnings
    assert any(line.startswith("evidence: end offsets ") for line in shown)


def test_the_evidence_names_groups_offsets_and_the_latest_record() -> None:
    usage = s.TopicUsage((10, 0, 2), 1_795_000_000_000 - 90_000, ("billing", "audit"), 1_795_000_000_000)
    change = plan_delete(usage, allow_delete_in_use=True)
    assert change.warnings[1:-1] == (
        "evidence: consumer group(s) with committed offsets on it: billing, audit",
        "evidence: end offsets 10, 0, 2 (sum 12)",
        "evidence: latest record written 2026-11-18T11:05:10Z, 1m 30s before the plan",
        "in use (consumer group(s) billing, audit have committed offsets on it; its latest record is 1m 30s old, "
        "within the in-use window of 7d), deleted anyway: --allow-deleting-topics-in-use",
    )


def test_a_delete_without_evidence_says_usage_was_not_checked() -> None:
    change = plan_delete(None)
    assert change.action is plans.Action.DELETE
    assert "whether the topic is in use was not checked (no usage evidence was read)" in change.warnings


def test_a_snapshot_keeps_the_evidence_so_an_offline_plan_shows_the_same(tmp_path: Path) -> None:
    usage = s.TopicUsage((3, 4), NOW - HOUR, ("billing",), NOW)
    live = dataclasses.replace(cluster(topics=[live_topic("team-old")]), topic_usage={"team-old": usage})
    files.write_snapshot(live, tmp_path / "live.json")
    again = files.read_snapshot(tmp_path / "live.json")
    assert again.topic_usage == {"team-old": usage}
    wanted = want(own_topics=["team-"], delete=["topic"])
    assert plan(wanted, again).to_json() == plan(wanted, live).to_json()

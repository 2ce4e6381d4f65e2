"""Impact in fleet plans: the live rows carry a snapshot's usage and impact evidence, and the fleet summary each plan's
figures."""

from __future__ import annotations

import dataclasses
import datetime
import json

from reconciler.fleet import planning, rows, summary
from tests.golden.impact import desired_state, impact_plan, live_state


def test_live_rows_carry_the_impact_evidence_so_the_fleet_plan_shows_the_same_figures() -> None:
    live = live_state()
    rebuilt = rows.rebuild_live(rows.live_rows(live))
    assert rebuilt.impact == live.impact
    joined = planning.hash_join(rows.desired_rows(desired_state()), rows.live_rows(live))
    outcome = planning.plan_joined("shop", joined)
    fleet_plan = outcome.plan()
    assert fleet_plan is not None and fleet_plan.impact is not None
    reference = impact_plan().impact
    assert reference is not None
    assert fleet_plan.impact == reference
    assert rebuilt.topic_usage == live.topic_usage  # the groups reading shop.events, named on its partition increase


def test_fleet_summary_carries_each_plans_impact_figures() -> None:
    p = impact_plan()
    digest = planning.PlanDigest.of(p, "abc")
    outcome = planning.ClusterOutcome(cluster="shop", status=planning.STATUS_PLANNED, digest=digest)
    run = summary.RunInfo("r1", datetime.datetime(2026, 11, 26, tzinfo=datetime.timezone.utc), "local")
    doc = summary.build_summary([outcome], run=run)
    [entry] = doc["clusters"]
    assert entry["impact"] == {
        "summary": (
            "Impact: deletes at most ~21 GB / 6,100,000 records at once across 3 topics; copies ~411 GB (suggested "
            "--replication-throttle 39000000); 1 topic's producers may fail (min ISR); per-key order changes on 1 "
            "topic; 1 other warning"
        ),
        "deletes_bytes": 21 * 10**9,
        "deletes_records": 6_100_000,
        "deletes_topics": 3,
        "copies_bytes": 411 * 10**9,
        "min_isr_topics": 1,
        "unknown": 0,
    }
    json.dumps(doc)  # the summary document stays plain JSON
    none = planning.PlanDigest.of(dataclasses.replace(p, impact=None), "abc")
    assert "impact" not in summary.build_summary([dataclasses.replace(outcome, digest=none)], run=run)["clusters"][0]

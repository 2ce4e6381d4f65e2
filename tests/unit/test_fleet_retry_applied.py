"""``fleet plan --retry-failed`` into the run's own folder plans again every cluster whose plan was applied since,
instead of keeping a plan that no longer describes the cluster (and that the next apply would refuse as stale).

On the snapshot fleet (eu-1 and us-1 planned, ap-1's snapshot missing). An apply of eu-1 is represented by the
files ``fleet apply`` leaves (its ``apply-report.json``, the run's ``apply-summary.json``); its snapshot is then
made to hold what the apply created. Applying real clusters and retrying is
tests/integration/test_fleet_apply.py.
"""

from __future__ import annotations

import json
from pathlib import Path

from reconciler.fleet import load_fleet, run_fleet_plan
from reconciler.snapshot import files
from tests.support.fleet import live_from


def changed_by_the_apply(fleet_dir: Path) -> None:
    """eu-1's snapshot after the apply: orders.shipped created, the retention set (something else drifted since)."""
    live = live_from(fleet_dir / "manifests", drop="payments.settled", extra_topic="orders.legacy", retention="1000")
    files.write_snapshot(live, fleet_dir / "eu.json")


def test_a_cluster_applied_since_the_run_is_planned_again(fleet_dir: Path) -> None:
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    out = fleet_dir / "out"
    first = run_fleet_plan(fleet, out_dir=out, env={})
    run_id = first.summary["run"]["id"]
    before = {c["name"]: c for c in first.summary["clusters"]}
    assert "orders.shipped" in {d["name"] for d in first.summary["drift"] if d["cluster"] == "eu-1"}
    (out / "eu-1" / "apply-report.json").write_text(json.dumps({"dry_run": False, "exit_code": 0}))
    changed_by_the_apply(fleet_dir)

    retried = run_fleet_plan(fleet, out_dir=out, env={}, retry_failed=out / "summary.json")

    after = {c["name"]: c for c in retried.summary["clusters"]}
    assert "planned_in_run" not in after["eu-1"]  # planned by this run, from the cluster as it is now
    assert after["eu-1"]["plan_checksum"] != before["eu-1"]["plan_checksum"]
    assert "orders.shipped" not in {d["name"] for d in retried.summary["drift"] if d["cluster"] == "eu-1"}
    assert after["us-1"]["planned_in_run"] == run_id  # not applied: its plan is carried over
    assert after["us-1"]["plan_checksum"] == before["us-1"]["plan_checksum"]
    assert not (out / "eu-1" / "apply-report.json").exists()  # about the plan replaced


def test_the_apply_summary_of_the_run_counts_too_and_a_dry_run_does_not(fleet_dir: Path) -> None:
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    out = fleet_dir / "out"
    run_id = run_fleet_plan(fleet, out_dir=out, env={}).summary["run"]["id"]
    (out / "eu-1" / "apply-report.json").write_text(json.dumps({"dry_run": True, "exit_code": 0}))
    (out / "apply-summary.json").write_text(
        json.dumps(
            {
                "format": "kafka-reconciler/fleet-apply",
                "plan_run": run_id,
                "dry_run": False,
                "clusters": [{"name": "us-1", "status": "partial"}, {"name": "eu-1", "status": "refused"}],
            }
        )
    )
    retried = run_fleet_plan(fleet, out_dir=out, env={}, retry_failed=out / "summary.json")
    after = {c["name"]: c for c in retried.summary["clusters"]}
    assert "planned_in_run" not in after["us-1"]  # partly applied: planned again
    assert after["eu-1"]["planned_in_run"] == run_id  # only validated, then refused: nothing written, kept

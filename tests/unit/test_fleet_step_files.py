"""Each step of a fleet folder owns its files: what a later step supersedes is removed, nothing else is touched.

Runs the local engine and ``fleet apply`` on the snapshot fleet (eu-1 and us-1 planned, ap-1's snapshot
missing; snapshot clusters are never applied, so nothing here reaches a network). An earlier apply's reports
are written as ``fleet apply`` writes them; applying real clusters is tests/integration/test_fleet_apply.py.
"""

from __future__ import annotations

import json
from pathlib import Path

from reconciler.fleet import load_fleet, run_fleet_plan
from reconciler.fleet.applying import run_fleet_apply


def earlier_report(out: Path, cluster: str, *, dry_run: bool) -> Path:
    path = out / cluster / "apply-report.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"format": "kafka-reconciler/apply-report", "dry_run": dry_run, "exit_code": 0}))
    return path


def test_an_apply_removes_the_report_an_earlier_apply_left_for_a_cluster_it_does_not_apply_now(
    fleet_dir: Path,
) -> None:
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    out = fleet_dir / "out"
    run_fleet_plan(fleet, out_dir=out, env={})
    dry = earlier_report(out, "eu-1", dry_run=True)  # "validated" by an earlier dry run
    result = run_fleet_apply(fleet, out_dir=out)
    assert {c.name: c.status for c in result.clusters}["eu-1"] == "not-applied"
    assert not dry.exists()  # it would say "validated" next to a summary saying "not-applied"
    doc = json.loads((out / "apply-summary.json").read_text())
    assert [c["report"] for c in doc["clusters"]] == [None, None, None]


def test_a_plan_run_removes_the_apply_files_of_the_run_it_replaces(fleet_dir: Path) -> None:
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    out = fleet_dir / "out"
    run_fleet_plan(fleet, out_dir=out, env={})
    run_fleet_apply(fleet, out_dir=out)
    assert (out / "apply-summary.json").is_file()
    reports = [earlier_report(out, name, dry_run=False) for name in ("eu-1", "us-1")]
    (out / "eu-1" / "notes.txt").write_text("kept\n")
    (out / "mine").mkdir()
    (out / "mine" / "apply-report.json").write_text("not a cluster of this fleet, still a cluster name\n")
    (out / "my files").mkdir()
    (out / "my files" / "apply-report.json").write_text("not a cluster name: never touched\n")

    again = run_fleet_plan(fleet, out_dir=out, env={})

    assert not (out / "apply-summary.json").exists()  # it named the plans of the run replaced
    assert not any(r.exists() for r in reports)
    assert not (out / "mine").exists()  # its only file was an apply report of a plan that is gone
    assert (out / "my files" / "apply-report.json").is_file() and (out / "eu-1" / "notes.txt").is_file()
    assert any("apply file(s)" in n for n in again.notes)


def test_a_retry_keeps_the_apply_reports_of_the_plans_it_carries_over(fleet_dir: Path) -> None:
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    out = fleet_dir / "out"
    run_fleet_plan(fleet, out_dir=out, env={})
    validated = earlier_report(out, "eu-1", dry_run=True)  # a dry run of eu-1's plan, which the retry keeps
    (out / "apply-summary.json").write_text('{"format": "kafka-reconciler/fleet-apply", "plan_run": "x"}\n')
    (fleet_dir / "ap.json").write_text((fleet_dir / "eu.json").read_text())

    retried = run_fleet_plan(fleet, out_dir=out, env={}, retry_failed=out / "summary.json")

    assert retried.summary["clusters_planned"] == 3
    assert validated.is_file()  # still about the plan in eu-1/plan.json
    assert not (out / "apply-summary.json").exists()  # about the run before the retry

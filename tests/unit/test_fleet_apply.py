"""Which plans of a fleet plan folder ``fleet apply`` takes: only the run's own, checked before any connection.

Runs the local engine on the snapshot fleet of ``test_fleet_run`` (eu-1 and us-1 drifted, ap-1's
snapshot missing). Snapshot clusters have no connection, so nothing here reaches a network: applying
real clusters is tests/integration/test_fleet_apply.py.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler.base import errors
from reconciler.cli import app
from reconciler.fleet import applying, load_fleet, run_fleet_plan


def test_only_the_plans_the_run_wrote_are_taken(fleet_dir: Path) -> None:
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    out = fleet_dir / "out"
    run = run_fleet_plan(fleet, out_dir=out, env={})
    other = run_fleet_plan(fleet, out_dir=fleet_dir / "other", env={})
    run_id = run.summary["run"]["id"]
    assert other.summary["run"]["id"] != run_id

    found, planned = applying.planned_clusters(fleet, out, run_id=run_id)
    assert found == run_id
    problems = {p.spec.name: p.problem for p in planned}
    assert "not planned in run" in str(problems["ap-1"]) and "unreadable" in str(problems["ap-1"])
    assert "snapshot" in str(problems["eu-1"])  # a valid plan, but nothing to connect to

    # a plan another run wrote for another live state, copied over this run's
    (fleet_dir / "eu.json").write_text((fleet_dir / "eu.json").read_text().replace('"1000"', '"5000"'))
    third = fleet_dir / "third"
    run_fleet_plan(fleet, out_dir=third, env={})
    shutil.copy(third / "eu-1" / "plan.json", out / "eu-1" / "plan.json")
    (out / "us-1" / "plan.json").unlink()
    problems = {p.spec.name: p.problem for p in applying.planned_clusters(fleet, out)[1]}
    assert f"is not the plan run {run_id} wrote" in str(problems["eu-1"])
    assert str(problems["us-1"]).endswith("plan.json is missing")
    assert all(p.plan is None for p in applying.planned_clusters(fleet, out)[1])


def test_a_folder_of_another_run_or_no_run_is_refused(fleet_dir: Path) -> None:
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    with pytest.raises(errors.ConfigError, match="not a fleet plan summary"):
        applying.planned_clusters(fleet, fleet_dir / "nothing")
    run_fleet_plan(fleet, out_dir=fleet_dir / "out", env={})
    with pytest.raises(errors.ConfigError, match="not 0123abcd: the folder was planned again"):
        applying.planned_clusters(fleet, fleet_dir / "out", run_id="0123abcd")


def test_nothing_applicable_is_a_partial_run_with_a_summary(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
    result = CliRunner().invoke(
        app, ["fleet", "apply", str(fleet_dir / "fleet.yaml"), "--plans", str(out), "--auto-approve"]
    )
    assert result.exit_code == 3, result.output
    assert "eu-1: NOT-APPLIED: planned from a snapshot" in result.output
    assert "Fleet apply: PARTIAL: 0 of 3 cluster(s)" in result.output
    doc = json.loads((out / "apply-summary.json").read_text())
    assert doc["status"] == "partial" and doc["plan_run"] == json.loads((out / "summary.json").read_text())["run"]["id"]
    assert {c["name"]: c["status"] for c in doc["clusters"]} == {
        "eu-1": "not-applied",
        "us-1": "not-applied",
        "ap-1": "not-applied",
    }
    assert not list(out.glob("*/apply-report.json"))


def test_the_apply_summary_follows_the_umask_like_the_plan_run_s_summary(fleet_dir: Path) -> None:
    """Regression: apply-summary.json was written 0600 like a plan, though nothing in it is secret."""
    out = fleet_dir / "out"
    run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
    before = os.umask(0o022)
    try:
        result = CliRunner().invoke(
            app, ["fleet", "apply", str(fleet_dir / "fleet.yaml"), "--plans", str(out), "--auto-approve"]
        )
    finally:
        os.umask(before)
    assert result.exit_code == 3, result.output
    assert stat.S_IMODE((out / "apply-summary.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((out / "eu-1" / "plan.json").stat().st_mode) == 0o600  # a plan stays user-only


def test_a_wrong_run_id_is_an_error_before_anything(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
    result = CliRunner().invoke(
        app, ["fleet", "apply", str(fleet_dir / "fleet.yaml"), "--plans", str(out), "--run", "feedbeef"]
    )
    assert result.exit_code == 1
    assert "is run" in result.output and "not feedbeef" in result.output
    assert not (out / "apply-summary.json").exists()

"""Run facts of a fleet plan: duration, the kind of a cluster that was not planned, file permissions,
``--retry-failed`` and the report's order.

Runs the local engine on the snapshot fleet of ``test_fleet_run`` (eu-1 and us-1 drifted, ap-1's
snapshot missing).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.fleet import applying, load_fleet, run_fleet_plan, summary


def test_the_duration_is_in_the_summary_and_every_parquet_row(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    result = run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
    seconds = json.loads((out / "summary.json").read_text())["run"]["duration_s"]
    assert 0 < seconds == result.seconds  # one duration, wherever it is shown
    for table in ("clusters.parquet", "drift.parquet"):
        assert {r["run_seconds"] for r in pq.read_table(out / table).to_pylist()} == {seconds}, table
    assert f"in {seconds:.1f} s." in (out / "report.md").read_text()
    assert f", {seconds:.1f} s (local engine)" in (out / "report.html").read_text()
    cli = CliRunner().invoke(app, ["fleet", "plan", str(fleet_dir / "fleet.yaml"), "--out", str(out), "-q"])
    again = json.loads((out / "summary.json").read_text())["run"]["duration_s"]
    assert f"in {again:.1f} s (local engine" in cli.output
    assert cli.output.splitlines()[-1].startswith(f"Report: {out / 'report.html'} (and {out / 'report.md'}")
    assert {r["run_seconds"] for r in pq.read_table(out / "clusters.parquet").to_pylist()} == {again}


def test_a_cluster_that_was_not_planned_has_a_kind_and_no_counts(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
    rows = pq.read_table(out / "clusters.parquet").to_pylist()
    assert all(r["kind"] is not None for r in rows)
    ap = [r for r in rows if r["cluster"] == "ap-1"]
    assert [(r["kind"], r["status"], r["create"]) for r in ap] == [(summary.NO_KIND, "unreadable", None)]
    kinds = {r["kind"] for r in rows if r["cluster"] != "ap-1"}
    assert summary.NO_KIND not in kinds and {"topic", "acl"} <= kinds  # planned clusters: their resource kinds


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_reports_and_summaries_follow_the_umask_and_plans_stay_user_only(fleet_dir: Path, umask: int) -> None:
    """Regression: summary.json, the reports and the Parquet tables were written 0600 like the plans, though nothing
    in them is secret; a report an earlier version wrote 0600 is replaced by one with the umask's permissions."""
    out = fleet_dir / "out"
    out.mkdir()
    (out / "report.html").write_text("written by an earlier version")
    (out / "report.html").chmod(0o600)
    before = os.umask(umask)
    try:
        run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
    finally:
        os.umask(before)
    assert stat.S_IMODE((out / "eu-1" / "plan.json").stat().st_mode) == 0o600  # a plan names every resource
    for name in ("summary.json", "report.md", "report.html", "clusters.parquet", "drift.parquet"):
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o666 & ~umask, name
    kept = list((out / "history").glob("*/*.parquet"))
    assert len(kept) == 2 and all(stat.S_IMODE(p.stat().st_mode) == 0o666 & ~umask for p in kept)
    assert "<!DOCTYPE html>" in (out / "report.html").read_text() and not list(out.glob(".*.tmp"))


def test_retry_failed_plans_only_the_clusters_the_run_could_not_plan(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    first = run_fleet_plan(fleet, out_dir=out, env={})
    assert {c.name: c.status for c in first.clusters}["ap-1"] == "unreadable"
    eu_plan = (out / "eu-1" / "plan.json").read_text()
    shutil.copy(fleet_dir / "eu.json", fleet_dir / "ap.json")  # ap-1 is back
    (fleet_dir / "eu.json").unlink()  # and eu-1 is down now: not read again, so its plan stays

    result = CliRunner().invoke(
        app,
        [
            "fleet",
            "plan",
            str(fleet_dir / "fleet.yaml"),
            "--out",
            str(out),
            "--retry-failed",
            str(out / "summary.json"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "retrying 1 cluster(s)" in result.output and "2 cluster(s) planned by run" in result.output
    doc = json.loads((out / "summary.json").read_text())
    first_id = first.summary["run"]["id"]
    assert doc["retry_of"] == first_id and doc["status"] == "complete" and doc["clusters_planned"] == 3
    entries = {c["name"]: c for c in doc["clusters"]}
    assert entries["eu-1"]["planned_in_run"] == first_id and "planned_in_run" not in entries["ap-1"]
    assert entries["eu-1"]["counts"] == next(c for c in first.summary["clusters"] if c["name"] == "eu-1")["counts"]
    assert (out / "eu-1" / "plan.json").read_text() == eu_plan
    drift = {r["cluster"] for r in pq.read_table(out / "drift.parquet").to_pylist()}
    assert drift == {"eu-1", "us-1", "ap-1"}  # carried clusters keep their drift rows
    # the retried folder is one run again: fleet apply takes every plan in it
    problems = {p.spec.name: p.problem for p in applying.planned_clusters(fleet, out)[1]}
    assert all("snapshot" in str(v) for v in problems.values()), problems

    elsewhere = fleet_dir / "retry"
    again = run_fleet_plan(fleet, out_dir=elsewhere, env={}, retry_failed=out / "summary.json")
    assert [c.name for c in again.clusters] == [] and not list(elsewhere.glob("*/plan.json"))


def test_report_lists_clusters_most_drifted_first(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    result = run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
    report = (out / "report.md").read_text()
    order = sorted(
        (c for c in result.summary["clusters"] if c.get("counts")),
        key=lambda c: -sum(c["counts"][a] for a in ("create", "update", "delete", "blocked")),
    )
    positions = [report.index(f"| {c['name']} | planned |") for c in order]
    assert positions == sorted(positions)
    assert report.index("| ap-1 | unreadable |") > positions[-1]

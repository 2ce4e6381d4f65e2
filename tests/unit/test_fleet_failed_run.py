"""A fleet run whose engine fails (Spark cannot start before the deadline) still leaves its summary, its reports
and its history entry, saying that it failed and why, and exits 1; it removes nothing the last successful run wrote
(plans, apply reports).

Runs on the snapshot fleet (eu-1, us-1, ap-1 whose snapshot is missing). The Spark engine's start is replaced
by one that fails the way a start past the deadline does, so no JVM is involved here; the real start past a
deadline is tests/tooling/test_fleet_spark_deadline.py.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from reconciler.base import errors
from reconciler.cli import app
from reconciler.fleet import history, load_fleet, run_fleet_plan
from reconciler.fleet import spark as spark_engine
from reconciler.fleet.runner import FleetRunFailed

TOO_LATE = "could not start Spark on local[1] before the run's deadline (--deadline) passed; no cluster was planned"


@pytest.fixture
def spark_cannot_start(monkeypatch: pytest.MonkeyPatch) -> None:
    def session(master: str | None = None, **_: Any) -> Any:
        raise errors.ConfigError(TOO_LATE)

    monkeypatch.setattr(spark_engine, "session", session)


@pytest.mark.usefixtures("spark_cannot_start")
def test_a_run_that_cannot_start_spark_leaves_a_failed_summary_and_a_history_entry(fleet_dir: Path) -> None:
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    out = fleet_dir / "out"
    first = run_fleet_plan(fleet, out_dir=out, env={})  # a good night first, on the local engine
    good_plans = {name: (out / name / "plan.json").read_bytes() for name in ("eu-1", "us-1")}

    with pytest.raises(FleetRunFailed) as failed:
        run_fleet_plan(fleet, out_dir=out, env={}, engine="spark", master="local[1]", deadline_s=1)
    assert str(failed.value).startswith(TOO_LATE) and str(out / "summary.json") in str(failed.value)

    doc = json.loads((out / "summary.json").read_text())
    assert doc["status"] == "failed" and doc["error"] == TOO_LATE and doc["run"]["id"] != first.summary["run"]["id"]
    assert doc["clusters_planned"] == 0 and doc["clusters_total"] == 3
    assert {c["status"] for c in doc["clusters"]} == {"failed"}
    assert all(c["reason"] == f"not planned: the run failed: {TOO_LATE}" for c in doc["clusters"])
    # Regression: the failed run removed the good night's plans ("removed 2 plan file(s)") before recording itself.
    assert {name: (out / name / "plan.json").read_bytes() for name in good_plans} == good_plans
    assert doc["stale_plans_removed"] == []
    assert any(n.startswith("kept 2 plan file(s) an earlier run wrote") for n in failed.value.result.notes)
    assert f"FAILED: {TOO_LATE}" in (out / "report.md").read_text()
    assert html.escape(f"FAILED: {TOO_LATE}") in (out / "report.html").read_text()
    rows = pq.read_table(out / "clusters.parquet").to_pylist()
    assert {(r["run_status"], r["status"]) for r in rows} == {("failed", "failed")}

    trend = history.trend(out)
    assert trend is not None and [r.status for r in trend.runs] == ["partial", "failed"]
    assert trend.runs[-1].run_id == doc["run"]["id"] and trend.runs[-1].planned == 0


@pytest.mark.usefixtures("spark_cannot_start")
def test_the_cli_exits_1_and_says_where_the_failed_run_is_recorded(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    cli = CliRunner().invoke(
        app, ["fleet", "plan", str(fleet_dir / "fleet.yaml"), "--out", str(out), "-q", "--engine", "spark"]
    )
    assert cli.exit_code == 1
    assert f"error: {TOO_LATE}; the failed run is recorded in {out / 'summary.json'}" in cli.output
    assert json.loads((out / "summary.json").read_text())["status"] == "failed"


def test_bad_input_still_writes_nothing(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    cli = CliRunner().invoke(
        app, ["fleet", "plan", str(fleet_dir / "fleet.yaml"), "--out", str(out), "--retry-failed", str(fleet_dir)]
    )
    assert cli.exit_code == 1 and "--retry-failed" in cli.output
    assert not (out / "summary.json").exists()


@pytest.mark.usefixtures("spark_cannot_start")
def test_a_failed_run_keeps_the_apply_reports_of_the_last_good_run(fleet_dir: Path) -> None:
    """The apply files of the last successful run describe plans the failed run keeps: they stay too."""
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    out = fleet_dir / "out"
    run_fleet_plan(fleet, out_dir=out, env={})
    reports = {out / "apply-summary.json": '{"run": "earlier"}', out / "eu-1" / "apply-report.json": '{"a": 1}'}
    for path, text in reports.items():
        path.write_text(text)
    with pytest.raises(FleetRunFailed):
        run_fleet_plan(fleet, out_dir=out, env={}, engine="spark", master="local[1]", deadline_s=1)
    assert {path: path.read_text() for path in reports} == reports
    run_fleet_plan(fleet, out_dir=out, env={})  # a successful run supersedes them, as before
    assert not any(path.exists() for path in reports)

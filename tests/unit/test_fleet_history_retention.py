"""``--keep-history``: history/ pruned to the last N runs or to the last N days, the newest run always kept.

Runs the local engine on the snapshot fleet; history folders from earlier days are made by renaming a run's
folder to an older UTC time (the folder name is the time the run ended).
"""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler.base import errors
from reconciler.cli import app
from reconciler.fleet import history, load_fleet, run_fleet_plan


def runs(out: Path) -> list[str]:
    return sorted(p.name for p in (out / "history").iterdir())


def test_keep_the_last_runs(fleet_dir: Path) -> None:
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    out = fleet_dir / "out"
    ids = [run_fleet_plan(fleet, out_dir=out, env={}).summary["run"]["id"] for _ in range(4)]
    (out / "history" / "notes").mkdir()  # not named like a run: never touched
    assert len(runs(out)) == 5

    last = run_fleet_plan(fleet, out_dir=out, env={}, keep_history=history.Retention(runs=2))

    kept = [n for n in runs(out) if n != "notes"]
    assert [n.split("-", 1)[1] for n in kept] == [ids[-1], last.summary["run"]["id"]]
    assert "notes" in runs(out)
    assert any("removed 3 run(s) from" in n and "kept the last 2 run(s)" in n for n in last.notes)
    trend = history.trend(out)
    assert trend is not None and [r.run_id for r in trend.runs] == [ids[-1], last.summary["run"]["id"]]


def test_keep_the_runs_of_the_last_days_and_always_the_newest(fleet_dir: Path) -> None:
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    out = fleet_dir / "out"
    now = datetime.datetime.now(datetime.timezone.utc)
    for days_ago in (40, 10, 2):
        run_id = run_fleet_plan(fleet, out_dir=out, env={}).summary["run"]["id"]
        newest = max((out / "history").iterdir())
        stamp = (now - datetime.timedelta(days=days_ago)).strftime("%Y%m%dT%H%M%S%fZ")
        newest.rename(out / "history" / f"{stamp}-{run_id}")
    before = runs(out)
    assert history.prune(out, history.Retention(days=1)) == before[:2]  # the newest run stays, however old
    assert len(runs(out)) == 1

    cli = CliRunner().invoke(
        app, ["fleet", "plan", str(fleet_dir / "fleet.yaml"), "--out", str(out), "-q", "--keep-history", "1d"]
    )
    assert cli.exit_code == 3, cli.output  # ap-1 is missing: partial
    assert len(runs(out)) == 1 and "removed 1 run(s)" in cli.output  # the run 2 days old went, this one stays


@pytest.mark.parametrize("text", ["0", "-3", "3w", "d", "", "1.5"])
def test_a_bad_retention_is_refused_before_anything_is_written(fleet_dir: Path, text: str) -> None:
    with pytest.raises(errors.ConfigError, match="number of runs"):
        history.Retention.parse(text)
    cli = CliRunner().invoke(
        app, ["fleet", "plan", str(fleet_dir / "fleet.yaml"), "--out", str(fleet_dir / "out"), "--keep-history", text]
    )
    assert cli.exit_code == 1 and "--keep-history" in cli.output and not (fleet_dir / "out").exists()


def test_retention_parses_runs_and_days() -> None:
    assert history.Retention.parse("30") == history.Retention(runs=30)
    assert history.Retention.parse(" 14D ") == history.Retention(days=14)

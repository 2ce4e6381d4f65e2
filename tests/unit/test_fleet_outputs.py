"""What a fleet run leaves for the next one: stale plans removed, run metadata in every row, exit codes, options.

Runs the local engine on the snapshot fleet of ``test_fleet_run`` (eu-1 and us-1 drifted, ap-1's
snapshot missing) and the CLI on the same files.
"""

from __future__ import annotations

import datetime
import json
import shutil
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from reconciler.base import errors
from reconciler.cli import app
from reconciler.fleet import load_fleet, local, planning, run_fleet_plan, select_clusters, sources
from reconciler.model import desired as d


def test_a_reused_output_folder_keeps_no_plan_of_a_cluster_that_was_not_planned(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    shutil.copy(fleet_dir / "eu.json", fleet_dir / "ap.json")
    first = run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
    assert not first.partial and (out / "ap-1" / "plan.json").is_file()
    (out / "eu-1" / "notes.txt").write_text("kept\n")  # not ours: never touched
    (out / "ap-1" / "notes.txt").write_text("kept\n")

    (fleet_dir / "ap.json").unlink()  # ap-1 becomes unreadable
    second = run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})

    assert second.partial
    assert not (out / "ap-1" / "plan.json").exists()
    assert (out / "ap-1" / "notes.txt").read_text() == "kept\n" and (out / "eu-1" / "notes.txt").is_file()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stale_plans_removed"] == ["ap-1"]
    assert any("removed 1 plan file(s)" in n for n in second.notes)

    subset = select_clusters(load_fleet(fleet_dir / "fleet.yaml", env={}), ["us-1"])
    run_fleet_plan(subset, out_dir=out, env={})  # the folder now holds exactly this run's plans
    assert sorted(p.parent.name for p in out.glob("*/plan.json")) == ["us-1"]
    assert (out / "eu-1" / "notes.txt").is_file()


def test_a_folder_that_no_fleet_run_wrote_is_left_alone(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    (out / "other").mkdir(parents=True)
    (out / "other" / "plan.json").write_text("{}")
    run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
    assert (out / "other" / "plan.json").read_text() == "{}"


def test_every_parquet_row_names_the_run_engine_cluster_and_plan(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    result = run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
    run = result.summary["run"]
    assert run["engine"] == "local" and len(run["id"]) == 32
    started = datetime.datetime.fromisoformat(run["started_at"])
    assert started.utcoffset() == datetime.timedelta(0) and before <= started <= before + datetime.timedelta(60)
    plans = {name: json.loads((out / name / "plan.json").read_text()) for name in ("eu-1", "us-1")}
    for table in ("clusters.parquet", "drift.parquet"):
        records = pq.read_table(out / table).to_pylist()
        assert records, table
        for r in records:
            assert (r["run_id"], r["engine"], r["run_at"]) == (run["id"], "local", started), table
            if r["cluster"] in plans:
                plan = plans[r["cluster"]]
                assert (r["cluster_id"], r["plan_checksum"]) == (plan["cluster"]["cluster_id"], plan["checksum"])
            else:
                assert (r["cluster"], r["cluster_id"], r["plan_checksum"]) == ("ap-1", None, None)
    assert f"Run `{run['id']}`" in (out / "report.md").read_text()


def test_exit_status_and_summary_show_partial_and_changes_together(fleet_dir: Path) -> None:
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    partial = run_fleet_plan(fleet, out_dir=fleet_dir / "a", env={})
    assert (partial.exit_code, partial.detailed_exit_code) == (3, 4)
    assert (partial.summary["status"], partial.summary["changes"]) == ("partial", True)
    assert "PARTIAL: some clusters could not be planned; changes present" in (fleet_dir / "a" / "report.md").read_text()
    complete = run_fleet_plan(select_clusters(fleet, ["eu-1"]), out_dir=fleet_dir / "b", env={})
    assert (complete.exit_code, complete.detailed_exit_code) == (0, 2)
    assert (complete.summary["status"], complete.summary["changes"]) == ("complete", True)


def test_unknown_cluster_names_are_refused(fleet_dir: Path) -> None:
    with pytest.raises(errors.ConfigError, match=r"not in .*fleet\.yaml: mars-1, venus-2"):
        select_clusters(load_fleet(fleet_dir / "fleet.yaml", env={}), ["eu-1", "mars-1", "venus-2"])


def test_clusters_not_read_before_the_deadline_are_skipped(tmp_path: Path) -> None:
    wanted = d.DesiredState(topics={"orders": d.DesiredTopic("orders", 1, 1)})
    desired_sets = {"m": sources.DesiredSet("m", wanted, {})}
    tasks = [sources.ClusterTask(name=f"c{i}", desired_key="m", bootstrap="127.0.0.1:1") for i in range(3)]
    got = list(local.run_local(tasks, desired_sets, deadline_at=time.time() - 1))
    assert [(o.cluster, o.status) for o in got] == [("c0", "skipped"), ("c1", "skipped"), ("c2", "skipped")]
    assert "deadline" in str(got[0].reason)
    bounded = sources.within_deadline(tasks[0], time.time() + 5)
    assert bounded is not None and bounded.deadline_at is not None
    assert planning.skipped("x").status == planning.STATUS_SKIPPED


runner = CliRunner()


def test_cli_options_subset_detailed_exit_codes_and_bad_conf(fleet_dir: Path) -> None:
    fleet, out = str(fleet_dir / "fleet.yaml"), str(fleet_dir / "out")
    both = runner.invoke(app, ["fleet", "plan", fleet, "--out", out, "--quiet", "--detailed-exitcode"])
    assert both.exit_code == 4, both.output
    assert "Fleet: PARTIAL, changes present: 2 of 3 cluster(s) planned" in both.output
    subset = runner.invoke(
        app,
        ["fleet", "plan", fleet, "--out", out, "-q", "--detailed-exitcode", "--clusters", "us-1, eu-1"],
    )
    assert subset.exit_code == 2, subset.output
    assert json.loads((fleet_dir / "out" / "summary.json").read_text())["clusters_total"] == 2
    plain = runner.invoke(app, ["fleet", "plan", fleet, "--out", out, "-q", "--read-concurrency", "1"])
    assert plain.exit_code == 3, plain.output
    unknown = runner.invoke(app, ["fleet", "plan", fleet, "--out", out, "-q", "--clusters", "mars-1"])
    assert unknown.exit_code == 1 and "mars-1" in unknown.output
    conf = runner.invoke(app, ["fleet", "plan", fleet, "-q", "--engine", "spark", "--conf", "spark.executor.memory"])
    assert conf.exit_code == 1 and "expected key=value" in conf.output
    local_conf = runner.invoke(app, ["fleet", "plan", fleet, "-q", "--conf", "spark.executor.memory=1g"])
    assert local_conf.exit_code == 1 and "--conf need --engine spark" in local_conf.output

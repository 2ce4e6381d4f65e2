"""Spark engine parity: on generated fleets, Spark's plan of each cluster equals the local engine's and the planner's.

One SparkSession (``local[2]``, 2 shuffle partitions, no UI) is shared by the module; the examples
are few because each one is a Spark job of a second or more.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import venv
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from reconciler.fleet import load_fleet, local, planning, rows, run_fleet_plan, sources
from reconciler.fleet import spark as spark_engine
from reconciler.model import desired as d
from reconciler.model import state as s
from reconciler.snapshot import files
from tests.support.fleet import fleet_inputs, fleets

pytestmark = [pytest.mark.spark, pytest.mark.slow]


@pytest.fixture(scope="module")  # stopped before other modules start their own: a process has one SparkContext
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark", reason="the spark extra is not installed (pip install -e '.[spark]')")
    session = spark_engine.session(
        "local[2]", conf={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"}
    )
    yield session
    session.stop()


def without_run(summary: Mapping[str, Any]) -> dict[str, Any]:
    """A summary without what differs from run to run (its id, start time and engine)."""
    return {k: v for k, v in summary.items() if k not in ("run", "engine")}


def without_run_line(report: Path) -> str:
    return "\n".join(line for line in report.read_text().splitlines() if not line.startswith("Run `"))


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(pairs=fleets)
def test_spark_plans_each_cluster_like_the_local_engine_and_the_planner(
    pairs: list[tuple[d.DesiredState, s.ClusterState]], spark: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    tasks, desired_sets, expected = fleet_inputs(pairs, tmp_path_factory.mktemp("fleet"))
    on_spark = {o.cluster: o for o in spark_engine.run_spark(tasks, desired_sets, spark=spark)}
    in_process = {o.cluster: o for o in local.run_local(tasks, desired_sets)}
    assert {name: o.plan_json for name, o in on_spark.items()} == expected
    assert on_spark == in_process  # drift records and row counts too


def test_unreadable_cluster_is_reported_and_the_others_are_planned(spark: Any, tmp_path: Path) -> None:
    wanted = d.DesiredState(topics={"orders": d.DesiredTopic("orders", 1, 1)})
    live = s.ClusterState(cluster_id="c", controller_id=1, brokers=(s.Broker(1, "b1", 9092),), topics={})
    files.write_snapshot(live, tmp_path / "ok.json")
    desired_sets = {"m": sources.DesiredSet("m", wanted, {})}
    tasks = [
        sources.ClusterTask(name="ok", desired_key="m", snapshot=str(tmp_path / "ok.json")),
        sources.ClusterTask(name="down", desired_key="m", bootstrap="127.0.0.1:1", request_timeout_ms=2000),
    ]
    got = {o.cluster: o for o in spark_engine.run_spark(tasks, desired_sets, spark=spark)}
    assert got["ok"].status == planning.STATUS_PLANNED
    plan = got["ok"].plan()
    assert plan is not None and [c.address for c in plan.changes] == ["topic/orders"]
    assert got["down"].status == planning.STATUS_UNREADABLE
    assert "127.0.0.1:1" in str(got["down"].reason)
    assert rows.ERROR not in str(got["down"].plan_json)


def test_fleet_run_on_spark_writes_the_same_files_as_the_local_engine(spark: Any, fleet_dir: Path) -> None:
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    on_local = run_fleet_plan(fleet, engine="local", out_dir=fleet_dir / "local", env={})
    on_spark = run_fleet_plan(fleet, engine="spark", spark_session=spark, out_dir=fleet_dir / "spark", env={})
    for cluster in ("eu-1", "us-1"):
        assert (fleet_dir / "spark" / cluster / "plan.json").read_bytes() == (
            fleet_dir / "local" / cluster / "plan.json"
        ).read_bytes()
    assert without_run(on_spark.summary) == without_run(on_local.summary)
    assert [(c.name, c.status, c.reason) for c in on_spark.clusters] == [
        (c.name, c.status, c.reason) for c in on_local.clusters
    ]
    assert on_spark.exit_code == 3
    assert without_run_line(fleet_dir / "spark" / "report.md").replace(
        "engine: spark", "engine: local"
    ) == without_run_line(fleet_dir / "local" / "report.md")


def test_an_executor_python_without_the_package_is_named_with_the_setting_to_change(
    fleet_dir: Path,
    tmp_path: Path,
) -> None:
    bare = tmp_path / "bare"
    venv.create(bare, with_pip=False)  # a Python without this package or its dependencies
    python = bare / "bin" / "python"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    command = [sys.executable, "-m", "reconciler", "fleet", "plan", str(fleet_dir / "fleet.yaml"), "-q"]
    command += ["--engine", "spark", "--master", "local[1]", "--conf", f"spark.pyspark.python={python}"]
    command += ["--out", str(tmp_path / "out")]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(scratch)},
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert f"ran {python}" in done.stderr and "ModuleNotFoundError: No module named" in done.stderr
    assert "--conf spark.pyspark.python=" in done.stderr and "internal error" not in done.stderr
    assert not (tmp_path / "out" / "eu-1").exists()
    assert not list(scratch.glob("kafka-reconciler-spark-*"))  # the log4j2 folder is not left behind


_WITHOUT_PANDAS = """\
import sys
from importlib.machinery import PathFinder


class _Absent(PathFinder):
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.partition(".")[0] in ("pandas", "numpy"):
            return None
        return PathFinder.find_spec(name, path, target)


sys.meta_path[:] = [_Absent if finder is PathFinder else finder for finder in sys.meta_path]
"""


def test_the_spark_engine_plans_without_pandas_or_numpy(fleet_dir: Path, tmp_path: Path) -> None:
    """The spark extra does not install pandas or numpy: a fleet plan on Spark, with both absent from the driver's
    and the executors' Python (as if not installed), writes the local engine's plans."""
    blocker = tmp_path / "refuse"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(_WITHOUT_PANDAS, encoding="utf-8")
    python = tmp_path / "python-without-pandas"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{blocker}:$PYTHONPATH" exec {sys.executable} "$@"\n', encoding="utf-8")
    python.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(blocker)}
    absent = subprocess.run([str(python), "-c", "import numpy"], capture_output=True, text=True, env=env, check=False)
    assert "No module named 'numpy'" in absent.stderr  # installed in this venv, yet not found
    command = [sys.executable, "-m", "reconciler", "fleet", "plan", str(fleet_dir / "fleet.yaml"), "-q"]
    command += ["--engine", "spark", "--master", "local[1]", "--conf", f"spark.pyspark.python={python}"]
    command += ["--out", str(tmp_path / "spark")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env, check=False)
    assert done.returncode == 3, done.stderr  # drift in eu-1 and us-1, ap-1's snapshot missing
    assert "No module named" not in done.stdout + done.stderr
    on_local = run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), engine="local", out_dir=tmp_path / "local")
    assert on_local.exit_code == 3
    for cluster in ("eu-1", "us-1"):
        assert (tmp_path / "spark" / cluster / "plan.json").read_bytes() == (
            tmp_path / "local" / cluster / "plan.json"
        ).read_bytes()


def test_read_concurrency_and_deadline_on_spark(spark: Any, tmp_path: Path) -> None:
    wanted = d.DesiredState(topics={"orders": d.DesiredTopic("orders", 1, 1)})
    live = s.ClusterState(cluster_id="c", controller_id=1, brokers=(s.Broker(1, "b1", 9092),), topics={})
    files.write_snapshot(live, tmp_path / "c.json")
    desired_sets = {"m": sources.DesiredSet("m", wanted, {})}
    tasks = [sources.ClusterTask(name=f"c{i}", desired_key="m", snapshot=str(tmp_path / "c.json")) for i in range(4)]
    progress: list[tuple[int, int]] = []
    one_task = spark_engine.run_spark(
        tasks, desired_sets, spark=spark, max_parallel=1, on_progress=lambda done, total: progress.append((done, total))
    )
    assert [(o.cluster, o.status) for o in one_task] == [(f"c{i}", "planned") for i in range(4)]
    assert progress[-1] == (1, 1)  # one task planned all four
    late = spark_engine.run_spark(tasks, desired_sets, spark=spark, deadline_at=time.time() - 1)
    assert [(o.cluster, o.status) for o in late] == [(f"c{i}", "skipped") for i in range(4)]

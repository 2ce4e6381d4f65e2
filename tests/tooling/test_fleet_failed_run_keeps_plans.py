"""A fleet plan run that fails (a master URL Spark rejects) keeps what the last successful run wrote.

Run as a user runs it, in subprocesses: a good run on the local engine, then the same fleet with
``--engine spark --master nosuch://spark-master`` (the JVM exits at once). Before the fix the failed run printed
"removed 1 plan file(s) an earlier run left for clusters not planned now" and the good run's plan was gone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fleet import EXAMPLES, live_from, write_snapshot

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.timeout(600)]


def test_a_run_failing_on_a_rejected_spark_master_keeps_the_last_good_plan(tmp_path: Path) -> None:
    pytest.importorskip("pyspark", reason="the spark extra is not installed (pip install -e '.[spark]')")
    write_snapshot(live_from(EXAMPLES, drop="orders.shipped", extra_topic="x.old", retention="1"), tmp_path / "eu.json")
    (tmp_path / "fleet.yaml").write_text(f"clusters:\n  - {{name: eu-1, manifests: {EXAMPLES}, snapshot: eu.json}}\n")
    command = [sys.executable, "-m", "reconciler", "fleet", "plan", "fleet.yaml", "-q", "--out", "out"]
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "TMPDIR": str(temporary)}

    def fleet_plan(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command, *extra], capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env, check=False
        )

    good = fleet_plan()
    assert good.returncode in (0, 2), good.stderr  # planned (2: with changes)
    plan = tmp_path / "out" / "eu-1" / "plan.json"
    written = plan.read_bytes()

    failed = fleet_plan("--engine", "spark", "--master", "nosuch://spark-master")
    assert failed.returncode == 1, failed.stderr
    assert "Master must either be yarn or start with spark, k8s, or local" in failed.stderr
    assert "removed" not in failed.stderr, failed.stderr
    assert "kept 1 plan file(s) an earlier run wrote for clusters this failed run did not plan (eu-1)" in (
        failed.stderr
    )
    assert plan.read_bytes() == written

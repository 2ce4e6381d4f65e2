"""The fleet run's deadline covers Spark's own start: a deadline too short for it ends the run in time.

Regression: ``fleet plan --engine spark --deadline 30`` took 296 s, because the deadline was only checked once
the job ran: starting the session and the executor check waited as long as Spark took. A local master cannot
start its JVM within 1 s; the run must end soon after that second with exit 1 and a message saying what it
could not do before the deadline, having planned nothing, and leave the failed run on record.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.fleet import EXAMPLES, live_from, write_snapshot

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.timeout(300)]
SLACK_S = 15.0  # interpreter start-up and PySpark's import on a loaded machine (the JVM launch is ended)


def test_a_deadline_shorter_than_spark_start_ends_the_run_in_time(tmp_path: Path) -> None:
    pytest.importorskip("pyspark", reason="the spark extra is not installed (pip install -e '.[spark]')")
    live = live_from(EXAMPLES, drop="orders.shipped", extra_topic="orders.old", retention="1000")
    write_snapshot(live, tmp_path / "eu.json")
    (tmp_path / "fleet.yaml").write_text(f"clusters:\n  - {{name: eu-1, manifests: {EXAMPLES}, snapshot: eu.json}}\n")
    command = [sys.executable, "-m", "reconciler", "fleet", "plan", str(tmp_path / "fleet.yaml"), "-q"]
    command += ["--engine", "spark", "--master", "local[1]", "--deadline", "1", "--out", str(tmp_path / "out")]
    temporary = tmp_path / "tmp"  # the command's temporary folder, where Spark's log would be
    temporary.mkdir()
    started = time.monotonic()
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(temporary)},
        check=False,
    )
    took = time.monotonic() - started
    print(f"\nfleet plan --engine spark --deadline 1: exit {done.returncode} after {took:.1f}s")
    assert done.returncode == 1, done.stderr
    assert took < 1 + SLACK_S
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    out = tmp_path / "out"
    assert errors == [
        "error: could not start Spark on local[1] before the run's deadline (--deadline) passed; no cluster was "
        "planned: allow a longer deadline, or check the Spark master and its free executors; the failed run is "
        f"recorded in {out / 'summary.json'}"
    ], done.stderr
    assert not (out / "eu-1").exists()
    assert not list(temporary.glob("kafka-reconciler-spark-*"))  # the JVM was ended: no log of it is left
    # the failed run is on record: its summary, its reports and its history entry say what happened
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "failed" and summary["error"].startswith("could not start Spark on local[1]")
    assert [(c["name"], c["status"]) for c in summary["clusters"]] == [("eu-1", "failed")]
    assert "FAILED: could not start Spark" in (out / "report.md").read_text()
    assert [p.name.endswith(summary["run"]["id"]) for p in (out / "history").iterdir()] == [True]

"""A Spark that cannot start is told in one line: the cause and the path of Spark's log, not the JVM's stack traces.

``fleet plan --engine spark`` run as a user runs it, in a subprocess, with a master URL Spark rejects (the JVM
exits at once: ``Master must either be yarn or start with spark, k8s, or local``). Before the fix stderr held
Spark's log lines and 68 to 102 Java stack frames, then a cause that said nothing (``Java gateway process exited``,
``An error occurred while calling None.org.apache.spark.sql.classic.SparkSession``). A standalone master that is not
there (a closed port, and a host name that does not resolve) is found before Spark is started, where Spark itself
retries three times, 20 s apart, then gives up with "All masters are unresponsive": one line naming the address and
why, and no JVM started (no Spark log folder made).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fleet import EXAMPLES, live_from, write_snapshot

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port bound for the whole test but never listening: a connection to it is refused, and no process started
    meanwhile (a broker of the other share, another test's worker) can take it and answer Spark with its own bytes."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield int(held.getsockname()[1])


def _fleet_plan(tmp_path: Path, master: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``fleet plan --engine spark --master master`` over one snapshot, as a user runs it; and its temporary folder."""
    pytest.importorskip("pyspark", reason="the spark extra is not installed (pip install -e '.[spark]')")
    write_snapshot(live_from(EXAMPLES, drop="orders.shipped", extra_topic="x.old", retention="1"), tmp_path / "eu.json")
    (tmp_path / "fleet.yaml").write_text(f"clusters:\n  - {{name: eu-1, manifests: {EXAMPLES}, snapshot: eu.json}}\n")
    command = [sys.executable, "-m", "reconciler", "fleet", "plan", "fleet.yaml", "-q", "--engine", "spark"]
    command += ["--master", master, "--out", "out"]
    # the driver's address given, as docs/fleet.md advises for a remote master (else Spark warns about its pick);
    # the command's temporary folder inside the test's, where the log is kept
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "TMPDIR": str(temporary)}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env, check=False)
    return done, temporary


def test_a_master_url_spark_rejects_prints_one_line_with_the_cause_and_the_log(tmp_path: Path) -> None:
    master = "nosuch://spark-master"
    done, temporary = _fleet_plan(tmp_path, master)

    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr  # no Spark log line, no stack frame, no JVM notice
    line = lines[0]
    cause = "Master must either be yarn or start with spark, k8s, or local"
    assert line.startswith(f"error: cannot start Spark on {master}: {cause}"), line
    assert "(Spark's log: " in line and "the failed run is recorded in" in line, line
    log = Path(line.split("(Spark's log: ", 1)[1].split(")", 1)[0])
    assert log.parent.parent == temporary and log.parent.name.startswith("kafka-reconciler-spark-"), log
    kept = log.read_text()
    assert "\tat org.apache.spark." in kept  # the stack traces are in the log, for whoever needs them
    assert cause in kept


@pytest.mark.parametrize(
    ("where", "why"),
    [("127.0.0.1:{closed_port}", "connection refused"), ("no-such-host.invalid:7077", "does not resolve")],
    ids=["closed-port", "unknown-host"],
)
def test_a_standalone_master_that_is_not_there_is_named_before_spark_starts(
    tmp_path: Path, closed_port: int, where: str, why: str
) -> None:
    where = where.format(closed_port=closed_port)
    master = f"spark://{where}"
    done, temporary = _fleet_plan(tmp_path, master)

    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    line = lines[0]
    assert line.startswith(f"error: cannot start Spark on {master}: no Spark master answers at {where} ("), line
    assert why in line and "nothing was started" in line and "the failed run is recorded in" in line, line
    assert not list(temporary.glob("kafka-reconciler-spark-*")), list(temporary.iterdir())  # no JVM, no Spark log

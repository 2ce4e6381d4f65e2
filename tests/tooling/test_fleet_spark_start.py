"""A Spark that cannot start is told in one line: the cause and the path of Spark's log, not the JVM's stack traces.

``fleet plan --engine spark`` run as a user runs it, in a subprocess, with a master URL Spark rejects (the JVM
exits at once: ``Master must either be yarn or start with spark, k8s, or local``) and with a standalone master
that is not there (a closed port: Spark retries three times, 20 s apart, then gives up). Before the fix stderr held
Spark's log lines and 68 to 102 Java stack frames, then a cause that said nothing (``Java gateway process exited``,
``An error occurred while calling None.org.apache.spark.sql.classic.SparkSession``).
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


@pytest.mark.parametrize(
    ("master", "cause"),
    [
        ("nosuch://spark-master", "Master must either be yarn or start with spark, k8s, or local"),
        (
            "spark://127.0.0.1:{closed_port}",
            "Application has been killed. Reason: All masters are unresponsive! Giving up. (java.net.ConnectException",
        ),
    ],
    ids=["rejected-url", "no-master"],
)
def test_a_failed_spark_start_prints_one_line_with_the_cause_and_the_log(
    tmp_path: Path, master: str, cause: str, closed_port: int
) -> None:
    master = master.format(closed_port=closed_port)
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

    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr  # no Spark log line, no stack frame, no JVM notice
    line = lines[0]
    assert line.startswith(f"error: cannot start Spark on {master}: {cause}"), line
    assert "(Spark's log: " in line and "the failed run is recorded in" in line, line
    log = Path(line.split("(Spark's log: ", 1)[1].split(")", 1)[0])
    assert log.parent.parent == temporary and log.parent.name.startswith("kafka-reconciler-spark-"), log
    kept = log.read_text()
    assert "\tat org.apache.spark." in kept  # the stack traces are in the log, for whoever needs them
    assert cause.split(" (")[0] in kept

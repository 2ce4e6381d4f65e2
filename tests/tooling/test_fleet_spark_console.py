"""Spark's console on an error path: a wrong executor Python on a standalone cluster gives the tool's one message.

A real standalone master and worker (separate JVMs from pyspark's own launcher, ``tests.spark.standalone``)
run executors with a Python that does not exist. The command must end with exit 1 and its own message naming
the Python and the setting to change, and stderr must hold no Java stack trace or Spark log line of its own
(before the fix: two ~30-line ``TransportRequestHandler ... Could not find AppClient`` traces).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.spark.standalone import StandaloneCluster, standalone_cluster
from tests.support.fleet import EXAMPLES, live_from, write_snapshot

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def standalone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneCluster]:
    pytest.importorskip("pyspark", reason="the spark extra is not installed (pip install -e '.[spark]')")
    with standalone_cluster(tmp_path_factory.mktemp("spark-standalone"), workers=1, cores=1) as cluster:
        yield cluster


def test_a_missing_executor_python_prints_only_the_tools_message(standalone: StandaloneCluster, tmp_path: Path) -> None:
    live = live_from(EXAMPLES, drop="orders.shipped", extra_topic="orders.old", retention="1000")
    write_snapshot(live, tmp_path / "eu.json")
    (tmp_path / "fleet.yaml").write_text(f"clusters:\n  - {{name: eu-1, manifests: {EXAMPLES}, snapshot: eu.json}}\n")
    python = tmp_path / "no-such-venv" / "bin" / "python"
    command = [sys.executable, "-m", "reconciler", "fleet", "plan", str(tmp_path / "fleet.yaml"), "-q"]
    command += ["--engine", "spark", "--master", standalone.master_url, "--out", str(tmp_path / "out")]
    command += ["--conf", f"spark.pyspark.python={python}", "--conf", "spark.executor.memory=512m"]
    # the driver's address for workers on this host (docs/fleet.md, remote masters); Spark warns without it when
    # the host name resolves to loopback
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env, check=False)
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    tool = [line for line in lines if line.startswith("error:")]
    assert len(tool) == 1 and str(python) in tool[0] and "spark.pyspark.python" in tool[0], done.stderr
    noise = [line for line in lines if "\tat " in line or ("Exception" in line and not line.startswith("error:"))]
    assert not noise, "\n".join(noise[:20])
    spark_lines = [line for line in lines if not line.startswith(("error:", "WARNING: Using incubator modules"))]
    assert not spark_lines, "\n".join(spark_lines[:20])
    assert not (tmp_path / "out" / "eu-1").exists()

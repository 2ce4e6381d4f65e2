"""Where Spark runs a fleet plan: a local master's driver listens on loopback only, and the executor check asks
every executor of a standalone cluster, once each, naming the one whose Python cannot run this package.

Regressions: a local session bound its driver and block manager to the host's network address (the warning
saying so was silenced), and the executor check ran one task, so one worker's Python was checked and the
others were found wanting only inside the planning job. The local session starts in its own Python process (a
process has one SparkContext); the standalone cluster is a master and two workers (separate JVMs from
pyspark's own launcher, ``tests.spark.standalone``), the second worker's executors finding another
``reconciler`` first on their ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from reconciler.base import errors
from reconciler.fleet import spark as spark_engine
from tests.spark.standalone import standalone_cluster
from tests.support.polling import eventually

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.timeout(900)]

LOCAL_SESSION = textwrap.dedent(
    """
    import json, os, sys
    from reconciler.fleet import spark as spark_engine

    session = spark_engine.session("local[1]")
    sc = session.sparkContext
    pid = sc._gateway.proc.pid
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        target = os.readlink(f"/proc/{pid}/fd/{fd}") if os.path.islink(f"/proc/{pid}/fd/{fd}") else ""
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    listening = []
    for table in ("tcp", "tcp6"):
        for line in open(f"/proc/{pid}/net/{table}").read().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # LISTEN
                listening.append(fields[1].split(":")[0])
    print(json.dumps({
        "driver_host": sc.getConf().get("spark.driver.host"),
        "bind": sc.getConf().get("spark.driver.bindAddress"),
        "listening": listening,
        "local_ip_after": os.environ.get("SPARK_LOCAL_IP"),
    }))
    spark_engine.stop(session)
    """
)
LOOPBACK_HEX = {"0100007F", "00000000000000000000000001000000", "0000000000000000FFFF00000100007F"}


def test_a_local_session_listens_on_loopback_only(tmp_path: Path) -> None:
    pytest.importorskip("pyspark", reason="the spark extra is not installed (pip install -e '.[spark]')")
    env = {k: v for k, v in os.environ.items() if k != "SPARK_LOCAL_IP"}
    done = subprocess.run(
        [sys.executable, "-c", LOCAL_SESSION], capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert (found["driver_host"], found["bind"]) == ("127.0.0.1", "127.0.0.1")
    assert found["listening"] and set(found["listening"]) <= LOOPBACK_HEX, found  # driver RPC, block manager
    assert found["local_ip_after"] is None  # set for the JVM's start only
    assert "resolves to a loopback address" not in done.stderr  # Spark did not have to pick an address itself


def shadow_package(root: Path) -> Path:
    """A ``reconciler`` of another version, importable as far as the probe goes."""
    package = root / "shadow" / "reconciler"
    (package / "fleet").mkdir(parents=True)
    (package / "__init__.py").write_text('__version__ = "0.0.0-shadow"\n')
    (package / "fleet" / "__init__.py").write_text("")
    (package / "fleet" / "planning.py").write_text("")
    return root / "shadow"


def test_the_executor_check_asks_every_executor_once(tmp_path: Path) -> None:
    pytest.importorskip("pyspark", reason="the spark extra is not installed (pip install -e '.[spark]')")
    shadow = shadow_package(tmp_path)
    with standalone_cluster(
        tmp_path / "spark", workers=2, cores=1, worker_env={1: {"PYTHONPATH": str(shadow)}}
    ) as cluster:
        session = spark_engine.session(cluster.master_url, conf={"spark.executor.memory": "512m"})
        try:
            sc = session.sparkContext
            # a session another test left running in this process would be returned instead, local and alone
            assert sc.master == cluster.master_url, f"an earlier Spark session ({sc.master}) is still active"
            eventually(
                lambda: sc._jsc.sc().getExecutorMemoryStatus().size() >= 3,  # the driver and two executors
                what="both workers' executors registered",
                timeout=240,  # two executor JVMs starting on 2 cores under a whole test run's load
            )
            with pytest.raises(errors.ConfigError) as refused:
                spark_engine.check_executors(session)
        finally:
            spark_engine.stop(session)
    message = str(refused.value)
    assert "found kafka-reconciler 0.0.0-shadow (not the driver's)" in message, message
    assert f"{tmp_path / 'spark' / 'work' / 'worker-1'}" in message  # the executor of the second worker
    assert "(1 of 2 executor(s) checked fail)" in message and "spark.pyspark.python" in message

"""A real multi-process Spark standalone cluster on 127.0.0.1: one master and N workers, each its own JVM.

Started from the installed pyspark package's own launcher (``pyspark/bin/spark-class`` with
``org.apache.spark.deploy.master.Master`` and ``org.apache.spark.deploy.worker.Worker``; pip's
pyspark has no ``sbin/start-master.sh``), on free ports, with every folder (configuration, logs,
work and scratch) under one root the caller owns. ``start`` waits until the master's JSON status
page lists every worker alive; ``stop`` ends each process group (a worker's executors included).
Used by the fleet integration test and the fleet benchmark.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tests.kafka.cluster import free_ports

_LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.file.ref = file
appender.file.type = File
appender.file.name = file
appender.file.fileName = ${sys:spark.log.dir:-.}/spark.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


class StandaloneCluster:
    """``workers`` worker JVMs of ``cores`` cores each, under ``root``; ``master_url`` once started."""

    def __init__(
        self,
        root: Path,
        *,
        workers: int = 2,
        cores: int = 1,
        worker_memory: str = "1g",
        worker_env: Mapping[int, Mapping[str, str]] | None = None,
    ) -> None:
        self.root = root
        self.worker_env = dict(worker_env or {})  # worker index -> extra environment (its executors inherit it)
        self.workers = workers
        self.cores = cores
        self.worker_memory = worker_memory
        self.processes: list[subprocess.Popen[bytes]] = []
        self.master_port, self.ui_port = free_ports(2)
        self.master_url = f"spark://127.0.0.1:{self.master_port}"

    def _env(self, name: str) -> dict[str, str]:
        conf = self.root / "conf"
        conf.mkdir(parents=True, exist_ok=True)
        (conf / "log4j2.properties").write_text(_LOG4J2, encoding="utf-8")
        logs = self.root / "logs" / name
        logs.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
        env.update(
            SPARK_HOME=str(spark_home()),
            SPARK_CONF_DIR=str(conf),
            SPARK_LOG_DIR=str(logs),
            SPARK_LOCAL_IP="127.0.0.1",
            SPARK_LOCAL_DIRS=str(self.root / "local"),
            SPARK_WORKER_DIR=str(self.root / "work" / name),
            SPARK_DAEMON_MEMORY="256m",
            SPARK_DAEMON_JAVA_OPTS=f"-Dspark.log.dir={logs}",
        )
        return env

    def _launch(self, name: str, *args: str, extra_env: Mapping[str, str] | None = None) -> None:
        env = {**self._env(name), **(extra_env or {})}
        log = open(Path(env["SPARK_LOG_DIR"]) / "stdout.log", "wb")  # noqa: SIM115 (kept open by the child)
        with log:
            process = subprocess.Popen(
                [str(spark_home() / "bin" / "spark-class"), *args],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self.processes.append(process)

    def status(self) -> dict[str, Any]:
        """The master's JSON status page (workers, applications)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/", timeout=5) as answer:
            doc: dict[str, Any] = json.loads(answer.read())
        return doc

    def start(self, *, timeout: float = 180.0) -> StandaloneCluster:
        master = "org.apache.spark.deploy.master.Master"
        ports = ("--port", str(self.master_port), "--webui-port", str(self.ui_port))
        self._launch("master", master, "--host", "127.0.0.1", *ports)
        for i in range(self.workers):
            (worker_ui,) = free_ports(1)
            self._launch(
                f"worker-{i}",
                "org.apache.spark.deploy.worker.Worker",
                self.master_url,
                "--host",
                "127.0.0.1",
                "--cores",
                str(self.cores),
                "--memory",
                self.worker_memory,
                "--webui-port",
                str(worker_ui),
                "--work-dir",
                str(self.root / "work" / f"worker-{i}"),
                extra_env=self.worker_env.get(i),
            )
        deadline = time.monotonic() + timeout
        while True:
            for process in self.processes:
                if process.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"a Spark daemon exited ({process.returncode}); logs in {self.root / 'logs'}")
            with contextlib.suppress(OSError, urllib.error.URLError, ValueError):
                if int(self.status().get("aliveworkers", 0)) >= self.workers:
                    return self
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the Spark workers did not register in {timeout:.0f} s; logs in {self.root}")
            time.sleep(0.5)

    def stop(self) -> None:
        for process in reversed(self.processes):  # workers (and their executors) first, the master last
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in reversed(self.processes):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        self.processes.clear()


@contextlib.contextmanager
def standalone_cluster(
    root: Path, *, workers: int = 2, cores: int = 1, worker_env: Mapping[int, Mapping[str, str]] | None = None
) -> Iterator[StandaloneCluster]:
    cluster = StandaloneCluster(root, workers=workers, cores=cores, worker_env=worker_env).start()
    try:
        yield cluster
    finally:
        cluster.stop()

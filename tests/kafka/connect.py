"""A real Kafka Connect distributed worker for the integration tests, started next to a harness broker.

The worker is ``org.apache.kafka.connect.cli.ConnectDistributed`` from Maven Central's jars (connect-runtime,
connect-json, connect-file, connect-mirror and a log4j2 binding; ``connect-pom.xml``), resolved once into
``.cache/kafka/connect-<version>/libs`` under the same kind of file lock as the broker jars. Plugins are found with
``plugin.discovery=service_load`` (ready in about 5 s instead of 9); logs go to ``<dir>/worker.log`` at WARN. A
worker stops at ``close``; unless asked otherwise the kernel also kills it with the Python process that started it.

Several workers with the same ``group_id`` and storage topics form one Connect cluster (a second one joining makes
the group rebalance). ``scheduled.rebalance.max.delay.ms`` is short, so a killed worker's connectors move within
seconds instead of Connect's default five minutes.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.kafka import dist
from tests.kafka.cluster import free_ports
from tests.kafka.dist import CACHE_ROOT, HarnessError, KafkaDistribution, _locked, _read_cache
from tests.kafka.node import JVM_OPTIONS, spawn
from tests.kafka.process import ServerProcess

CONNECT_VERSION = "4.3.1"
HERE = Path(__file__).resolve().parent
CONNECT_POM = HERE / "connect-pom.xml"
LOG_CONFIG = HERE / "connect-log4j2.properties"
MAIN_CLASS = "org.apache.kafka.connect.cli.ConnectDistributed"
FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
MIRROR_SOURCE = "org.apache.kafka.connect.mirror.MirrorSourceConnector"


def resolve_connect(version: str = CONNECT_VERSION, *, cache_root: Path = CACHE_ROOT) -> KafkaDistribution:
    """The worker's jars, running Maven only when they are not cached yet (one download at a time)."""
    target = cache_root / f"connect-{version}"
    cached = _read_cache(target)
    if cached is not None:
        return cached
    cache_root.mkdir(parents=True, exist_ok=True)
    with _locked(cache_root / f"connect-{version}.lock"):
        cached = _read_cache(target)
        if cached is None:
            _download(version=version, target=target, cache_root=cache_root)
            cached = _read_cache(target)
    if cached is None:
        raise HarnessError(f"Maven finished but {target} is incomplete")
    return cached


def _download(*, version: str, target: Path, cache_root: Path) -> None:
    dist.fetch_into(
        target,
        cache_root=cache_root,
        pom=CONNECT_POM,
        properties=[f"-Dconnect.version={version}"],
        expect_prefix="connect-runtime-",
        what=f"Kafka Connect {version}",
        staging_prefix=f".connect-{version}-",
        jars_for="the Kafka Connect jars",
    )


class ConnectWorker(ServerProcess):
    """One distributed worker; ``url`` is its REST address. ``start``/``stop``/``kill`` may be called repeatedly."""

    def __init__(
        self,
        *,
        bootstrap: str,
        workdir: Path,
        group_id: str,
        die_with_parent: bool = True,
        port: int | None = None,
        extra: dict[str, str] | None = None,
    ) -> None:
        self.dist = resolve_connect()
        self.bootstrap = bootstrap
        self.dir = workdir
        self.group_id = group_id
        self.die_with_parent = die_with_parent
        self.port = port or free_ports(1)[0]
        self.extra = dict(extra or {})  # more worker properties (a SASL login for the worker and its clients)
        self.config_path = workdir / "worker.properties"
        self.log_path = workdir / "worker.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.start_timeout = float(os.environ.get("CONNECT_START_TIMEOUT", "90"))
        self.start_seconds: float | None = None
        self.launched_at: float | None = None
        self._starting: threading.Thread | None = None
        self._start_error: HarnessError | None = None
        workdir.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def properties(self) -> dict[str, str]:
        prefix = f"{self.group_id}-"
        return {
            "bootstrap.servers": self.bootstrap,
            "group.id": self.group_id,
            "config.storage.topic": f"{prefix}configs",
            "offset.storage.topic": f"{prefix}offsets",
            "status.storage.topic": f"{prefix}status",
            "config.storage.replication.factor": "1",
            "offset.storage.replication.factor": "1",
            "status.storage.replication.factor": "1",
            "offset.storage.partitions": "1",
            "status.storage.partitions": "1",
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "false",
            "value.converter.schemas.enable": "false",
            "offset.flush.interval.ms": "1000",
            "listeners": self.url,
            "rest.advertised.host.name": "127.0.0.1",
            "rest.advertised.port": str(self.port),
            "plugin.discovery": "service_load",
            "scheduled.rebalance.max.delay.ms": "2000",
            "config.providers": "file",
            "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
            **self.extra,
        }

    def start(self) -> None:
        """Start the JVM and wait (bounded by ``CONNECT_START_TIMEOUT``, 90 s) until ``GET /health`` answers 200."""
        if self.running:
            return
        began = time.monotonic()
        self.launch()
        self.wait_ready(deadline=began + self.start_timeout)
        self.start_seconds = time.monotonic() - began

    def launch(self) -> None:
        """Start the JVM and return at once (``wait_ready`` waits for it); a worker joining a running group makes
        that group rebalance."""
        self.launched_at = time.monotonic()
        self.config_path.write_text("".join(f"{k}={v}\n" for k, v in self.properties().items()))
        command = ["java", *JVM_OPTIONS, f"-Dlog4j2.configurationFile={LOG_CONFIG}"]
        command += ["-cp", self.dist.classpath, MAIN_CLASS, str(self.config_path)]
        with self.log_path.open("ab") as log:
            log.write(f"--- harness: starting worker at {time.strftime('%H:%M:%S')} ---\n".encode())
            log.flush()
            self.process = spawn(command, cwd=self.dir, log=log, die_with_parent=self.die_with_parent)

    def start_in_background(self) -> None:
        """Launch the JVM and wait for it on a thread of its own, so the caller goes on at once; ``wait_started``
        then returns once it answers (``start_seconds`` is the time it took to answer, not the time until asked)."""
        self.launch()
        self._starting = threading.Thread(target=self._wait_started_thread, name="connect-start", daemon=True)
        self._starting.start()

    def _wait_started_thread(self) -> None:
        assert self.launched_at is not None
        try:
            self.wait_ready(deadline=self.launched_at + self.start_timeout)
            self.start_seconds = time.monotonic() - self.launched_at
        except HarnessError as error:
            self._start_error = error

    def wait_started(self) -> None:
        """Wait for a worker started with ``start_in_background`` (bounded by ``CONNECT_START_TIMEOUT`` from its
        launch; one that exited or did not answer fails with its log); ``start`` it if it was never launched."""
        if self._starting is None:
            self.start()
            return
        self._starting.join()  # the thread itself ends within CONNECT_START_TIMEOUT
        if self._start_error is not None:
            raise self._start_error

    def wait_ready(self, *, deadline: float) -> None:
        while not self.healthy():
            if self.process is not None and self.process.poll() is not None:
                code = self.process.returncode
                raise HarnessError(f"the Connect worker exited with code {code}; last lines:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                raise HarnessError(f"the Connect worker at {self.url} did not answer in time:\n{self.log_tail()}")
            time.sleep(0.25)

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/health", timeout=2) as response:
                return bool(response.status == 200)
        except (OSError, urllib.error.URLError):
            return False

    def rest(self, method: str, path: str, body: Any = None) -> Any:
        """A plain REST call for tests to check what the worker holds (JSON in, JSON out; ``None`` for no body)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.url}{path}", data=data, method=method)
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
        return json.loads(raw) if raw else None

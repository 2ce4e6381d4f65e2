"""One ZooKeeper server for ZooKeeper-mode Kafka test clusters (Kafka 2.x and 3.x before KRaft).

It runs ``org.apache.zookeeper.server.ZooKeeperServerMain`` from the zookeeper jar that the ``kafka_2.13`` release
itself depends on (already on the broker's class path), on a free port of 127.0.0.1, with its data in its own
directory. Like the broker JVMs it runs in its own process group and dies with the process that started it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from tests.kafka.dist import HarnessError, KafkaDistribution
from tests.kafka.node import TOOL_JVM_OPTIONS, spawn


class ZooKeeperServer:
    """``start`` picks the port given (or a free one) and waits until the server answers ``ruok``-free TCP."""

    def __init__(self, *, dist: KafkaDistribution, workdir: Path, die_with_parent: bool = True) -> None:
        self.dist = dist
        self.dir = workdir
        self.data_dir = workdir / "data"
        self.log_path = workdir / "zookeeper.log"
        self.port = 0
        self.die_with_parent = die_with_parent
        self.process: subprocess.Popen[bytes] | None = None
        workdir.mkdir(parents=True, exist_ok=True)

    @property
    def connect(self) -> str:
        """The brokers' ``zookeeper.connect``."""
        return f"127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, *, port: int, timeout: float = 60.0) -> None:
        if self.running:
            return
        self.port = port
        self.data_dir.mkdir(parents=True, exist_ok=True)
        command = [
            "java",
            *TOOL_JVM_OPTIONS,
            "-Dzookeeper.admin.enableServer=false",
            "-Dzookeeper.4lw.commands.whitelist=*",
            *self.dist.logging_jvm_args(),
            "-cp",
            self.dist.classpath,
            "org.apache.zookeeper.server.ZooKeeperServerMain",
            str(port),
            str(self.data_dir),
        ]
        with self.log_path.open("ab") as log:
            self.process = spawn(command, cwd=self.dir, log=log, die_with_parent=self.die_with_parent)
        deadline = time.monotonic() + timeout
        while not self._answers():
            if self.process.poll() is not None:
                raise HarnessError(f"ZooKeeper exited with code {self.process.returncode}:\n{self._tail()}")
            if time.monotonic() > deadline:
                raise HarnessError(f"ZooKeeper did not answer on {self.connect} within {timeout:.0f}s:\n{self._tail()}")
            time.sleep(0.25)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def delete(self, path: str, *, timeout: float = 60.0) -> None:
        """Delete the znode ``path`` with ZooKeeper's own shell (``/controller``: the controller resigns and the
        brokers elect one again)."""
        command = [
            "java",
            *TOOL_JVM_OPTIONS,
            *self.dist.logging_jvm_args(),
            "-cp",
            self.dist.classpath,
            "org.apache.zookeeper.ZooKeeperMain",
            "-server",
            self.connect,
            "delete",
            path,
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
        if done.returncode != 0:
            raise HarnessError(f"zookeeper shell: delete {path} failed ({done.returncode}): {done.stderr[-2000:]}")

    def _answers(self) -> bool:
        """True once the server answers the ``srvr`` four-letter command (it serves clients from then on)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"srvr")
                return b"Zookeeper version" in sock.recv(4096)
        except OSError:
            return False

    def _tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return "(no log written)"

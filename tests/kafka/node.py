"""One KRaft Kafka process (broker and controller combined): config file, storage format, start, stop, kill.

Each node lives in its own directory holding ``server.properties``, ``data/`` and ``server.log``. The JVM runs in
its own process group; unless the node is meant to outlive this Python process (the ``up`` command), the JVM is
also told by the kernel to die with the process that started it, so a crashed test run leaves no broker behind.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import BinaryIO

from tests.kafka.dist import HarnessError, KafkaDistribution

JVM_OPTIONS = (
    "-Xmx384m",
    "-Xms128m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Xshare:auto",
    "-Djava.awt.headless=true",
    "-Djava.net.preferIPv4Stack=true",
)
TOOL_JVM_OPTIONS = ("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto")
PR_SET_PDEATHSIG = 1

_live: set[KafkaNode] = set()
_live_lock = threading.Lock()
# The kernel's parent-death signal fires when the *thread* that forked the child ends, so every JVM is forked from
# this one long-lived thread rather than from whichever (possibly short-lived) thread asked for the start.
_launcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kafka-launcher")


def _die_with_parent() -> None:
    """Runs in the child between fork and exec: ask the kernel to SIGKILL it when the parent goes away."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def spawn(command: list[str], *, cwd: Path, log: BinaryIO, die_with_parent: bool) -> subprocess.Popen[bytes]:
    """Start ``command`` from the launcher thread in its own session, output to ``log``, stdin closed; with
    ``die_with_parent`` the kernel kills it when this process goes away."""
    return _launcher.submit(
        subprocess.Popen,
        command,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=_die_with_parent if die_with_parent else None,
    ).result()


class KafkaNode:
    """A combined broker+controller node. ``start``/``stop``/``kill`` may be called repeatedly."""

    def __init__(
        self,
        *,
        dist: KafkaDistribution,
        node_id: int,
        workdir: Path,
        rack: str | None = None,
        die_with_parent: bool = True,
    ) -> None:
        self.dist = dist
        self.node_id = node_id
        self.dir = workdir
        self.rack = rack
        self.die_with_parent = die_with_parent
        self.port = 0
        self.controller_port = 0
        # further client listeners (name -> port), for kinds that listen with several security protocols
        self.listener_ports: dict[str, int] = {}
        self.extra_jvm_args: list[str] = []
        self.config_path = workdir / "server.properties"
        self.data_dir = workdir / "data"
        self.log_path = workdir / "server.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.ready_check: Callable[[KafkaNode], bool] | None = None
        self.after_start: Callable[[], None] | None = None
        self.start_timeout = float(os.environ.get("KAFKA_START_TIMEOUT", "90"))
        workdir.mkdir(parents=True, exist_ok=True)

    def __repr__(self) -> str:
        state = f"pid {self.pid}" if self.running else "stopped"
        return f"KafkaNode(id={self.node_id}, bootstrap={self.bootstrap}, rack={self.rack}, {state})"

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def write_config(self, properties: Mapping[str, str]) -> None:
        lines = [f"{key}={value}" for key, value in properties.items()]
        self.config_path.write_text("\n".join(lines) + "\n")
        self.config_path.chmod(0o600)

    def format_storage(self, cluster_id: str) -> None:
        """Format ``data/`` for a static-quorum KRaft cluster (the same command works on 3.9 and 4.x)."""
        command = [
            "java",
            *TOOL_JVM_OPTIONS,
            *self.dist.logging_jvm_args(),
            "-cp",
            self.dist.classpath,
            "kafka.tools.StorageTool",
            "format",
            "-t",
            cluster_id,
            "-c",
            str(self.config_path),
        ]
        result = subprocess.run(command, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
        if result.returncode != 0:
            output = (result.stdout + result.stderr).strip()
            code = result.returncode
            raise HarnessError(f"formatting storage of node {self.node_id} failed (exit {code}):\n{output}")

    def launch(self) -> None:
        """Start the JVM and return at once; ``wait_ready`` (or the cluster) waits for it to answer."""
        if self.running:
            return
        command = [
            "java",
            *JVM_OPTIONS,
            *self.extra_jvm_args,
            *self.dist.logging_jvm_args(),
            "-cp",
            self.dist.classpath,
            "kafka.Kafka",
            str(self.config_path),
        ]
        with self.log_path.open("ab") as log:
            log.write(f"--- harness: starting node {self.node_id} at {time.strftime('%H:%M:%S')} ---\n".encode())
            log.flush()
            self.process = spawn(command, cwd=self.dir, log=log, die_with_parent=self.die_with_parent)
        with _live_lock:
            _live.add(self)

    def start(self, *, wait: bool = True) -> None:
        """Start a stopped node and, by default, wait until every running node sees its broker registered again."""
        self.launch()
        if wait:
            self.wait_ready()
            if self.after_start is not None:
                self.after_start()

    def wait_ready(self, *, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout if timeout is not None else self.start_timeout)
        while True:
            self.raise_if_exited()
            if self.ready_check is None or self.ready_check(self):
                return
            if time.monotonic() > deadline:
                raise HarnessError(
                    f"Kafka node {self.node_id} ({self.bootstrap}) did not answer within "
                    f"{timeout or self.start_timeout:.0f}s; last lines of {self.log_path}:\n{self.log_tail()}"
                )
            time.sleep(0.25)

    def raise_if_exited(self) -> None:
        if self.process is not None and self.process.poll() is not None:
            code = self.process.returncode
            raise HarnessError(
                f"Kafka node {self.node_id} exited with code {code} during start-up; "
                f"last lines of {self.log_path}:\n{self.log_tail()}"
            )

    def stop(self, *, timeout: float = 30.0) -> None:
        """Graceful shutdown (SIGTERM); escalates to SIGKILL if the JVM has not exited after ``timeout`` seconds."""
        if not self.running:
            self._forget()
            return
        self._signal(signal.SIGTERM)
        try:
            self._wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
        self._forget()

    def kill(self) -> None:
        """Hard crash: SIGKILL the node's whole process group."""
        if self.process is not None and self.process.poll() is None:
            self._signal(signal.SIGKILL)
            self._wait(30.0)
        self._forget()

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return "(no log written)"
        return "\n".join(text.splitlines()[-lines:])

    def log_contains(self, needle: str) -> bool:
        try:
            return needle in self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return False

    def _signal(self, sig: signal.Signals) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, sig)

    def _wait(self, timeout: float) -> None:
        assert self.process is not None
        self.process.wait(timeout=timeout)

    def _forget(self) -> None:
        with _live_lock:
            _live.discard(self)


def kill_all_nodes() -> None:
    """SIGKILL every node this process started and has not stopped yet (used at interpreter exit)."""
    with _live_lock:
        nodes = list(_live)
    for node in nodes:
        if node.die_with_parent:
            with contextlib.suppress(Exception):
                node.kill()


atexit.register(kill_all_nodes)

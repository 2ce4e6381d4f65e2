"""A server the harness runs as a JVM in a process group of its own: stop, kill and the log's tail, said once.

The Kafka Connect worker (``tests.kafka.connect``) and the Schema Registry (``tests.kafka.registry``) are
``ServerProcess`` objects; ``stop_group`` stops such a server by the pid its command-line helper recorded
(``make kafka-down``, ``connect-down``, ``registry-down``; the last two through ``stop_recorded``). A group is
signalled as a whole, so the JVM's own children go with it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def stop_group(pid: int, *, alive: Callable[[], bool], timeout: float) -> None:
    """SIGTERM the process group of ``pid``, wait until ``alive()`` is false, SIGKILL it after ``timeout``."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while alive() and time.monotonic() < deadline:
        time.sleep(0.2)
    if alive():
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        while alive() and time.monotonic() < deadline + 10:
            time.sleep(0.2)


def stop_recorded(
    workdir: Path, *, pid_file: str, running: Callable[[Path], int | None], name: str, timeout: float
) -> int:
    """What ``make connect-down`` and ``registry-down`` do: stop the server whose pid ``workdir/pid_file`` holds, if
    ``running(workdir)`` still finds it (not a reused pid), say so with ``name``, and remove the pid file."""
    workdir = workdir.resolve()
    pid = running(workdir)
    if pid is None:
        print(f"{name} is not running")
    else:
        stop_group(pid, alive=lambda: running(workdir) is not None, timeout=timeout)
        print(f"{name} (pid {pid}) stopped")
    (workdir / pid_file).unlink(missing_ok=True)
    return 0


class ServerProcess:
    """The process and log of one server; a subclass starts ``process`` (in a new session) and writes ``log_path``."""

    process: subprocess.Popen[bytes] | None
    log_path: Path

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, *, timeout: float = 30.0) -> None:
        """Graceful shutdown (SIGTERM), SIGKILL after ``timeout`` seconds."""
        if not self.running:
            return
        self._signal(signal.SIGTERM)
        try:
            assert self.process is not None
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """Hard crash: SIGKILL the server's process group."""
        if self.running:
            self._signal(signal.SIGKILL)
            assert self.process is not None
            self.process.wait(timeout=30)

    def close(self) -> None:
        self.stop()

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return "(no log written)"

    def _signal(self, sig: signal.Signals) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, sig)

"""``make kafka-up`` / ``make kafka-down``: ``down`` stops every process ``up`` started.

Run in the session's Kafka release and mode (``KAFKA_VERSION``, ``KAFKA_MODE``): in ZooKeeper mode (3.9.2 with
``KAFKA_MODE=zookeeper``, and 2.8.2, as ``make test-legacy`` runs them) ``up`` starts a ZooKeeper server too,
which ``down`` used to leave running. The processes are found the way a person would look for them: by the
working directory in their command lines.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kafka.dist import REPO_ROOT, selected_mode

# On every Kafka version: kafka-up/kafka-down on each release and mode (ZooKeeper paths).
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]


def harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.kafka.harness", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def processes_under(workdir: Path) -> dict[int, str]:
    """Running processes whose command line names a path under ``workdir``: pid -> main class."""
    needle = str(workdir.resolve()).encode()
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if needle in cmdline:
            parts = [p.decode(errors="replace") for p in cmdline.split(b"\0")]
            found[int(entry.name)] = next((p for p in parts if p.endswith(("kafka.Kafka", "ServerMain"))), parts[0])
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_down_stops_every_process_up_started(tmp_path: Path) -> None:
    workdir = tmp_path / "run"
    started = harness("up", "--port", str(free_port()), "--dir", str(workdir))
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        running = processes_under(workdir)
        expected = {"kafka.Kafka"} | (
            {"org.apache.zookeeper.server.ZooKeeperServerMain"} if selected_mode() == "zookeeper" else set()
        )
        assert set(running.values()) == expected, running
        assert harness("status", "--dir", str(workdir)).returncode == 0
        stopped = harness("down", "--dir", str(workdir))
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        assert processes_under(workdir) == {}
        assert harness("status", "--dir", str(workdir)).returncode == 1
    finally:
        for pid in processes_under(workdir):  # only what this test started
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

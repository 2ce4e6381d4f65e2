"""Command line for a long-lived local Kafka node (``make kafka-up`` / ``make kafka-down``).

    python -m tests.kafka.harness up [--port 9092] [--dir .cache/kafka-run] [--version 4.4.0]
    python -m tests.kafka.harness status [--dir ...]
    python -m tests.kafka.harness down [--dir ...]

``up`` starts one PLAINTEXT node on 127.0.0.1 (with an authorizer that lets every client do everything, so ACLs
can be managed) that keeps running after the command returns, and records its process id in ``<dir>/kafka.pid``;
in ZooKeeper mode (``KAFKA_MODE=zookeeper``, Kafka 2.x) it also starts a ZooKeeper server and records its process
id in ``<dir>/zookeeper.pid``. It does nothing if that node is already running. ``down`` stops the node, then its
ZooKeeper server.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

from tests.kafka import process
from tests.kafka.cluster import port_open
from tests.kafka.dist import REPO_ROOT, HarnessError, selected_version
from tests.kafka.kinds import single_node

DEFAULT_DIR = REPO_ROOT / ".cache" / "kafka-run"
PID_FILE = "kafka.pid"
ZK_PID_FILE = "zookeeper.pid"
BOOTSTRAP_FILE = "bootstrap"


def _running_pid(workdir: Path) -> int | None:
    """The pid in the pid file if that process is still our Kafka node (not a reused pid)."""
    try:
        pid = int((workdir / PID_FILE).read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (FileNotFoundError, ValueError, ProcessLookupError):
        return None
    config = str(workdir.resolve() / "node-1" / "server.properties").encode()
    return pid if b"kafka.Kafka" in cmdline and config in cmdline else None


def _running_zookeeper(workdir: Path) -> int | None:
    """The pid in the ZooKeeper pid file if that process is still this node's ZooKeeper server."""
    try:
        pid = int((workdir / ZK_PID_FILE).read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (FileNotFoundError, ValueError, ProcessLookupError):
        return None
    data = str(workdir.resolve() / "zookeeper" / "data").encode()
    return pid if b"org.apache.zookeeper.server.ZooKeeperServerMain" in cmdline and data in cmdline else None


def up(*, port: int, workdir: Path, version: str) -> int:
    workdir = workdir.resolve()
    pid = _running_pid(workdir)
    if pid is not None:
        bootstrap = (workdir / BOOTSTRAP_FILE).read_text().strip()
        print(f"Kafka is already running at {bootstrap} (pid {pid}); stop it with 'make kafka-down'")
        return 0
    shutil.rmtree(workdir / "node-1", ignore_errors=True)
    began = time.monotonic()
    cluster = single_node(version=version, port=port, workdir=workdir, die_with_parent=False, authorizer=True)
    node = cluster.nodes[0]
    assert node.pid is not None
    (workdir / PID_FILE).write_text(f"{node.pid}\n")
    zookeeper = cluster.zookeeper.process if cluster.zookeeper is not None else None
    if zookeeper is not None:
        (workdir / ZK_PID_FILE).write_text(f"{zookeeper.pid}\n")
    (workdir / BOOTSTRAP_FILE).write_text(f"{cluster.bootstrap}\n")
    print(
        f"Kafka {cluster.version} is running at {cluster.bootstrap} (pid {node.pid}, "
        f"ready in {time.monotonic() - began:.1f}s); log: {node.log_path}"
    )
    return 0


def down(*, workdir: Path, timeout: float = 30.0) -> int:
    workdir = workdir.resolve()
    pid = _running_pid(workdir)
    zookeeper = _running_zookeeper(workdir)
    if pid is None and zookeeper is None:
        print("Kafka is not running")
        (workdir / PID_FILE).unlink(missing_ok=True)
        (workdir / ZK_PID_FILE).unlink(missing_ok=True)
        return 0
    if pid is not None:  # the broker first, so it leaves ZooKeeper cleanly
        process.stop_group(pid, alive=lambda: _running_pid(workdir) is not None, timeout=timeout)
        print(f"Kafka (pid {pid}) stopped")
    if zookeeper is not None:
        process.stop_group(zookeeper, alive=lambda: _running_zookeeper(workdir) is not None, timeout=timeout)
        print(f"ZooKeeper (pid {zookeeper}) stopped")
    (workdir / PID_FILE).unlink(missing_ok=True)
    (workdir / ZK_PID_FILE).unlink(missing_ok=True)
    return 0


def status(*, workdir: Path) -> int:
    workdir = workdir.resolve()
    pid = _running_pid(workdir)
    if pid is None:
        print("Kafka is not running")
        return 1
    bootstrap = (workdir / BOOTSTRAP_FILE).read_text().strip()
    state = "answering" if port_open(int(bootstrap.rsplit(":", 1)[1])) else "not answering"
    print(f"Kafka is running at {bootstrap} (pid {pid}), {state}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.kafka.harness", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("up", "down", "status"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("KAFKA_PORT", "9092")))
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="working directory (default %(default)s)")
    parser.add_argument("--version", default=selected_version(), help="Kafka version (default %(default)s)")
    args = parser.parse_args(argv)
    try:
        if args.command == "up":
            return up(port=args.port, workdir=args.dir, version=args.version)
        if args.command == "down":
            return down(workdir=args.dir)
        return status(workdir=args.dir)
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

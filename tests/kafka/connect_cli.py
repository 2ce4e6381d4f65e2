"""Command line for a long-lived local Kafka Connect worker next to ``make kafka-up``'s broker.

    python -m tests.kafka.connect_cli up [--port 8083] [--bootstrap 127.0.0.1:9092] [--dir .cache/connect-run]
    python -m tests.kafka.connect_cli down [--dir ...]

``up`` starts one distributed worker (``tests.kafka.connect.ConnectWorker``: FileStream and MirrorMaker 2 plugins)
that keeps running after the command returns, records its process id in ``<dir>/connect.pid`` and prints its REST
URL (``KAFKA_CONNECT_URL`` for the tool); it does nothing if that worker is already running. ``down`` stops it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tests.kafka.connect import MAIN_CLASS, ConnectWorker
from tests.kafka.dist import REPO_ROOT, HarnessError
from tests.kafka.process import stop_recorded

DEFAULT_DIR = REPO_ROOT / ".cache" / "connect-run"
PID_FILE = "connect.pid"


def _running(workdir: Path) -> int | None:
    """The pid in the pid file if that process is still this directory's worker (not a reused pid)."""
    try:
        pid = int((workdir / PID_FILE).read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (FileNotFoundError, ValueError, ProcessLookupError):
        return None
    config = str(workdir / "worker.properties").encode()
    return pid if MAIN_CLASS.encode() in cmdline and config in cmdline else None


def up(*, port: int, bootstrap: str, workdir: Path) -> int:
    workdir = workdir.resolve()
    pid = _running(workdir)
    if pid is not None:
        print(f"Kafka Connect is already running (pid {pid}); stop it with 'make connect-down'")
        return 0
    worker = ConnectWorker(
        bootstrap=bootstrap, workdir=workdir, group_id="connect-local", die_with_parent=False, port=port
    )
    worker.start()
    assert worker.process is not None
    (workdir / PID_FILE).write_text(f"{worker.process.pid}\n")
    print(f"Kafka Connect is running at {worker.url} (pid {worker.process.pid}, ready in {worker.start_seconds:.1f}s)")
    print(f"  export KAFKA_CONNECT_URL={worker.url}")
    return 0


def down(*, workdir: Path, timeout: float = 30.0) -> int:
    return stop_recorded(workdir, pid_file=PID_FILE, running=_running, name="Kafka Connect", timeout=timeout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.kafka.connect_cli", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("up", "down"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("CONNECT_PORT", "8083")))
    parser.add_argument("--bootstrap", default=f"127.0.0.1:{os.environ.get('KAFKA_PORT', '9092')}")
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="working directory (default %(default)s)")
    args = parser.parse_args(argv)
    try:
        if args.command == "up":
            return up(port=args.port, bootstrap=args.bootstrap, workdir=args.dir)
        return down(workdir=args.dir)
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

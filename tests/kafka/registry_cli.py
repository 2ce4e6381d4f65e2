"""Command line for a long-lived local Schema Registry (Apicurio Registry, ``tests.kafka.registry``).

    python -m tests.kafka.registry_cli up [--port 8081] [--dir .cache/registry-run]
    python -m tests.kafka.registry_cli down [--dir ...]

``up`` builds the server on first use (minutes; cached in ``.cache/kafka/registry-<version>``), starts it so that
it keeps running after the command returns, records its process id in ``<dir>/registry.pid`` and prints the URL
of its Confluent-compatible API; it does nothing if that server is already running. ``down`` stops it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tests.kafka.dist import REPO_ROOT, HarnessError
from tests.kafka.process import stop_recorded
from tests.kafka.registry import RUNNER, SchemaRegistryServer

DEFAULT_DIR = REPO_ROOT / ".cache" / "registry-run"
PID_FILE = "registry.pid"


def _running(workdir: Path) -> int | None:
    """The pid in the pid file if that process is still a registry started from this directory (not a reused pid)."""
    try:
        pid = int((workdir / PID_FILE).read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except (FileNotFoundError, ValueError, ProcessLookupError, PermissionError):
        return None
    return pid if cwd == str(workdir) and any(arg.endswith(RUNNER.encode()) for arg in cmdline) else None


def up(*, port: int, workdir: Path) -> int:
    workdir = workdir.resolve()
    pid = _running(workdir)
    if pid is not None:
        print(f"The Schema Registry is already running (pid {pid}); stop it with 'make registry-down'")
        return 0
    server = SchemaRegistryServer(workdir=workdir, port=port, die_with_parent=False)
    server.start()
    assert server.process is not None
    (workdir / PID_FILE).write_text(f"{server.process.pid}\n")
    print(
        f"The Schema Registry is running at {server.api_url} (pid {server.process.pid}, ready in "
        f"{server.start_seconds:.1f}s)"
    )
    print(f"  export SCHEMA_REGISTRY_URL={server.api_url}")
    return 0


def down(*, workdir: Path, timeout: float = 30.0) -> int:
    return stop_recorded(workdir, pid_file=PID_FILE, running=_running, name="The Schema Registry", timeout=timeout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.kafka.registry_cli", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("up", "down"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("REGISTRY_PORT", "8081")))
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="working directory (default %(default)s)")
    args = parser.parse_args(argv)
    try:
        if args.command == "up":
            return up(port=args.port, workdir=args.dir)
        return down(workdir=args.dir)
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

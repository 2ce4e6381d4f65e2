"""The test runs of ``make test`` and ``make test-legacy``: which tests run against which Kafka release, and when.

    python -m tests.suites [--legacy-only] [--in-series] [PYTEST ARGS...]

- The whole suite (unit, golden, integration, reliability, tooling) runs against the default release (Kafka 4.4.0,
  KRaft; ``KAFKA_VERSION``/``KAFKA_MODE`` choose another), printing its 25 slowest tests and a warning for any test
  module twice as slow as its baseline in ``tests/durations/`` (``--durations-check``, tests/support/durations.py).
- The integration and reliability tests marked ``every_version`` (``-m "kafka and every_version"``: connections and
  security, capability detection and per-version messages, read-back, ZooKeeper paths) run again against each
  legacy release: Kafka 3.9.2 in ZooKeeper mode, then Kafka 2.8.2 (ZooKeeper). The rest exercises nothing that
  differs between releases and runs against the default release only.

The legacy runs start at the same time as the default run and run one after the other beside it: the suite mostly
waits (for brokers, Connect workers, subprocesses and bounded timeouts), so on two cores the legacy runs finish
inside the default run's time instead of adding to it. Their output goes to log files, printed after the default
run ends, so the terminal shows one run at a time. ``--in-series`` runs them after the default run instead (what
``make test`` did before; useful on a machine too loaded to take a second broker); ``--legacy-only`` runs only them.
Extra arguments go to every pytest run (for example ``-k sasl``). The exit status is 0 only if every run passed; a
Ctrl-C or SIGTERM stops every run (each stops its brokers).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from tests.kafka.dist import selected_mode, selected_version

REPO = Path(__file__).resolve().parents[1]
LEGACY_RELEASES = (("3.9.2", "zookeeper"), ("2.8.2", "zookeeper"))
LEGACY_MARK = "kafka and every_version"
LEGACY_PATHS = ("tests/integration", "tests/reliability")
STOP_GRACE_S = 60.0  # how long a stopped run may take to stop its brokers before it is killed


@dataclass
class Run:
    """One pytest session: what it runs, against which release, and how it ended."""

    title: str
    args: list[str]
    env: dict[str, str]
    log: Path | None = None  # None: the run writes to this terminal
    process: subprocess.Popen[bytes] | None = None
    exit_code: int | None = None
    seconds: float | None = None
    started: threading.Event = field(default_factory=threading.Event)

    def execute(self) -> int:
        began = time.monotonic()
        command = [sys.executable, "-m", "pytest", *self.args]
        env = {**os.environ, **self.env}
        if self.log is None:
            self.process = subprocess.Popen(command, cwd=REPO, env=env)
            self.started.set()
        else:
            with self.log.open("wb") as out:
                self.process = subprocess.Popen(
                    command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
                )
                self.started.set()
        self.exit_code = self.process.wait()
        self.seconds = time.monotonic() - began
        return self.exit_code

    def stop(self) -> None:
        """SIGTERM (the suite's conftest unwinds it like Ctrl-C, so its brokers stop), SIGKILL past the grace."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def outcome(self) -> str:
        if self.exit_code is None:
            return "not run"
        verdict = "passed" if self.exit_code == 0 else f"FAILED (pytest exit {self.exit_code})"
        return f"{verdict} in {self.seconds or 0:.0f} s"


def default_run(extra: list[str]) -> Run:
    version = selected_version()
    return Run(
        title=f"Kafka {version} ({selected_mode(version)}): the whole suite",
        args=["--durations=25", "--durations-check", *extra],
        env={},
    )


def legacy_runs(extra: list[str], logs: Path | None) -> list[Run]:
    return [
        Run(
            title=f"Kafka {version} ({mode}): integration and reliability tests marked every_version",
            args=["-m", LEGACY_MARK, "--durations=10", "--durations-check", *LEGACY_PATHS, *extra],
            env={"KAFKA_VERSION": version, "KAFKA_MODE": mode},
            log=None if logs is None else logs / f"kafka-{version}.log",
        )
        for version, mode in LEGACY_RELEASES
    ]


def _in_turn(runs: list[Run], stopping: threading.Event) -> None:
    for run in runs:
        if stopping.is_set():
            return
        run.execute()


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"received signal {signum}")


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    legacy_only = "--legacy-only" in args
    in_series = "--in-series" in args or legacy_only
    extra = [a for a in args if a not in ("--legacy-only", "--in-series")]
    signal.signal(signal.SIGTERM, _interrupt)
    print(f"== test runs start: {_load()}", flush=True)
    logs = None if in_series else Path(tempfile.mkdtemp(prefix="kafka-reconciler-tests-"))
    main_run = None if legacy_only else default_run(extra)
    legacy = legacy_runs(extra, logs)
    runs = [*([main_run] if main_run else []), *legacy]
    stopping = threading.Event()
    beside = None if in_series else threading.Thread(target=_in_turn, args=(legacy, stopping), daemon=True)
    try:
        if beside is not None:
            beside.start()
        if main_run is not None:
            print(f"== {main_run.title}", flush=True)
            main_run.execute()
        if beside is None:
            for run in legacy:
                print(f"== {run.title}", flush=True)
                run.execute()
        else:
            if beside.is_alive():
                print("== waiting for the legacy releases' runs, started beside it", flush=True)
            beside.join()
            for run in legacy:
                print(f"== {run.title} (ran beside the default run; its output)", flush=True)
                if run.log is not None and run.log.exists():
                    sys.stdout.write(run.log.read_text(errors="replace"))
                    sys.stdout.flush()
    except KeyboardInterrupt:
        print("\n== stopping every test run", flush=True)
        stopping.set()
        for run in runs:
            run.stop()
        if beside is not None:  # a legacy run that started while the others were stopped is stopped too
            beside.join(timeout=STOP_GRACE_S)
            for run in legacy:
                run.stop()
        return 130
    finally:
        if logs is not None:
            shutil.rmtree(logs, ignore_errors=True)
    print("== test runs", flush=True)
    for run in runs:
        print(f"{run.title}: {run.outcome()}", flush=True)
    print(f"end: {_load()}", flush=True)
    return 0 if all(run.exit_code == 0 for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())

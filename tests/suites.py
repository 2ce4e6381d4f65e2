"""The test runs of ``make test`` and ``make test-legacy``: which tests run against which Kafka release, and when.

    python -m tests.suites [--legacy-only] [--in-series] [--one-run] [PYTEST ARGS...]

- The whole suite (unit, golden, integration, reliability, tooling) runs against the default release (Kafka 4.4.0,
  KRaft; ``KAFKA_VERSION``/``KAFKA_MODE`` choose another), printing its 25 slowest tests and a warning for any test
  module twice as slow as its baseline in ``tests/durations/`` (``--durations-check``, tests/support/durations.py).
- The integration and reliability tests marked ``every_version`` (``-m "kafka and every_version"``: connections and
  security, capability detection and per-version messages, read-back, ZooKeeper paths) run again against each
  legacy release: Kafka 3.9.2 in ZooKeeper mode, then Kafka 2.8.2 (ZooKeeper). The rest exercises nothing that
  differs between releases and runs against the default release only.

The suite mostly waits (for brokers, Connect workers, the registry, subprocesses and bounded timeouts): a run of it
uses about half of two cores. So the default release's suite runs as ``SHARDS`` pytest processes at once, each over
a share of the test modules (``shard_modules``: the longest first, each to the share with the least baseline time so
far, by the module times in ``tests/durations/``), each with its own brokers and servers; and the legacy runs start
at the same time and run one after the other beside them. The first share writes to this terminal; the others' output
goes to log files, printed after it ends, so the terminal shows one run at a time. ``--one-run`` runs the default
release's suite as one pytest process (also what happens when arguments name test paths); ``--in-series`` runs
everything one after the other (what ``make test`` once did; useful on a machine too loaded to take more brokers);
``--legacy-only`` runs only the legacy runs. Extra arguments go to every pytest run (for example ``-k sasl``; a share
that such a filter leaves empty counts as passed when another share ran tests). The exit status is 0 only if every run
passed; a Ctrl-C or SIGTERM stops every run (each stops its brokers).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import statistics
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
SHARDS = 2  # pytest processes the default release's suite is shared among
TEST_DIRS = ("tests/unit", "tests/fuzz", "tests/tooling", "tests/reliability", "tests/integration")
NO_TESTS = 5  # pytest's exit status when a run collected nothing


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


def test_modules() -> list[str]:
    """Every test module of the suite, as paths relative to the repository."""
    return sorted(p.relative_to(REPO).as_posix() for d in TEST_DIRS for p in (REPO / d).glob("test_*.py"))


def baseline_seconds(key: str) -> dict[str, float]:
    """The module times of ``tests/durations/<key>.json`` (empty when there is none)."""
    path = REPO / "tests" / "durations" / f"{key}.json"
    if not path.exists():
        return {}
    modules: dict[str, float] = json.loads(path.read_text(encoding="utf-8"))["modules"]
    return modules


def shard_modules(modules: list[str], seconds: dict[str, float], shards: int) -> list[list[str]]:
    """Shares of ``modules`` with about the same baseline time: the longest module first, each to the share with
    the least time so far (a module without a baseline counts as the median module). Each share keeps the modules'
    order, so a run's order does not depend on the times."""
    known = [seconds[m] for m in modules if m in seconds]
    default = statistics.median(known) if known else 1.0
    totals = [0.0] * shards
    chosen: list[list[str]] = [[] for _ in range(shards)]
    for module in sorted(modules, key=lambda m: (-seconds.get(m, default), m)):
        least = totals.index(min(totals))
        chosen[least].append(module)
        totals[least] += seconds.get(module, default)
    return [sorted(share) for share in chosen if share]


def names_paths(extra: list[str]) -> bool:
    """Whether the extra pytest arguments name test paths (then the suite is not shared out)."""
    return any(not a.startswith("-") and (a.startswith("tests") or "::" in a or a.endswith(".py")) for a in extra)


def default_runs(extra: list[str], logs: Path | None, *, shards: int) -> list[Run]:
    version = selected_version()
    mode = selected_mode(version)
    title = f"Kafka {version} ({mode}): the whole suite"
    if shards <= 1 or logs is None or names_paths(extra):
        return [Run(title=title, args=["--durations=25", "--durations-check", *extra], env={})]
    shares = shard_modules(test_modules(), baseline_seconds(f"{version}-{mode}"), shards)
    return [
        Run(
            title=f"{title}, share {n} of {len(shares)} ({len(share)} modules)",
            args=["--durations=25", "--durations-check", *extra, *share],
            env={"KAFKA_RECONCILER_TEST_SHARE": f"{n}"},
            log=None if n == 1 else logs / f"share-{n}.log",
        )
        for n, share in enumerate(shares, start=1)
    ]


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
    own = ("--legacy-only", "--in-series", "--one-run")
    legacy_only = "--legacy-only" in args
    in_series = "--in-series" in args or legacy_only
    extra = [a for a in args if a not in own]
    signal.signal(signal.SIGTERM, _interrupt)
    print(f"== test runs start: {_load()}", flush=True)
    logs = None if in_series else Path(tempfile.mkdtemp(prefix="kafka-reconciler-tests-"))
    shards = 1 if "--one-run" in args else SHARDS
    main_runs = [] if legacy_only else default_runs(extra, logs, shards=shards)
    legacy = legacy_runs(extra, logs)
    runs = [*main_runs, *legacy]
    beside_runs = [r for r in runs if r.log is not None]
    stopping = threading.Event()
    threads = [] if in_series else [threading.Thread(target=r.execute, daemon=True) for r in main_runs[1:]]
    if not in_series:
        threads.append(threading.Thread(target=_in_turn, args=(legacy, stopping), daemon=True))
    try:
        for thread in threads:
            thread.start()
        if main_runs:
            print(f"== {main_runs[0].title}", flush=True)
            main_runs[0].execute()
        if in_series:
            for run in legacy:
                print(f"== {run.title}", flush=True)
                run.execute()
        else:
            if any(t.is_alive() for t in threads):
                print("== waiting for the runs started beside it", flush=True)
            for thread in threads:
                thread.join()
            for run in beside_runs:
                print(f"== {run.title} (ran beside the first; its output)", flush=True)
                if run.log is not None and run.log.exists():
                    sys.stdout.write(run.log.read_text(errors="replace"))
                    sys.stdout.flush()
    except KeyboardInterrupt:
        print("\n== stopping every test run", flush=True)
        stopping.set()
        for run in runs:
            run.stop()
        for thread in threads:  # a legacy run that started while the others were stopped is stopped too
            thread.join(timeout=STOP_GRACE_S)
        for run in runs:
            run.stop()
        return 130
    finally:
        if logs is not None:
            shutil.rmtree(logs, ignore_errors=True)
    print("== test runs", flush=True)
    for run in runs:
        print(f"{run.title}: {run.outcome()}", flush=True)
    print(f"end: {_load()}", flush=True)
    return 0 if passed(main_runs, legacy) else 1


def passed(main_runs: list[Run], legacy: list[Run]) -> bool:
    """Every run passed; a share of the default suite that a filter left empty passes when another share ran."""
    if len(main_runs) > 1 and all(r.exit_code in (0, NO_TESTS) for r in main_runs):
        shares_ok = any(r.exit_code == 0 for r in main_runs)
    else:
        shares_ok = all(r.exit_code == 0 for r in main_runs)
    return shares_ok and all(r.exit_code == 0 for r in legacy)


if __name__ == "__main__":
    sys.exit(main())

"""Each test module's duration against a committed baseline, so a module that became much slower is seen.

With ``--durations-check`` (``make test`` passes it to every run) a pytest plugin adds up each module's time and,
at the end, compares it with the baseline of the same Kafka release and mode in ``tests/durations/`` (for example
``4.4.0-kraft.json``). A module at least ``FACTOR`` (2x) as slow as its baseline, and over ``FLOOR_S`` seconds, is
listed in a loud warning section. It is a warning, not a failure: the figures are wall-clock times on a machine
whose load is not ours to choose (the same suite runs 2-3 times longer at load 10 than at load 1; the baseline's own
load is in its file), and the project checks speed with benchmarks, never with timed tests. The run's module times
are also kept in pytest's cache (``.pytest_cache``), one entry per share when ``tests/suites.py`` shares the suite
among several pytest processes; ``python -m tests.support.durations`` writes them, shares merged, as the new
baseline after a deliberate full run.

A module's time is the sum of its tests' setup, call and teardown, less the start of session-wide servers (brokers,
the Connect worker: they start once, in whichever module first asks, and the "Kafka clusters" section lists them)
and less the last test's teardown, where every session-wide server stops.
"""

from __future__ import annotations

import collections
import json
import os
import sys
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from tests.kafka.dist import selected_mode, selected_version

BASELINE_DIR = Path(__file__).resolve().parents[1] / "durations"
FACTOR = 2.0
FLOOR_S = 5.0  # below this, now and in the baseline, a module's time is mostly noise (imports, a fixture's start)
CACHE_KEY = "kafka-reconciler/module-durations"
SHARE_SEPARATOR = "@share-"  # a cache entry of one share of the suite: <release key>@share-<n>


def release_key() -> str:
    version = selected_version()
    return f"{version}-{selected_mode(version)}"


def baseline_path(key: str) -> Path:
    return BASELINE_DIR / f"{key}.json"


def slower(now: dict[str, float], baseline: dict[str, float]) -> list[tuple[str, float, float]]:
    """Modules at least ``FACTOR`` times their baseline and over ``FLOOR_S`` seconds: (module, now, baseline)."""
    return sorted(
        (module, seconds, baseline[module])
        for module, seconds in now.items()
        if module in baseline and seconds >= FLOOR_S and seconds >= FACTOR * max(baseline[module], FLOOR_S / FACTOR)
    )


class ModuleDurations:
    """The pytest plugin: adds up module times, compares them with the baseline, keeps them in the cache."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.key = release_key()
        self.times: collections.defaultdict[str, float] = collections.defaultdict(float)
        self.shared: collections.defaultdict[str, float] = collections.defaultdict(float)  # servers' start, per test
        self.current: str | None = None
        self.last: str | None = None
        self.depth = 0  # session fixtures being set up (one that another needs is counted once, in the outer one)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.last = session.items[-1].nodeid if session.items else None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        self.current = item.nodeid
        try:
            return (yield)
        finally:
            self.current = None

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef[Any]) -> Generator[None, object, object]:
        if fixturedef.scope != "session":
            return (yield)
        began = time.monotonic()
        self.depth += 1
        try:
            return (yield)
        finally:
            self.depth -= 1
            if self.depth == 0 and self.current is not None:
                self.shared[self.current] += time.monotonic() - began

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "teardown" and report.nodeid == self.last:
            return
        seconds = report.duration - (self.shared[report.nodeid] if report.when == "setup" else 0.0)
        self.times[report.nodeid.split("::", 1)[0]] += max(seconds, 0.0)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        now = {module: round(seconds, 1) for module, seconds in sorted(self.times.items())}
        if self.config.cache is not None:
            share = os.environ.get("KAFKA_RECONCILER_TEST_SHARE")
            entry = self.key if not share else f"{self.key}{SHARE_SEPARATOR}{share}"
            self.config.cache.set(f"{CACHE_KEY}/{entry}", {"modules": now, "load_average": _load()})
        path = baseline_path(self.key)
        if not path.exists():
            terminalreporter.write_line(f"module durations: no baseline for {self.key} ({path.name})")
            return
        baseline = json.loads(path.read_text(encoding="utf-8"))
        flagged = slower(now, baseline["modules"])
        unknown = sorted(set(now) - set(baseline["modules"]))
        where = path.relative_to(BASELINE_DIR.parents[1]).as_posix()
        if not flagged:
            terminalreporter.write_line(
                f"module durations: {len(now) - len(unknown)} module(s) within {FACTOR:g}x of {where}"
                f" ({len(unknown)} without a baseline)"
            )
            return
        terminalreporter.write_sep(
            "!", f"{len(flagged)} TEST MODULE(S) {FACTOR:g}x SLOWER THAN THEIR BASELINE", red=True
        )
        for module, seconds, before in flagged:
            terminalreporter.write_line(f"{module}: {seconds:.1f} s, baseline {before:.1f} s ({seconds / before:.1f}x)")
        terminalreporter.write_line(
            f"baseline: {where} (measured {baseline.get('measured', '?')}, load average "
            f"{baseline.get('load_average', '?')}); now: load average {_load()}. A warning, not a failure: wall-clock "
            "time follows the machine's load. Look at what changed in these modules; after a deliberate full run, "
            "`python -m tests.support.durations` records the run's times as the new baseline."
        )


def _load() -> list[float]:
    return [round(x, 1) for x in os.getloadavg()]


def write_baselines(cache_dir: Path, *, measured: str) -> list[Path]:
    """Copy the module times of the last run of each release kept in pytest's cache into ``tests/durations/``, the
    shares of a run shared among several processes merged into one baseline."""
    folder = cache_dir / "v" / CACHE_KEY
    merged: dict[str, dict[str, Any]] = {}
    for cached in sorted(folder.glob("*")):
        data = json.loads(cached.read_text(encoding="utf-8"))
        key = cached.name.split(SHARE_SEPARATOR, 1)[0]
        body = merged.setdefault(key, {"measured": measured, "load_average": data["load_average"], "modules": {}})
        body["modules"].update(data["modules"])
    BASELINE_DIR.mkdir(exist_ok=True)
    written = []
    for key, body in merged.items():
        body["modules"] = dict(sorted(body["modules"].items()))
        target = baseline_path(key)
        target.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        written.append(target)
    return written


def main(argv: list[str]) -> int:
    """``python -m tests.support.durations [DATE]``: the last runs' module times become the baselines."""
    measured = argv[0] if argv else time.strftime("%Y-%m-%d")
    written = write_baselines(BASELINE_DIR.parents[1] / ".pytest_cache", measured=measured)
    for path in written:
        print(f"wrote {path}")
    if not written:
        print("no module durations in .pytest_cache: run the suite with --durations-check first", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

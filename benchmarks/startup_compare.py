"""Start-up of two versions of the CLI side by side: ``--help`` and ``validate examples/platform``, interleaved.

``--examples NAME`` (repeatable) validates those trees of ``examples/`` instead (``schema-registry``: a tree whose
documents are built through a kind's declaration).

Each version is a source tree of the ``reconciler`` package (``git archive <commit> reconciler | tar -x -C DIR``),
imported by this virtualenv's interpreter with the editable-install finder removed from ``sys.meta_path``, so both
run on the same libraries. Prints median (min-max) wall seconds and the ratios to ``python -c pass`` and to
``python -c "import typer, pydantic"`` (the floor of a typer command validating with pydantic) of the same run, then
the same for CPU seconds (user + system of the child, from ``os.wait4``), which other processes on a loaded machine
disturb far less than wall time; then, for CPU, the median and maximum of each run's own ratio to the floor (each
command against the floor measured just before it). Asserts nothing.

    .venv/bin/python -m benchmarks.startup_compare before=/tmp/before after=/tmp/after --runs 15
    .venv/bin/python -m benchmarks.startup_compare before=/tmp/before after=/tmp/after --examples schema-registry
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FLOOR = "import typer, pydantic"
WRAP = (
    "import sys; sys.meta_path = [f for f in sys.meta_path if 'editable' not in type(f).__module__]; "
    "sys.path.insert(0, {root!r}); sys.argv = ['kafka-reconciler', *{args!r}]; "
    "from reconciler.cli import app; app()"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("trees", nargs="+", help="LABEL=DIR: a directory holding a reconciler/ package")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--examples", action="append", help="a tree of examples/ to validate (default: platform)")
    args = parser.parse_args()
    py = sys.executable
    trees = [
        ("validate" + ("" if not args.examples else f" {n}"), str(REPO / "examples" / n))
        for n in args.examples or ["platform"]
    ]
    commands: dict[str, list[str]] = {"python -c pass": [py, "-c", "pass"], FLOOR: [py, "-c", "import typer, pydantic"]}
    for item in args.trees:
        label, _, root = item.partition("=")
        for name, argv in (("--help", ["--help"]), *((what, ["validate", tree]) for what, tree in trees)):
            commands[f"{label} {name}"] = [py, "-c", WRAP.format(root=root, args=argv)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # caches as in a user's install
    for argv in commands.values():  # one untimed run each: byte-code caches written
        subprocess.run(argv, env=env, capture_output=True, check=False)
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    print(f"load before: {os.getloadavg()}")
    for _ in range(args.runs):
        for name, argv in commands.items():
            started = time.perf_counter()
            child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            _, status, usage = os.wait4(child.pid, 0)
            times[name].append(time.perf_counter() - started)
            cpu[name].append(usage.ru_utime + usage.ru_stime)
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit(f"{name} exited {status}: {(child.stderr.read() if child.stderr else b'')[-500:]!r}")
    for what, table in (("wall", times), ("cpu", cpu)):
        base, floor = statistics.median(table["python -c pass"]), statistics.median(table[FLOOR])
        for name, values in table.items():
            median = statistics.median(values)
            print(
                f"{what} {name:<24} {median:6.3f}s ({min(values):.3f}-{max(values):.3f}) "
                f"{median / base:5.2f}x pass {median / floor:5.2f}x floor"
            )
    for name, values in cpu.items():
        ratios = [value / low for value, low in zip(values, cpu[FLOOR], strict=True)]
        print(f"cpu per run / floor {name:<24} median {statistics.median(ratios):5.2f}x max {max(ratios):5.2f}x")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

"""A plan file read and rendered by two versions side by side: interleaved, in fresh processes.

The plan is ``tests/golden/big.big_plan()`` (2,000 changes: topics created, resized and reconfigured, ACL bindings,
quotas, SCRAM users, broker configs), written once as a plan file by this tree. Each version is a source tree of the
``reconciler`` package (``git archive <commit> reconciler | tar -x -C DIR``), imported by this virtualenv's
interpreter with the editable-install finder removed. Each run reads the file's JSON once, then times, best of
``--repeat`` in CPU seconds (``time.process_time``: steadier than wall time on a shared machine), building the plan
(``Plan.from_json_dict``: every change decoded, its shown lines derived and checked), the text render and the JSON
render (which builds every change again after its redaction pass). Prints each version's median (min-max) and the
median of the per-run ratios to the first version, with the load average. Asserts nothing.

    .venv/bin/python -m benchmarks.plan_file_compare before=/tmp/before after=/tmp/after --runs 6
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = (
    "import sys, time, json; "
    "sys.meta_path = [f for f in sys.meta_path if 'editable' not in type(f).__module__]; "
    "sys.path.insert(0, {root!r}); "
    "from reconciler.model import plans; from reconciler.render import render_json, render_text; "
    "doc = json.loads(open({path!r}).read()); best = [1e9, 1e9, 1e9]\n"
    "for _ in range({repeat}):\n"
    "    t0 = time.process_time(); p = plans.Plan.from_json_dict(doc); t1 = time.process_time()\n"
    "    render_text(p); t2 = time.process_time(); render_json(p); t3 = time.process_time()\n"
    "    best = [min(b, t) for b, t in zip(best, (t1 - t0, t2 - t1, t3 - t2))]\n"
    "print(json.dumps([*best, len(p.changes)]))"
)
STEPS = ("load", "text", "json")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("trees", nargs="+", help="LABEL=DIR: a directory holding a reconciler/ package")
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    from tests.golden import big

    trees = dict(item.partition("=")[::2] for item in args.trees)
    results: dict[str, list[list[float]]] = {label: [] for label in trees}
    with tempfile.TemporaryDirectory(prefix="plan-file-compare-") as tmp:
        path = Path(tmp) / "plan.json"
        path.write_text(big.big_plan().to_json(), encoding="utf-8")
        print(f"load before: {os.getloadavg()}; {args.runs} runs, interleaved, best of {args.repeat} each")
        for _ in range(args.runs):
            for label, root in trees.items():
                code = CHILD.format(root=root, path=str(path), repeat=args.repeat)
                done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    raise SystemExit(f"{label} exited {done.returncode}: {done.stderr[-800:]}")
                results[label].append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"load after: {os.getloadavg()}")
    first = next(iter(results))
    for label, rows in results.items():
        parts = []
        for i, step in enumerate(STEPS):
            times = [r[i] * 1000 for r in rows]
            ratio = statistics.median(r[i] / b[i] for r, b in zip(rows, results[first], strict=True))
            parts.append(f"{step} {statistics.median(times):.1f} ms ({min(times):.1f}-{max(times):.1f}) x{ratio:.2f}")
        print(f"{label:<8} {int(rows[0][3])} changes: " + "; ".join(parts))


if __name__ == "__main__":
    main()

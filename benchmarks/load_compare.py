"""Manifest loading of two versions side by side: ``manifests.load`` of the same files, interleaved, in fresh processes.

The files are apply_bench's shape (``apply_shape.Shape``: topics with a partition mix and 3 config overrides,
ACL bindings 20 to a document, an Ownership document), written once into a temporary directory. Each version is
a source tree of the ``reconciler`` package (``git archive <commit> reconciler | tar -x -C DIR``), imported by this
virtualenv's interpreter with the editable-install finder removed, so both run on the same libraries. Each run
times ``load()`` alone (imports excluded) in wall and CPU seconds; prints median (min-max) and the ratio to the
first tree's median, with the load average. With ``--plan``, each run then times a no-change plan of the loaded
manifests (``planner.plan``) against a live state built to hold exactly what they declare (every topic with its
partitions, replicas and configs, every ACL binding), and checks that it plans no change. Asserts nothing else.

    .venv/bin/python -m benchmarks.load_compare before=/tmp/before after=/tmp/after --topics 10000 --acls 20000
    .venv/bin/python -m benchmarks.load_compare before=/tmp/before after=/tmp/after --plan
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

from benchmarks.apply_shape import Shape

CHILD = (
    "import sys, time, json, resource; "
    "sys.meta_path = [f for f in sys.meta_path if 'editable' not in type(f).__module__]; "
    "sys.path.insert(0, {root!r}); from pathlib import Path; from reconciler import operations; "
    "w, c = time.perf_counter(), time.process_time(); r = operations.load_manifests([Path({files!r})], env={{}}); "
    "print(json.dumps([time.perf_counter() - w, time.process_time() - c, len(r.desired.topics), "
    "len(r.desired.acls), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss]))"
)

# A live state holding exactly what the manifests declare, then one no-change plan of it, timed (wall, CPU).
PLAN_CHILD = (
    "import sys, time, json, resource; "
    "sys.meta_path = [f for f in sys.meta_path if 'editable' not in type(f).__module__]; "
    "sys.path.insert(0, {root!r}); from pathlib import Path; from reconciler import operations, planner; "
    "from reconciler.model import state as s; "
    "d = operations.load_manifests([Path({files!r})], env={{}}).desired; "
    "n = max(t.replication_factor for t in d.topics.values()); "
    "topics = {{name: s.TopicState(name, tuple(tuple((p + k) % n + 1 for k in range(t.replication_factor)) "
    "for p in range(t.partitions)), configs=dict(t.configs)) for name, t in d.topics.items()}}; "
    "live = s.ClusterState(cluster_id='c', controller_id=1, brokers=tuple(s.Broker(i, 'b', 9092) "
    "for i in range(1, n + 1)), topics=topics, acls=frozenset(d.acls)); "
    "w, c = time.perf_counter(), time.process_time(); p = planner.plan(d, live); "
    "print(json.dumps([time.perf_counter() - w, time.process_time() - c, len(d.topics), len(d.acls), "
    "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, len(p.actionable)]))"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("trees", nargs="+", help="LABEL=DIR: a directory holding a reconciler/ package")
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--acls", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--plan", action="store_true", help="time a no-change plan instead of the loading")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="load-compare-") as tmp:
        files = Path(tmp) / "manifests"
        Shape("bench", args.topics, args.acls).write(files)
        lines = sum(p.read_text().count("\n") for p in files.glob("*.yaml"))
        print(f"{args.topics} topics, {args.acls} ACL bindings: {lines} YAML lines; {args.runs} runs, interleaved")
        trees = dict(item.partition("=")[::2] for item in args.trees)
        results: dict[str, list[list[float]]] = {label: [] for label in trees}
        print(f"load before: {os.getloadavg()}")
        for _ in range(args.runs):
            for label, root in trees.items():
                argv = [sys.executable, "-c", (PLAN_CHILD if args.plan else CHILD).format(root=root, files=str(files))]
                done = subprocess.run(argv, capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    raise SystemExit(f"{label} exited {done.returncode}: {done.stderr[-800:]}")
                results[label].append(json.loads(done.stdout.strip().splitlines()[-1]))
                if args.plan and results[label][-1][5]:
                    raise SystemExit(f"{label}: the plan is not empty ({results[label][-1][5]} changes)")
        print(f"load after: {os.getloadavg()}")
    first = next(iter(results))
    base_wall = statistics.median(r[0] for r in results[first])
    base_cpu = statistics.median(r[1] for r in results[first])
    for label, rows in results.items():
        wall, cpu = [r[0] for r in rows], [r[1] for r in rows]
        rss = statistics.median(r[4] for r in rows) / 1024
        print(
            f"{label:<10} wall {statistics.median(wall):6.3f}s ({min(wall):.3f}-{max(wall):.3f}) "
            f"{base_wall / statistics.median(wall):5.2f}x faster than {first}; "
            f"cpu {statistics.median(cpu):6.3f}s ({min(cpu):.3f}-{max(cpu):.3f}) "
            f"{base_cpu / statistics.median(cpu):5.2f}x; peak RSS {rss:.0f} MiB; "
            f"{int(rows[0][2])} topics, {int(rows[0][3])} ACLs"
        )


if __name__ == "__main__":
    main()

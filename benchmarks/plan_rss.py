"""Peak memory of a no-change plan against a snapshot, beside the floor of a process holding the same state.

For each ``--topics`` size, writes apply_bench's shape (``apply_shape.Shape``: a partition mix, 3 config
overrides per topic, ``--acls-per-topic`` ACL bindings per topic, an Ownership document) and a snapshot of a
cluster that holds exactly that (3 brokers, each topic's configs as declared, every binding), then runs,
interleaved, ``--runs`` times each, in fresh processes:

* ``plan`` of each source tree given (``LABEL=DIR``, as ``startup_compare`` takes them): ``plan DIR
  --live-state SNAPSHOT`` (the CLI as a user runs it; no broker);
* ``floor``: the interpreter with kafka-python's admin client imported and the snapshot read with ``json.load``:
  the client library and the live state as plain Python data, which any tool built on kafka-python holds.

Peak RSS is the child's ``ru_maxrss`` (``os.wait4``). Linux counts in it the RSS of the forked parent before its
``exec``, so the files are written by a child process (``--write``) and this process stays small (about 15 MiB,
below every figure). Prints median MiB, the ratio to the floor and the load average; asserts nothing.

    .venv/bin/python -m benchmarks.plan_rss now=. --topics 10000 50000 --runs 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.apply_shape import Shape, partitions

WRAP = (
    "import sys; sys.meta_path = [f for f in sys.meta_path if 'editable' not in type(f).__module__]; "
    "sys.path.insert(0, {root!r}); sys.argv = ['kafka-reconciler', *{args!r}]; "
    "from reconciler.cli import app; app()"
)
FLOOR = "import json, kafka, kafka.admin; state = json.load(open({path!r}))"


def snapshot(files: Path, out: Path) -> int:
    """A snapshot of the cluster the manifests in ``files`` describe; returns its size in bytes."""
    from reconciler import manifests
    from reconciler.model import state
    from reconciler.snapshot import files as snapshot_files

    wanted = manifests.load([files], env={}).desired
    topics = {}
    for i, (name, topic) in enumerate(sorted(wanted.topics.items())):
        layout = tuple(((p + i) % 3 + 1,) for p in range(topic.partitions))
        topics[name] = state.TopicState(name=name, assignment=layout, configs=dict(topic.configs), topic_id=f"id-{i}")
    live = state.ClusterState(
        cluster_id="bench",
        controller_id=1,
        brokers=tuple(state.Broker(b, f"broker-{b}", 9092, None) for b in (1, 2, 3)),
        topics=topics,
        acls=frozenset(wanted.acls),
        quotas={},
        scram_users={},
        broker_configs={},
        cluster_configs={},
    )
    snapshot_files.write_snapshot(live, out)
    return out.stat().st_size


def peak_rss(argv: list[str]) -> tuple[float, float, str]:
    """(peak RSS in MiB, wall seconds, last line printed) of one child run; raises when it fails."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen(argv, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        printed = out.read().decode(errors="replace").strip().splitlines()
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{argv[-1][:80]} exited {status}: {err.read()[-500:]!r}")
    return usage.ru_maxrss / 1024, wall, printed[-1] if printed else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("trees", nargs="+", help="LABEL=DIR: a directory holding a reconciler/ package")
    parser.add_argument("--topics", type=int, nargs="+", default=[10_000, 50_000])
    parser.add_argument("--acls-per-topic", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)  # in a child: write the inputs and exit
    args = parser.parse_args()
    if args.write is not None:
        Shape("bench", args.topics[0], args.topics[0] * args.acls_per_topic).write(args.write / "manifests")
        snapshot(args.write / "manifests", args.write / "snapshot.json")
        return
    trees = dict(item.partition("=")[::2] for item in args.trees)
    print(f"load before: {os.getloadavg()}")
    for count in args.topics:
        with tempfile.TemporaryDirectory(prefix="plan-rss-") as tmp:
            files, snap = Path(tmp) / "manifests", Path(tmp) / "snapshot.json"
            write = [sys.executable, "-m", "benchmarks.plan_rss", "x=.", "--write", tmp, "--topics", str(count)]
            subprocess.run([*write, "--acls-per-topic", str(args.acls_per_topic)], check=True)
            size = snap.stat().st_size
            parts = sum(partitions(i) for i in range(count))
            print(
                f"\n{count} topics ({parts} partitions), {count * args.acls_per_topic} ACL bindings; "
                f"snapshot {size / 2**20:.1f} MiB; {args.runs} runs, interleaved"
            )
            commands = {"floor": [sys.executable, "-c", FLOOR.format(path=str(snap))]}
            for label, root in trees.items():
                argv = ["plan", str(files), "--live-state", str(snap)]
                commands[f"plan ({label})"] = [sys.executable, "-c", WRAP.format(root=root, args=argv)]
            results: dict[str, list[tuple[float, float, str]]] = {name: [] for name in commands}
            for _ in range(args.runs):
                for name, argv in commands.items():
                    results[name].append(peak_rss(argv))
            floor = statistics.median(r[0] for r in results["floor"])
            for name, rows in results.items():
                rss = statistics.median(r[0] for r in rows)
                wall = statistics.median(r[1] for r in rows)
                print(
                    f"  {name:<16} peak RSS {rss:7.1f} MiB ({min(r[0] for r in rows):.1f}-"
                    f"{max(r[0] for r in rows):.1f}) {rss / floor:5.2f}x the floor; wall {wall:.2f}s  {rows[-1][2]}"
                )
            print(f"  load: {os.getloadavg()}")


if __name__ == "__main__":
    main()

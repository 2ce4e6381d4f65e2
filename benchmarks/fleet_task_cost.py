"""Where a Spark planning task's time goes, and the Spark stage per cluster against the local engine, in one run.

Usage: ``python benchmarks/fleet_task_cost.py [--clusters 60] [--topics 100] [--configs 10] [--acls 50]
[--master local[2]] [--runs 1] [--cache .cache/fleet-bench]``

Inputs come from ``fleet_snapshots.py`` (Parquet snapshots, generated on first use). In one process:
the local engine plans every cluster (``local.run_local``, no file writes: the planning work only) and
its wall time per cluster is the local cost per core (it plans on one core; its reads are Parquet files).
Then the same tasks run through the Spark engine's job (``spark.run_spark``) on ``--master`` in a few
layouts: one task per cluster (the engine's layout before) and the engine's default (several clusters
per task), with Spark's event log on. From the log each layout reports the planning stage's tasks, the
summed executor run time (``busy``, core-seconds), the Python workers' share, deserialisation time,
the result bytes the driver received, and the stage's core-seconds per cluster as a ratio to the
local engine's seconds per cluster. Prints figures as measured; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def tree_cpu_s() -> float:
    """CPU seconds (user + system) used so far by this process and every process under it (the Spark JVM,
    its Python daemon and workers), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    me = os.getpid()

    def under(pid: int) -> bool:
        while pid > 1:
            if pid == me:
                return True
            pid = parents.get(pid, 1)
        return False

    return sum(seconds for pid, seconds in cpu.items() if under(pid))


def job_metrics(event_dir: Path, group_prefix: str) -> list[dict[str, float]]:
    """Per planning job (in order), the summed metrics of its tasks from Spark's JSON event log."""
    from tests.spark import events

    stage_job: dict[int, int] = {}
    jobs: dict[int, dict[str, float]] = {}
    window: dict[int, list[float]] = {}
    for event in events.read_events(event_dir):
        kind = event.get("Event")
        if kind == "SparkListenerJobStart":
            group = (event.get("Properties") or {}).get("spark.jobGroup.id", "")
            if group.startswith(group_prefix):
                job = int(event["Job ID"])
                jobs[job] = {"tasks": 0.0, "run_s": 0.0, "deser_s": 0.0, "result_mb": 0.0, "span_s": 0.0}
                window[job] = [float("inf"), 0.0]
                for stage in event.get("Stage IDs", []):
                    stage_job[int(stage)] = job
        elif kind == "SparkListenerTaskEnd" and int(event.get("Stage ID", -1)) in stage_job:
            job = stage_job[int(event["Stage ID"])]
            info, metrics, totals = event["Task Info"], event.get("Task Metrics") or {}, jobs[job]
            totals["tasks"] += 1
            totals["run_s"] += metrics.get("Executor Run Time", 0) / 1000
            totals["deser_s"] += metrics.get("Executor Deserialize Time", 0) / 1000
            totals["result_mb"] += metrics.get("Result Size", 0) / 1e6
            window[job][0] = min(window[job][0], info["Launch Time"] / 1000)
            window[job][1] = max(window[job][1], info["Finish Time"] / 1000)
    for job, (first, last) in window.items():
        jobs[job]["span_s"] = max(0.0, last - first)
    return [jobs[j] for j in sorted(jobs)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=60)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--configs", type=int, default=10)
    parser.add_argument("--acls", type=int, default=50)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--layouts", default="", help="indexes of the layouts to run (0,1,2; default all)")
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache" / "fleet-bench")
    args = parser.parse_args()

    from benchmarks import fleet_snapshots
    from reconciler.fleet import load_fleet, local, sources
    from reconciler.fleet import spark as spark_engine

    root = fleet_snapshots.generate(
        cache=args.cache, clusters=args.clusters, topics=args.topics, configs=args.configs, acls=args.acls, sets=4
    )
    fleet_file = root / f"fleet-{args.clusters}-parquet.yaml"
    if not fleet_file.exists():
        fleet_snapshots.write_fleet(fleet_file, clusters=args.clusters, sets=4, fmt="parquet")
    fleet = load_fleet(fleet_file)
    desired_sets = sources.load_desired(fleet.clusters)
    tasks = [sources.make_task(c, desired_sets[sources.desired_key(c)]) for c in fleet.clusters]
    n = len(tasks)
    print(f"machine: {os.cpu_count()} cores shared; load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"fleet: {n} clusters x {args.topics} topics ({args.configs} configs each), {args.acls} ACLs; Parquet")

    local_s = []
    local_cpu = []
    for _ in range(args.runs + 1):  # the first run imports the planner: not counted
        started, cpu = time.perf_counter(), tree_cpu_s()
        for _outcome in local.run_local(tasks, desired_sets):
            pass
        local_s.append(time.perf_counter() - started)
        local_cpu.append(tree_cpu_s() - cpu)
    per_local = min(local_s[1:]) / n
    cpu_local = min(local_cpu[1:]) / n
    print(f"local engine CPU: {cpu_local * 1000:.1f} ms per cluster")
    print(
        f"local engine: {min(local_s[1:]):.2f} s for {n} clusters = {per_local * 1000:.1f} ms per cluster (one core; "
        f"first, cold run {local_s[0]:.2f} s)"
    )

    layouts: dict[str, int | None] = {
        "one task per cluster (before)": n,
        "engine default": None,
        "one task per core": max(1, int(args.master.partition("[")[2].rstrip("]") or 1)),
    }
    if args.layouts:
        layouts = {k: v for i, (k, v) in enumerate(layouts.items()) if str(i) in args.layouts.split(",")}
    print(
        "| layout | job | tasks | stage span s | busy core-s | deserialise s | result MB | core-s per cluster "
        "| ratio to local | CPU ms per cluster (all processes) | CPU ratio to local |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, slices in layouts.items():
        with tempfile.TemporaryDirectory(prefix="fleet-task-cost-") as tmp:
            conf = {
                "spark.eventLog.enabled": "true",
                "spark.eventLog.compress": "false",
                "spark.eventLog.dir": Path(tmp).as_uri(),
                "spark.driver.memory": "1g",
            }
            session = spark_engine.session(args.master, conf=conf)
            cpu_used = []
            try:
                for _ in range(args.runs + 1):  # the first job starts the Python workers and imports the planner
                    cpu = tree_cpu_s()
                    spark_engine.run_spark(tasks, desired_sets, spark=session, max_parallel=slices)
                    cpu_used.append(tree_cpu_s() - cpu)
            finally:
                spark_engine.stop(session)
            measured = job_metrics(Path(tmp), spark_engine.JOB_GROUP_PREFIX)
        for index, m in enumerate(measured):
            per = m["run_s"] / n
            cpu_per = cpu_used[index] / n
            print(
                f"| {label} | {'cold' if index == 0 else f'warm {index}'} | {m['tasks']:.0f} | {m['span_s']:.2f} | "
                f"{m['run_s']:.2f} | {m['deser_s']:.2f} | {m['result_mb']:.1f} | {per:.4f} | {per / per_local:.2f}x "
                f"| {cpu_per * 1000:.1f} | {cpu_per / cpu_local:.2f}x |",
                flush=True,
            )
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

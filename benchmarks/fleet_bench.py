"""Measure fleet plans: the local engine, Spark ``local[2]`` and a standalone Spark cluster of 1 and 2 workers.

Usage: ``python benchmarks/fleet_bench.py [--sizes 50,200] [--engines local,spark,standalone1,standalone2]
[--format parquet] [--runs 1] [--topics 1000] [--configs 10] [--acls 200] [--cache .cache/fleet-bench]
[--target 5000]``

Inputs come from ``fleet_snapshots.py`` (generated on first use, then reused). Every measurement runs
``run_fleet_plan`` in a fresh child process; the parent samples the resident memory of the child's
process tree every 50 ms (for a standalone cluster the executors are the workers' children, not the
child's: that column then covers the driver only). ``standaloneN`` starts a real standalone cluster of
N workers with 1 core each (``tests.spark.standalone``: separate JVMs from the pyspark package's own
launcher, on 127.0.0.1, stopped at the end) and plans only once all N executors are registered.

Spark runs write Spark's own JSON event log; from it each run reports the planning stage's tasks,
how many ran at the same time (``max concurrent``, a sweep over the tasks' launch/finish times),
their summed run time (``busy``: executor core-seconds) and the stage's span. Then it prints, side by
side: each engine's marginal cost per cluster between the two sizes (and the ratio to the local
engine), the 1 -> 2 worker scaling of the planning stage, and a sizing estimate for ``--target``
clusters derived only from the measured per-core cost and the measured driver costs.
Prints figures as they are measured; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

DRIVER_CONF = {"spark.driver.memory": "2g"}


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and all its descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        proc = int(entry)
        children.setdefault(int(fields[1]), []).append(proc)
        rss[proc] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, stack = 0, [pid]
    while stack:
        proc = stack.pop()
        total += rss.get(proc, 0)
        stack.extend(children.get(proc, []))
    return total


def measure(*, engine: str, master: str, fleet: Path, workers: int) -> dict[str, Any]:
    """One run in a child process: wall time, Spark start-up, planning-stage figures, peak memory."""
    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as out:
        cmd = [sys.executable, __file__, "--child", engine, master, str(workers), str(fleet), out]
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        peak = 0
        while child.poll() is None:
            peak = max(peak, _tree_rss(child.pid))
            time.sleep(0.05)
        stdout = child.stdout.read() if child.stdout else ""
        if child.returncode != 0:
            raise SystemExit(f"benchmark child failed ({child.returncode}): {' '.join(cmd)}")
    result: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    result["peak_mb"] = peak / 1e6
    return result


def child(engine: str, master: str, workers: int, fleet_file: Path, out_dir: Path) -> None:
    from reconciler.fleet import load_fleet, run_fleet_plan
    from reconciler.fleet import spark as spark_engine
    from tests.spark import events

    fleet = load_fleet(fleet_file)
    started = time.perf_counter()
    if engine == "local":
        result = run_fleet_plan(fleet, engine="local", out_dir=out_dir)
        wall = time.perf_counter() - started
        print(json.dumps({"seconds": wall, "startup": 0.0, "rows": result.rows, "clusters": len(result.clusters)}))
        return
    event_dir = out_dir / "_events"
    event_dir.mkdir()
    conf = {
        **DRIVER_CONF,
        "spark.eventLog.enabled": "true",
        "spark.eventLog.compress": "false",
        "spark.eventLog.dir": event_dir.as_uri(),
    }
    if master.startswith("spark://"):
        conf.update(
            {
                "spark.executor.memory": "1g",
                "spark.cores.max": str(workers),
                "spark.scheduler.minRegisteredResourcesRatio": "1.0",
                "spark.scheduler.maxRegisteredResourcesWaitingTime": "300s",
                "spark.driver.host": "127.0.0.1",
                "spark.driver.bindAddress": "127.0.0.1",
            }
        )
    session = spark_engine.session(master, conf=conf)
    startup = time.perf_counter() - started
    result = run_fleet_plan(fleet, engine="spark", spark_session=session, out_dir=out_dir / "plans")
    wall = time.perf_counter() - started
    session.stop()
    tasks = events.group_tasks(events.read_events(event_dir), group_prefix=spark_engine.JOB_GROUP_PREFIX)
    print(
        json.dumps(
            {
                "seconds": wall,
                "startup": startup,
                "rows": result.rows,
                "clusters": len(result.clusters),
                "tasks": len(tasks),
                "concurrency": events.max_concurrency(tasks),
                "busy": events.busy_ms(tasks) / 1000,
                "span": events.span_ms(tasks) / 1000,
                "executors": len({t.executor for t in tasks}),
            }
        )
    )


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return float(statistics.median(float(r.get(key, 0.0)) for r in runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50,200")
    parser.add_argument("--engines", default="local,spark,standalone1,standalone2")
    parser.add_argument("--format", default="parquet", choices=("parquet", "json"))
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--configs", type=int, default=10)
    parser.add_argument("--acls", type=int, default=200)
    parser.add_argument("--target", type=int, default=5000)
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache" / "fleet-bench")
    parser.add_argument(
        "--child", nargs=5, metavar=("ENGINE", "MASTER", "WORKERS", "FLEET", "OUT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.child:
        engine, master, workers, fleet, out = args.child
        child(engine, master, int(workers), Path(fleet), Path(out))
        return
    from benchmarks import fleet_snapshots
    from tests.spark.standalone import standalone_cluster

    sizes = sorted(int(x) for x in args.sizes.split(","))
    root = fleet_snapshots.generate(
        cache=args.cache, clusters=max(sizes), topics=args.topics, configs=args.configs, acls=args.acls, sets=4
    )
    print(f"machine: {os.cpu_count()} cores; load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1/5/15 min)")
    print(
        "| engine | clusters | runs | wall s | spark start s | planning tasks | max concurrent | executors "
        "| busy task-s | stage span s | peak MB (driver tree) | s per cluster |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    results: dict[str, dict[int, dict[str, float]]] = {}
    for engine in args.engines.split(","):
        workers = int(engine.removeprefix("standalone")) if engine.startswith("standalone") else 2
        with tempfile.TemporaryDirectory(prefix="fleet-bench-spark-") as spark_root:
            if engine.startswith("standalone"):
                cluster_ctx: Any = standalone_cluster(Path(spark_root), workers=workers, cores=1)
            else:
                from contextlib import nullcontext

                cluster_ctx = nullcontext(None)
            with cluster_ctx as cluster:
                master = cluster.master_url if cluster is not None else "local[2]"
                for n in sizes:
                    fleet = root / f"fleet-{n}-{args.format}.yaml"
                    if not fleet.exists():
                        fleet_snapshots.write_fleet(fleet, clusters=n, sets=4, fmt=args.format)
                    runs = [
                        measure(
                            engine="local" if engine == "local" else "spark",
                            master=master,
                            fleet=fleet,
                            workers=workers,
                        )
                        for _ in range(args.runs)
                    ]
                    figures = {
                        k: _median(runs, k)
                        for k in ("seconds", "startup", "peak_mb", "tasks", "concurrency", "busy", "span", "executors")
                    }
                    results.setdefault(engine, {})[n] = figures
                    spark_cols = (
                        f"{figures['startup']:.1f} | {figures['tasks']:.0f} | {figures['concurrency']:.0f} | "
                        f"{figures['executors']:.0f} | {figures['busy']:.1f} | {figures['span']:.1f}"
                        if engine != "local"
                        else "- | - | - | - | - | -"
                    )
                    print(
                        f"| {engine} | {n} | {len(runs)} | {figures['seconds']:.1f} | {spark_cols} | "
                        f"{figures['peak_mb']:.0f} | {figures['seconds'] / n:.3f} |",
                        flush=True,
                    )
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1/5/15 min)")
    report(results, sizes=sizes, target=args.target)


def report(results: dict[str, dict[int, dict[str, float]]], *, sizes: list[int], target: int) -> None:
    """Marginal cost per cluster, worker scaling, and the sizing estimate, from the measured figures only."""
    small, big = sizes[0], sizes[-1]
    marginal: dict[str, float] = {}
    for engine, by_size in results.items():
        if small in by_size and big in by_size and big > small:
            marginal[engine] = (by_size[big]["seconds"] - by_size[small]["seconds"]) / (big - small)
    base = marginal.get("local")
    for engine, cost in marginal.items():
        ratio = f" ({cost / base:.2f}x the local engine's)" if base else ""
        print(f"marginal cost {small}->{big} clusters, {engine}: {cost:.3f} s per cluster{ratio}", flush=True)
    for engine, by_size in results.items():  # without Spark's start-up, which varies more than the work
        if engine == "local" or small not in by_size or big not in by_size or big <= small:
            continue
        lo, hi = by_size[small], by_size[big]
        stage = (hi["span"] - lo["span"]) / (big - small)
        driver = max(0.0, ((hi["seconds"] - hi["startup"] - hi["span"]) - (lo["seconds"] - lo["startup"] - lo["span"])))
        driver /= big - small
        ratio = f" ({(stage + driver) / base:.2f}x the local engine's)" if base else ""
        print(f"marginal cost {small}->{big}, {engine}: stage {stage:.3f} + driver {driver:.3f} s per cluster{ratio}")
    one, two = results.get("standalone1", {}).get(big), results.get("standalone2", {}).get(big)
    if one and two:
        print(
            f"standalone 1 -> 2 workers at {big} clusters: planning stage {one['span']:.1f} s -> {two['span']:.1f} s "
            f"({one['span'] / two['span']:.2f}x), wall {one['seconds']:.1f} s -> {two['seconds']:.1f} s "
            f"({one['seconds'] / two['seconds']:.2f}x)"
        )
    sizing = two or results.get("spark", {}).get(big)
    small_run = results.get("standalone2" if two else "spark", {}).get(small)
    if sizing and small_run:
        per_core = sizing["busy"] / big  # executor core-seconds per cluster
        driver_big = sizing["seconds"] - sizing["startup"] - sizing["span"]
        driver_small = small_run["seconds"] - small_run["startup"] - small_run["span"]
        driver_per_cluster = max(0.0, (driver_big - driver_small) / (big - small))
        driver_fixed = max(0.0, driver_big - driver_per_cluster * big)
        print(
            f"per-core cost: {per_core:.3f} core-s per cluster ({1 / per_core:.1f} clusters per core-second); "
            f"driver: {driver_fixed:.1f} s fixed + {driver_per_cluster:.4f} s per cluster; "
            f"Spark start {sizing['startup']:.1f} s"
        )
        for cores in (2, 16, 64, 200):
            wall = sizing["startup"] + driver_fixed + target * driver_per_cluster + target * per_core / cores
            print(f"estimate for {target} clusters on {cores} executor cores: {wall:.0f} s ({wall / 60:.1f} min)")


if __name__ == "__main__":
    main()

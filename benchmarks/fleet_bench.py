"""Measure fleet plans: the local engine against Spark ``local[2]`` at several fleet sizes.

Usage: ``python benchmarks/fleet_bench.py [--sizes 10,50,200] [--engines local,spark] [--format parquet]
[--runs 3] [--big-runs 1] [--topics 5000] [--configs 10] [--acls 1000] [--cache .cache/fleet-bench]``

Inputs come from ``fleet_snapshots.py`` (generated on first use, then reused). Every measurement runs
``run_fleet_plan`` in a fresh child process; the parent samples the resident memory of the child's
whole process tree (the JVM and Spark's Python workers included) every 50 ms and keeps the peak.
Sizes above 50 clusters run ``--big-runs`` times, the others ``--runs`` times. Prints, per engine and
size: median wall time, peak memory, joined rows per second and per-cluster cost; then a linear fit
``wall = fixed + per_cluster * clusters`` per engine, from which the break-even size and the sizing of
a real Spark cluster follow. Prints figures only; asserts nothing.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

SPARK_CONF = {"spark.driver.memory": "4g", "spark.sql.shuffle.partitions": "8"}


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


def measure(*, engine: str, fleet: Path) -> dict[str, float]:
    """One run in a child process: wall time, rows, Spark start-up, peak memory of the process tree."""
    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as out:
        cmd = [sys.executable, __file__, "--child", engine, str(fleet), out]
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        peak = 0
        while child.poll() is None:
            peak = max(peak, _tree_rss(child.pid))
            time.sleep(0.05)
        stdout = child.stdout.read() if child.stdout else ""
        if child.returncode != 0:
            raise SystemExit(f"benchmark child failed ({child.returncode}): {' '.join(cmd)}")
    result: dict[str, float] = json.loads(stdout.strip().splitlines()[-1])
    result["peak_mb"] = peak / 1e6
    return result


def child(engine: str, fleet_file: Path, out_dir: Path) -> None:
    from reconciler.fleet import load_fleet, run_fleet_plan

    fleet = load_fleet(fleet_file)
    session, startup = None, 0.0
    started = time.perf_counter()
    if engine == "spark":
        from reconciler.fleet import spark as spark_engine

        session = spark_engine.session("local[2]", conf=SPARK_CONF)
        startup = time.perf_counter() - started
    result = run_fleet_plan(fleet, engine="spark" if session else "local", spark_session=session, out_dir=out_dir)
    wall = time.perf_counter() - started
    if session is not None:
        session.stop()
    planned = sum(1 for c in result.clusters if c.status == "planned")
    print(json.dumps({"seconds": wall, "startup": startup, "rows": result.rows, "clusters": planned}))


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least-squares ``wall = a + b * clusters`` over (clusters, median wall) points."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    b = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,50,200")
    parser.add_argument("--engines", default="local,spark")
    parser.add_argument("--format", default="parquet", choices=("parquet", "json"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--big-runs", type=int, default=1)
    parser.add_argument("--topics", type=int, default=5000)
    parser.add_argument("--configs", type=int, default=10)
    parser.add_argument("--acls", type=int, default=1000)
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache" / "fleet-bench")
    parser.add_argument("--child", nargs=3, metavar=("ENGINE", "FLEET", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), Path(args.child[2]))
        return
    import fleet_snapshots

    sizes = [int(x) for x in args.sizes.split(",")]
    root = fleet_snapshots.generate(
        cache=args.cache, clusters=max(sizes), topics=args.topics, configs=args.configs, acls=args.acls, sets=4
    )
    print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1/5/15 min)")
    print(
        "| engine | clusters | runs | median wall s | spark start s | peak MB | joined rows | rows/s | s per cluster |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    points: dict[str, list[tuple[int, float]]] = {}
    for engine in args.engines.split(","):
        for n in sizes:
            fleet = root / f"fleet-{n}-{args.format}.yaml"
            if not fleet.exists():
                fleet_snapshots.write_fleet(fleet, clusters=n, sets=4, fmt=args.format)
            runs = [measure(engine=engine, fleet=fleet) for _ in range(args.runs if n <= 50 else args.big_runs)]
            wall = statistics.median(r["seconds"] for r in runs)
            startup = statistics.median(r["startup"] for r in runs)
            peak = statistics.median(r["peak_mb"] for r in runs)
            rows = int(runs[0]["rows"])
            points.setdefault(engine, []).append((n, wall))
            print(
                f"| {engine} | {n} | {len(runs)} | {wall:.1f} | {startup:.1f} | {peak:.0f} | {rows:,} | "
                f"{rows / wall:,.0f} | {wall / n:.2f} |",
                flush=True,
            )
    print(f"load after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1/5/15 min)")
    fits = {e: fit(p) for e, p in points.items() if len(p) >= 2}
    for engine, (a, b) in fits.items():
        print(f"fit {engine}: wall = {a:.1f} s + {b:.3f} s x clusters")
    if "local" in fits and "spark" in fits:
        (la, lb), (sa, sb) = fits["local"], fits["spark"]
        if lb > sb:
            print(f"break-even on this machine: Spark local[2] wins above {(sa - la) / (lb - sb):.0f} clusters")
        else:
            print("break-even on this machine: none; Spark local[2] costs more per cluster than the local engine")
        per_task = sb * 2  # two cores work in parallel in local[2]: one cluster task costs about 2 * slope core-seconds
        print(f"Spark cost per cluster task: {per_task:.2f} core-seconds (slope {sb:.3f} s x 2 cores)")


if __name__ == "__main__":
    main()

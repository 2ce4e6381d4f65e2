"""Benchmark apply at production shape on a real broker, side by side, printing each figure as soon as it is measured.

Starts one KRaft node of the test harness, or ``--brokers`` of them (combined broker+controller nodes, each its own
JVM, so the partitions spread over several processes' open-file limits; topics keep RF 1), with the StandardAuthorizer,
every PLAINTEXT client a super user, free ports, a 1 GiB heap each, and runs, ``--runs`` times each:

3. start-up (first, on a fresh broker): ``python -c pass``, ``kafka-reconciler --help``, ``--version``,
   ``validate examples/platform``, the import floor (typer + pydantic + ruamel.yaml), the command floor (a typer
   command validating one YAML mapping with one pydantic model), then a no-change ``plan`` of
   ``--plan-topics`` topics vs Kafka's ``kafka-topics --describe`` (TopicCommand from the kafka-tools jars), each a
   fresh process, interleaved; ratios to ``python -c pass`` and to ``--describe`` of the same run;
1. the shape (``apply_shape``: ``--topics`` topics with 1-48 partitions, 3 configs each, ``--acls`` bindings,
   ownership on): create all from nothing, change 1% of the configs, delete 10% of the topics, each applied with
   ``plan`` + ``apply_plan`` in this process and then planned again, which must find no change (convergence);
   topicctl does the same on ``--topicctl-sample`` topics of its own, extrapolated to the shape (labelled so);
2. 10 config changes on that cluster: the requests and response bytes of ``apply_plan`` for the saved plan vs one
   full read of the live state (what ``plan`` reads).

``--startup-only`` runs only the start-up commands of scenario 3, without a broker.

Asserts nothing; exits 1 when a scenario does not exit 0 or does not converge (after printing what it measured).

    .venv/bin/python -m benchmarks.apply_bench [--topics 10000] [--acls 20000] [--runs 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import apply_bench_tools as tools
from benchmarks.apply_shape import Shape, topicctl_files
from reconciler import operations
from reconciler.apply import ApplyOptions, apply_plan
from reconciler.apply.engine import default_deadline_s
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model.kinds import Kind
from tests.kafka import node as node_mod
from tests.kafka.cluster import KafkaCluster
from tests.kafka.kinds import multi_node, single_node

TIMEOUT_MS = 300_000
FAILURES: list[str] = []
# What any typer + pydantic + ruamel.yaml command pays before its own work: the imports and one model built.
FLOOR = (
    "import typer, ruamel.yaml\nfrom pydantic import BaseModel, Field\n"
    "class M(BaseModel):\n    x: int = Field(1)\nM(x=2)"
)
# The same libraries doing the least a validate does: a typer command with two options (typer builds pydantic
# adapters for them when it runs) that validates one YAML mapping with one pydantic model.
COMMAND_FLOOR = (
    "import typer, ruamel.yaml\nfrom pathlib import Path\nfrom pydantic import BaseModel, Field\n"
    "app = typer.Typer()\n@app.command()\ndef validate(paths: list[Path], environment: str | None = None) -> None:\n"
    "    class M(BaseModel):\n        x: int = Field(1)\n"
    "    M.model_validate(ruamel.yaml.YAML(typ='safe').load('x: 2'))\n"
    "app(['validate', '.'])"
)


def say(text: str) -> None:
    print(text, flush=True)


# ---------------------------------------------------------------------------------------- reconciler
def reconciler_apply(adapter: KafkaAdapter, tree: Path, *, deadline_s: float | None) -> dict[str, Any]:
    """Load, plan, apply; then plan again (convergence). Time of load+plan+apply; requests and bytes of it."""
    adapter.reset_request_count()
    tools.ByteMeter.reset()
    started = time.perf_counter()
    wanted = operations.load_manifests([tree]).desired
    planned = operations.make_plan(wanted, operations.read_live(adapter, wanted))
    report = apply_plan(planned, adapter, options=ApplyOptions(deadline_s=deadline_s, desired=wanted))
    seconds = time.perf_counter() - started
    figure: dict[str, Any] = {
        "seconds": seconds,
        "deadline": deadline_s if deadline_s is not None else round(default_deadline_s(planned.actionable)),
        "requests": adapter.request_count,
        "by_api": adapter.request_counts,
        "bytes_read": tools.ByteMeter.total,
        "exit": int(report.exit_code),
        "changes": len(planned.changes),
        "outcomes": {k: v for k, v in report.counts().items() if v},
        "too_large": sum(1 for i in report.items if "large" in (i.message or "") or i.error_name == "POLICY_VIOLATION"),
    }
    again = operations.make_plan(wanted, operations.read_live(adapter, wanted))
    figure["converged"] = bool(report.converged is not False and not again.summary().has_changes)
    if figure["exit"] != 0 or not figure["converged"] or figure["too_large"]:
        figure["problems"] = [f"{i.address}: {i.outcome.value} {i.message or ''}" for i in report.items][:5]
    return figure


def show(scenario: str, tool: str, fig: dict[str, Any], extra: str = "") -> None:
    if "error" in fig:
        say(f"  {scenario:<28} {tool:<22} FAILED: {fig['error']}")
        FAILURES.append(f"{scenario} / {tool}")
        return
    parts = [f"{fig['seconds']:8.2f}s"]
    for key in ("requests", "bytes_read", "exit", "converged", "verified", "too_large", "changes", "deadline"):
        if key in fig:
            parts.append(f"{key}={fig[key]}")
    parts.append(f"load={os.getloadavg()[0]:.1f}")
    say(f"  {scenario:<28} {tool:<22} " + "  ".join(parts) + extra)
    if "by_api" in fig:
        say(f"  {'':<28} {'':<22} by API: {fig['by_api']}  outcomes: {fig.get('outcomes')}")
    if fig.get("exit", 0) != 0 or fig.get("converged") is False or fig.get("verified") is False or fig.get("too_large"):
        FAILURES.append(f"{scenario} / {tool}")
        say(f"  {'':<28} problems: {fig.get('problems')}")


# ---------------------------------------------------------------------------------------------- start-up
def startup_times(*, repeat: int) -> tuple[dict[str, list[float]], float]:
    """Scenario 3's commands without a cluster: each a fresh process, interleaved; and the median of ``pass``."""
    py = str(tools.BIN / "python")
    cli = str(tools.BIN / "kafka-reconciler")
    commands = {
        "python -c pass": [py, "-c", "pass"],
        "--help": [cli, "--help"],
        "--version": [cli, "--version"],
        "validate examples/platform": [cli, "validate", str(tools.REPO / "examples" / "platform")],
        "import typer": [py, "-c", "import typer"],
        "import floor": [py, "-c", FLOOR],
        "command floor": [py, "-c", COMMAND_FLOOR],
    }
    times = tools.time_commands(commands, repeat=repeat)
    base = tools.median(times["python -c pass"])
    say(f"start-up, {repeat} interleaved runs each (median, min-max; ratio of medians to python -c pass):")
    for name, values in times.items():
        say(f"  {name:<28} {tools.median(values):6.3f}s ({min(values):.3f}-{max(values):.3f})  "
            f"{tools.median(values) / base:5.2f}x")  # fmt: skip
    return times, base


def startup(cluster: KafkaCluster, *, workdir: Path, plan_topics: int, repeat: int, classpath: str | None) -> Any:
    """Scenario 3: each command a fresh process, interleaved, ratios in the same run."""
    times, base = startup_times(repeat=repeat)
    cli = str(tools.BIN / "kafka-reconciler")
    out: dict[str, Any] = {"startup": times}

    shape = Shape(prefix="plan1k", topics=plan_topics, acls=0)
    tree = workdir / "plan1k"
    shape.write(tree)
    with KafkaAdapter(cluster.connection_settings(request_timeout_ms=TIMEOUT_MS)) as adapter:
        created = reconciler_apply(adapter, tree, deadline_s=1800)
    show(f"set-up: {plan_topics} topics", "reconciler", created)
    plan = [cli, "plan", str(tree), "--bootstrap-server", cluster.bootstrap, "--detailed-exitcode"]
    contenders = {"plan (no change)": plan}
    if classpath is not None:
        contenders["kafka-topics --describe"] = tools.topic_command(classpath, cluster.bootstrap, "--describe")
    env = tools.startup_env()
    check = subprocess.run(plan, env=env, capture_output=True, text=True, check=False)
    if check.returncode != 0:
        FAILURES.append("no-change plan")
        say(f"  the no-change plan exited {check.returncode} (expected 0): {check.stdout[-300:]}")
    plan_times = tools.time_commands(contenders, repeat=repeat)
    say(f"no-change plan of {plan_topics} topics vs kafka-topics --describe, {repeat} interleaved runs:")
    for name, values in plan_times.items():
        ratio = tools.median(values) / base
        say(f"  {name:<28} {tools.median(values):6.3f}s ({min(values):.3f}-{max(values):.3f})  {ratio:5.1f}x pass")
    if classpath is not None:
        pairs = zip(plan_times["plan (no change)"], plan_times["kafka-topics --describe"], strict=True)
        ratios = sorted(p / d for p, d in pairs)
        say(f"  plan / describe in the same run: median {tools.median(ratios):.2f}, max {ratios[-1]:.2f}")
    out["plan_vs_describe"] = plan_times
    return out


# ------------------------------------------------------------------------------------------ the shape
def shape_run(cluster: KafkaCluster, args: argparse.Namespace, *, workdir: Path, run: int) -> dict[str, Any]:
    """Scenarios 1 and 2 on fresh names."""
    tag = uuid.uuid4().hex[:4]
    shape = Shape(prefix=f"r{run}{tag}", topics=args.topics, acls=args.acls)
    tree = workdir / f"shape-{run}"
    out: dict[str, Any] = {}
    scale = f"{shape.topics:,} topics, {shape.partitions_total:,} partitions, {shape.acls:,} ACLs"
    say(f"run {run}: {scale}")
    with KafkaAdapter(cluster.connection_settings(request_timeout_ms=TIMEOUT_MS)) as adapter:
        shape.write(tree)
        out["create"] = reconciler_apply(adapter, tree, deadline_s=args.deadline)
        show("create all", "reconciler", out["create"])
        changed = {i: 30 for i in range(0, shape.topics, 100)}  # 1%: retention 30 days instead of 1-7
        shape.write(tree, retention_days=changed)
        out["change 1%"] = reconciler_apply(adapter, tree, deadline_s=args.deadline)
        show("change 1% of configs", "reconciler", out["change 1%"])

        ten = {**changed, **{i: 60 for i in range(1, shape.topics, shape.topics // 10)}}
        shape.write(tree, retention_days=ten)
        out["10 changes"] = ten_changes(adapter, tree)

        gone = set(range(5, shape.topics, 10))  # 10%
        shape.write(tree, retention_days=ten, left_out=gone)
        out["delete 10%"] = reconciler_apply(adapter, tree, deadline_s=args.deadline)
        show("delete 10% (ownership)", "reconciler", out["delete 10%"])
    out["topicctl"] = topicctl_run(cluster, args, workdir=workdir, run=run, shape=shape)
    return out


def ten_changes(adapter: KafkaAdapter, tree: Path) -> dict[str, Any]:
    """Scenario 2: apply a saved plan of 10 changes; requests and bytes vs one full read (the plan's)."""
    wanted = operations.load_manifests([tree]).desired
    tools.ByteMeter.reset()
    adapter.reset_request_count()
    planned = operations.make_plan(wanted, operations.read_live(adapter, wanted))
    full: dict[str, Any] = {
        "bytes": tools.ByteMeter.total,
        "requests": adapter.request_count,
        "bytes_by_api": tools.ByteMeter.split(),
    }
    tools.ByteMeter.reset()
    adapter.reset_request_count()
    started = time.perf_counter()
    report = apply_plan(planned, adapter, options=ApplyOptions(deadline_s=600, desired=wanted))
    seconds = time.perf_counter() - started
    fig: dict[str, Any] = {"seconds": seconds, "requests": adapter.request_count, "by_api": adapter.request_counts,
           "bytes_read": tools.ByteMeter.total, "exit": int(report.exit_code), "changes": len(planned.changes),
           "full_read": full, "converged": report.converged is not False,
           "bytes_by_api": tools.ByteMeter.split()}  # fmt: skip
    share = 100 * fig["bytes_read"] / max(1, full["bytes"])
    show("apply 10 changes (saved)", "reconciler", fig,
         f"  vs one full read: {full['bytes']:,} bytes in {full['requests']} requests -> {share:.2f}%")  # fmt: skip
    say(f"  {'':<28} bytes by API: apply {fig['bytes_by_api']}; full read {full['bytes_by_api']}")
    fig["share_percent"] = share
    return fig


def topicctl_run(
    cluster: KafkaCluster, args: argparse.Namespace, *, workdir: Path, run: int, shape: Shape
) -> dict[str, Any]:
    """topicctl on a sample of the shape's topics (own names), each step extrapolated to the full shape."""
    binary, why = tools.topicctl_binary()
    if binary is None or args.topicctl_sample == 0:
        say(f"  topicctl: skipped: {why if binary is None else '--topicctl-sample 0'}")
        return {"skipped": why}
    sample = args.topicctl_sample
    names = [f"t{run}{uuid.uuid4().hex[:4]}.events-{i:06d}" for i in range(sample)]
    cfg = workdir / f"topicctl-{run}"
    topicctl_files(cfg, bootstrap=cluster.bootstrap, names=names, first_index=0)
    apply = ["apply", "--skip-confirm", "--cluster-config", str(cfg / "cluster.yaml")]
    out: dict[str, Any] = {"version": why, "sample": sample}
    label = f"topicctl (x{shape.topics / sample:.0f} of {sample})"
    fig = tools.run_topicctl(binary, [*apply, *(str(cfg / f"{n}.yaml") for n in names)])
    fig["verified"] = check_topics(cluster, names, lambda t: t is not None)
    out["create"] = extrapolate(fig, shape.topics / sample)
    show("create all", label, out["create"], f"  measured {fig['seconds']:.1f}s on {sample} topics")
    few = names[: max(1, sample // 10)]
    topicctl_files(cfg, bootstrap=cluster.bootstrap, names=few, first_index=0, retention_days=30)
    fig = tools.run_topicctl(binary, [*apply, *(str(cfg / f"{n}.yaml") for n in few)])
    month = str(30 * 24 * 3600 * 1000)
    fig["verified"] = check_topics(cluster, few, lambda t: t is not None and t.configs.get("retention.ms") == month)
    out["change 1%"] = extrapolate(fig, (shape.topics // 100) / len(few))
    show("change 1% of configs", f"topicctl (x{(shape.topics // 100) / len(few):.0f} of {len(few)})",
         out["change 1%"], f"  measured {fig['seconds']:.1f}s on {len(few)} topics")  # fmt: skip
    started = time.perf_counter()
    codes = [tools.run_topicctl(binary, ["delete", "topic", n, "--cluster-config", str(cfg / "cluster.yaml")],
                                stdin="yes\n") for n in few]  # fmt: skip
    fig = {"seconds": time.perf_counter() - started, "exit": max(c["exit"] for c in codes)}
    if fig["exit"]:
        fig["error"] = next(c["error"] for c in codes if c["exit"])
    fig["verified"] = check_topics(cluster, few, lambda t: t is None)
    out["delete 10%"] = extrapolate(fig, (shape.topics // 10) / len(few))
    show("delete 10% (ownership)", f"topicctl (x{(shape.topics // 10) / len(few):.0f} of {len(few)})",
         out["delete 10%"], f"  measured {fig['seconds']:.1f}s on {len(few)} topics, one run each")  # fmt: skip
    return out


def check_topics(cluster: KafkaCluster, names: list[str], good: Callable[[Any], bool]) -> bool:
    """Whether every named topic is as a step should have left it (``good`` gets the live topic or None)."""
    wanted = set(names)
    with KafkaAdapter(cluster.connection_settings(request_timeout_ms=TIMEOUT_MS)) as adapter:
        deadline = time.monotonic() + 60
        while True:  # the broker's metadata may lag the controller a moment after the tool returned
            live = adapter.read_state(kinds=frozenset({Kind.TOPIC}), topic_filter=wanted.__contains__).topics or {}
            if all(good(live.get(n)) for n in names) or time.monotonic() > deadline:
                return all(good(live.get(n)) for n in names)
            time.sleep(1.0)


def extrapolate(fig: dict[str, Any], factor: float) -> dict[str, Any]:
    return {**fig, "measured_seconds": fig["seconds"], "seconds": fig["seconds"] * factor, "extrapolated": factor}


def cleanup(cluster: KafkaCluster) -> None:
    """Delete every topic and ACL a run made, so the next run starts from nothing."""
    with KafkaAdapter(cluster.connection_settings(request_timeout_ms=TIMEOUT_MS)) as adapter:
        live = adapter.read_state(
            kinds=frozenset({Kind.TOPIC, Kind.ACL}), topic_filter=lambda n: not n.startswith("plan1k")
        )
        adapter.delete_topics(sorted(live.topics or {}))
        adapter.delete_acls(sorted(live.acls or ()))


# ---------------------------------------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--acls", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3, help="repetitions of the shape scenarios")
    parser.add_argument("--startup-runs", type=int, default=15, help="interleaved repetitions of each start-up")
    parser.add_argument("--plan-topics", type=int, default=1_000)
    parser.add_argument("--topicctl-sample", type=int, default=20, help="0: skip topicctl")
    parser.add_argument("--no-describe", action="store_true", help="skip Kafka's kafka-topics --describe")
    parser.add_argument("--skip-startup", action="store_true", help="run only the shape scenarios (1 and 2)")
    parser.add_argument(
        "--startup-only", action="store_true", help="run only the start-up commands of scenario 3 (no broker)"
    )
    parser.add_argument(
        "--deadline", type=float, default=None, help="apply deadline (s) per step (default: apply's own, by the work)"
    )
    parser.add_argument("--broker-heap", default="1g")
    parser.add_argument("--brokers", type=int, default=1, help="broker processes the partitions spread over")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    if args.startup_only:
        load = os.getloadavg()
        say(f"machine: {os.cpu_count()} CPUs, load {load}, Python {platform.python_version()}, {platform.node()}")
        times, _ = startup_times(repeat=args.startup_runs)
        say(f"load after: {os.getloadavg()}")
        if args.json:
            doc = {"args": vars(args) | {"json": str(args.json)}, "load_before": load, "startup": times}
            args.json.write_text(json.dumps(doc, indent=2) + "\n")
        return
    fds = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    shape = Shape(prefix="x", topics=args.topics, acls=args.acls)
    plan_partitions = 0 if args.skip_startup else Shape(prefix="x", topics=args.plan_topics, acls=0).partitions_total
    per_broker = (shape.partitions_total + plan_partitions) / args.brokers
    if per_broker > 0.8 * fds:
        raise SystemExit(
            f"{shape.partitions_total:,} partitions need about {per_broker:,.0f} open files in each of {args.brokers} "
            f"broker(s); this machine allows {fds:,} per process (ulimit -n). Use more --brokers, fewer --topics "
            "or raise the limit."
        )
    tools.ByteMeter.install()
    load = os.getloadavg()
    say(f"machine: {os.cpu_count()} CPUs, load {load}, Python {platform.python_version()}, {platform.node()}")
    path = None if args.no_describe or args.skip_startup else tools.tools_classpath()
    heap = tuple(f"-Xmx{args.broker_heap}" if o.startswith("-Xmx") else o for o in node_mod.JVM_OPTIONS)
    node_mod.JVM_OPTIONS = heap  # type: ignore[assignment]  # the harness's options, another heap size
    cluster = single_node(authorizer=True) if args.brokers == 1 else multi_node(args.brokers, authorizer=True)
    out: dict[str, Any] = {"args": vars(args) | {"json": str(args.json)}, "load_before": load, "runs": []}
    try:
        say(f"Kafka {cluster.version}, {args.brokers} KRaft node(s), heap {args.broker_heap} each, {cluster.bootstrap}")
        with tempfile.TemporaryDirectory(prefix="apply-bench-") as tmp:
            if not args.skip_startup:
                out["startup"] = startup(
                    cluster, workdir=Path(tmp), plan_topics=args.plan_topics, repeat=args.startup_runs, classpath=path
                )
            for run in range(1, args.runs + 1):
                out["runs"].append(shape_run(cluster, args, workdir=Path(tmp), run=run))
                if run < args.runs:
                    cleanup(cluster)
    finally:
        cluster.close()
        out["load_after"] = os.getloadavg()
        say(f"load after: {out['load_after']}")
        if args.json:
            args.json.write_text(json.dumps(out, indent=2, default=str) + "\n")
    if FAILURES:
        say(f"NOT MET: {FAILURES}")
        sys.exit(1)


if __name__ == "__main__":
    main()

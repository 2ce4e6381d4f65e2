"""Benchmark the reconciler against its peers on one broker, step by step, printing each figure as it is measured.

The shape: ``--topics`` topics of ``--partitions`` partitions (default 1,000 x 12), three config
overrides each, ``--acls`` bindings (default 2,000); five steps, each tool on names and principals of its own:

1. create everything; 2. a no-change plan; 3. ``retention.ms`` changed on half the topics (500 of 1,000);
4. +2 partitions on a fifth of them (200); 5. delete a tenth (100).

Columns (each optional but the reconciler's; an absent peer is skipped, saying why):

* reconciler: ``kafka-reconciler apply --auto-approve`` (``plan --detailed-exitcode`` for step 2), one process each;
* Kafka's CLI (kafka-tools jars, ``peer_tools``): one JVM per resource, as a script of ``kafka-topics --create``,
  ``kafka-acls --add`` (one per principal and topic, all its operations), ``kafka-configs --alter``,
  ``kafka-topics --alter`` and ``--delete`` calls runs them, on a ``--cli-sample`` of the topics of its own and
  **extrapolated linearly** to the shape (labelled so); step 2, which the CLI has no command for, is what a user
  reads instead: ``kafka-topics --describe`` of the reconciler's topics, ``kafka-configs --describe`` of every
  topic and ``kafka-acls --list`` (3 JVMs, the full state, not extrapolated);
* Terraform: Mongey/terraform-provider-kafka through ``dev_overrides``, ``terraform apply -auto-approve`` of the
  whole shape as ``kafka_topic`` and ``kafka_acl`` resources (``plan -detailed-exitcode`` for step 2).

After each step the topics each tool should hold are read back (names, partitions, ``retention.ms``; after the
create, its ACLs too); a mismatch is printed as ``verified=False``. A command running longer than
``--peer-timeout`` is killed (exit -1). Asserts nothing; exits 1 when a step fails.

    .venv/bin/python -m benchmarks.peers_bench [--topics 1000] [--acls 2000] [--cli-sample 20] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import apply_bench_tools as tools
from benchmarks import peer_tools as peers
from benchmarks.apply_shape import Shape
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.kafka.kinds import single_node

STEPS = ("create", "no-change plan", "config changes", "+2 partitions", "delete")
FAILURES: list[str] = []
Step = Callable[[int], dict[str, Any]]


def say(text: str) -> None:
    print(text, flush=True)


class Changes:
    """Which topic indices each step touches, and what every topic should look like after step ``k``."""

    def __init__(self, topics: int) -> None:
        self.days = {i: 30 for i in range(0, topics, 2)}
        self.grown = set(range(1, topics, 5))
        self.gone = set(range(3, topics, 10))

    def wanted(self, shape: Shape, indices: list[int], k: int) -> dict[str, tuple[int, str] | None]:
        out: dict[str, tuple[int, str] | None] = {}
        for i in indices:
            days = self.days.get(i, 1 + i % 7) if k >= 2 else 1 + i % 7
            alive = k < 4 or i not in self.gone
            grown = 2 * (k >= 3 and i in self.grown)
            out[shape.name(i)] = (shape.partitions(i) + grown, peers.retention(days)) if alive else None
        return out

    def inputs(self, k: int) -> dict[str, Any]:
        """The manifests' variant after step ``k`` (0-based)."""
        return {
            "days": self.days if k >= 2 else {},
            "grown": self.grown if k >= 3 else set(),
            "gone": self.gone if k >= 4 else set(),
        }


def verify(cluster: KafkaCluster, shape: Shape, wanted: dict[str, tuple[int, str] | None], acls: int | None) -> bool:
    """Whether the broker shows the wanted topics (and ``acls`` bindings of the shape's principals), within 60 s."""
    prefix, who = f"{shape.prefix}.", f"User:{shape.principal}-"
    kinds = frozenset({Kind.TOPIC, Kind.ACL} if acls is not None else {Kind.TOPIC})
    deadline = time.monotonic() + 60
    with KafkaAdapter(cluster.connection_settings(request_timeout_ms=120_000)) as adapter:
        while True:  # the broker's metadata may lag the controller a moment after the tool returned
            live = adapter.read_state(kinds=kinds, topic_filter=lambda n: n.startswith(prefix))
            topics = live.topics or {}
            seen = {n: (t.partitions, t.configs.get("retention.ms")) for n, t in topics.items()}
            good = all(seen.get(n) == w for n, w in wanted.items())
            if acls is not None:
                good = good and sum(1 for a in live.acls or () if a.principal.startswith(who)) == acls
            if good or time.monotonic() > deadline:
                return good
            time.sleep(1.0)


# ------------------------------------------------------------------------------------------------ the tools
def reconciler_steps(cluster: KafkaCluster, shape: Shape, changes: Changes, tree: Path) -> Step:
    cli = str(tools.BIN / "kafka-reconciler")

    def step(k: int) -> dict[str, Any]:
        given = changes.inputs(k)
        shape.write(tree, retention_days=given["days"], grown=given["grown"], left_out=given["gone"])
        verb = ["plan", "--detailed-exitcode"] if k == 1 else ["apply", "--auto-approve"]
        fig = peers.run([cli, verb[0], str(tree), "--bootstrap-server", cluster.bootstrap, *verb[1:]])
        fig["processes"] = 1
        indices = list(range(shape.topics))
        fig["verified"] = verify(cluster, shape, changes.wanted(shape, indices, k), shape.acls if k == 0 else None)
        return fig

    return step


def cli_steps(cluster: KafkaCluster, shape: Shape, changes: Changes, *, sample: int, reads: Shape) -> Step:
    """Kafka's CLI on ``sample`` topics, each step but the read extrapolated to the shape."""
    path, b = tools.tools_classpath(), cluster.bootstrap
    part = list(range(sample))

    def step(k: int) -> dict[str, Any]:
        if k == 1:
            return peers.run_all(peers.cli_read(path, b, shape=reads)) | {"verified": None}
        full = [list(range(shape.topics)), [], list(changes.days), sorted(changes.grown), sorted(changes.gone)][k]
        mine = [i for i in part if i in set(full)]
        commands = cli_commands(path, b, shape=shape, changes=changes, k=k, indices=mine)
        fig = peers.run_all(commands)
        bindings = sum(1 for x in range(shape.acls) if shape.binding(x)[2] < sample)
        fig["verified"] = verify(cluster, shape, changes.wanted(shape, part, k), bindings if k == 0 else None)
        factor = len(full) / max(1, len(mine))
        return fig | {"measured_seconds": fig["seconds"], "seconds": fig["seconds"] * factor, "extrapolated": factor}

    return step


def cli_commands(path: str, b: str, *, shape: Shape, changes: Changes, k: int, indices: list[int]) -> list[list[str]]:
    """The CLI calls of step ``k`` (but the read) on ``indices``."""
    if k == 0:
        return peers.cli_create(path, b, shape=shape, indices=indices)
    if k == 2:
        return peers.cli_configs(path, b, shape=shape, days={i: changes.days[i] for i in indices})
    if k == 3:
        return peers.cli_grow(path, b, shape=shape, indices=indices)
    return peers.cli_delete(path, b, shape=shape, indices=indices)


def terraform_steps(cluster: KafkaCluster, shape: Shape, changes: Changes, *, workdir: Path, found: Any) -> Step:
    binary, provider_dir = found
    env = peers.terraform_env(workdir, provider_dir)

    def step(k: int) -> dict[str, Any]:
        given = changes.inputs(k)
        peers.write_tf(workdir, shape=shape, bootstrap=cluster.bootstrap, **given)
        fig = peers.terraform(binary, workdir, env, plan_only=k == 1)
        fig["processes"] = 1
        indices = list(range(shape.topics))
        fig["verified"] = verify(cluster, shape, changes.wanted(shape, indices, k), shape.acls if k == 0 else None)
        return fig

    return step


# ---------------------------------------------------------------------------------------------- the run
def show(step: str, tool: str, fig: dict[str, Any], base: float | None) -> None:
    ratio = f"{fig['seconds'] / base:7.2f}x" if base else " " * 8
    extra = f"  (measured {fig['measured_seconds']:.1f}s, x{fig['extrapolated']:.0f})" if "extrapolated" in fig else ""
    say(f"  {step:<16} {tool:<12} {fig['seconds']:9.1f}s {ratio}  exit={fig['exit']} verified={fig['verified']} "
        f"processes={fig.get('processes')} load={os.getloadavg()[0]:.1f}{extra}")  # fmt: skip
    bad = fig["exit"] != 0 or fig["verified"] is False
    if bad:
        FAILURES.append(f"{step} / {tool}")
        say(f"  {'':<16} {'':<12} problem: {fig.get('error', '')[-400:]}")


def columns(cluster: KafkaCluster, args: argparse.Namespace, workdir: Path) -> dict[str, Step]:
    """The tools present, each with its own names and principals."""
    tag, changes = uuid.uuid4().hex[:4], Changes(args.topics)

    def shape(who: str) -> Shape:
        return Shape(prefix=f"{who}{tag}", topics=args.topics, acls=args.acls, each=args.partitions, principal=who)

    mine = shape("kr")
    out = {"reconciler": reconciler_steps(cluster, mine, changes, workdir / "kr")}
    if args.cli_sample:
        out["kafka CLI"] = cli_steps(cluster, shape("cli"), changes, sample=args.cli_sample, reads=mine)
    else:
        say("  kafka CLI: skipped (--cli-sample 0)")
    found, why = peers.terraform_binaries()
    say(f"  terraform: {why}")
    if found is not None and not args.no_terraform:
        out["terraform"] = terraform_steps(cluster, shape("tf"), changes, workdir=workdir / "tf", found=found)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--topics", type=int, default=1_000)
    parser.add_argument("--partitions", type=int, default=12)
    parser.add_argument("--acls", type=int, default=2_000)
    parser.add_argument("--cli-sample", type=int, default=20, help="topics Kafka's CLI runs on; 0: skip it")
    parser.add_argument("--no-terraform", action="store_true")
    parser.add_argument("--peer-timeout", type=float, default=3600, help="seconds before one command is killed")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    peers.TIMEOUT_S = args.peer_timeout
    say(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()}, Python {platform.python_version()}")
    cluster = single_node(authorizer=True)
    out: dict[str, Any] = {"args": vars(args) | {"json": str(args.json)}, "load_before": os.getloadavg(), "steps": {}}
    try:
        say(f"Kafka {cluster.version}, 1 KRaft node, {cluster.bootstrap}; {args.topics:,} topics x {args.partitions} "
            f"partitions, {args.acls:,} ACLs per tool")  # fmt: skip
        with tempfile.TemporaryDirectory(prefix="peers-bench-") as tmp:
            tools_now = columns(cluster, args, Path(tmp))
            for k, step in enumerate(STEPS):
                figures = out["steps"][step] = {}
                for name, do in tools_now.items():
                    figures[name] = do(k)
                    show(step, name, figures[name], figures["reconciler"]["seconds"] if name != "reconciler" else None)
    finally:
        cluster.close()
        out["load_after"] = os.getloadavg()
        say(f"load after: {out['load_after']}")
        if args.json:
            args.json.write_text(json.dumps(out, indent=2, default=str) + "\n")
    if FAILURES:
        say(f"NOT MET: {FAILURES}")
        raise SystemExit(1)


if __name__ == "__main__":
    main()

"""Benchmark apply against a real broker: this tool vs a naive per-resource loop vs Kafka's topic CLI.

Scenarios, each on fresh names: create 1,000 topics; add 5,000 ACLs; change a config on 1,000 topics.
Contenders:

* ``reconciler``: ``planner.plan`` + ``apply_plan`` (batched requests, read-back verification included);
* ``naive loop``: plain kafka-python, one admin request per resource;
* ``topic CLI``: ``org.apache.kafka.tools.TopicCommand --create`` run once per topic (a JVM each time) for a
  sample of topics, extrapolated linearly to the full count (the output says so).

The broker is the harness's SASL node (the authorizer is needed for ACLs), started and stopped here on free
ports. Prints admin request counts and wall times per run and the medians; never asserts a time.

    .venv/bin/python -m benchmarks.apply_bench --runs 3 [--cli-sample 50] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kafka.admin import (
    ACL,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ConfigResource,
    NewTopic,
    ResourcePattern,
)
from kafka.admin import ResourceType as KafkaResourceType

from reconciler import desired, planner, state
from reconciler.apply import ApplyOptions, apply_plan
from reconciler.kafka.admin import KafkaAdapter
from tests.kafka.cluster import KafkaCluster
from tests.kafka.kinds import sasl_node

REPO = Path(__file__).resolve().parents[1]
TOOLS_VERSION = "4.3.1"
TOOLS_POM = REPO / "benchmarks" / "kafka-tools-pom.xml"
TOOLS_LIBS = REPO / ".cache" / "kafka-tools" / TOOLS_VERSION / "libs"

TOPICS = 1_000
ACLS = 5_000


# ----------------------------------------------------------------------------------------- set-up
def tools_classpath() -> str:
    """Kafka's tools jars (resolved once with Maven into .cache/kafka-tools)."""
    if not TOOLS_LIBS.is_dir() or not any(TOOLS_LIBS.glob("kafka-tools-*.jar")):
        subprocess.run(
            ["mvn", "-q", "-f", str(TOOLS_POM), "dependency:copy-dependencies", f"-DoutputDirectory={TOOLS_LIBS}"],
            check=True,
        )
    return os.pathsep.join(str(p) for p in sorted(TOOLS_LIBS.glob("*.jar")))


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


# ------------------------------------------------------------------------------------- contenders
def reconciler_apply(cluster: KafkaCluster, wanted: desired.DesiredState) -> dict[str, Any]:
    """Plan and apply ``wanted``; wall time of plan + apply, admin requests sent."""
    with KafkaAdapter(cluster.connection_settings(request_timeout_ms=60_000)) as adapter:
        adapter.connect()
        adapter.reset_request_count()

        def run() -> Any:
            p = planner.plan(wanted, adapter.read_state(kinds=planner.planned_kinds(wanted)))
            return apply_plan(p, adapter, options=ApplyOptions(deadline_s=600))

        seconds, report = timed(run)
        if report.exit_code != 0:
            raise SystemExit(f"reconciler apply did not succeed:\n{report.to_json()}")
        return {"seconds": seconds, "requests": adapter.request_count, "by_api": adapter.request_counts}


def naive_topics(cluster: KafkaCluster, names: list[str]) -> dict[str, Any]:
    with cluster.admin_session(request_timeout_ms=60_000) as admin:
        admin.list_topics()  # connect before timing
        seconds, _ = timed(lambda: [admin.create_topics([NewTopic(n, 1, 1)]) for n in names])
    return {"seconds": seconds, "requests": len(names)}


def naive_acls(cluster: KafkaCluster, bindings: list[state.AclBinding]) -> dict[str, Any]:
    acls = [
        ACL(
            b.principal,
            b.host,
            ACLOperation[b.operation],
            ACLPermissionType[b.permission],
            ResourcePattern(
                KafkaResourceType[b.resource_type], b.resource_name, ACLResourcePatternType[b.pattern_type]
            ),
        )
        for b in bindings
    ]
    with cluster.admin_session(request_timeout_ms=60_000) as admin:
        admin.list_topics()
        seconds, _ = timed(lambda: [admin.create_acls([a]) for a in acls])
    return {"seconds": seconds, "requests": len(acls)}


def naive_configs(cluster: KafkaCluster, names: list[str], value: str) -> dict[str, Any]:
    with cluster.admin_session(request_timeout_ms=60_000) as admin:
        admin.list_topics()
        seconds, _ = timed(
            lambda: [
                admin.alter_configs([ConfigResource("TOPIC", n, configs={"retention.ms": value})], incremental=True)
                for n in names
            ]
        )
    return {"seconds": seconds, "requests": len(names)}


def cli_topics(
    cluster: KafkaCluster, names: list[str], *, sample: int, classpath: str, workdir: Path
) -> dict[str, Any]:
    """``TopicCommand --create`` once per topic for ``sample`` topics, extrapolated to ``len(names)``."""
    props = cluster.write_command_config(workdir / "client.properties")
    java = ["java", "-Xms64m", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", classpath]
    chosen = names[:sample]

    def run() -> None:
        for name in chosen:
            subprocess.run(
                [
                    *java,
                    "org.apache.kafka.tools.TopicCommand",
                    "--bootstrap-server",
                    cluster.bootstrap,
                    "--command-config",
                    str(props),
                    "--create",
                    "--topic",
                    name,
                    "--partitions",
                    "1",
                    "--replication-factor",
                    "1",
                ],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )

    seconds, _ = timed(run)
    return {
        "seconds": seconds * len(names) / len(chosen),
        "measured_seconds": seconds,
        "sample": len(chosen),
        "extrapolated": True,
        # each JVM: ApiVersions + Metadata + CreateTopics at least
        "requests": None,
    }


# -------------------------------------------------------------------------------------- scenarios
def one_run(cluster: KafkaCluster, *, cli_sample: int, classpath: str | None, workdir: Path) -> dict[str, Any]:
    tag = uuid.uuid4().hex[:6]
    tool_topics = [f"bench-{tag}-r-{i:04d}" for i in range(TOPICS)]
    naive_names = [f"bench-{tag}-n-{i:04d}" for i in range(TOPICS)]
    cli_names = [f"bench-{tag}-c-{i:04d}" for i in range(TOPICS)]
    out: dict[str, Any] = {}

    topics = {n: desired.DesiredTopic(n, 1, 1) for n in tool_topics}
    out["create 1,000 topics"] = {
        "reconciler": reconciler_apply(cluster, desired.DesiredState(topics=topics)),
        "naive loop": naive_topics(cluster, naive_names),
    }
    if classpath is not None:
        out["create 1,000 topics"]["topic CLI"] = cli_topics(
            cluster, cli_names, sample=cli_sample, classpath=classpath, workdir=workdir
        )

    def bindings(who: str) -> list[state.AclBinding]:
        return [
            state.AclBinding(
                "TOPIC", "LITERAL", f"bench-{tag}-{i % 100}", f"User:{who}-{tag}-{i // 100}", "*", "READ", "ALLOW"
            )
            for i in range(ACLS)
        ]

    out["add 5,000 ACLs"] = {
        "reconciler": reconciler_apply(cluster, desired.DesiredState(acls=dict.fromkeys(bindings("r")))),
        "naive loop": naive_acls(cluster, bindings("n")),
    }

    changed = {n: desired.DesiredTopic(n, 1, 1, {"retention.ms": "3600000"}) for n in tool_topics}
    out["change configs on 1,000 topics"] = {
        "reconciler": reconciler_apply(cluster, desired.DesiredState(topics=changed)),
        "naive loop": naive_configs(cluster, naive_names, "3600000"),
    }
    cleanup(cluster, tag, [*tool_topics, *naive_names, *cli_names[:cli_sample]])
    return out


def cleanup(cluster: KafkaCluster, tag: str, names: list[str]) -> None:
    """Remove the run's topics and ACLs so runs do not slow each other down."""
    with KafkaAdapter(cluster.connection_settings(request_timeout_ms=60_000)) as adapter:
        live = adapter.read_state(kinds=frozenset({"topic", "acl"}), topic_filter=lambda n: tag in n)
        adapter.delete_topics(sorted(set(names) & set(live.topics or {})))
        adapter.delete_acls(sorted(b for b in live.acls or () if tag in b.principal))


def median_table(runs: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    table: dict[str, dict[str, dict[str, Any]]] = {}
    for scenario in runs[0]:
        table[scenario] = {}
        for tool in runs[0][scenario]:
            seconds = [r[scenario][tool]["seconds"] for r in runs]
            table[scenario][tool] = {
                "median_s": statistics.median(seconds),
                "runs_s": seconds,
                "requests": runs[-1][scenario][tool].get("requests"),
                "extrapolated": runs[-1][scenario][tool].get("extrapolated", False),
            }
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cli-sample", type=int, default=50, help="topics created with the CLI per run")
    parser.add_argument("--no-cli", action="store_true", help="skip Kafka's topic CLI")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    classpath = None if args.no_cli else tools_classpath()
    cluster = sasl_node()
    runs: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(args.runs):
                result = one_run(cluster, cli_sample=args.cli_sample, classpath=classpath, workdir=Path(tmp))
                runs.append(result)
                print(f"run {i + 1}/{args.runs}")
                for scenario, tools in result.items():
                    for tool, fig in tools.items():
                        req = "-" if fig.get("requests") is None else fig["requests"]
                        print(f"  {scenario:<32} {tool:<11} {fig['seconds']:8.2f}s  requests={req}")
                        if "by_api" in fig:
                            print(f"  {'':<32} {'':<11} by API: {fig['by_api']}")
    finally:
        cluster.close()

    table = median_table(runs)
    print(
        f"\nmedians over {len(runs)} run(s); Kafka {cluster.version}, one SASL node; {platform.node()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    for scenario, tools in table.items():
        base = tools["reconciler"]["median_s"]
        for tool, fig in tools.items():
            ratio = "" if tool == "reconciler" else f"  ({fig['median_s'] / base:.1f}x the reconciler's time)"
            note = " (extrapolated from a sample)" if fig["extrapolated"] else ""
            print(f"  {scenario:<32} {tool:<11} {fig['median_s']:8.2f}s  requests={fig['requests']}{ratio}{note}")
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "medians": table}, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()

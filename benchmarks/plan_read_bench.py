"""Benchmark the live read behind ``plan`` on a real broker: this tool vs the raw request floor vs a per-topic read.

Starts its own single KRaft node (StandardAuthorizer, every PLAINTEXT client a super user) on free ports, writes
manifests for N topics (1 partition, RF 1, 3 config overrides each) and M ACL bindings, creates that state with the
adapter's batched writes (timed, not measured), then runs side by side, ``--runs`` times:

* ``reconciler``: ``operations.read_live`` + ``operations.make_plan`` (the planner as the plan command runs it;
  text rendering timed apart), with its admin requests;
* ``floor (admin)``: the same reads through ``KafkaAdminClient`` methods, one call each, results not used;
* ``floor (wire)``: the adapter's exact requests, decoded by kafka-python and thrown away (no processing at all);
  ``floor (wire, 1)`` the same with every topic in a single DescribeConfigs;
* ``per-topic``: one Metadata and one DescribeConfigs per topic, as per-resource tools read, on a sample of topics
  extrapolated linearly to N (the output says so), plus one DescribeAcls.

Then alters ``--drift`` topics' configs out of band and plans once more. Prints figures only; asserts nothing.

    .venv/bin/python -m benchmarks.plan_read_bench [--topics 10000] [--acls 20000] [--runs 5] [--sample 1000]
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import io
import json
import os
import platform
import pstats
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import kafka
from kafka import KafkaAdminClient
from kafka.admin import (
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ConfigResource,
    ConfigResourceType,
    ResourcePatternFilter,
    ResourceType,
)
from kafka.protocol.admin import (
    DescribeAclsRequest,
    DescribeClientQuotasRequest,
    DescribeConfigsRequest,
    DescribeUserScramCredentialsRequest,
    ListPartitionReassignmentsRequest,
)
from kafka.protocol.metadata import MetadataRequest

from benchmarks.plan_read_setup import TIMEOUT_MS, create_state, write_manifests
from reconciler import operations
from reconciler.kafka import read as read_mod
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import desired
from reconciler.render.text import render_text
from tests.kafka import node as node_mod
from tests.kafka.cluster import KafkaCluster
from tests.kafka.kinds import single_node

Figures = dict[str, Any]


# ------------------------------------------------------------------------------------- contenders
def reconciler_plan(adapter: KafkaAdapter, wanted: desired.DesiredState) -> Figures:
    """read_live + plan + render_text on a connected adapter; times of each step and the requests sent."""
    adapter.reset_request_count()
    t0 = time.perf_counter()
    live = operations.read_live(adapter, wanted)
    t1 = time.perf_counter()
    result = operations.make_plan(wanted, live)  # the planner as the plan command runs it
    t2 = time.perf_counter()
    text = render_text(result)
    t3 = time.perf_counter()
    return {
        "seconds": t2 - t0,
        "read_s": t1 - t0,
        "diff_s": t2 - t1,
        "render_s": t3 - t2,
        "requests": adapter.request_count,
        "by_api": adapter.request_counts,
        "changes": len(result.changes),
        "unchanged": dict(result.unchanged),
        "text_lines": text.count("\n") + 1,
        "live_topics": len(live.topics or {}),
        "live_acls": len(live.acls or ()),
    }


@contextmanager
def counted_admin(cluster: KafkaCluster) -> Iterator[tuple[KafkaAdminClient, collections.Counter[str]]]:
    """A connected ``KafkaAdminClient`` whose explicit requests are counted per API."""
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=TIMEOUT_MS)
    counts: collections.Counter[str] = collections.Counter()
    manager = admin._manager
    plain_send = manager.send

    def send(request: Any, *args: Any, **kwargs: Any) -> Any:
        counts[type(request).__name__.removesuffix("Request")] += 1
        return plain_send(request, *args, **kwargs)

    manager.send = send
    try:
        yield admin, counts
    finally:
        admin.close()


def floor_admin(admin: KafkaAdminClient, counts: collections.Counter[str], broker: int) -> Figures:
    """The same reads through KafkaAdminClient methods, one call each (all topic configs in one DescribeConfigs)."""
    counts.clear()
    started = time.perf_counter()
    topics = admin.describe_topics()
    resources = [ConfigResource(ConfigResourceType.TOPIC, t["name"]) for t in topics]
    resources.append(ConfigResource(ConfigResourceType.BROKER, str(broker)))
    admin.describe_configs(resources, include_synonyms=True)
    admin.list_partition_reassignments()
    any_acl = ACLFilter(
        principal=None,
        host=None,
        operation=ACLOperation.ANY,
        permission_type=ACLPermissionType.ANY,
        resource_pattern=ResourcePatternFilter(ResourceType.ANY, None, ACLResourcePatternType.ANY),
    )
    admin.describe_acls(any_acl)
    manager = admin._manager
    manager.run(manager.send, DescribeClientQuotasRequest(components=[], strict=False))  # no admin method for it
    admin.describe_user_scram_credentials()
    return {"seconds": time.perf_counter() - started, "requests": sum(counts.values()), "by_api": dict(counts)}


def floor_wire(admin: KafkaAdminClient, counts: collections.Counter[str], broker: int, *, step: int) -> Figures:
    """The adapter's own requests, ``step`` topics per DescribeConfigs; each response decoded and dropped."""
    counts.clear()
    manager = admin._manager

    def send(request: Any) -> Any:
        return manager.run(manager.send, request, broker, TIMEOUT_MS)

    started = time.perf_counter()
    metadata = send(MetadataRequest(topics=None, allow_auto_topic_creation=False))
    names = sorted(str(t.name) for t in metadata.topics)
    res_cls = DescribeConfigsRequest.DescribeConfigsResource
    for i in range(0, len(names), step):
        resources = [res_cls(resource_type=2, resource_name=n, configuration_keys=None) for n in names[i : i + step]]
        if i == 0:
            resources.append(res_cls(resource_type=4, resource_name=str(broker), configuration_keys=None))
        send(DescribeConfigsRequest(resources=resources, include_synonyms=True, include_documentation=False))
    send(ListPartitionReassignmentsRequest(timeout_ms=TIMEOUT_MS, topics=None))
    send(
        DescribeAclsRequest(
            resource_type_filter=ResourceType.ANY,
            resource_name_filter=None,
            pattern_type_filter=ACLResourcePatternType.ANY,
            principal_filter=None,
            host_filter=None,
            operation=ACLOperation.ANY,
            permission_type=ACLPermissionType.ANY,
        )
    )
    send(DescribeClientQuotasRequest(components=[], strict=False))
    send(DescribeUserScramCredentialsRequest(users=None))
    return {"seconds": time.perf_counter() - started, "requests": sum(counts.values()), "by_api": dict(counts)}


def per_topic(admin: KafkaAdminClient, counts: collections.Counter[str], names: list[str], total: int) -> Figures:
    """One Metadata and one DescribeConfigs per sampled topic plus one DescribeAcls; extrapolated to ``total``."""
    counts.clear()
    started = time.perf_counter()
    for name in names:
        admin.describe_topics([name])
        admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, name)], include_synonyms=True)
    topic_s = time.perf_counter() - started
    any_acl = ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                        ResourcePatternFilter(ResourceType.ANY, None, ACLResourcePatternType.ANY))  # fmt: skip
    acl_started = time.perf_counter()
    admin.describe_acls(any_acl)
    acl_s = time.perf_counter() - acl_started
    scale = total / len(names)
    return {
        "seconds": topic_s * scale + acl_s,
        "measured_seconds": topic_s + acl_s,
        "sample": len(names),
        "requests": round((sum(counts.values()) - 1) * scale) + 1,
        "by_api": dict(counts),
        "extrapolated": True,
    }


# ---------------------------------------------------------------------------------------- running
def machine() -> Figures:
    cpuinfo = Path("/proc/cpuinfo").read_text().splitlines()
    cpu = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), "?")
    meminfo = Path("/proc/meminfo").read_text().splitlines()
    mem_kb = next(int(line.split()[1]) for line in meminfo if line.startswith("MemTotal"))
    return {"nproc": os.cpu_count(), "memory_gib": round(mem_kb / 2**20, 1), "cpu": cpu, "load": os.getloadavg()}


def drift(cluster: KafkaCluster, names: list[str]) -> None:
    """Change retention.ms of ``names`` with plain kafka-python (one incremental AlterConfigs), outside the tool."""
    with KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=TIMEOUT_MS) as admin:
        admin.alter_configs(
            [ConfigResource(ConfigResourceType.TOPIC, n, configs={"retention.ms": "3600000"}) for n in names],
            incremental=True,
        )


def profile(fn: Callable[[], Any], out: Path) -> None:
    profiler = cProfile.Profile()
    profiler.runcall(fn)
    profiler.dump_stats(out)
    buffer = io.StringIO()
    pstats.Stats(profiler, stream=buffer).sort_stats("cumulative").print_stats(25)
    pstats.Stats(profiler, stream=buffer).sort_stats("tottime").print_stats(15)
    print(buffer.getvalue())


def summary(runs: list[dict[str, Figures]]) -> dict[str, Figures]:
    table: dict[str, Figures] = {}
    for name in runs[0]:
        row: Figures = {}
        good = [r for r in runs if "error" not in r[name]]
        row["failed_runs"] = len(runs) - len(good)
        for key in ("seconds", "read_s", "diff_s", "render_s"):
            if good and key in good[0][name]:
                values = [r[name][key] for r in good]
                row[key] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
        row["requests"] = good[-1][name]["requests"] if good else None
        row["by_api"] = good[-1][name].get("by_api") if good else None
        table[name] = row
    return table


def attempt(fn: Callable[[], Figures]) -> Figures:
    """Run one contender; a failure is a figure too (the error), not the end of the benchmark."""
    started = time.perf_counter()
    try:
        return fn()
    except Exception as exc:  # e.g. a request timing out on an overloaded broker
        return {"seconds": time.perf_counter() - started, "requests": None, "error": f"{type(exc).__name__}: {exc}"}


def show(name: str, fig: Figures) -> None:
    if "error" in fig:
        print(f"  {name:<15} FAILED after {fig['seconds']:.2f}s: {fig['error']}", flush=True)
        return
    parts = [f"{fig['seconds']:8.2f}s", f"requests={fig['requests']}"]
    if "read_s" in fig:
        parts.append(f"read {fig['read_s']:.2f}s diff {fig['diff_s']:.2f}s render {fig['render_s']:.2f}s")
        parts.append(f"changes={fig['changes']}")
    if fig.get("extrapolated"):
        parts.append(f"(extrapolated from {fig['sample']} topics measured in {fig['measured_seconds']:.2f}s)")
    print(f"  {name:<15} " + "  ".join(parts), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--acls", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sample", type=int, default=1_000, help="topics read one by one per run (extrapolated)")
    parser.add_argument("--drift", type=int, default=100, help="topics altered out of band before the extra run")
    parser.add_argument("--batch", type=int, default=1_000, help="topics per CreateTopics during set-up")
    parser.add_argument("--broker-heap", default="1g", help="broker -Xmx (Kafka's start script uses 1g)")
    parser.add_argument("--profile", type=Path, help="cProfile one plan run into this file and print the top")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    args = parser.parse_args()

    before = machine()
    print(f"Python {platform.python_version()}, kafka-python {kafka.__version__}")
    print(f"machine: {before['nproc']} CPUs, {before['memory_gib']} GiB, {before['cpu']}; load {before['load']}")
    out: Figures = {"machine": before, "args": {k: str(v) for k, v in vars(args).items()}}
    with tempfile.TemporaryDirectory(prefix="plan-read-bench-") as tmp:
        started = time.perf_counter()
        names = write_manifests(Path(tmp), topics=args.topics, acls=args.acls)
        out["generate_s"] = time.perf_counter() - started
        started = time.perf_counter()
        wanted = operations.load_manifests([Path(tmp)]).desired
        out["load_manifests_s"] = time.perf_counter() - started
    print(f"manifests: {len(wanted.topics)} topics, {len(wanted.acls)} ACL bindings; written in "
          f"{out['generate_s']:.2f}s, loaded and validated in {out['load_manifests_s']:.2f}s")  # fmt: skip

    heap = tuple(f"-Xmx{args.broker_heap}" if o.startswith("-Xmx") else o for o in node_mod.JVM_OPTIONS)
    node_mod.JVM_OPTIONS = heap  # type: ignore[assignment]  # the harness's options, another heap size
    started = time.perf_counter()
    cluster = single_node(authorizer=True)
    try:
        out["kafka"] = cluster.version
        print(f"Kafka {cluster.version}, one KRaft node, heap {args.broker_heap}, at {cluster.bootstrap} (started in "
              f"{time.perf_counter() - started:.1f}s)", flush=True)  # fmt: skip
        with KafkaAdapter(cluster.connection_settings(request_timeout_ms=TIMEOUT_MS)) as adapter:
            started = time.perf_counter()
            create_state(adapter, wanted, batch=args.batch)
            out["setup_s"] = time.perf_counter() - started
            print(f"set-up (not measured): {out['setup_s']:.1f}s", flush=True)
            check = reconciler_plan(adapter, wanted)
            print(f"warm-up plan ({check['seconds']:.2f}s): {check['live_topics']} live topics, "
                  f"{check['live_acls']} ACLs, {check['changes']} changes, unchanged {check['unchanged']}")  # fmt: skip
            broker = int(cluster.nodes[0].node_id)
            chunk = read_mod.MAX_CONFIG_RESOURCES
            runs: list[dict[str, Figures]] = []
            with counted_admin(cluster) as (admin, counts):
                warm = attempt(lambda: floor_admin(admin, counts, broker))  # warm-up, like the plan above
                show("floor (admin) warm-up", warm)
                for i in range(args.runs):
                    print(f"run {i + 1}/{args.runs}")
                    contenders: dict[str, Callable[[], Figures]] = {
                        "reconciler": lambda: reconciler_plan(adapter, wanted),
                        "floor (admin)": lambda: floor_admin(admin, counts, broker),
                        "floor (wire)": lambda: floor_wire(admin, counts, broker, step=chunk),
                        "floor (wire, 1)": lambda: floor_wire(admin, counts, broker, step=len(names)),
                        "per-topic": lambda: per_topic(admin, counts, names[: args.sample], len(names)),
                    }
                    order = list(contenders)
                    order = order[i % len(order) :] + order[: i % len(order)]  # no contender always goes first
                    run = {name: attempt(contenders[name]) for name in order}
                    for name in contenders:
                        show(name, run[name])
                    runs.append({name: run[name] for name in contenders})
            out["runs"] = runs
            out["medians"] = summary(runs)
            if args.profile:
                profile(lambda: reconciler_plan(adapter, wanted), args.profile)
            drift(cluster, names[:: max(1, len(names) // args.drift)][: args.drift])
            out["drift"] = reconciler_plan(adapter, wanted)
            print(f"after altering {args.drift} topics out of band:")
            show("reconciler", out["drift"])
    finally:
        cluster.close()

    out["load_after"] = os.getloadavg()
    med = out["medians"]
    tool = med["reconciler"]["seconds"]["median"]
    print(f"\nmedians (min-max) over {len(runs)} runs; Kafka {out['kafka']}; load before {before['load']}, "
          f"after {out['load_after']}")  # fmt: skip
    for name, row in med.items():
        if "seconds" not in row:
            print(f"  {name:<15} failed in every run")
            continue
        s = row["seconds"]
        ratio = "" if name == "reconciler" else f"  reconciler = {tool / s['median']:.2f}x this"
        print(f"  {name:<15} {s['median']:8.2f}s ({s['min']:.2f}-{s['max']:.2f})  requests={row['requests']}{ratio}")
    for floor in ("floor (wire)", "floor (wire, 1)", "floor (admin)"):
        ratios = [r["reconciler"]["seconds"] / r[floor]["seconds"] for r in runs if "error" not in r[floor]]
        if ratios:
            print(
                f"  reconciler / {floor} in the same run: median {statistics.median(ratios):.2f}, max {max(ratios):.2f}"
            )
    for key in ("read_s", "diff_s", "render_s"):
        s = med["reconciler"][key]
        print(f"  reconciler {key[:-2]:<6} {s['median']:8.3f}s ({s['min']:.3f}-{s['max']:.3f})")
    print(f"  reconciler requests by API: {med['reconciler']['by_api']}")
    print(f"  floor (admin) requests by API: {med['floor (admin)']['by_api']}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()

"""Fleet plans over live reads with network latency: the local engine (``--read-concurrency``) against Spark.

Usage: ``python benchmarks/fleet_latency.py [--rtt-ms 50] [--sizes 16,64] [--topics 20]
[--concurrency 1,8,32] [--spark local[2]] [--runs 1]``

One real Kafka node (the test harness's, KRaft, PLAINTEXT) advertises a latency-injecting TCP proxy on
127.0.0.1 (this script with ``--proxy``, its own process: every chunk is held ``rtt/2`` in each
direction, order kept), so every request of every read pays the round trip. The fleet lists N
entries, all reading that node through the proxy (each entry is a separate read with its own
connections), with ``--topics`` declared topics of which some drifted. Each measurement is a fresh
``fleet plan`` process (the CLI, as a user runs it): the local engine at each ``--concurrency``, and
Spark on ``--spark`` with the engine's defaults. Prints wall times side by side, the seconds per
cluster and the ratio to the fastest local run; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


# ----------------------------------------------------------------------------------------- the proxy
async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, delay: float) -> None:
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def send() -> None:
        while True:
            due, chunk = await queue.get()
            if not chunk:
                break
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(chunk)
            await writer.drain()
        writer.close()

    sender = asyncio.create_task(send())
    try:
        while chunk := await reader.read(65536):
            queue.put_nowait((time.monotonic() + delay, chunk))
    except ConnectionError:
        pass
    queue.put_nowait((0.0, b""))
    await sender


async def _proxy(listen: int, upstream: int, *, delay: float) -> None:
    async def handle(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection("127.0.0.1", upstream)
        except OSError:
            client_w.close()
            return
        await asyncio.gather(
            _pipe(client_r, server_w, delay=delay), _pipe(server_r, client_w, delay=delay), return_exceptions=True
        )

    server = await asyncio.start_server(handle, "127.0.0.1", listen)
    async with server:
        await server.serve_forever()


# ------------------------------------------------------------------------------------------ the node
def start_node(*, port: int, proxy_port: int) -> Any:
    """One KRaft node on ``port`` that tells clients to come back through the proxy on ``proxy_port``."""
    from tests.kafka.cluster import KafkaCluster
    from tests.kafka.dist import resolve
    from tests.kafka.kinds import plaintext_properties
    from tests.kafka.node import KafkaNode

    def properties(cluster: KafkaCluster, node: KafkaNode) -> dict[str, str]:
        props = plaintext_properties(cluster, node)
        props["advertised.listeners"] = f"PLAINTEXT://127.0.0.1:{proxy_port}"
        return props

    dist = resolve(None)
    root = Path(tempfile.mkdtemp(prefix="fleet-latency-kafka-"))
    node = KafkaNode(dist=dist, node_id=1, workdir=root / "node-1", die_with_parent=True)
    cluster = KafkaCluster(
        name="latency",
        dist=dist,
        nodes=[node],
        workdir=root,
        make_properties=properties,
        fixed_port=port,
        remove_workdir=True,
    )
    cluster.start()
    return cluster


def write_fleet(root: Path, *, bootstrap: str, clusters: int, topics: int) -> Path:
    docs = [
        "apiVersion: kafka-reconciler/v1\nkind: Ownership\nmetadata: {name: bench}\nspec:\n  topics: [{prefix: lat.}]\n"
    ]
    for i in range(topics):
        docs.append(
            textwrap.dedent(
                f"""\
                apiVersion: kafka-reconciler/v1
                kind: Topic
                metadata: {{name: lat.t{i:03d}}}
                spec:
                  partitions: 3
                  replicationFactor: 1
                  configs: {{retention.ms: 1d, cleanup.policy: delete, max.message.bytes: "2097152"}}
                """
            )
        )
    (root / "manifests").mkdir(exist_ok=True)
    (root / "manifests" / "topics.yaml").write_text("---\n".join(docs))
    lines = ["defaults: {manifests: manifests, requestTimeoutMs: 30000}", "clusters:"]
    lines += [f"  - {{name: c{i:04d}, bootstrap: '{bootstrap}'}}" for i in range(clusters)]
    path = root / f"fleet-{clusters}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run_plan(fleet: Path, out: Path, *extra: str) -> float:
    command = [sys.executable, "-m", "reconciler", "fleet", "plan", str(fleet), "--out", str(out), "-q", *extra]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 3):
        raise SystemExit(f"fleet plan failed ({done.returncode}): {done.stderr[-2000:]}")
    if done.returncode == 3:
        print(f"  note: partial run ({' '.join(extra)}): {done.stdout.strip().splitlines()[-1]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rtt-ms", type=float, default=50.0)
    parser.add_argument("--sizes", default="16,64")
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--concurrency", default="1,8,32")
    parser.add_argument("--spark", default="local[2]")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--proxy", nargs=3, type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.proxy:
        listen, upstream, delay = args.proxy
        asyncio.run(_proxy(int(listen), int(upstream), delay=delay))
        return

    from kafka.admin import KafkaAdminClient, NewTopic

    from tests.kafka.cluster import free_ports

    proxy_port, node_port = free_ports(2)
    cluster = None
    proxy = subprocess.Popen(
        [sys.executable, __file__, "--proxy", str(proxy_port), str(node_port), str(args.rtt_ms / 2000)]
    )
    try:
        cluster = start_node(port=node_port, proxy_port=proxy_port)
        bootstrap = f"127.0.0.1:{proxy_port}"
        admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30_000)
        try:  # drift: half the declared topics exist, some with another retention, and one undeclared
            admin.create_topics(
                [
                    NewTopic(
                        f"lat.t{i:03d}", 3, 1, topic_configs={"retention.ms": "1000" if i % 4 == 0 else "86400000"}
                    )
                    for i in range(0, args.topics, 2)
                ]
                + [NewTopic("lat.extra", 1, 1)]
            )
        finally:
            admin.close()
        print(f"machine: {os.cpu_count()} cores shared; load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"one Kafka node behind a proxy adding {args.rtt_ms:.0f} ms round trip; {args.topics} declared topics")
        engines = [(f"local --read-concurrency {c}", ["--read-concurrency", c]) for c in args.concurrency.split(",")]
        engines.append((f"spark {args.spark} (engine defaults)", ["--engine", "spark", "--master", args.spark]))
        print("| engine | clusters | runs | wall s (best) | s per cluster | ratio to best local |")
        print("|---|---:|---:|---:|---:|---:|")
        with tempfile.TemporaryDirectory(prefix="fleet-latency-") as tmp:
            root = Path(tmp)
            for n in (int(x) for x in args.sizes.split(",")):
                fleet = write_fleet(root, bootstrap=bootstrap, clusters=n, topics=args.topics)
                measured = {
                    label: min(run_plan(fleet, root / "out", *extra) for _ in range(args.runs))
                    for label, extra in engines
                }
                best_local = min(v for k, v in measured.items() if k.startswith("local"))
                for label, seconds in measured.items():
                    print(
                        f"| {label} | {n} | {args.runs} | {seconds:.1f} | {seconds / n:.3f} "
                        f"| {seconds / best_local:.2f}x |",
                        flush=True,
                    )
        print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        if cluster is not None:
            cluster.close()
        proxy.terminate()
        proxy.wait(timeout=10)


if __name__ == "__main__":
    main()

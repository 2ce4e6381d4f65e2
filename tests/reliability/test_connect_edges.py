"""Kafka Connect at the edges of its connections: a kept-alive connection the worker closed while idle, a first
URL that accepts and never answers in front of a healthy one, and a worker killed in the middle of an apply.

The worker is the harness's real Connect worker; the idle close comes from a relay in front of it
(``tests.support.http_idle``: a real worker closes idle connections after a minute or more, the relay after a
fraction of a second), the silent URL from ``tests.support.black_hole``. Each case checks what a user would: the
requests succeed (each write sent once), the command's exit code, and what the worker holds afterwards.
"""

from __future__ import annotations

import collections
import json
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler.connect.http import ConnectClient
from reconciler.connect.port import RestConnectPort
from tests.kafka.cluster import KafkaCluster
from tests.kafka.connect import FILE_SOURCE, ConnectWorker
from tests.support.black_hole import black_hole
from tests.support.http_idle import IdleCloser
from tests.support.live import cli
from tests.support.polling import eventually

pytestmark = pytest.mark.kafka
SLACK_S = 20.0  # interpreter and import start-up of a CLI process on a loaded 2-core machine, and then some


@pytest.fixture
def idle_closer(connect_worker: ConnectWorker) -> Iterator[IdleCloser]:
    relay = IdleCloser(("127.0.0.1", connect_worker.port), idle_s=0.5)
    try:
        yield relay
    finally:
        relay.close()


def source(prefix: str, tmp_path: Path, name: str, batch: int) -> dict[str, str]:
    return {
        "connector.class": FILE_SOURCE,
        "tasks.max": "1",
        "topic": f"{prefix}lines",
        "file": str(tmp_path / f"{name}.txt"),
        "batch.size": str(batch),
    }


def test_a_kept_alive_connection_the_worker_closed_while_idle_is_not_an_error(
    connect_worker: ConnectWorker, idle_closer: IdleCloser, topic_prefix: str, tmp_path: Path
) -> None:
    """A read, a create and a config PUT, each on a connection the worker closed while it was idle: each succeeds,
    each write is sent once, and the worker holds the connector with the config put last."""
    client = ConnectClient([idle_closer.url])
    port = RestConnectPort(client)
    name = f"{topic_prefix}idle"

    def soon() -> float:
        return time.monotonic() + 60

    def closed_idle(times: int) -> None:
        eventually(lambda: idle_closer.idle_closed >= times, what=f"the relay closing an idle connection ({times})")

    port.read_connectors(deadline=soon())
    closed_idle(1)
    assert name not in port.read_connectors(deadline=soon())  # a GET on the closed connection
    closed_idle(2)
    port.create(name, source(topic_prefix, tmp_path, name, 100), initial_state="running", deadline=soon())
    closed_idle(3)
    port.put_config(name, source(topic_prefix, tmp_path, name, 200), deadline=soon())
    closed_idle(4)
    held = port.read_connectors(deadline=soon())
    assert held[name].config["batch.size"] == "200"
    assert connect_worker.rest("GET", f"/connectors/{name}/config")["batch.size"] == "200"
    assert client.request_counts["POST /connectors"] == 1
    assert client.request_counts["PUT /connectors/{name}/config"] == 1
    connect_worker.rest("DELETE", f"/connectors/{name}")


def manifests(directory: Path, cluster: KafkaCluster, urls: list[str], prefix: str, count: int) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    listed = ", ".join(f'"{u}"' for u in urls)
    profile = f"""\
        apiVersion: kafka-reconciler/v1
        kind: Cluster
        metadata: {{name: test}}
        spec:
          bootstrapServers: ["{cluster.bootstrap}"]
          connect: {{urls: [{listed}]}}
        """
    (directory / "cluster.yaml").write_text(textwrap.dedent(profile))
    body = f"---\napiVersion: kafka-reconciler/v1\nkind: Topic\nmetadata: {{name: {prefix}lines}}\n"
    body += "spec: {partitions: 1, replicationFactor: 1}\n"
    for i in range(count):
        body += (
            f"---\napiVersion: kafka-reconciler/v1\nkind: Connector\nmetadata: {{name: {prefix}src-{i}}}\n"
            f"spec:\n  class: {FILE_SOURCE}\n  tasksMax: 1\n  state: running\n"
            f'  config: {{topic: {prefix}lines, file: "{directory / f"in-{i}.txt"}"}}\n'
        )
    (directory / "connectors.yaml").write_text(body)
    return directory


def test_a_first_url_that_never_answers_is_passed_over_quickly_and_remembered(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """Connect URLs: one that accepts connections and never answers, then the healthy worker. ``apply --timeout 60``
    (its plan's read, the read before the writes, the writes and their read-back) fails over within a short bound
    and remembers the silent URL, so it ends with exit 0 and every connector running."""
    count = 2
    with black_hole() as silent:
        directory = manifests(tmp_path / "m", kafka_single, [f"http://{silent}", connect_worker.url], topic_prefix, 2)
        started = time.monotonic()
        result = cli(["apply", str(directory), "--auto-approve", "--timeout", "60"], timeout=240)
        took = time.monotonic() - started
    print(f"\nsilent first URL, apply --timeout 60: exit {result.returncode} after {took:.1f}s")
    assert result.returncode == 0, result.stdout + result.stderr
    assert took <= 60 + SLACK_S, took
    found = connect_worker.rest("GET", "/connectors?expand=status")
    names = [f"{topic_prefix}src-{i}" for i in range(count)]
    assert all(found[n]["status"]["connector"]["state"] == "RUNNING" for n in names), found
    for n in names:
        connect_worker.rest("DELETE", f"/connectors/{n}")


@pytest.fixture
def private_worker(kafka_single: KafkaCluster, tmp_path: Path, topic_prefix: str) -> Iterator[ConnectWorker]:
    """A Connect worker of this test alone (a group of its own): the test kills it."""
    worker = ConnectWorker(bootstrap=kafka_single.bootstrap, workdir=tmp_path / "worker", group_id=f"{topic_prefix}g")
    try:
        worker.start()
        yield worker
    finally:
        worker.close()


def test_a_worker_killed_mid_apply_leaves_nothing_reported_failed_that_it_holds(
    private_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """The worker is killed (SIGKILL) once 8 of 30 connector creates are listed, ``apply --timeout 60``: the command
    ends within its limit; nothing is ``failed`` (the worker refused nothing and could not be read after the kill);
    once the worker is back, every connector reported applied is held, none reported not sent is, and what was sent
    (answered or not) but could not be read back is unknown."""
    count, limit = 30, 60
    directory = manifests(tmp_path / "m", kafka_single, [private_worker.url], topic_prefix, count)
    names = {f"{topic_prefix}src-{i}" for i in range(count)}
    ran: list[Any] = []
    args = ["apply", str(directory), "--auto-approve", "--format", "json", "--timeout", str(limit)]
    started = time.monotonic()
    runner = threading.Thread(target=lambda: ran.append(cli(args, timeout=240)))
    runner.start()
    listed = lambda: len(names & set(private_worker.rest("GET", "/connectors"))) >= 8  # noqa: E731
    eventually(listed, what="8 creates carried out", timeout=120)
    private_worker.kill()
    runner.join(timeout=300)
    took = time.monotonic() - started
    [result] = ran
    report = json.loads(result.stdout)
    counts = {k: v for k, v in report["counts"].items() if v}
    print(f"\nworker killed mid-apply, --timeout {limit}: exit {result.returncode} after {took:.1f}s: {counts}")
    assert result.returncode == 3, result.stdout + result.stderr
    assert report["duration_s"] <= limit + 1.5, report["duration_s"]
    assert took <= limit + SLACK_S, took
    private_worker.start()
    held = eventually(lambda: set(private_worker.rest("GET", "/connectors")) & names or None, what="the connectors")
    items = {i["name"]: i for i in report["items"] if i["kind"] == "connector"}
    assert set(items) == names
    holds = collections.Counter(i["outcome"] for n, i in items.items() if n in held)
    print(f"the worker, back, holds {len(held)} of {count}: by reported outcome {dict(holds)}")
    assert not [i for i in items.values() if i["outcome"] == "failed"], report["items"]
    for name, item in items.items():
        if item["outcome"] == "applied":
            assert name in held, item
        elif item["outcome"] in ("failed", "not sent"):
            assert name not in held, item
        else:
            assert item["outcome"] == "unknown", item
        if item["outcome"] == "not sent":
            assert "lost" not in (item["message"] or ""), item

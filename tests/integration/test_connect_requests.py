"""The Kafka Connect REST requests of a plan, counted where every request is written (``http.client``).

A no-change plan over 200 connectors sends exactly two requests whatever their number: every connector's config and
status (``GET /connectors?expand=info&expand=status``) and the plugin list; nothing is validated, since no config
changes. A plan that declares no connector sends none, even with a Connect cluster in its profile, and its Kafka
requests are the same as without one. The connectors are created stopped (no task runs), so the worker stays cheap.
"""

from __future__ import annotations

import collections
import http.client
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reconciler.cli import app
from tests.kafka.cluster import KafkaCluster
from tests.kafka.connect import FILE_SOURCE, ConnectWorker
from tests.support.kafka_requests import count_kafka_requests

pytestmark = pytest.mark.kafka
runner = CliRunner()
CONNECTORS = 200


@pytest.fixture(scope="module")
def connect_worker(private_connect_worker: ConnectWorker) -> ConnectWorker:
    """A worker of this module's own, not the session's: the 200 connectors created here stay on it, so the plans
    of other modules do not read them."""
    return private_connect_worker


@pytest.fixture
def rest(monkeypatch: pytest.MonkeyPatch) -> Iterator[collections.Counter[str]]:
    """HTTP requests written while the test runs, as ``METHOD /path?query``."""
    counts: collections.Counter[str] = collections.Counter()
    send = http.client.HTTPConnection.request

    def counted(self: http.client.HTTPConnection, method: str, url: str, *args: Any, **kwargs: Any) -> None:
        counts[f"{method} {url}"] += 1
        send(self, method, url, *args, **kwargs)

    monkeypatch.setattr(http.client.HTTPConnection, "request", counted)
    yield counts


@pytest.fixture
def kafka_sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[collections.Counter[str]]:
    """Kafka requests written while the test runs, by API."""
    yield count_kafka_requests(monkeypatch)


def profile(cluster: KafkaCluster, worker: ConnectWorker | None) -> str:
    connect = f'\n  connect: {{urls: ["{worker.url}"]}}' if worker is not None else ""
    return f"""\
apiVersion: kafka-reconciler/v1
kind: Cluster
metadata: {{name: test}}
spec:
  bootstrapServers: ["{cluster.bootstrap}"]{connect}
"""


def connectors(prefix: str, directory: Path, count: int) -> str:
    return "".join(
        textwrap.dedent(
            f"""\
            ---
            apiVersion: kafka-reconciler/v1
            kind: Connector
            metadata: {{name: {prefix}src-{i:03d}}}
            spec:
              class: {FILE_SOURCE}
              tasksMax: 1
              state: stopped
              config: {{topic: {prefix}lines, file: "{directory / f"in-{i:03d}.txt"}", batch.size: 100}}
            """
        )
        for i in range(count)
    )


def topic(prefix: str) -> str:
    return textwrap.dedent(
        f"""\
        ---
        apiVersion: kafka-reconciler/v1
        kind: Topic
        metadata: {{name: {prefix}lines}}
        spec: {{partitions: 3, replicationFactor: 1}}
        """
    )


def test_a_no_change_plan_over_200_connectors_sends_two_rest_requests(
    connect_worker: ConnectWorker,
    kafka_single: KafkaCluster,
    topic_prefix: str,
    tmp_path: Path,
    rest: collections.Counter[str],
) -> None:
    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "cluster.yaml").write_text(profile(kafka_single, connect_worker))
    body = topic(topic_prefix) + connectors(topic_prefix, tmp_path, CONNECTORS)
    (directory / "connectors.yaml").write_text(body)
    applied = runner.invoke(app, ["apply", str(directory), "--auto-approve", "--timeout", "240"])
    assert applied.exit_code == 0, applied.output
    held = connect_worker.rest("GET", "/connectors?expand=status")
    mine = {n: s for n, s in held.items() if n.startswith(topic_prefix)}
    assert len(mine) == CONNECTORS
    assert {s["status"]["connector"]["state"] for s in mine.values()} == {"STOPPED"}

    rest.clear()
    result = runner.invoke(app, ["plan", str(directory), "--detailed-exitcode"])
    assert result.exit_code == 0, result.output
    assert "No changes" in result.output
    assert rest == collections.Counter(
        {"GET /connectors?expand=info&expand=status": 1, "GET /connector-plugins?connectorsOnly=true": 1}
    )


def test_a_plan_without_connectors_sends_no_rest_request_and_the_same_kafka_requests(
    connect_worker: ConnectWorker,
    kafka_single: KafkaCluster,
    topic_prefix: str,
    tmp_path: Path,
    rest: collections.Counter[str],
    kafka_sent: collections.Counter[str],
) -> None:
    counts = []
    for worker in (None, connect_worker):
        directory = tmp_path / ("with" if worker else "without")
        directory.mkdir()
        (directory / "cluster.yaml").write_text(profile(kafka_single, worker))
        (directory / "topics.yaml").write_text(topic(topic_prefix))
        applied = runner.invoke(app, ["apply", str(directory), "--auto-approve"])
        assert applied.exit_code == 0, applied.output
        kafka_sent.clear()
        result = runner.invoke(app, ["plan", str(directory), "--detailed-exitcode"])
        assert result.exit_code == 0, result.output
        counts.append(collections.Counter(kafka_sent))
    assert not rest
    assert counts[0] == counts[1] and counts[0]["Metadata"] >= 1

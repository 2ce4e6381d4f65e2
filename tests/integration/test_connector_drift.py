"""A connector declared running that Kafka Connect reports FAILED is drift, against a real worker, through the CLI.

A FileStream sink whose file lies in a directory that does not exist fails at its start: the create is carried out,
then the task FAILED (apply exit 3, summarised as carried out, not as "not carried out"); the drift check then exits
2 with a ``restart`` naming the task and its trace; an apply restarts only what failed and reads back: while the
directory is missing the task fails again (exit 3); once it exists the restart converges (exit 0) and the next
drift check is clean. ``snapshot`` without manifests holds the Connect cluster's connectors.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler.cli import app
from tests.kafka.cluster import KafkaCluster
from tests.kafka.connect import CONNECT_VERSION, FILE_SINK, ConnectWorker
from tests.support.connect_manifests import write_connect_manifests
from tests.support.polling import eventually

pytestmark = pytest.mark.kafka
runner = CliRunner()


def sink(name: str, out: Path, topic: str) -> str:
    return textwrap.dedent(
        f"""\
        apiVersion: kafka-reconciler/v1
        kind: Connector
        metadata: {{name: {name}}}
        spec:
          class: {FILE_SINK}
          config: {{topics: {topic}, file: "{out}"}}
        """
    )


def task_states(worker: ConnectWorker, name: str) -> list[str]:
    return [t["state"] for t in worker.rest("GET", f"/connectors/{name}/status")["tasks"]]


def test_a_failed_task_is_drift_restarted_by_apply_and_reported_failed_when_it_fails_again(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name, missing = f"{topic_prefix}sink", tmp_path / "not-yet"
    directory = write_connect_manifests(
        tmp_path / "m", kafka_single, connect_worker.url, sink(name, missing / "out.txt", f"{topic_prefix}x")
    )
    created = runner.invoke(app, ["apply", str(directory), "--auto-approve", "--timeout", "120"])
    assert created.exit_code == 3, created.output
    assert "1 change carried out, then failed" in created.output and "not carried out" not in created.output
    assert "did not converge" not in created.output, created.output
    [phase] = re.findall(r"phase connector: [0-9.]+s, (\d+) requests?", created.output)
    [noted] = re.findall(r"connectors: (\d+) Kafka Connect REST request", created.output)
    assert int(phase) >= int(noted) > 0, created.output
    assert task_states(connect_worker, name) == ["FAILED"]

    drift = runner.invoke(app, ["plan", str(directory), "--detailed-exitcode"])
    assert drift.exit_code == 2, drift.output
    trace = f"org.apache.kafka.connect.errors.ConnectException: Couldn't find or create file '{missing / 'out.txt'}'"
    assert f"~ restart: task 0 FAILED: {trace}" in drift.output, drift.output

    again = runner.invoke(app, ["apply", str(directory), "--auto-approve", "--timeout", "120"])
    assert again.exit_code == 3, again.output
    assert "restarted what failed (task 0)" not in again.output  # the failure is the item's message
    assert "task 0 FAILED again after its restart" in again.output, again.output
    assert task_states(connect_worker, name) == ["FAILED"]

    missing.mkdir()
    fixed = runner.invoke(app, ["apply", str(directory), "--auto-approve", "--timeout", "120"])
    assert fixed.exit_code == 0, fixed.output
    assert "restarted what failed (task 0)" in fixed.output, fixed.output
    assert task_states(connect_worker, name) == ["RUNNING"]
    clean = runner.invoke(app, ["plan", str(directory), "--detailed-exitcode"])
    assert clean.exit_code == 0, clean.output


def test_snapshot_without_manifests_holds_the_connect_clusters_connectors(
    connect_worker: ConnectWorker,
    kafka_single: KafkaCluster,
    topic_prefix: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name = f"{topic_prefix}snap"
    body = {"connector.class": FILE_SINK, "topics": f"{topic_prefix}x", "file": str(tmp_path / "o.txt")}
    connect_worker.rest("PUT", f"/connectors/{name}/config", body)
    eventually(lambda: connect_worker.rest("GET", "/connectors?expand=status").get(name), what="the connector listed")
    monkeypatch.setenv("KAFKA_CONNECT_URL", connect_worker.url)
    out = tmp_path / "snap.json"
    result = runner.invoke(app, ["snapshot", "--out", str(out), "--bootstrap-server", kafka_single.bootstrap])
    assert result.exit_code == 0, result.output
    connect = json.loads(out.read_text())["connect"]
    assert connect is not None and connect["connectors"][name]["config"]["file"] == str(tmp_path / "o.txt")
    assert FILE_SINK in connect["plugins"]


def test_a_declared_plugin_version_is_run_and_one_the_workers_lack_is_blocked_with_theirs(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    installed = {p["class"]: p["version"] for p in connect_worker.rest("GET", "/connector-plugins?connectorsOnly=true")}
    assert installed[FILE_SINK] == CONNECT_VERSION  # KIP-891: a 4.1+ worker reports each plugin's version
    good, bad = f"{topic_prefix}v-good", f"{topic_prefix}v-bad"
    body = sink(good, tmp_path / "good.txt", f"{topic_prefix}x") + f"  version: {CONNECT_VERSION}\n---\n"
    body += sink(bad, tmp_path / "bad.txt", f"{topic_prefix}x") + "  version: 9.9.9\n"
    directory = write_connect_manifests(tmp_path / "m", kafka_single, connect_worker.url, body)
    planned = runner.invoke(app, ["plan", str(directory)])
    line = next(i for i, text in enumerate(body.splitlines(), 1) if "9.9.9" in text)
    where = f"{directory / 'connectors.yaml'}:{line}:"
    message = f"version 9.9.9 of connector class {FILE_SINK} is not installed on the workers (they have: 4.3.1)"
    assert f"{where}" in planned.output and message in planned.output, planned.output
    applied = runner.invoke(app, ["apply", str(directory), "--auto-approve", "--timeout", "120"])
    assert applied.exit_code == 3, applied.output  # the blocked connector is not created
    held = connect_worker.rest("GET", f"/connectors/{good}/config")
    assert held["connector.plugin.version"] == CONNECT_VERSION
    assert bad not in connect_worker.rest("GET", "/connectors")
    eventually(lambda: task_states(connect_worker, good) == ["RUNNING"] or None, what="the versioned connector")
    write_connect_manifests(tmp_path / "m", kafka_single, connect_worker.url, body.split("---\n")[0])
    clean = runner.invoke(app, ["plan", str(directory), "--detailed-exitcode"])
    assert clean.exit_code == 0, clean.output

"""A saved connector plan edited and resealed, against a real Kafka Connect worker: what ``show`` prints is what
``apply --plan`` sends, or both refuse the file and nothing is written.

Regression: a plan changing a FileStream sink's ``file`` from ``old.txt`` to ``new.txt``, whose ``after.config`` was
edited to ``file: evil.txt, topics: other`` and resealed (docs/plan-format.md), was shown as
``~ config.file: old.txt -> new.txt`` and applied with exit 0; the worker then held the edited config.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler.cli import app
from tests.kafka.cluster import KafkaCluster
from tests.kafka.connect import FILE_SINK, ConnectWorker
from tests.support.connect_manifests import write_connect_manifests
from tests.support.fuzzing import reseal

pytestmark = pytest.mark.kafka
runner = CliRunner()


def _sink(name: str, topic: str, file: Path) -> str:
    return f"""\
apiVersion: kafka-reconciler/v1
kind: Connector
metadata: {{name: {name}}}
spec:
  class: {FILE_SINK}
  tasksMax: 1
  config:
    topics: {topic}
    file: {file}
"""


def test_a_resealed_connector_plan_with_an_edited_config_is_refused_by_show_and_apply(
    connect_worker: ConnectWorker, kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name, topic = f"{topic_prefix}sink", f"{topic_prefix}orders"
    old, new, evil = tmp_path / "old.txt", tmp_path / "new.txt", tmp_path / "evil.txt"
    directory = tmp_path / "m"
    write_connect_manifests(directory, kafka_single, connect_worker.url, _sink(name, topic, old))
    created = runner.invoke(app, ["apply", str(directory), "--auto-approve", "--timeout", "120"])
    assert created.exit_code == 0, created.output
    assert connect_worker.rest("GET", f"/connectors/{name}/config")["file"] == str(old)

    write_connect_manifests(directory, kafka_single, connect_worker.url, _sink(name, topic, new))
    saved = tmp_path / "plan.json"
    planned = runner.invoke(app, ["plan", str(directory), "--out", str(saved)])
    assert planned.exit_code == 0, planned.output
    assert f"config.file: {old} -> {new}" in planned.stdout

    doc = json.loads(saved.read_text())
    [change] = [c for c in doc["changes"] if c["kind"] == "connector"]
    change["after"]["config"].update({"file": str(evil), "topics": "other"})
    saved.write_text(json.dumps(reseal(doc), indent=2) + "\n")

    shown = runner.invoke(app, ["show", str(saved)])
    assert shown.exit_code != 0 and f"connector/{name}" in shown.output, shown.output
    assert f"-> {new}" not in shown.output
    env = {"KAFKA_CONNECT_URL": connect_worker.url}
    conn = ["--bootstrap-server", kafka_single.bootstrap, "--timeout", "120"]
    applied = runner.invoke(app, ["apply", "--plan", str(saved), *conn], env=env)
    assert applied.exit_code == 1, applied.output
    held = connect_worker.rest("GET", f"/connectors/{name}/config")
    assert (held["file"], held["topics"]) == (str(old), topic)

    # With its lines dropped to match, the edited plan shows the values its data writes.
    change["attributes"] = []
    saved.write_text(json.dumps(reseal(doc), indent=2) + "\n")
    shown = runner.invoke(app, ["show", str(saved)])
    assert shown.exit_code == 0, shown.output
    assert f"config.file: {old} -> {evil}" in shown.stdout and f"config.topics: {topic} -> other" in shown.stdout
    connect_worker.rest("DELETE", f"/connectors/{name}")

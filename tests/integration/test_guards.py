"""Guards on a real single-node cluster, through the command line: no false green, names colliding with live topics.

Each test declares what an operator would and checks the exit status and what the cluster holds afterwards
with plain kafka-python.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from kafka.admin import ConfigResource, NewTopic
from typer.testing import CliRunner

from reconciler.cli import app
from tests.kafka.cluster import KafkaCluster
from tests.support.integration import consume_and_commit, describe_topics, produce_records

pytestmark = pytest.mark.kafka
runner = CliRunner()


def write(directory: Path, text: str) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "m.yaml").write_text(textwrap.dedent(text))
    return str(directory)


def topic(name: str, *, partitions: int = 3, rf: int = 1, extra: str = "") -> str:
    return f"""
        ---
        apiVersion: kafka-reconciler/v1
        kind: Topic
        metadata: {{name: "{name}"}}
        spec:
          partitions: {partitions}
          replicationFactor: {rf}
          configs: {{retention.ms: 1d, cleanup.policy: delete}}
        {extra}"""


def create_live(cluster: KafkaCluster, name: str, partitions: int = 3) -> None:
    with cluster.admin_session() as admin:
        admin.create_topics([NewTopic(name, partitions, 1)])


@pytest.mark.parametrize("saved_plan", [False, True], ids=["apply", "apply-plan"])
def test_replication_factor_above_the_broker_count_is_never_a_green_apply(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path, saved_plan: bool
) -> None:
    name = f"{topic_prefix}orders"
    path = write(tmp_path / "m", topic(name, rf=3))
    conn = ["--bootstrap-server", kafka_single.bootstrap]
    if saved_plan:
        out = tmp_path / "plan.json"
        planned = runner.invoke(app, ["plan", path, *conn, "--out", str(out)])
        assert planned.exit_code == 0, planned.output
        assert "1 blocked" in planned.stdout
        result = runner.invoke(app, ["apply", "--plan", str(out), *conn, "--auto-approve"])
    else:
        result = runner.invoke(app, ["apply", path, *conn, "--auto-approve"])
    assert result.exit_code == 3, result.output  # the create is blocked: nothing applied is never a success
    assert "replication factor 3 exceeds the 1 broker(s)" in result.output
    assert name not in describe_topics(kafka_single, [name])


def test_a_plan_whose_only_change_is_blocked_exits_3_and_writes_nothing(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name = f"{topic_prefix}shrink"
    create_live(kafka_single, name, partitions=6)
    path = write(tmp_path / "m", topic(name, partitions=3))
    conn = ["--bootstrap-server", kafka_single.bootstrap]
    runner.invoke(app, ["apply", path, *conn, "--auto-approve"])  # sets the declared configs
    text = runner.invoke(app, ["apply", path, *conn, "--auto-approve"])
    assert text.exit_code == 3, text.output
    assert f"blocked          partitions     topic/{name}  Kafka cannot remove partitions" in text.stdout
    as_json = runner.invoke(app, ["apply", path, *conn, "--auto-approve", "--format", "json"])
    assert as_json.exit_code == 3, as_json.output
    report = json.loads(as_json.stdout)
    assert report["exit_code"] == 3 and report["counts"]["blocked"] == 1
    assert describe_topics(kafka_single, [name]) == {name: 6}


@pytest.mark.every_version  # the internal topic's configs and fallbacks per release
def test_declaring_consumer_offsets_with_more_partitions_is_refused_with_the_reason(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    source = f"{topic_prefix}events"
    create_live(kafka_single, source, partitions=1)
    produce_records(kafka_single, source, [b"e1"])
    consume_and_commit(kafka_single, source, group=f"{topic_prefix}group", expected=1)  # __consumer_offsets exists
    before = describe_topics(kafka_single, ["__consumer_offsets"])["__consumer_offsets"]
    declared = f"""
        apiVersion: kafka-reconciler/v1
        kind: Topic
        metadata: {{name: __consumer_offsets}}
        spec: {{partitions: {before + 10}, replicationFactor: 1}}
        """
    path = write(tmp_path / "m", declared)
    conn = ["--bootstrap-server", kafka_single.bootstrap]
    planned = runner.invoke(app, ["plan", path, *conn])
    assert planned.exit_code == 0, planned.output
    assert "! topic/__consumer_offsets" in planned.stdout
    assert "__consumer_offsets is an internal topic, run by Kafka itself" in planned.stdout
    assert "allowInternal: true" in planned.stdout
    # The topic's own compression.type=producer equals what it would fall back to: not listed as a change.
    assert "compression.type" not in planned.stdout
    applied = runner.invoke(app, ["apply", path, *conn, "--auto-approve"])
    assert applied.exit_code == 3, applied.output
    assert describe_topics(kafka_single, ["__consumer_offsets"]) == {"__consumer_offsets": before}


def test_a_name_colliding_with_a_live_topic_is_blocked_not_refused_at_apply(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    existing = f"{topic_prefix}acc_col"
    declared = f"{topic_prefix}acc.col"
    create_live(kafka_single, existing)
    # No ownership rule covers the live topic: the collision is found all the same.
    path = write(tmp_path / "m", topic(declared))
    conn = ["--bootstrap-server", kafka_single.bootstrap]
    planned = runner.invoke(app, ["plan", path, *conn, "--format", "json"])
    assert planned.exit_code == 0, planned.output
    [change] = json.loads(planned.stdout)["changes"]
    assert (change["address"], change["action"]) == (f"topic/{declared}", "blocked")
    assert f"collides with the live topic '{existing}'" in change["reasons"][0]
    applied = runner.invoke(app, ["apply", path, *conn, "--auto-approve"])
    assert applied.exit_code == 3, applied.output
    assert "INVALID_TOPIC" not in applied.stdout.replace("(INVALID_TOPIC_EXCEPTION)", "")
    assert describe_topics(kafka_single, [declared, existing]) == {existing: 3}


def test_an_unknown_broker_config_is_refused_before_anything_is_sent(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    # The broker would store it, answer "applied", then describe it only as a secret with no value: the tool
    # reported it applied, then "did not converge", then never showed it again.
    key = f"{topic_prefix.replace('-', '.')}custom.setting"
    path = write(
        tmp_path / "m",
        f"""
        apiVersion: kafka-reconciler/v1
        kind: BrokerConfig
        metadata: {{name: defaults}}
        spec:
          broker: default
          configs: {{log.cleaner.threads: 1, "{key}": "on"}}
        """,
    )
    conn = ["--bootstrap-server", kafka_single.bootstrap]
    for command in (["plan", path], ["apply", path, "--auto-approve"]):
        result = runner.invoke(app, [*command, *conn])
        assert result.exit_code == 1, result.output
        assert f"'{key}' is not a dynamic broker config Kafka knows" in result.output
        assert "nothing was sent to any cluster" in result.output
    with kafka_single.admin_session() as admin:
        described = admin.describe_configs([ConfigResource("BROKER", "1")])["broker"]
    assert all(key not in entries for entries in described.values())  # broker 1 lists the cluster defaults too

"""Group configs and client-metrics subscriptions on a real cluster, read back with Kafka's own tools.

On Kafka 4.1+ the declared configs are written, then read back with ``kafka-configs.sh --describe --entity-type
groups`` and ``kafka-client-metrics.sh --describe`` (``tests.support.kafka_tools``) as well as DescribeConfigs; the
broker's own rules refuse a bad value at ``plan --validate`` with nothing written; an owned subscription made by
hand is deleted; an import of the cluster plans clean. On an older cluster (3.9.2 in ZooKeeper mode, 2.8.2) each
kind is blocked with one clear reason and the rest of the plan is applied.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.kafka.dist import selected_release
from tests.support import kafka_tools

# On every Kafka version: capability detection: older releases block both kinds with one reason.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]
runner = CliRunner()
KAFKA_4_1 = selected_release() >= (4, 1, 0)
needs_kafka_4_1 = pytest.mark.skipif(
    not KAFKA_4_1, reason="group configs need Kafka 4.1+ (ListConfigResources v1); the older path is tested below"
)


def manifests(directory: Path, prefix: str, *, heartbeat: str = "6s", extra: str = "") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "m.yaml").write_text(
        textwrap.dedent(
            f"""\
            apiVersion: kafka-reconciler/v1
            kind: Ownership
            metadata: {{name: own}}
            spec:
              topics: [{{prefix: "{prefix}"}}]
              groups: [{{prefix: "{prefix}"}}]
              clientMetrics: [{{prefix: "{prefix}"}}]
              delete: {{groupConfig: true, clientMetrics: true}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: Topic
            metadata: {{name: {prefix}orders}}
            spec: {{partitions: 1, replicationFactor: 1}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: GroupConfig
            metadata: {{name: {prefix}orders-service}}
            spec:
              configs:
                consumer.session.timeout.ms: 50s
                consumer.heartbeat.interval.ms: {heartbeat}
                share.auto.offset.reset: earliest
            ---
            apiVersion: kafka-reconciler/v1
            kind: ClientMetrics
            metadata: {{name: {prefix}producers}}
            spec:
              metrics: [org.apache.kafka.producer., org.apache.kafka.consumer.coordinator.]
              intervalMs: 1m
              match: {{client_software_name: apache-kafka-java, client_id: "{prefix}.*"}}
            """
        )
        + extra,
        encoding="utf-8",
    )
    return directory


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@needs_kafka_4_1
def test_apply_writes_what_kafkas_own_tools_read_back_and_a_second_plan_is_empty(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    path = str(manifests(tmp_path / "m", topic_prefix))
    code, output = cli("apply", path, "--bootstrap-server", kafka_single.bootstrap, "--auto-approve")
    assert code == 0, output
    group, subscription = f"{topic_prefix}orders-service", f"{topic_prefix}producers"
    assert kafka_tools.group_configs(kafka_single.bootstrap, group) == {
        "consumer.heartbeat.interval.ms": "6000",
        "consumer.session.timeout.ms": "50000",
        "share.auto.offset.reset": "earliest",
    }
    assert kafka_tools.client_metrics(kafka_single.bootstrap, subscription) == {
        "interval.ms": "60000",
        "match": f"client_software_name=apache-kafka-java,client_id={topic_prefix}.*",
        "metrics": "org.apache.kafka.producer.,org.apache.kafka.consumer.coordinator.",
    }
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        live = adapter.read_state(kinds=frozenset({Kind.GROUP_CONFIG, Kind.CLIENT_METRICS}))
    assert (live.group_configs or {})[group]["consumer.session.timeout.ms"] == "50000"
    assert (live.client_metrics or {})[subscription]["interval.ms"] == "60000"

    code, output = cli("plan", path, "--bootstrap-server", kafka_single.bootstrap, "--detailed-exitcode")
    assert code == 0, output
    assert "No changes" in output

    # a key no longer declared is reset (deletes are on), and the plan says what it returns to: the broker's own
    # group.consumer.heartbeat.interval.ms, as the group's DescribeConfigs reports it
    m = tmp_path / "m" / "m.yaml"
    m.write_text("".join(line for line in m.read_text().splitlines(True) if "heartbeat" not in line))
    code, output = cli("plan", path, "--bootstrap-server", kafka_single.bootstrap, "--detailed-exitcode")
    assert code == 2, output
    assert "consumer.heartbeat.interval.ms: 6000 (6s) -> (default: 5000 (5s))" in output, output


@needs_kafka_4_1
def test_the_brokers_own_bounds_refuse_a_value_at_validate_and_nothing_is_written(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    # 2s is a valid duration, but the broker allows group heartbeats of 5..15 s only (its group.consumer.* bounds)
    path = str(manifests(tmp_path / "m", topic_prefix, heartbeat="2s"))
    code, output = cli("plan", path, "--bootstrap-server", kafka_single.bootstrap, "--validate")
    assert code == 1, output
    assert "consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive" in output
    assert kafka_tools.group_configs(kafka_single.bootstrap, f"{topic_prefix}orders-service") == {}
    assert kafka_tools.client_metrics(kafka_single.bootstrap, f"{topic_prefix}producers") is None


@needs_kafka_4_1
def test_an_owned_subscription_and_group_config_made_by_hand_are_deleted(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    stray, group = f"{topic_prefix}stray", f"{topic_prefix}stray-group"
    made = kafka_tools.run(
        "ClientMetricsCommand",
        kafka_single.bootstrap,
        "--alter",
        "--name",
        stray,
        "--metrics",
        "*",
        "--interval",
        "5000",
    )
    assert made.returncode == 0, made.stderr
    made = kafka_tools.run(
        "ConfigCommand", kafka_single.bootstrap, "--alter", "--entity-type", "groups", "--entity-name", group,
        "--add-config", "share.delivery.count.limit=3",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    path = str(manifests(tmp_path / "m", topic_prefix))
    code, output = cli("plan", path, "--bootstrap-server", kafka_single.bootstrap)
    assert code == 0, output
    assert f"- client_metrics/{stray}" in output and f"- group_config/{group}" in output
    code, output = cli("apply", path, "--bootstrap-server", kafka_single.bootstrap, "--auto-approve")
    assert code == 0, output
    assert kafka_tools.client_metrics(kafka_single.bootstrap, stray) is None
    assert kafka_tools.group_configs(kafka_single.bootstrap, group) == {}


@needs_kafka_4_1
def test_an_import_of_the_cluster_plans_clean(kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path) -> None:
    path = str(manifests(tmp_path / "m", topic_prefix))
    code, output = cli("apply", path, "--bootstrap-server", kafka_single.bootstrap, "--auto-approve")
    assert code == 0, output
    out = tmp_path / "imported"
    code, output = cli("import", "--bootstrap-server", kafka_single.bootstrap, "--out", str(out))
    assert code == 0, output
    groups = (out / "groups.yaml").read_text()
    assert f"name: {topic_prefix}orders-service" in groups and "consumer.session.timeout.ms: 50s" in groups
    assert f"name: {topic_prefix}producers" in (out / "client-metrics.yaml").read_text()
    code, output = cli("plan", str(out), "--bootstrap-server", kafka_single.bootstrap, "--detailed-exitcode")
    # The import is of the whole shared broker: other tests' leftovers may plan a documented change (a SCRAM user
    # holding both mechanisms is imported with one, and the plan proposes removing the other). The two kinds, and
    # everything this test wrote, plan no change.
    assert code in (0, 2), output
    changed = re.findall(r"^\s+[-+~!] (\S+)$", output, flags=re.MULTILINE)
    assert not [a for a in changed if a.startswith(("group_config/", "client_metrics/")) or topic_prefix in a], output
    assert "group_config: " in output and "client_metrics: " in output  # both kinds were read and are unchanged


@pytest.mark.skipif(KAFKA_4_1, reason="this cluster manages both kinds (tested above)")
def test_an_older_cluster_blocks_each_kind_once_and_the_rest_of_the_plan_is_applied(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    path = str(manifests(tmp_path / "m", topic_prefix))
    code, output = cli("plan", path, "--bootstrap-server", kafka_single.bootstrap)
    assert code == 0, output
    assert output.count("not supported by this cluster") == 4  # one warning per kind and one per blocked change
    assert (
        "group configs: not supported by this cluster (version): it lacks ListConfigResources v1 (Kafka 4.1+); "
        "1 declared resource(s) blocked" in output
    )
    assert "client-metrics subscriptions: not supported by this cluster (version): it lacks" in output
    code, output = cli("apply", path, "--bootstrap-server", kafka_single.bootstrap, "--auto-approve")
    assert code == 3, output  # partial: the topic was created, the two kinds were not written
    with kafka_single.admin_session() as admin:
        assert f"{topic_prefix}orders" in admin.list_topics()

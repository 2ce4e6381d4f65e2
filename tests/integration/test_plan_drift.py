"""Drift on a real cluster, through the command line: what changed behind the tool's back shows up exactly once.

The manifests are applied first; then a config is altered, a partition added, an undeclared topic and an
undeclared ACL created and a quota changed with plain kafka-python. The next plan must list exactly those
five resources, and a plan against a snapshot of the cluster must equal the plan against the cluster.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from kafka.admin import (
    ACL,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ConfigResource,
    ConfigResourceType,
    NewPartitions,
    NewTopic,
    ResourcePattern,
    ResourceType,
)
from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.connection.settings import DEFAULT_REQUEST_TIMEOUT_MS
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import state
from tests.kafka.cluster import KafkaCluster

pytestmark = pytest.mark.kafka
runner = CliRunner()


def manifests(directory: Path, prefix: str, principal: str) -> Path:
    directory.mkdir()
    (directory / "m.yaml").write_text(
        textwrap.dedent(
            f"""\
            apiVersion: kafka-reconciler/v1
            kind: Ownership
            metadata: {{name: drift}}
            spec:
              topics: [{{prefix: "{prefix}"}}]
              principals: [{{prefix: "{principal}"}}]
              delete: {{topic: true, acl: true, quota: true}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: Topic
            metadata: {{name: {prefix}orders}}
            spec:
              partitions: 2
              replicationFactor: 1
              configs: {{retention.ms: 1d}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: Consumer
            metadata: {{name: {prefix}reader}}
            spec:
              principal: {principal}
              topics: [{prefix}orders]
              groups: [{prefix}group]
            ---
            apiVersion: kafka-reconciler/v1
            kind: ClientQuota
            metadata: {{name: {prefix}quota}}
            spec:
              entity: {{user: {principal.removeprefix("User:")}}}
              values: {{producer_byte_rate: 1048576}}
            """
        ),
        encoding="utf-8",
    )
    return directory


def plan_json(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["plan", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def test_out_of_band_changes_are_each_reported_once(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    principal = f"User:{topic_prefix}app"
    conn = [
        "--bootstrap-server",
        kafka_sasl.bootstrap,
        "--command-config",
        str(kafka_sasl.write_command_config(tmp_path / "c.properties")),
    ]
    path = str(manifests(tmp_path / "m", topic_prefix, principal))

    applied = runner.invoke(app, ["apply", path, *conn, "--auto-approve"])
    assert applied.exit_code == 0, applied.output
    clean = plan_json(path, *conn)
    assert [c for c in clean["changes"] if c["action"] != "no-op"] == []

    orders = f"{topic_prefix}orders"
    with kafka_sasl.admin_session() as admin:
        admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, orders, configs={"retention.ms": "3600000"})])
        admin.create_partitions({orders: NewPartitions(total_count=3)})
        admin.create_topics([NewTopic(f"{topic_prefix}stray", 1, 1)])
        admin.create_acls(
            [
                ACL(
                    principal=principal,
                    host="*",
                    operation=ACLOperation.WRITE,
                    permission_type=ACLPermissionType.ALLOW,
                    resource_pattern=ResourcePattern(ResourceType.TOPIC, orders, ACLResourcePatternType.LITERAL),
                )
            ]
        )
    user = principal.removeprefix("User:")
    settings = kafka_sasl.connection_settings("admin", request_timeout_ms=DEFAULT_REQUEST_TIMEOUT_MS)
    with KafkaAdapter(settings) as adapter:
        [result] = adapter.alter_client_quotas({state.QuotaEntity.of(user=user): {"producer_byte_rate": 2097152.0}})
        assert result.ok

    drift = plan_json(path, *conn)
    changes = [c for c in drift["changes"] if c["action"] != "no-op"]
    write_acl = f"acl/{principal}/ALLOW/WRITE/TOPIC:LITERAL:{orders}@*"
    actions = sorted((c["address"], c["phase"], c["action"]) for c in changes)
    assert actions == sorted(
        [
            (write_acl, "ACL_DELETE", "delete"),  # the undeclared ACL
            (f"topic/{topic_prefix}stray", "TOPIC_DELETE", "delete"),  # the undeclared topic
            (f"topic/{orders}", "PARTITIONS", "blocked"),  # the added partition cannot be taken back
            (f"topic/{orders}", "TOPIC_CONFIG", "update"),  # the altered config
            (f"quota/user={user}", "QUOTA", "update"),  # the changed quota
        ]
    )
    [config] = [c for c in changes if c["phase"] == "TOPIC_CONFIG"]
    assert [(a["name"], a["before"], a["after"]) for a in config["attributes"]] == [
        ("configs.retention.ms", "3600000", "86400000")
    ]

    snapshot = tmp_path / "live.json"
    snap = runner.invoke(app, ["snapshot", "--out", str(snapshot), path, *conn])
    assert snap.exit_code == 0, snap.output
    offline = plan_json(path, "--live-state", str(snapshot))
    assert offline["changes"] == drift["changes"]
    assert offline["live_fingerprint"] == drift["live_fingerprint"]
    assert offline["warnings"] == drift["warnings"]

"""A principal lacking a right is told which operation on which resource to grant, on a SASL node with ACLs.

The operator's loop is followed literally: run ``plan``, read the ``grant OPERATION on TYPE NAME to PRINCIPAL``
hint, create exactly that ACL, run ``plan`` again, until the plan succeeds.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from kafka.admin import (
    ACL,
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    NewTopic,
    ResourcePattern,
    ResourcePatternFilter,
)
from kafka.admin import ResourceType as KafkaResourceType
from typer.testing import CliRunner

from reconciler.cli import app
from tests.kafka.cluster import KafkaCluster
from tests.kafka.dist import selected_release
from tests.support.integration import acls_of
from tests.support.polling import eventually

# On every Kafka version: security: the grant hints under each release's authorizer.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]
runner = CliRunner()
HINT = re.compile(r"grant (\w+) on (CLUSTER|TOPIC|GROUP) (\S+) to (User:\S+)")


def grant(cluster: KafkaCluster, hint: re.Match[str]) -> None:
    operation, resource_type, name, principal = hint.groups()
    pattern = ResourcePattern(KafkaResourceType[resource_type], name, ACLResourcePatternType.LITERAL)
    before = len(acls_of(cluster, principal))
    with cluster.admin_session() as admin:
        admin.create_acls([ACL(principal, "*", ACLOperation[operation], ACLPermissionType.ALLOW, pattern)])
    eventually(lambda: len(acls_of(cluster, principal)) > before, what=f"the ACL for {hint.group(0)}")


def test_each_missing_right_is_named_as_the_acl_to_grant(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    user, topic = "bob", f"{topic_prefix}orders"
    with kafka_sasl.admin_session() as admin:
        admin.create_topics([NewTopic(topic, 3, 1)])
        admin.create_acls(
            [
                ACL(
                    "User:bob",
                    "*",
                    ACLOperation.DESCRIBE,
                    ACLPermissionType.ALLOW,
                    ResourcePattern(KafkaResourceType.TOPIC, topic, ACLResourcePatternType.LITERAL),
                )
            ]
        )
    manifests = tmp_path / "m"
    manifests.mkdir()
    (manifests / "m.yaml").write_text(
        textwrap.dedent(
            f"""\
            apiVersion: kafka-reconciler/v1
            kind: Topic
            metadata: {{name: {topic}}}
            spec: {{partitions: 3, replicationFactor: 1, configs: {{retention.ms: 1d}}}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: ClientQuota
            metadata: {{name: svc}}
            spec: {{entity: {{user: {topic_prefix}svc}}, values: {{producer_byte_rate: 1MiB}}}}
            """
        )
    )
    conn = [
        "--bootstrap-server",
        kafka_sasl.bootstrap,
        "--command-config",
        str(kafka_sasl.write_command_config(tmp_path / "bob.properties", user)),
    ]
    try:
        hints: list[str] = []
        for _ in range(6):
            result = runner.invoke(app, ["plan", str(manifests), *conn])
            if result.exit_code == 0:
                break
            assert result.exit_code == 1, result.output
            found = HINT.search(result.output)
            assert found is not None, result.output
            assert found.group(0) not in hints, f"the same hint twice: {result.output}"
            hints.append(found.group(0))
            grant(kafka_sasl, found)
        assert result.exit_code == 0, result.output
        assert hints == [
            f"grant DESCRIBE_CONFIGS on TOPIC {topic} to User:bob",
            "grant DESCRIBE_CONFIGS on CLUSTER kafka-cluster to User:bob",
            "grant DESCRIBE on CLUSTER kafka-cluster to User:bob",
        ]
        assert f"~ topic/{topic}" in result.stdout and f"+ quota/user={topic_prefix}svc" in result.stdout
    finally:
        any_resource = ResourcePatternFilter(KafkaResourceType.ANY, None, ACLResourcePatternType.ANY)
        with kafka_sasl.admin_session() as admin:
            admin.delete_acls([ACLFilter("User:bob", "*", ACLOperation.ANY, ACLPermissionType.ANY, any_resource)])
            admin.delete_topics([topic])
        eventually(lambda: not acls_of(kafka_sasl, "User:bob"), what="bob's ACLs removed")


@pytest.mark.skipif(selected_release() < (4, 1, 0), reason="group configs need Kafka 4.1+ (ListConfigResources v1)")
def test_group_configs_and_client_metrics_name_the_rights_to_grant(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    manifests = tmp_path / "m"
    manifests.mkdir()
    group = f"{topic_prefix}orders"
    (manifests / "m.yaml").write_text(
        textwrap.dedent(
            f"""\
            apiVersion: kafka-reconciler/v1
            kind: Ownership
            metadata: {{name: own}}
            spec: {{groups: [{{prefix: "{topic_prefix}"}}], clientMetrics: [{{prefix: "{topic_prefix}"}}]}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: GroupConfig
            metadata: {{name: {group}}}
            spec: {{configs: {{consumer.session.timeout.ms: 50s}}}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: ClientMetrics
            metadata: {{name: {topic_prefix}producers}}
            spec: {{metrics: [org.apache.kafka.producer.]}}
            """
        )
    )
    conn = [
        "--bootstrap-server",
        kafka_sasl.bootstrap,
        "--command-config",
        str(kafka_sasl.write_command_config(tmp_path / "bob.properties", "bob")),
    ]
    try:
        hints: list[str] = []
        for _ in range(6):
            result = runner.invoke(app, ["plan", str(manifests), *conn])
            if result.exit_code == 0:
                break
            assert result.exit_code == 1, result.output
            assert "Traceback" not in result.output
            found = HINT.search(result.output)
            assert found is not None, result.output
            assert found.group(0) not in hints, f"the same hint twice: {result.output}"
            hints.append(found.group(0))
            grant(kafka_sasl, found)
        assert result.exit_code == 0, result.output
        # the listing (and the subscriptions) need the cluster's DESCRIBE_CONFIGS, each group its own
        assert hints == [
            "grant DESCRIBE_CONFIGS on CLUSTER kafka-cluster to User:bob",
            f"grant DESCRIBE_CONFIGS on GROUP {group} to User:bob",
        ]
        assert f"+ group_config/{group}" in result.stdout
    finally:
        any_resource = ResourcePatternFilter(KafkaResourceType.ANY, None, ACLResourcePatternType.ANY)
        with kafka_sasl.admin_session() as admin:
            admin.delete_acls([ACLFilter("User:bob", "*", ACLOperation.ANY, ACLPermissionType.ANY, any_resource)])
        eventually(lambda: not acls_of(kafka_sasl, "User:bob"), what="bob's ACLs removed")

"""Apply on a SASL cluster with an authorizer: ACLs converge, dry run, missing rights, the self-lockout guard."""

from __future__ import annotations

from pathlib import Path

import pytest
from kafka.admin import (
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ResourcePatternFilter,
)
from kafka.admin import ResourceType as KafkaResourceType

from reconciler.apply import Outcome
from reconciler.apply.access import MissingAccess
from reconciler.apply.apply_report import CheckedBy
from reconciler.apply.guard import SelfLockoutRisk
from reconciler.base import errors
from reconciler.connection.settings import ConnectionSettings
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import plans
from tests.kafka.cluster import KafkaCluster
from tests.support.builders import acl, all_rights, kafka_acl
from tests.support.integration import acls_of, apply, make_plan, write_manifests
from tests.support.polling import eventually

# On every Kafka version: security: ACLs and missing rights under each release's authorizer.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]


def sasl(cluster: KafkaCluster, user: str | None = None) -> ConnectionSettings:
    return cluster.connection_settings(user, request_timeout_ms=15_000)


def acls_on_cluster(cluster: KafkaCluster, principal: str) -> set[tuple[str, str, str, str, str]]:
    """ACLs of ``principal`` as plain kafka-python sees them: (type, name, pattern, operation, permission)."""
    return {
        (
            a.resource_pattern.resource_type.name,
            a.resource_pattern.resource_name,
            a.resource_pattern.pattern_type.name,
            a.operation.name,
            a.permission_type.name,
        )
        for a in acls_of(cluster, principal)
    }


def acl_manifests(prefix: str, principal: str) -> str:
    return f"""
        apiVersion: kafka-reconciler/v1
        kind: Ownership
        metadata: {{name: tests}}
        spec:
          topics: [{{prefix: "{prefix}"}}]
          principals: [{{name: "{principal}"}}]
          delete: {{acl: true}}
        ---
        apiVersion: kafka-reconciler/v1
        kind: Acl
        metadata: {{name: app}}
        spec:
          bindings:
            - principal: "{principal}"
              operations: [READ, DESCRIBE]
              resourceType: TOPIC
              resourceName: "{prefix}"
              patternType: PREFIXED
            - principal: "{principal}"
              operation: READ
              resourceType: GROUP
              resourceName: "{prefix}group"
        """


def test_acls_converge_and_dry_run_leaves_them_alone(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    principal = f"User:{topic_prefix}app"
    directory = write_manifests(tmp_path / "m", acl_manifests(topic_prefix, principal))
    with KafkaAdapter(sasl(kafka_sasl)) as adapter:
        p = make_plan(adapter, directory)
        assert len(p.actionable) == 3

        dry = apply(adapter, p, dry_run=True)
        assert dry.exit_code == 0
        assert {i.outcome for i in dry.items} == {Outcome.DRY_RUN_ACCEPTED}
        assert {i.checked_by for i in dry.items} == {CheckedBy.CLIENT}
        assert "CreateAcls" not in adapter.request_counts
        assert acls_on_cluster(kafka_sasl, principal) == set()

        report = apply(adapter, p)
        assert report.exit_code == 0 and report.converged is True, report.to_json()
        assert report.phases[0].requests_by_api.get("CreateAcls") == 1
        assert make_plan(adapter, directory).actionable == ()
    assert acls_on_cluster(kafka_sasl, principal) == {
        ("TOPIC", topic_prefix, "PREFIXED", "READ", "ALLOW"),
        ("TOPIC", topic_prefix, "PREFIXED", "DESCRIBE", "ALLOW"),
        ("GROUP", f"{topic_prefix}group", "LITERAL", "READ", "ALLOW"),
    }

    # dropping one binding from the manifests deletes exactly that one
    fewer = acl_manifests(topic_prefix, principal).replace("operations: [READ, DESCRIBE]", "operations: [READ]")
    with KafkaAdapter(sasl(kafka_sasl)) as adapter:
        report = apply(adapter, make_plan(adapter, write_manifests(tmp_path / "n", fewer)))
        assert report.exit_code == 0 and [i.phase for i in report.items] == [plans.Phase.ACL_DELETE]
    assert ("TOPIC", topic_prefix, "PREFIXED", "DESCRIBE", "ALLOW") not in acls_on_cluster(kafka_sasl, principal)


def remove_all_acls(cluster: KafkaCluster, principal: str) -> None:
    any_resource = ResourcePatternFilter(KafkaResourceType.ANY, None, ACLResourcePatternType.ANY)
    with cluster.admin_session() as admin:
        admin.delete_acls([ACLFilter(principal, "*", ACLOperation.ANY, ACLPermissionType.ANY, any_resource)])
    wait_acl_count(cluster, principal, 0)


def wait_acl_count(cluster: KafkaCluster, principal: str, count: int) -> None:
    eventually(lambda: len(acls_on_cluster(cluster, principal)) == count, what=f"{count} ACL(s) of {principal}")


def test_a_principal_without_rights_gets_the_missing_operation_named(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    topic = f"{topic_prefix}denied"
    directory = write_manifests(
        tmp_path / "m",
        f"""
        apiVersion: kafka-reconciler/v1
        kind: Topic
        metadata: {{name: "{topic}"}}
        spec: {{partitions: 1, replicationFactor: 1}}
        """,
    )
    with KafkaAdapter(sasl(kafka_sasl)) as admin_adapter:
        p = make_plan(admin_adapter, directory)

    # Without even read access, apply stops at its first read, before any write.
    with KafkaAdapter(sasl(kafka_sasl, "alice")) as adapter:
        with pytest.raises(errors.ReconcilerError, match="CLUSTER_AUTHORIZATION_FAILED"):
            apply(adapter, p)
        assert "CreateTopics" not in adapter.request_counts

    # A read-only operator can plan, but apply stops before any write and names what is missing.
    alice = "User:alice"
    with kafka_sasl.admin_session() as admin:
        admin.create_acls(
            [kafka_acl(acl(alice, op, "kafka-cluster", resource="CLUSTER")) for op in ("DESCRIBE", "DESCRIBE_CONFIGS")]
        )
    try:
        wait_acl_count(kafka_sasl, alice, 2)
        with KafkaAdapter(sasl(kafka_sasl, "alice")) as adapter:
            with pytest.raises(MissingAccess, match=f"CREATE on TOPIC {topic}") as missing:
                apply(adapter, make_plan(adapter, directory))
            assert "CreateTopics" not in adapter.request_counts
    finally:
        remove_all_acls(kafka_sasl, alice)
    assert missing.value.exit_code == 1
    with kafka_sasl.admin_session() as admin:
        assert topic not in admin.list_topics()


def test_self_lockout_guard_refuses_to_delete_the_tools_own_access(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    carol = "User:carol"
    grants = [kafka_acl(b) for b in all_rights(carol, topic_prefix)]
    with kafka_sasl.admin_session() as admin:
        admin.create_acls(grants)
    try:
        wait_acl_count(kafka_sasl, carol, 2)
        directory = write_manifests(
            tmp_path / "m",
            f"""
            apiVersion: kafka-reconciler/v1
            kind: Ownership
            metadata: {{name: carol}}
            spec:
              principals: [{{name: "{carol}"}}]
              delete: {{acl: true}}
            """,
        )
        with KafkaAdapter(sasl(kafka_sasl, "carol")) as adapter:
            p = make_plan(adapter, directory)
            assert [c.phase for c in p.actionable] == [plans.Phase.ACL_DELETE, plans.Phase.ACL_DELETE]
            with pytest.raises(SelfLockoutRisk, match=r"User:carol.*ALTER on CLUSTER 'kafka-cluster'") as info:
                apply(adapter, p)
            assert "DeleteAcls" not in adapter.request_counts
        assert info.value.exit_code == 1
        assert f"CREATE on TOPIC '{topic_prefix}'" in str(info.value)
        assert len(acls_on_cluster(kafka_sasl, carol)) == 2
    finally:
        remove_all_acls(kafka_sasl, carol)

"""A connector's Kafka access derived from the ConnectWorker grant it names, on the SASL broker with ACLs enforced.

A real Connect worker logs in (SCRAM) as the grant's principal, a user no other test uses: the broker refuses
whatever no ACL allows (``allow.everyone.if.no.acl.found=false``). The worker starts on the grant's own rights; the
connectors' rights are only those derived from their config, and a line written into the source's file reaching the
sink's file shows they are enough. Everything the test creates is removed at the end (connectors, ACLs, the user,
the topics), so later tests on the same broker see none of it.
"""

from __future__ import annotations

import contextlib
import secrets
import textwrap
from pathlib import Path

import pytest
from kafka.errors import KafkaError

from reconciler import manifests, operations
from reconciler.apply import ApplyOptions, apply_plan
from reconciler.apply.apply_report import ApplyReport
from reconciler.connect import settings as connect_settings
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import plans
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.kafka.connect import FILE_SINK, FILE_SOURCE, ConnectWorker
from tests.support.integration import acls_of
from tests.support.polling import eventually

# On every Kafka version: security: the ACLs a Connect worker needs from each release's authorizer.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]

ADMIN_ENV = "CONNECT_GRANT_TEST_ADMIN_PASSWORD"
WORKER_ENV = "CONNECT_GRANT_TEST_WORKER_PASSWORD"


def scram_login(user: str, password: str) -> dict[str, str]:
    """Worker properties that log the worker and every client it runs (connectors' producers, consumers, admin) in
    as ``user`` with SCRAM-SHA-512."""
    jaas = f'org.apache.kafka.common.security.scram.ScramLoginModule required username="{user}" password="{password}";'
    login = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-512", "sasl.jaas.config": jaas}
    return {
        f"{prefix}{key}": value for prefix in ("", "producer.", "consumer.", "admin.") for key, value in login.items()
    }


def base_manifests(cluster: KafkaCluster, url: str, *, prefix: str, user: str, group: str) -> str:
    """A Cluster profile (the broker as admin, the worker's REST URL), the worker's user, its storage topics, the data
    topic and the ConnectWorker grant."""
    storage = "".join(
        f"""
        ---
        apiVersion: kafka-reconciler/v1
        kind: Topic
        metadata: {{name: {group}-{kind}}}
        spec: {{partitions: 1, replicationFactor: 1, allowInternal: true, configs: {{cleanup.policy: compact}}}}
        """
        for kind in ("configs", "offsets", "status")
    )
    return f"""
        apiVersion: kafka-reconciler/v1
        kind: Cluster
        metadata: {{name: test}}
        spec:
          bootstrapServers: ["{cluster.bootstrap}"]
          securityProtocol: SASL_PLAINTEXT
          saslMechanism: PLAIN
          username: admin
          passwordFrom: {{env: {ADMIN_ENV}}}
          connect: {{urls: ["{url}"]}}
        ---
        apiVersion: kafka-reconciler/v1
        kind: ScramUser
        metadata: {{name: {user}}}
        spec: {{mechanism: SCRAM-SHA-512, passwordFrom: {{env: {WORKER_ENV}}}}}
        ---
        apiVersion: kafka-reconciler/v1
        kind: Topic
        metadata: {{name: {prefix}lines}}
        spec: {{partitions: 1, replicationFactor: 1}}
        ---
        apiVersion: kafka-reconciler/v1
        kind: ConnectWorker
        metadata: {{name: {prefix}workers}}
        spec:
          principal: "User:{user}"
          groupId: {group}
          configStorageTopic: {group}-configs
          offsetStorageTopic: {group}-offsets
          statusStorageTopic: {group}-status
        {storage}"""


def connectors(prefix: str, source_file: Path, sink_file: Path) -> str:
    """A FileStream source and sink through the data topic, each naming the grant; no topic is granted elsewhere."""
    return f"""
        ---
        apiVersion: kafka-reconciler/v1
        kind: Connector
        metadata: {{name: {prefix}in}}
        spec:
          class: {FILE_SOURCE}
          worker: {prefix}workers
          config: {{topic: {prefix}lines, file: "{source_file}"}}
        ---
        apiVersion: kafka-reconciler/v1
        kind: Connector
        metadata: {{name: {prefix}out}}
        spec:
          class: {FILE_SINK}
          worker: {prefix}workers
          config: {{topics: {prefix}lines, file: "{sink_file}"}}
        """


def converge(
    cluster: KafkaCluster, directory: Path, text: str, *, request: operations.PlanRequest | None = None
) -> tuple[plans.Plan, ApplyReport]:
    """Write ``text`` as the only manifest of ``directory``, plan it through the profile, apply the plan as admin."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "all.yaml").write_text(textwrap.dedent(text))
    loaded = manifests.load([directory])
    target = operations.Target(cluster="test", profiles=loaded.profiles)
    plan = operations.compute_plan(loaded, target=target, request=request or operations.PlanRequest(), deadline_s=90)
    profile = connect_settings.profile_for(cluster="test", profiles=loaded.profiles, explicit=False)
    port = connect_settings.port_for(profile) if profile is not None and loaded.desired.connectors else None
    options = ApplyOptions(deadline_s=90, ports={"connect": port}, desired=loaded.desired)
    with KafkaAdapter(cluster.connection_settings()) as adapter:
        return plan, apply_plan(plan, adapter, options=options)


def held_acls(cluster: KafkaCluster, principal: str) -> set[tuple[str, str, str, str]]:
    """(type, pattern, name, operation) of the ALLOW ACLs the broker holds for ``principal``."""
    return {
        (
            a.resource_pattern.resource_type.name,
            a.resource_pattern.pattern_type.name,
            a.resource_pattern.resource_name,
            a.operation.name,
        )
        for a in acls_of(cluster, principal)
        if a.permission_type.name == "ALLOW"
    }


def test_the_connectors_acls_are_derived_from_their_worker_grant_and_suffice_for_a_real_worker(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert kafka_sasl.admin is not None
    user, password, group = f"{topic_prefix}connect", secrets.token_urlsafe(16), f"{topic_prefix}cw"
    principal = f"User:{user}"
    monkeypatch.setenv(ADMIN_ENV, kafka_sasl.admin.password)
    monkeypatch.setenv(WORKER_ENV, password)
    worker = ConnectWorker(
        bootstrap=kafka_sasl.bootstrap, workdir=tmp_path / "worker", group_id=group, extra=scram_login(user, password)
    )
    base = base_manifests(kafka_sasl, worker.url, prefix=topic_prefix, user=user, group=group)
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text("")
    try:
        _, report = converge(kafka_sasl, tmp_path / "m", base)
        assert report.exit_code == 0, report.items
        grant_only = held_acls(kafka_sasl, principal)
        assert not any(name == f"{topic_prefix}lines" for _, _, name, _ in grant_only)
        worker.start()  # it answers /health once it has joined its group and read its storage topics as the user

        plan, report = converge(kafka_sasl, tmp_path / "m", base + connectors(topic_prefix, source_file, sink_file))
        assert report.exit_code == 0, report.items
        derived = {
            ("TOPIC", "LITERAL", f"{topic_prefix}lines", "WRITE"),
            ("TOPIC", "LITERAL", f"{topic_prefix}lines", "DESCRIBE"),
            ("TOPIC", "LITERAL", f"{topic_prefix}lines", "READ"),
            ("GROUP", "LITERAL", f"connect-{topic_prefix}out", "READ"),
        }
        acl_creates = {c.address for c in plan.actionable if c.kind is Kind.ACL and c.action is plans.Action.CREATE}
        assert len(acl_creates) == len(derived)
        assert all(principal in address for address in acl_creates)
        shown = {c.source for c in plan.actionable if c.kind is Kind.ACL}
        assert all(f"via ConnectWorker {topic_prefix}workers)" in str(text) for text in shown), shown
        assert held_acls(kafka_sasl, principal) == grant_only | derived

        source_file.write_text("first line\nsecond line\n")
        eventually(
            lambda: sink_file.exists() and sink_file.read_text().splitlines() == ["first line", "second line"],
            what="the lines written into the source's file in the sink's file",
            timeout=90,
        )
        for name in ("in", "out"):
            status = worker.rest("GET", f"/connectors/{topic_prefix}{name}/status")
            assert [t["state"] for t in status["tasks"]] == ["RUNNING"], status
    finally:
        worker.close()  # the connectors go with its storage topics, deleted next
        cleanup(kafka_sasl, tmp_path / "cleanup", prefix=topic_prefix)
        with kafka_sasl.admin_session() as admin, contextlib.suppress(KafkaError):
            admin.delete_groups([f"connect-{topic_prefix}out", group])  # empty once the worker stopped
    assert held_acls(kafka_sasl, principal) == set()


def cleanup(cluster: KafkaCluster, directory: Path, *, prefix: str) -> None:
    """Delete what the test created: an Ownership of the prefix with deletes allowed and nothing declared."""
    text = f"""
        apiVersion: kafka-reconciler/v1
        kind: Cluster
        metadata: {{name: test}}
        spec:
          bootstrapServers: ["{cluster.bootstrap}"]
          securityProtocol: SASL_PLAINTEXT
          saslMechanism: PLAIN
          username: admin
          passwordFrom: {{env: {ADMIN_ENV}}}
        ---
        apiVersion: kafka-reconciler/v1
        kind: Ownership
        metadata: {{name: cleanup}}
        spec:
          topics: [{{prefix: "{prefix}"}}]
          principals: [{{prefix: "User:{prefix}"}}]
          managedKinds: [topic, acl, scramUser]
          delete: {{topic: true, acl: true, scramUser: true}}
          maxDeletes: 100
        """
    # The storage and data topics were written a moment ago: deleted although in use.
    _, report = converge(cluster, directory, text, request=operations.PlanRequest(allow_delete_in_use=True))
    failed = [(i.address, i.outcome.value, i.message) for i in report.items if i.outcome.value != "applied"]
    assert report.exit_code == 0, failed

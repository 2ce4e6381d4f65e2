"""Steps shared by the integration tests: manifests to plans, ACL look-ups, records in and out, KRaft-only marks."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import (
    ACL,
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ConfigResource,
    ResourcePatternFilter,
)
from kafka.admin import ResourceType as KafkaResourceType

from reconciler import manifests, planner
from reconciler.apply import ApplyOptions, apply_plan
from reconciler.apply.apply_report import ApplyReport
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import plans
from tests.kafka.cluster import KafkaCluster, free_ports
from tests.kafka.dist import selected_mode


def kraft_only(reason: str) -> pytest.MarkDecorator:
    """Skip a test (or module) when the harness runs ZooKeeper-mode clusters, saying why it needs KRaft."""
    return pytest.mark.skipif(selected_mode() == "zookeeper", reason=f"needs KRaft: {reason}")


def write_manifests(directory: Path, text: str) -> Path:
    """Write ``text`` (dedented) as the only manifest file in ``directory``; returns ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "manifests.yaml").write_text(textwrap.dedent(text))
    return directory


def make_plan(adapter: KafkaAdapter, directory: Path) -> plans.Plan:
    """Plan the manifests in ``directory`` against what ``adapter`` reads from the cluster."""
    wanted = manifests.load([directory]).desired
    return planner.plan(wanted, adapter.read_state(kinds=planner.planned_kinds(wanted)))


def apply(adapter: KafkaAdapter, p: plans.Plan, **options: object) -> ApplyReport:
    """Apply ``p`` with a 60 s deadline; ``options`` are further ``ApplyOptions`` fields."""
    return apply_plan(p, adapter, options=ApplyOptions(deadline_s=60, **options))  # type: ignore[arg-type]


def closed_port() -> int:
    """A loopback port that nothing listens on (bound, then released)."""
    return free_ports(1)[0]


def acls_of(cluster: KafkaCluster, principal: str) -> list[ACL]:
    """Every ACL of ``principal`` as plain kafka-python describes it (any resource, operation and permission)."""
    any_filter = ACLFilter(
        principal=principal,
        host=None,
        operation=ACLOperation.ANY,
        permission_type=ACLPermissionType.ANY,
        resource_pattern=ResourcePatternFilter(KafkaResourceType.ANY, None, ACLResourcePatternType.ANY),
    )
    with cluster.admin_session() as admin:
        found, _ = admin.describe_acls(any_filter)
    return list(found)


def produce_records(cluster: KafkaCluster, topic: str, values: list[bytes]) -> None:
    """Write ``values`` to ``topic`` with a real producer (acks=all) and wait until every one is acknowledged."""
    producer = KafkaProducer(bootstrap_servers=cluster.bootstrap, acks="all", **cluster.client_kwargs())
    try:
        futures = [producer.send(topic, value) for value in values]
        producer.flush(timeout=30)
        for future in futures:
            future.get(timeout=30)
    finally:
        producer.close()


def consume_and_commit(cluster: KafkaCluster, topic: str, *, group: str, expected: int) -> None:
    """Read ``expected`` records of ``topic`` as a member of consumer group ``group`` and commit its offsets."""
    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=cluster.bootstrap,
        group_id=group,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        consumer_timeout_ms=30_000,
        **cluster.client_kwargs(),
    )
    try:
        seen = 0
        for _record in consumer:
            seen += 1
            if seen >= expected:
                break
        assert seen >= expected, f"read {seen} of {expected} record(s) of {topic}"
        consumer.commit()
    finally:
        consumer.close()


WRITE_APIS = {
    "CreateTopics",
    "DeleteTopics",
    "CreatePartitions",
    "IncrementalAlterConfigs",
    "CreateAcls",
    "DeleteAcls",
    "AlterClientQuotas",
    "AlterUserScramCredentials",
    "AlterPartitionReassignments",
}


def ownership(prefix: str, *, delete_topics: bool = False) -> str:
    return f"""
        apiVersion: kafka-reconciler/v1
        kind: Ownership
        metadata: {{name: tests}}
        spec:
          topics: [{{prefix: "{prefix}"}}]
          principals: [{{prefix: "User:{prefix}"}}]
          delete: {{topic: {str(delete_topics).lower()}}}
        """


def topic_doc(name: str, *, partitions: int = 1, rf: int = 1, configs: dict[str, str] | None = None) -> str:
    lines = [
        "---",
        "apiVersion: kafka-reconciler/v1",
        "kind: Topic",
        f"metadata: {{name: {name}}}",
        "spec:",
        f"  partitions: {partitions}",
        f"  replicationFactor: {rf}",
    ]
    if configs:
        lines.append("  configs:")
        lines += [f"    {k}: {v!r}" for k, v in configs.items()]
    return "\n" + "\n".join(lines) + "\n"


def topic_configs(cluster: KafkaCluster, name: str) -> dict[str, str]:
    """Configs set on the topic itself, as kafka-python reports them."""
    with cluster.admin_session() as admin:
        found = admin.describe_configs([ConfigResource("TOPIC", name)])["topic"][name]
    return {k: v["value"] for k, v in found.items()}


def describe_topics(cluster: KafkaCluster, names: list[str]) -> dict[str, int]:
    """Partition counts of the named topics that exist."""
    with cluster.admin_session() as admin:
        existing = set(admin.list_topics())
        wanted = [n for n in names if n in existing]
        found = admin.describe_topics(wanted) if wanted else []
    return {t["name"]: len(t["partitions"]) for t in found if not t["error_code"]}

"""Change impact against real brokers: records written at known times and sizes, in-sync replicas with a broker
stopped, and the bytes a replication-factor change copies.

Records are written by kafka-python's ``KafkaProducer`` with CreateTime timestamps in the past
(``send(timestamp_ms=...)``), 1,000-byte values, to chosen partitions, so the records older than a new retention
are known exactly. Byte figures are checked against the payload: each is at least the values' bytes and at most
20% more (record and batch headers), the tolerance docs/plan.md states for sizes read from DescribeLogDirs.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest
from kafka import KafkaProducer
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
from kafka.errors import KafkaError
from typer.testing import CliRunner

from reconciler import manifests, operations
from reconciler.cli import app
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kinds.topic import impact
from reconciler.model import impact as im
from reconciler.model import plans
from tests.kafka.cluster import KafkaCluster
from tests.support.integration import acls_of, consume_and_commit, write_manifests
from tests.support.polling import eventually

# On every Kafka version: per-release log dir and offset answers (DescribeLogDirs, ListOffsets).
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]
runner = CliRunner()
DAY_MS = 86_400_000
VALUE = 1000  # bytes per record value
OVERHEAD = 1.2  # record and batch headers on top of the values: at most 20% here


def produce_at(cluster: KafkaCluster, topic: str, batches: list[tuple[int, int, int]]) -> None:
    """``(partition, count, timestamp_ms)``: write ``count`` records of ``VALUE`` bytes with that CreateTime."""
    producer = KafkaProducer(bootstrap_servers=cluster.bootstrap, acks="all", linger_ms=0, **cluster.client_kwargs())
    try:
        for partition, count, ts in batches:
            futures = [
                producer.send(topic, value=bytes([65 + i % 26]) * VALUE, partition=partition, timestamp_ms=ts)
                for i in range(count)
            ]
            producer.flush(timeout=30)
            for future in futures:
                future.get(timeout=30)
    finally:
        producer.close()


def topic_doc(name: str, partitions: int, rf: int, configs: str = "{}") -> str:
    return (
        "---\napiVersion: kafka-reconciler/v1\nkind: Topic\n"
        f"metadata: {{name: {name}}}\nspec: {{partitions: {partitions}, replicationFactor: {rf}, configs: {configs}}}\n"
    )


def plan_json(cluster: KafkaCluster, directory: Path) -> dict[str, object]:
    result = runner.invoke(app, ["plan", str(directory), "--bootstrap-server", cluster.bootstrap, "--format", "json"])
    assert result.exit_code == 0, result.output
    doc: dict[str, object] = json.loads(result.stdout)
    return doc


def entries(doc: dict[str, object], kind: str) -> list[dict[str, object]]:
    found = doc.get("impact") or {}
    assert isinstance(found, dict)
    return [e for e in found.get("entries", []) if e["kind"] == kind]


def test_retention_shrink_counts_the_records_older_than_the_new_retention(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    orders, legacy = f"{topic_prefix}orders", f"{topic_prefix}legacy"
    with kafka_single.admin_session() as admin:
        admin.create_topics([NewTopic(orders, 3, 1), NewTopic(legacy, 2, 1)])
    now = int(time.time() * 1000)
    # Older than one day: 10 in partition 0, 4 in partition 1; newer: 5 in partition 0, 6 in partition 2.
    produce_at(
        kafka_single,
        orders,
        [
            (0, 6, now - 3 * DAY_MS),
            (0, 4, now - 2 * DAY_MS),
            (0, 5, now - 3_600_000),
            (1, 4, now - 2 * DAY_MS),
            (2, 6, now - 60_000),
        ],
    )
    produce_at(kafka_single, legacy, [(0, 7, now - 10 * DAY_MS), (1, 3, now - 9 * DAY_MS)])  # not in use: deleted
    directory = write_manifests(
        tmp_path / "m",
        "apiVersion: kafka-reconciler/v1\nkind: Ownership\nmetadata: {name: o}\n"
        f'spec: {{topics: [{{prefix: "{topic_prefix}"}}], delete: {{topic: true}}}}\n'
        + topic_doc(orders, 3, 1, "{retention.ms: 1d}"),
    )
    doc = plan_json(kafka_single, directory)
    [shrink] = entries(doc, im.DELETES)
    assert shrink["address"] == f"topic/{orders}"
    assert shrink["records"] == 14 and shrink["records_exact"] is True
    assert 14 * VALUE <= int(shrink["bytes"]) <= 14 * VALUE * OVERHEAD  # type: ignore[call-overload]
    assert "records older than 1d become eligible for deletion at once: 14 records (exact)" in shrink["lines"][0]  # type: ignore[index]
    assert "in 2 of 3 partition(s)" in shrink["lines"][0]  # type: ignore[index]
    [dropped] = entries(doc, im.DROPS)
    assert dropped["records"] == 10 and dropped["address"] == f"topic/{legacy}"
    assert 10 * VALUE <= int(dropped["bytes"]) <= 10 * VALUE * OVERHEAD  # type: ignore[call-overload]
    assert doc["impact"]["summary"].startswith("Impact: deletes at most ~")  # type: ignore[index]
    assert doc["impact"]["summary"].endswith(" / 24 records at once across 2 topics")  # type: ignore[index]

    text = runner.invoke(app, ["plan", str(directory), "--bootstrap-server", kafka_single.bootstrap])
    lines = text.stdout.splitlines()
    assert lines[lines.index("") + 1].startswith("Impact: deletes at most ~")  # the first line after the header
    markdown = runner.invoke(
        app, ["plan", str(directory), "--bootstrap-server", kafka_single.bootstrap, "--format", "markdown"]
    )
    assert "#### Impact" in markdown.stdout and "14 records (exact)" in markdown.stdout

    # The evidence costs a few requests: one DescribeLogDirs (one broker) and three ListOffsets; leaders and
    # in-sync replicas come from the plan's own Metadata read.
    wanted = manifests.load([directory]).desired
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        live = operations.read_live(adapter, wanted)
        first = operations.make_plan(wanted, live)
        adapter.reset_request_count()
        adapter.read_impact_evidence(impact.needs(first.changes, wanted, live))
        assert adapter.request_counts == {"DescribeLogDirs": 1, "ListOffsets": 3}

    # A snapshot with the manifests carries the evidence: the offline plan shows the same figures.
    snapshot = tmp_path / "live.json"
    taken = runner.invoke(
        app, ["snapshot", str(directory), "--bootstrap-server", kafka_single.bootstrap, "--out", str(snapshot)]
    )
    assert taken.exit_code == 0, taken.output
    offline = runner.invoke(app, ["plan", str(directory), "--live-state", str(snapshot), "--format", "json"])
    [again] = entries(json.loads(offline.stdout), im.DELETES)
    assert again["records"] == 14


def test_retention_bytes_shrink_claims_at_most_the_bytes_over_the_new_limit(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name = f"{topic_prefix}sized"
    with kafka_single.admin_session() as admin:
        admin.create_topics([NewTopic(name, 2, 1)])
    now = int(time.time() * 1000)
    produce_at(kafka_single, name, [(0, 20, now), (1, 2, now)])  # about 20 kB and 2 kB
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        read = adapter.read_impact_evidence(im.EvidenceRequest({name: None}))
    sizes = [p.size for p in read.topics[name].partitions]
    assert sizes[0] is not None and sizes[1] is not None
    assert 20 * VALUE <= sizes[0] <= 20 * VALUE * OVERHEAD and sizes[1] < 10_000
    over = sizes[0] - 10_000  # only partition 0 is over the limit

    directory = write_manifests(tmp_path / "m", topic_doc(name, 2, 1, "{retention.bytes: 10000}"))
    [shrink] = entries(plan_json(kafka_single, directory), im.DELETES)
    # Never more than is over the limit: the bytes over it, and the records those bytes hold pro rata, rounded down;
    # every record takes at least its 1,000-byte value on disk, so no more records than that fit in them.
    assert shrink["bytes"] == over and shrink["records"] == 20 * over // sizes[0]
    assert int(shrink["records"]) <= over // VALUE
    assert (shrink["at_most"], shrink["bytes_exact"], shrink["records_exact"]) == (True, True, False)
    lines = shrink["lines"]
    assert isinstance(lines, list) and "beyond 10 kB per partition" in lines[0] and "in 1 of 2 partition(s)" in lines[0]
    assert "at most " in lines[0] and "(estimated pro rata, rounded down)" in lines[0]
    assert "nothing in a partition with one segment" in lines[0]
    text = runner.invoke(app, ["plan", str(directory), "--bootstrap-server", kafka_single.bootstrap])
    assert "Impact: deletes at most ~" in text.stdout


def test_partition_increase_on_a_topic_a_group_reads_names_the_group(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    read, idle = f"{topic_prefix}events", f"{topic_prefix}idle"
    group = f"{topic_prefix}fulfilment"
    with kafka_single.admin_session() as admin:
        admin.create_topics([NewTopic(read, 2, 1), NewTopic(idle, 2, 1)])
    now = int(time.time() * 1000)
    produce_at(kafka_single, read, [(0, 3, now), (1, 2, now)])
    produce_at(kafka_single, idle, [(0, 3, now)])  # records, but no group reads them
    consume_and_commit(kafka_single, read, group=group, expected=5)
    directory = write_manifests(tmp_path / "m", topic_doc(read, 4, 1) + topic_doc(idle, 4, 1))
    doc = plan_json(kafka_single, directory)
    [ordering] = entries(doc, im.ORDERING)
    assert ordering["address"] == f"topic/{read}" and ordering["items"] == [group]
    assert ordering["records"] == 5
    lines = ordering["lines"]
    assert isinstance(lines, list) and len(lines) == 1
    assert f"2 -> 4 partitions on a topic holding 5 records; consumer groups reading it: {group}" in lines[0]


def test_min_insync_replicas_above_the_in_sync_replicas_with_a_broker_stopped(
    kafka_cluster3: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    kafka_cluster3.ensure_running()
    name = f"{topic_prefix}audit"
    with kafka_cluster3.admin_session() as admin:
        admin.create_topics([NewTopic(name, 4, 3)])
    directory = write_manifests(tmp_path / "m", topic_doc(name, 4, 3, "{min.insync.replicas: 3}"))
    assert entries(plan_json(kafka_cluster3, directory), im.MIN_ISR) == []  # every replica in sync: nothing fails
    node = kafka_cluster3.nodes[2]
    try:
        node.stop()
        eventually(
            lambda: kafka_cluster3.live_brokers() == {1, 2},
            what="broker 3 to leave",
            timeout=60,
            retry_on=(KafkaError,),
        )

        def shrunk() -> dict[str, object] | None:
            doc = plan_json(kafka_cluster3, directory)
            found = entries(doc, im.MIN_ISR)
            return doc if found and found[0]["items"] == ["0", "1", "2", "3"] else None

        doc = eventually(shrunk, what="every partition's ISR without broker 3", timeout=60)
        [failing] = entries(doc, im.MIN_ISR)
        assert "above the in-sync replica count of 4 partition(s): 0 (ISR 2), 1 (ISR 2)" in failing["lines"][0]  # type: ignore[index]
        assert "NOT_ENOUGH_REPLICAS" in failing["lines"][0]  # type: ignore[index]
        assert "1 topic's producers may fail (min ISR)" in doc["impact"]["summary"]  # type: ignore[index]
    finally:
        kafka_cluster3.ensure_running()


def test_replication_factor_increase_copies_each_partition_to_its_new_replica(
    kafka_cluster3: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    kafka_cluster3.ensure_running()
    name = f"{topic_prefix}clicks"
    with kafka_cluster3.admin_session() as admin:
        admin.create_topics([NewTopic(name, 3, 1)])
    now = int(time.time() * 1000)
    produce_at(kafka_cluster3, name, [(0, 20, now), (1, 10, now), (2, 5, now)])
    directory = write_manifests(tmp_path / "m", topic_doc(name, 3, 2))
    doc = plan_json(kafka_cluster3, directory)
    [copies] = entries(doc, im.COPIES)
    copied = int(copies["bytes"])  # type: ignore[call-overload]
    assert 35 * VALUE <= copied <= 35 * VALUE * OVERHEAD
    reassign = next(c for c in doc["changes"] if c["phase"] == plans.Phase.REASSIGN.name)  # type: ignore[attr-defined]
    target = reassign["after"]["assignment"]
    with kafka_cluster3.admin_session() as admin:
        (described,) = admin.describe_topics([name])
    current = {int(p["partition_index"]): list(p["replica_nodes"]) for p in described["partitions"]}
    receivers = {b for p, replicas in enumerate(target) for b in replicas if b not in current[p]}
    assert {int(b) for b in copies["per_broker"]} == receivers  # type: ignore[attr-defined]
    assert sum(copies["per_broker"].values()) == copied  # type: ignore[attr-defined]
    assert "suggested throttle: apply --replication-throttle 10000000" in copies["lines"][0]  # type: ignore[index]


def test_evidence_refused_is_left_unknown_and_names_the_acl_to_grant(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """A principal with DESCRIBE on the topic only: its offsets are read, the sizes (DescribeLogDirs, DESCRIBE on the
    cluster) are refused, and the plan says so instead of failing. (The standard authorizer already asks DESCRIBE on
    the cluster for a plan's own read, ListPartitionReassignments, so the evidence is read here as that principal and
    the state as the admin.)"""
    user, name = "carol", f"{topic_prefix}orders"
    topic_only = ResourcePattern(KafkaResourceType.TOPIC, name, ACLResourcePatternType.LITERAL)
    with kafka_sasl.admin_session() as admin:
        admin.create_topics([NewTopic(name, 2, 1)])
        admin.create_acls([ACL(f"User:{user}", "*", ACLOperation.DESCRIBE, ACLPermissionType.ALLOW, topic_only)])
    eventually(lambda: acls_of(kafka_sasl, f"User:{user}"), what="carol's ACL")
    produce_at(kafka_sasl, name, [(0, 3, int(time.time() * 1000) - 2 * DAY_MS)])
    directory = write_manifests(tmp_path / "m", topic_doc(name, 2, 1, "{retention.ms: 1d}"))
    wanted = manifests.load([directory]).desired
    try:
        with KafkaAdapter(kafka_sasl.connection_settings()) as admin_adapter:
            live = operations.read_live(admin_adapter, wanted)
        request = impact.needs(operations.make_plan(wanted, live).changes, wanted, live)
        with KafkaAdapter(kafka_sasl.connection_settings(user)) as adapter:
            evidence = adapter.read_impact_evidence(request)
        # DescribeLogDirs v3+ (Kafka 3.x) refuses with CLUSTER_AUTHORIZATION_FAILED; older versions (2.8) have no
        # top-level error code and answer with no log directory. Either way the figure is unknown and the grant named.
        [why] = evidence.unknown
        assert why.startswith("partition sizes unknown: ")
        assert any(cause in why for cause in ("CLUSTER_AUTHORIZATION_FAILED", "described no log directory")), why
        assert why.endswith(f"; grant DESCRIBE on CLUSTER kafka-cluster to User:{user}"), why
        result = operations.make_plan(wanted, dataclasses.replace(live, impact=evidence))
        assert result.impact is not None and result.impact.notes == evidence.unknown
        [shrink] = result.impact.of(im.DELETES)
        assert (shrink.records, shrink.bytes) == (3, None)  # offsets read (DESCRIBE on the topic), sizes not
        assert result.impact.summary_line() == (
            "Impact: deletes size unknown / at most 3 records at once across 1 topic (some evidence could not be read)"
        )
    finally:
        any_resource = ResourcePatternFilter(KafkaResourceType.ANY, None, ACLResourcePatternType.ANY)
        with kafka_sasl.admin_session() as admin:
            admin.delete_acls([ACLFilter(f"User:{user}", "*", ACLOperation.ANY, ACLPermissionType.ANY, any_resource)])
            admin.delete_topics([name])

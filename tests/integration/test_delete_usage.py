"""Before a topic is deleted the plan shows whether it is in use, on a real broker with a real consumer group.

Three owned, undeclared topics with deletion enabled: one a consumer group (kafka-python ``KafkaConsumer``)
has read and committed offsets on, one written to a moment ago, one empty. The text, markdown and JSON plans
show the evidence; the two in use are blocked (apply deletes only the empty one and exits 3) until the operator
allows it explicitly.

A broker older than Kafka 3.0 cannot say when a topic's latest record was written (ListOffsets MAX_TIMESTAMP,
KIP-734): there the evidence says so, the recency rule cannot apply, and the topic written a moment ago (read by
no group) is an ordinary delete; the group evidence is the same on every version.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from kafka.admin import NewTopic
from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.kafka.adapter import KafkaAdapter
from tests.kafka.cluster import KafkaCluster
from tests.kafka.dist import selected_release
from tests.support.integration import consume_and_commit, describe_topics, produce_records

# On every Kafka version: per-release usage evidence (OffsetFetch v8, ListOffsets MAX_TIMESTAMP).
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]
# Kafka 3.0+ dates a topic's latest record (ListOffsets MAX_TIMESTAMP, KIP-734); older brokers cannot.
DATES_RECORDS = selected_release() >= (3, 0, 0)
runner = CliRunner()


def test_deleting_topics_in_use_is_blocked_with_the_evidence_until_allowed(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    used, fresh, empty = (f"{topic_prefix}{n}" for n in ("used", "fresh", "empty"))
    group = f"{topic_prefix}billing"
    with kafka_single.admin_session() as admin:
        admin.create_topics([NewTopic(used, 6, 1), NewTopic(fresh, 3, 1), NewTopic(empty, 3, 1)])
    produce_records(kafka_single, used, [f"order-{i}".encode() for i in range(12)])
    consume_and_commit(kafka_single, used, group=group, expected=12)
    produce_records(kafka_single, fresh, [b"just now"])

    manifests = tmp_path / "m"
    manifests.mkdir()
    (manifests / "m.yaml").write_text(
        textwrap.dedent(
            f"""\
            apiVersion: kafka-reconciler/v1
            kind: Ownership
            metadata: {{name: o}}
            spec: {{topics: [{{prefix: "{topic_prefix}"}}], delete: {{topic: true}}}}
            """
        )
    )
    conn = ["--bootstrap-server", kafka_single.bootstrap]
    as_json = runner.invoke(app, ["plan", str(manifests), *conn, "--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    changes = {c["name"]: c for c in json.loads(as_json.stdout)["changes"]}
    fresh_action = "blocked" if DATES_RECORDS else "delete"
    assert {n: c["action"] for n, c in changes.items()} == {used: "blocked", fresh: fresh_action, empty: "delete"}
    evidence = changes[used]["before"]["usage"]
    assert evidence["groups"] == [group] and sum(evidence["end_offsets"]) == 12 and len(evidence["end_offsets"]) == 6
    in_use = f"the topic is in use: consumer group(s) {group} have committed offsets on it"
    assert changes[used]["reasons"][0].startswith(in_use + ("; its latest record is " if DATES_RECORDS else ""))
    assert changes[fresh]["before"]["usage"]["groups"] == []
    if DATES_RECORDS:
        assert changes[fresh]["reasons"][0].startswith("the topic is in use: its latest record is ")
        assert changes[fresh]["reasons"][0].endswith("old, within the in-use window of 7d")
    else:
        assert changes[fresh]["before"]["usage"]["latest_timestamp_ms"] is None
    assert sum(changes[fresh]["before"]["usage"]["end_offsets"]) == 1
    assert changes[empty]["before"]["usage"]["end_offsets"] == [0, 0, 0]
    assert changes[empty]["before"]["usage"]["latest_timestamp_ms"] is None

    text = runner.invoke(app, ["plan", str(manifests), *conn])
    assert f"evidence: consumer group(s) with committed offsets on it: {group}" in text.stdout
    assert "evidence: end offsets 0, 0, 0 (sum 0)" in text.stdout
    if DATES_RECORDS:
        assert "Plan: 0 to create, 0 to update, 1 to delete, 2 blocked." in text.stdout
    else:
        assert "no record to date it (empty, or a broker older than Kafka 3.0)" in text.stdout
        assert "Plan: 0 to create, 0 to update, 2 to delete, 1 blocked." in text.stdout
    markdown = runner.invoke(app, ["plan", str(manifests), *conn, "--format", "markdown"])
    assert f"consumer group(s) {group} have committed offsets on it" in markdown.stdout
    assert "evidence: no consumer group has committed offsets on it" in markdown.stdout

    # The session's broker also holds the groups of earlier tests (Kafka Connect's sink connectors among them).
    with kafka_single.admin_session() as admin:
        groups_listed = len(admin.list_groups())
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        adapter.reset_request_count()
        adapter.read_topic_usage([used, fresh, empty])
        # One Metadata, one ListGroups and one OffsetFetch naming every group on the single broker (one per group
        # before Kafka 3.0: no OffsetFetch v8), two ListOffsets (latest, newest; only latest before Kafka 3.0).
        list_offsets = 2 if DATES_RECORDS else 1
        offset_fetches = 1 if DATES_RECORDS else groups_listed
        assert adapter.request_counts == {
            "Metadata": 1,
            "ListGroups": 1,
            "OffsetFetch": offset_fetches,
            "ListOffsets": list_offsets,
        }

    applied = runner.invoke(app, ["apply", str(manifests), *conn, "--auto-approve"])
    assert applied.exit_code == 3, applied.output
    kept = {used: 6, fresh: 3} if DATES_RECORDS else {used: 6}
    assert describe_topics(kafka_single, [used, fresh, empty]) == kept

    window_off = runner.invoke(app, ["plan", str(manifests), *conn, "--in-use-window", "0", "--format", "json"])
    assert {c["name"]: c["action"] for c in json.loads(window_off.stdout)["changes"]} == {
        used: "blocked",
        **({fresh: "delete"} if DATES_RECORDS else {}),
    }
    allowed = runner.invoke(app, ["apply", str(manifests), *conn, "--auto-approve", "--allow-deleting-topics-in-use"])
    assert allowed.exit_code == 0, allowed.output
    assert describe_topics(kafka_single, [used, fresh, empty]) == {}

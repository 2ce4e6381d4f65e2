"""``kafka-reconciler diff A B``: what changed on a cluster between two snapshot files, as an auditor reads it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.kinds.schema_subject import state as subject_state
from reconciler.model import state
from reconciler.snapshot import diff as snapshot_diff
from reconciler.snapshot import files
from tests.golden.example import live_state
from tests.support.builders import cluster, live_topic

runner = CliRunner()


def _write(tmp_path: Path, name: str, live: state.ClusterState) -> Path:
    path = tmp_path / name
    files.write_snapshot(live, path)
    return path


def _later(before: state.ClusterState) -> state.ClusterState:
    """Three days later: a partition added and retention raised on one topic, one topic gone, an ACL for a new
    principal, a broker moved rack, a quota changed, and SCRAM users not read this time."""
    assert before.topics is not None and before.acls is not None and before.quotas is not None
    topics = dict(before.topics)
    ledger = topics["payments.ledger"]
    topics["payments.ledger"] = dataclasses.replace(
        ledger, assignment=(*ledger.assignment, (1, 2, 3)), configs={**ledger.configs, "retention.ms": "604800000"}
    )
    del topics["payments.legacy"]
    eve = state.AclBinding("TOPIC", "LITERAL", "payments.orders", "User:eve", "*", "READ", "ALLOW")
    quotas = dict(before.quotas)
    quotas[state.QuotaEntity.of(user="payments-batch")] = {"consumer_byte_rate": 4194304.0}
    brokers = (*before.brokers[:2], dataclasses.replace(before.brokers[2], rack="eu-west-1b"))
    return dataclasses.replace(
        before, topics=topics, acls=before.acls | {eve}, quotas=quotas, brokers=brokers, scram_users=None
    )


def test_diff_lists_each_changed_resource_down_to_the_value(tmp_path: Path) -> None:
    before = live_state()
    a, b = _write(tmp_path, "a.json", before), _write(tmp_path, "b.json", _later(before))
    result = runner.invoke(app, ["diff", str(a), str(b)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "+ acl/User:eve/ALLOW/READ/TOPIC:LITERAL:payments.orders@*",
        "~ broker/3",
        "    ~ rack: eu-west-1c -> eu-west-1b",
        "~ quota/user=payments-batch",
        "    ~ consumer_byte_rate: 2097152.0 -> 4194304.0",
        "~ topic/payments.ledger",
        "    + assignment.3: [1, 2, 3]",
        "    ~ configs.retention.ms: 86400000 (1d) -> 604800000 (7d)",
        "    ~ partitions: 3 -> 4",
        "- topic/payments.legacy  (2 partitions, replication factor 3)",
        "not compared: scram_users (not read in both snapshots)",
        "5 resources differ.",
    ]


def test_diff_json_and_detailed_exit_code(tmp_path: Path) -> None:
    before = live_state()
    a, b = _write(tmp_path, "a.json", before), _write(tmp_path, "b.json", _later(before))
    result = runner.invoke(app, ["diff", str(a), str(b), "--format", "json", "--detailed-exitcode"])
    assert result.exit_code == 2
    doc = json.loads(result.stdout)
    assert doc["not_compared"] == ["scram_users"]
    assert {
        "address": "topic/payments.ledger",
        "change": "changed",
        "path": "configs.retention.ms",
        "before": "86400000",
        "after": "604800000",
    } in doc["differences"]
    assert {d["address"] for d in doc["differences"] if d["change"] == "removed"} == {"topic/payments.legacy"}


def test_identical_snapshots_have_no_differences(tmp_path: Path) -> None:
    a, b = _write(tmp_path, "a.json", live_state()), _write(tmp_path, "b.json", live_state())
    result = runner.invoke(app, ["diff", str(a), str(b), "--detailed-exitcode"])
    assert result.exit_code == 0
    assert result.stdout == "No differences.\n"


def test_a_bad_snapshot_is_one_error_line(tmp_path: Path) -> None:
    good = _write(tmp_path, "a.json", live_state())
    bad = tmp_path / "b.json"
    bad.write_text('{"format": "kafka-reconciler/snapshot",\n  oops}', encoding="utf-8")
    result = runner.invoke(app, ["diff", str(good), str(bad)])
    assert result.exit_code == 1
    assert f"{bad}:2:3: invalid JSON" in result.output
    assert "Traceback" not in result.output


def test_a_subject_with_a_new_version_differs_by_its_version_and_the_schema_lines_that_changed() -> None:
    from reconciler.registry.port import SchemaVersion

    before = live_state()
    subjects = subject_state.live_subjects(before)
    assert subjects is not None
    held = subjects.subjects["payments.orders-value"]
    assert held.latest is not None
    v2 = json.loads(held.latest.schema)
    v2["fields"].append({"name": "amount", "type": "long", "default": 0})
    newer = SchemaVersion(held.subject, 2, 12, json.dumps(v2))
    after = subject_state.with_live_subjects(
        before,
        dataclasses.replace(
            subjects, subjects={held.subject: dataclasses.replace(held, latest=newer, compatibility="FULL")}
        ),
    )
    found = snapshot_diff.compare(before, after)
    assert found.addresses == ["schema_subject/payments.orders-value"]
    changed = {d.path: (d.before, d.after) for d in found.differences}
    assert (
        changed["version"] == (1, 2) and changed["id"] == (11, 12) and changed["compatibility"] == ("BACKWARD", "FULL")
    )
    assert any(p.startswith("schema") and '"amount"' in str(a) for p, (_b, a) in changed.items())
    # the registry read on one side only: its subjects are not compared, and the diff says so
    unread = snapshot_diff.compare(before, subject_state.with_live_subjects(after, None))
    assert unread.differences == () and "schema_subjects" in unread.not_compared


def test_snapshots_sharing_few_resources_list_each_one_added_and_removed(tmp_path: Path) -> None:
    """Every topic replaced (a cluster rebuilt under new names): each is listed, not one error about the whole."""
    a = _write(tmp_path, "a.json", cluster(topics=[live_topic(f"orders.v1-{i}", partitions=3) for i in range(10)]))
    b = _write(tmp_path, "b.json", cluster(topics=[live_topic(f"orders.v2-{i}", partitions=3) for i in range(10)]))
    result = runner.invoke(app, ["diff", str(a), str(b), "--detailed-exitcode"])
    assert result.exit_code == 2, result.output
    lines = result.stdout.splitlines()
    assert [line for line in lines if line.startswith(("+", "-"))] == [
        *(f"- topic/orders.v1-{i}  (3 partitions, replication factor 3)" for i in range(10)),
        *(f"+ topic/orders.v2-{i}  (3 partitions, replication factor 3)" for i in range(10)),
    ]
    assert lines[-1] == "20 resources differ."


def test_a_resource_whose_configs_were_all_replaced_differs_by_each_config() -> None:
    before = cluster(topics=[live_topic("orders", partitions=3, configs={"retention.ms": "86400000"})])
    after = cluster(topics=[live_topic("orders", partitions=3, configs={"cleanup.policy": "compact"})])
    lines = list(snapshot_diff.text_lines(snapshot_diff.compare(before, after)))
    assert lines[:3] == [
        "~ topic/orders",
        "    + configs.cleanup.policy: compact",
        "    - configs.retention.ms: 86400000 (1d)",
    ]


def test_one_resource_of_one_partition_is_counted_in_the_singular() -> None:
    before = cluster(topics=[live_topic("orders", partitions=3)])
    after = cluster(topics=[live_topic("orders", partitions=3), live_topic("audit", partitions=1)])
    lines = list(snapshot_diff.text_lines(snapshot_diff.compare(before, after)))
    assert lines[0] == "+ topic/audit  (1 partition, replication factor 3)"
    assert lines[-1] == "1 resource differs."

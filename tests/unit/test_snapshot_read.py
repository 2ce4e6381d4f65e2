"""Reading a snapshot file: the state written comes back equal, repeated values are held once, errors stay plain;
and a file keeps its bytes.

Regenerate the golden snapshot after an intended change of the format with
``UPDATE_GOLDEN=1 pytest tests/unit/test_snapshot_read.py`` and review its diff like any other change.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from reconciler.base import errors
from reconciler.model import state as s
from reconciler.snapshot import files
from tests.golden import example, impact
from tests.support.builders import cluster, live_topic

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "example-snapshot.json"


def _full_state() -> s.ClusterState:
    topics = [
        live_topic(
            f"orders-{i}",
            partitions=6,
            configs={"retention.ms": "604800000", "cleanup.policy": "compact", "min.insync.replicas": "2"},
            defaults={"segment.bytes": "1073741824"},
            sensitive=("ssl.password",) if i == 0 else (),
        )
        for i in range(40)
    ]
    topics.append(live_topic("__consumer_offsets", partitions=50, internal=True))
    acls = [
        s.AclBinding("TOPIC", "LITERAL", f"orders-{i}", f"User:app-{i % 4}", "*", op, "ALLOW")
        for i in range(40)
        for op in ("READ", "WRITE")
    ]
    return cluster(
        topics=topics,
        acls=acls,
        quotas={s.QuotaEntity.of(user="app-1"): {"producer_byte_rate": 1048576.0}},
        scram={"app-1": (s.ScramCredential("SCRAM-SHA-512", 8192),)},
        broker_configs={"1": {"log.retention.hours": "168"}},
        cluster_configs={"auto.create.topics.enable": "false"},
        reassignments=(s.Reassignment("orders-1", 0, (1, 2, 3), (3,), (4,)),),
    )


def test_a_snapshot_reads_back_equal_to_the_state_written(tmp_path: Path) -> None:
    live = _full_state()
    files.write_snapshot(live, tmp_path / "live.json")
    again = files.read_snapshot(tmp_path / "live.json")
    assert again == live
    assert again.topics is not None and list(again.topics) == sorted(live.topics or {})
    assert again.topics["orders-0"].sensitive == frozenset({"ssl.password"})


def test_repeated_values_of_a_snapshot_are_held_once(tmp_path: Path) -> None:
    files.write_snapshot(_full_state(), tmp_path / "live.json")
    topics = files.read_snapshot(tmp_path / "live.json").topics or {}
    first, other = topics["orders-0"], topics["orders-39"]
    assert first.assignment is other.assignment  # the same replica layout: one tuple
    assert first.configs["retention.ms"] is other.configs["retention.ms"]  # the same value: one string
    assert topics["orders-1"].sensitive is other.sensitive  # no sensitive key: one empty set


@pytest.mark.parametrize(
    ("assignment", "expected"),
    [
        ([[1, "x"]], "malformed snapshot: ValueError"),
        ("1,2", "malformed snapshot: ValueError"),
        ([[1], 2], "TypeError"),
    ],
)
def test_a_malformed_assignment_is_a_plain_error_naming_the_file(
    tmp_path: Path, assignment: object, expected: str
) -> None:
    doc = files.to_json_dict(s.ClusterState(cluster_id="c", controller_id=1, brokers=()))
    doc["topics"] = {"orders": {"assignment": assignment, "configs": {}}}
    path = tmp_path / "live.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(errors.SnapshotError) as caught:
        files.read_snapshot(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert expected in str(caught.value)


def test_integer_replica_ids_written_as_booleans_are_read_as_before(tmp_path: Path) -> None:
    doc = files.to_json_dict(s.ClusterState(cluster_id="c", controller_id=1, brokers=()))
    doc["topics"] = {"orders": {"assignment": [[True, 2]], "configs": {}}}
    path = tmp_path / "live.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert (files.read_snapshot(path).topics or {})["orders"].assignment == ((1, 2),)


def _every_section() -> s.ClusterState:
    """The example cluster (every kind read) with something in each of the other sections a snapshot has (and
    without what one plan's manifests give and no snapshot stores: the Connect validate answers and secret digests)."""
    live = example.live_state()
    assert live.connect is not None
    return dataclasses.replace(
        live,
        connect=dataclasses.replace(live.connect, validation={}, secret_digests={}),
        reassignments=(s.Reassignment("payments.ledger", 0, (1, 2, 3), (3,), (4,)),),
        capabilities={"CreateTopics": 7, "DescribeConfigs": 4},
        unavailable={"scram_user": "the brokers do not support DescribeUserScramCredentials"},
        impact=impact.live_state().impact,
        unread_entities={"group_config": {"payments-hidden": "DescribeConfigs refused"}},
        entity_defaults={"group_config": {"consumer.session.timeout.ms": "45000"}},
    )


def test_a_snapshot_file_keeps_its_bytes_and_reads_back_equal(tmp_path: Path) -> None:
    """Snapshots kept in a repository, or compared with plain diff tools, stay comparable from one version to the
    next: the same state gives the same file, every section in its place and form; and the file reads back equal."""
    path = tmp_path / "live.json"
    files.write_snapshot(_every_section(), path)
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.write_bytes(path.read_bytes())
    assert path.read_bytes() == GOLDEN.read_bytes(), f"{GOLDEN} differs; if intended, regenerate with UPDATE_GOLDEN=1"
    assert files.read_snapshot(GOLDEN) == _every_section()

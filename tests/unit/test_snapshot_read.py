"""Reading a snapshot file: the state written comes back equal, repeated values are held once, errors stay plain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reconciler.base import errors
from reconciler.model import snapshotfile
from reconciler.model import state as s
from tests.support.builders import cluster, live_topic


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
    snapshotfile.write_snapshot(live, tmp_path / "live.json")
    again = snapshotfile.read_snapshot(tmp_path / "live.json")
    assert again == live
    assert again.topics is not None and list(again.topics) == sorted(live.topics or {})
    assert again.topics["orders-0"].sensitive == frozenset({"ssl.password"})


def test_repeated_values_of_a_snapshot_are_held_once(tmp_path: Path) -> None:
    snapshotfile.write_snapshot(_full_state(), tmp_path / "live.json")
    topics = snapshotfile.read_snapshot(tmp_path / "live.json").topics or {}
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
    doc = snapshotfile.to_json_dict(s.ClusterState(cluster_id="c", controller_id=1, brokers=()))
    doc["topics"] = {"orders": {"assignment": assignment, "configs": {}}}
    path = tmp_path / "live.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(errors.SnapshotError) as caught:
        snapshotfile.read_snapshot(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert expected in str(caught.value)


def test_integer_replica_ids_written_as_booleans_are_read_as_before(tmp_path: Path) -> None:
    doc = snapshotfile.to_json_dict(s.ClusterState(cluster_id="c", controller_id=1, brokers=()))
    doc["topics"] = {"orders": {"assignment": [[True, 2]], "configs": {}}}
    path = tmp_path / "live.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert (snapshotfile.read_snapshot(path).topics or {})["orders"].assignment == ((1, 2),)

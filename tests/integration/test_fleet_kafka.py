"""Fleet plans over real clusters: a single node, a three-node cluster and a port nothing listens on.

Both engines read the two live clusters over the wire (the Spark engine inside its tasks), must
write the same plans, and each plan must equal the single-cluster plan of the same cluster. The
closed port makes the run partial without stopping it. A fleet plan is then applied with the
apply engine (what ``apply --plan`` does) and the next fleet plan finds nothing left to do.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kafka.admin import KafkaAdminClient, NewTopic

from reconciler import operations
from reconciler.apply import ApplyOptions, apply_plan
from reconciler.connection.settings import DEFAULT_REQUEST_TIMEOUT_MS, ConnectionSettings
from reconciler.fleet import load_fleet, run_fleet_plan
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import plans
from tests.kafka.cluster import KafkaCluster
from tests.support.fleet_live import write_fleet

pytestmark = [pytest.mark.kafka, pytest.mark.slow]


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark", reason="the spark extra is not installed (pip install -e '.[spark]')")
    from reconciler.fleet import spark as spark_engine

    session = spark_engine.session("local[2]", conf={"spark.sql.shuffle.partitions": "2"})
    yield session
    session.stop()


def single_cluster_plan(root: Path, bootstrap: str) -> str:
    wanted = operations.load_manifests([root / "manifests"], env={}).desired
    with KafkaAdapter(ConnectionSettings(bootstrap_servers=tuple(bootstrap.split(",")))) as adapter:
        return operations.make_plan(wanted, operations.read_live(adapter, wanted)).to_json()


def comparable(plan_text: str) -> dict[str, Any]:
    """A plan document without what changes between two reads of a KRaft cluster: the controller id
    that Metadata reports (a random node in KRaft) and the checksum that covers it."""
    doc: dict[str, Any] = json.loads(plan_text)
    doc["cluster"]["controller_id"] = None
    doc.pop("checksum")
    return doc


def test_fleet_plan_over_live_clusters_with_both_engines_then_apply(
    kafka_single: KafkaCluster, kafka_cluster3: KafkaCluster, topic_prefix: str, spark: Any, tmp_path: Path
) -> None:
    admin = KafkaAdminClient(bootstrap_servers=kafka_single.bootstrap, request_timeout_ms=20_000)
    try:  # drift on the single node: a wrong retention, and an undeclared topic inside the ownership rules
        admin.create_topics(
            [
                NewTopic(f"{topic_prefix}orders", 2, 1, topic_configs={"retention.ms": "1000"}),
                NewTopic(f"{topic_prefix}stale", 1, 1),
            ]
        )
    finally:
        admin.close()
    fleet_file = write_fleet(tmp_path, prefix=topic_prefix, single=kafka_single, triple=kafka_cluster3)
    fleet = load_fleet(fleet_file, env={})

    local = run_fleet_plan(fleet, engine="local", out_dir=tmp_path / "local", env={})
    on_spark = run_fleet_plan(fleet, engine="spark", spark_session=spark, out_dir=tmp_path / "spark", env={})

    for result in (local, on_spark):
        assert result.partial and result.exit_code == 3
        status = {c.name: (c.status, c.reason) for c in result.clusters}
        assert status["single"] == ("planned", None) and status["triple"] == ("planned", None)
        assert status["down"][0] == "unreadable" and "127.0.0.1:" in str(status["down"][1])
    for name, bootstrap in (("single", kafka_single.bootstrap), ("triple", kafka_cluster3.bootstrap)):
        local_plan = comparable((tmp_path / "local" / name / "plan.json").read_text())
        assert comparable((tmp_path / "spark" / name / "plan.json").read_text()) == local_plan
        assert comparable(single_cluster_plan(tmp_path, bootstrap)) == local_plan

    single_plan = plans.Plan.load(tmp_path / "local" / "single" / "plan.json")
    assert {(c.address, c.action.value) for c in single_plan.actionable} == {
        (f"topic/{topic_prefix}orders", "update"),
        (f"topic/{topic_prefix}payments", "create"),
        (f"topic/{topic_prefix}stale", "delete"),
    }
    report = (tmp_path / "local" / "report.md").read_text()
    assert "PARTIAL" in report and "**down** (unreadable)" in report

    triple_plan = plans.Plan.load(tmp_path / "spark" / "triple" / "plan.json")
    with KafkaAdapter(kafka_cluster3.connection_settings(request_timeout_ms=DEFAULT_REQUEST_TIMEOUT_MS)) as adapter:
        applied = apply_plan(triple_plan, adapter, options=ApplyOptions(deadline_s=120.0))
    assert applied.exit_code == 0
    again = run_fleet_plan(fleet, engine="local", out_dir=tmp_path / "again", env={})
    triple_counts = next(c.counts for c in again.clusters if c.name == "triple")
    assert (triple_counts["create"], triple_counts["update"], triple_counts["delete"]) == (0, 0, 0)
    assert triple_counts["unchanged"] == 2


def test_a_cluster_that_refuses_authentication_is_reported_without_the_password(
    kafka_single: KafkaCluster, kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    wrong = "not-the-admin-password-4f1c"
    kafka_sasl.write_command_config(tmp_path / "sasl.properties", "admin", password=wrong)
    fleet_file = write_fleet(tmp_path, prefix=topic_prefix, single=kafka_single, triple=kafka_single)
    fleet_file.write_text(
        "defaults: {manifests: manifests, requestTimeoutMs: 10000}\n"
        "clusters:\n"
        f"  - {{name: open, bootstrap: '{kafka_single.bootstrap}'}}\n"
        f"  - {{name: locked, bootstrap: '{kafka_sasl.bootstrap}', commandConfig: sasl.properties}}\n"
    )
    result = run_fleet_plan(load_fleet(fleet_file, env={}), out_dir=tmp_path / "out", env={})
    status = {c.name: (c.status, str(c.reason)) for c in result.clusters}
    assert status["open"] == ("planned", "None")
    assert status["locked"][0] == "unreadable"
    assert "auth" in status["locked"][1].lower(), status["locked"][1]
    assert result.exit_code == 3
    for written in (tmp_path / "out").rglob("*"):
        if written.is_file():
            assert wrong.encode() not in written.read_bytes(), written

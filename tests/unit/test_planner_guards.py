"""Planner guards: internal topics need an opt-in, names colliding with live topics, single-rack creates, no-ops."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reconciler import manifests
from reconciler.model import desired as d
from reconciler.model import plans
from reconciler.planner import plan
from tests.support.builders import brokers, cluster, live_topic, only, rows, topic, want


@pytest.mark.parametrize(
    "name",
    [
        "__consumer_offsets",
        "__transaction_state",
        "__cluster_metadata",
        "_schemas",
        "connect-offsets",
        "orders-enricher-store-changelog",
        "orders-enricher-KSTREAM-AGGREGATE-0000000003-repartition",
    ],
)
def test_a_change_to_an_internal_topic_is_blocked_with_the_reason(name: str) -> None:
    live = live_topic(name, 3, 3, configs={"cleanup.policy": "compact", "compression.type": "producer"})
    declared = topic(name, 10, 3)  # more partitions, and cleanup.policy no longer declared
    result = plan(want(topics=[declared]), cluster(topics=[live]))
    assert {c.action for c in result.changes} == {plans.Action.BLOCKED}
    assert result.actionable == ()
    reason = only(result, f"topic/{name}", plans.Phase.PARTITIONS).reasons[0]
    assert reason.startswith(f"{name} is an internal topic, ")
    assert "unless the topic's manifest says allowInternal: true" in reason


def test_creating_an_internal_topic_is_blocked_unless_allowed() -> None:
    blocked = plan(want(topics=[topic("connect-status", 1, 3)]), cluster(topics=[]))
    assert rows(blocked) == [("!", "TOPIC_CREATE", "topic/connect-status")]
    assert "Kafka Connect's storage" in blocked.changes[0].reasons[0]
    allowed = plan(want(topics=[topic("connect-status", 1, 3, allow_internal=True)]), cluster(topics=[]))
    assert rows(allowed) == [("+", "TOPIC_CREATE", "topic/connect-status")]


def test_a_topic_the_broker_flags_internal_is_guarded_whatever_its_name() -> None:
    live = live_topic("system-thing", 1, 3, internal=True)
    result = plan(want(topics=[topic("system-thing", 2, 3)]), cluster(topics=[live]))
    assert rows(result) == [("!", "PARTITIONS", "topic/system-thing")]
    assert "flagged internal by the broker" in result.changes[0].reasons[0]


def test_an_unchanged_internal_topic_is_just_counted() -> None:
    live = live_topic("__consumer_offsets", 50, 3, internal=True)
    result = plan(want(topics=[topic("__consumer_offsets", 50, 3)]), cluster(topics=[live]))
    assert result.changes == () and result.unchanged == {"topic": 1}


def manifest_state(tmp_path: Path, text: str) -> d.DesiredState:
    (tmp_path / "m.yaml").write_text(textwrap.dedent(text))
    return manifests.load([tmp_path]).desired


def test_connect_storage_topics_with_custom_names_and_ownership_internal_topics_are_guarded(tmp_path: Path) -> None:
    wanted = manifest_state(
        tmp_path,
        """
        apiVersion: kafka-reconciler/v1
        kind: Ownership
        metadata: {name: o}
        spec:
          topics: [{prefix: "cdc."}]
          internalTopics: [{prefix: "cdc.state."}]
          delete: {topic: true}
        ---
        apiVersion: kafka-reconciler/v1
        kind: ConnectWorker
        metadata: {name: cdc}
        spec: {principal: "User:cdc", groupId: cdc, configStorageTopic: cdc.cfg, offsetStorageTopic: cdc.off,
               statusStorageTopic: cdc.stat}
        ---
        apiVersion: kafka-reconciler/v1
        kind: Topic
        metadata: {name: cdc.off}
        spec: {partitions: 25, replicationFactor: 3, configs: {cleanup.policy: compact}}
        ---
        apiVersion: kafka-reconciler/v1
        kind: Topic
        metadata: {name: cdc.cfg}
        spec: {partitions: 1, replicationFactor: 3, allowInternal: true, configs: {cleanup.policy: compact}}
        """,
    )
    live = [live_topic("cdc.state.db1", 1, 3), live_topic("cdc.stat", 5, 3)]
    result = plan(wanted, cluster(topics=live))
    # cdc.off is guarded (a ConnectWorker's storage topic), cdc.cfg is allowed; the undeclared live cdc.stat and
    # cdc.state.db1 are internal by the manifests' rules, so never deleted although deletion is enabled.
    topic_rows = [r for r in rows(result) if r[2].startswith("topic/")]
    assert topic_rows == [("+", "TOPIC_CREATE", "topic/cdc.cfg"), ("!", "TOPIC_CREATE", "topic/cdc.off")]
    assert "named internal by the Ownership rules or a ConnectWorker" in only(result, "topic/cdc.off").reasons[0]


@pytest.mark.parametrize(("declared", "existing"), [("acc.col", "acc_col"), ("acc_col", "acc.col")])
def test_a_name_colliding_with_a_live_topic_is_blocked_naming_it(declared: str, existing: str) -> None:
    result = plan(want(topics=[topic(declared)]), cluster(topics=[live_topic(existing)]))
    assert rows(result) == [("!", "TOPIC_CREATE", f"topic/{declared}")]
    assert result.changes[0].reasons[0].startswith(f"cannot create: the name collides with the live topic '{existing}'")


def test_single_rack_lint_covers_a_create_with_a_declared_assignment() -> None:
    racks = brokers(4, racks=["a", "a", "b", "b"])
    declared = topic("orders", 3, 2, assignment=((1, 2), (3, 4), (1, 3)))
    result = plan(want(topics=[declared]), cluster(broker_list=racks, topics=[]))
    [warning] = [w for w in result.warnings if w.code == "single-rack"]
    assert warning.address == "topic/orders"
    assert warning.message.startswith("topic orders: 2 of 3 partition(s) have all replicas on one rack")


def test_an_undeclared_config_set_to_the_value_it_falls_back_to_is_no_change() -> None:
    live = live_topic(
        "orders",
        configs={"compression.type": "producer", "retention.ms": "1000"},
        defaults={"compression.type": "producer", "retention.ms": "604800000"},
    )
    result = plan(want(topics=[topic("orders")]), cluster(topics=[live]))
    change = only(result, "topic/orders", plans.Phase.TOPIC_CONFIG)
    assert [a.name for a in change.attributes] == ["configs.retention.ms"]

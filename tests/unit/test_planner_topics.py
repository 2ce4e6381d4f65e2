"""Planner rules for topics: create, partitions, replication factor, assignment, configs, ownership."""

from __future__ import annotations

import pytest

from reconciler.kinds.topic.plan import is_internal
from reconciler.model import payloads, plans
from reconciler.model.desired import DesiredTopic
from reconciler.model.kinds import Kind
from reconciler.model.state import TopicState
from reconciler.planner import live_view, plan
from reconciler.planner.views import fingerprint_of
from tests.support.builders import Row, attrs, brokers, cluster, live_topic, only, rows, topic, want


@pytest.mark.parametrize(
    ("desired", "live", "expected"),
    [
        pytest.param([topic("orders")], [], [("+", "TOPIC_CREATE", "topic/orders")], id="missing-created"),
        pytest.param([topic("orders")], [live_topic("orders")], [], id="equal-no-change"),
        pytest.param(
            [topic("orders", 6)], [live_topic("orders", 3)], [("~", "PARTITIONS", "topic/orders")], id="partitions-up"
        ),
        pytest.param(
            [topic("orders", 2)], [live_topic("orders", 3)], [("!", "PARTITIONS", "topic/orders")], id="partitions-down"
        ),
        pytest.param(
            [topic("orders", 3, 3)], [live_topic("orders", 3, 2)], [("~", "REASSIGN", "topic/orders")], id="rf-up"
        ),
        pytest.param(
            [topic("orders", configs={"retention.ms": "86400000"})],
            [live_topic("orders", configs={"retention.ms": "604800000"})],
            [("~", "TOPIC_CONFIG", "topic/orders")],
            id="config-differs",
        ),
        pytest.param(
            [topic("orders", 6, 3, configs={"retention.ms": "1"})],
            [live_topic("orders", 3, 2)],
            [
                ("~", "PARTITIONS", "topic/orders"),
                ("~", "TOPIC_CONFIG", "topic/orders"),
                ("~", "REASSIGN", "topic/orders"),
            ],
            id="one-change-per-phase",
        ),
        pytest.param(
            [topic("orders", rf=4)], [], [("!", "TOPIC_CREATE", "topic/orders")], id="rf-above-brokers-blocked"
        ),
    ],
)
def test_topic_rules(desired: list[DesiredTopic], live: list[TopicState], expected: list[Row]) -> None:
    assert rows(plan(want(topics=desired), cluster(topics=live))) == expected


def test_create_carries_configs_and_no_separate_config_change() -> None:
    result = plan(want(topics=[topic("orders", 6, 3, configs={"retention.ms": "604800000"})]), cluster())
    change = only(result, "topic/orders")
    assert payloads.encode(change.after) == {
        "partitions": 6,
        "replication_factor": 3,
        "configs": {"retention.ms": "604800000"},
    }
    assert change.fingerprint is None
    assert change.source == "topics.yaml:3:1"
    assert result.summary().line() == "Plan: 1 to create, 0 to update, 0 to delete."


def test_partition_decrease_is_blocked_with_options_never_recreated() -> None:
    result = plan(want(topics=[topic("orders", 2)]), cluster(topics=[live_topic("orders", 6)]))
    change = only(result, "topic/orders")
    text = " ".join(change.reasons)
    assert "cannot remove partitions" in text
    assert "declare partitions: 6" in text
    assert "create a new topic with 2 partitions" in text
    assert not [c for c in result.changes if c.action is plans.Action.DELETE]
    assert result.summary().blocked == 1


def test_replication_factor_increase_gets_rack_aware_target_keeping_replicas() -> None:
    racked = brokers(4, racks=["a", "a", "b", "b"])
    live = live_topic("orders", 4, 1, assignment=((1,), (2,), (3,), (4,)))
    result = plan(want(topics=[topic("orders", 4, 2)]), cluster(broker_list=racked, topics=[live]))
    change = only(result, "topic/orders", plans.Phase.REASSIGN)
    target = payloads.encode(change.after)["assignment"]
    rack = {b.id: b.rack for b in racked}
    for old, new in zip(live.assignment, target, strict=True):
        assert new[0] == old[0]
        assert len({rack[b] for b in new}) == 2
    assert attrs(change)["replication_factor"] == (1, 2)


def test_new_partitions_are_included_in_the_reassignment_target() -> None:
    result = plan(want(topics=[topic("orders", 4, 3)]), cluster(topics=[live_topic("orders", 2, 2)]))
    target = payloads.encode(only(result, "topic/orders", plans.Phase.REASSIGN).after)["assignment"]
    assert len(target) == 4 and all(len(set(r)) == 3 for r in target)


def test_declared_assignment_differing_from_live_is_reassigned() -> None:
    declared = ((3, 1), (1, 2))
    result = plan(
        want(topics=[topic("orders", 2, 2, assignment=declared)]),
        cluster(topics=[live_topic("orders", 2, 2, assignment=((1, 2), (1, 2)))]),
    )
    change = only(result, "topic/orders", plans.Phase.REASSIGN)
    assert payloads.encode(change.after)["assignment"] == [[3, 1], [1, 2]]
    assert attrs(change) == {"assignment.0": ([1, 2], [3, 1])}


def test_declared_assignment_with_unknown_broker_is_blocked() -> None:
    result = plan(want(topics=[topic("orders", 1, 2, assignment=((1, 9),))]), cluster())
    change = only(result, "topic/orders")
    assert change.action is plans.Action.BLOCKED
    assert "broker(s) 9" in change.reasons[0]


def test_replication_factor_above_broker_count_blocks_the_create_only() -> None:
    result = plan(want(topics=[topic("orders", 3, 3)]), cluster(broker_list=brokers(2)))
    change = only(result, "topic/orders")
    assert change.action is plans.Action.BLOCKED
    assert change.reasons[0] == "cannot create: replication factor 3 exceeds the 2 broker(s) in the cluster"
    assert [w for w in result.warnings if w.severity == "error"] == []


def test_configs_compare_after_normalising_the_live_value() -> None:
    live = live_topic("orders", configs={"min.cleanable.dirty.ratio": "0.50", "cleanup.policy": "compact,delete"})
    wanted = topic("orders", configs={"min.cleanable.dirty.ratio": "0.5", "cleanup.policy": "compact,delete"})
    result = plan(want(topics=[wanted]), cluster(topics=[live]))
    assert result.changes == ()
    assert result.unchanged == {"topic": 1}


def test_undeclared_topic_config_is_reset_to_its_default() -> None:
    live = live_topic(
        "orders", configs={"retention.ms": "1000", "segment.ms": "60000"}, defaults={"segment.ms": "3600000"}
    )
    change = only(plan(want(topics=[topic("orders")]), cluster(topics=[live])), "topic/orders")
    assert change.phase is plans.Phase.TOPIC_CONFIG
    by_name = {a.name: a for a in change.attributes}
    assert (by_name["configs.segment.ms"].after, by_name["configs.segment.ms"].default) == (None, "3600000")
    # No default read from the cluster: Kafka's documented default is shown.
    assert by_name["configs.retention.ms"].default == "604800000"


def test_sensitive_config_is_set_when_absent_and_never_shown() -> None:
    secret = "s3cr3t-value"
    wanted = topic("orders", configs={"ssl.key.password": secret})
    result = plan(want(topics=[wanted]), cluster(topics=[live_topic("orders")]))
    change = only(result, "topic/orders")
    assert attrs(change) == {"configs.ssl.key.password": (None, plans.REDACTED)}
    assert secret not in result.to_json()
    # Already set: the value cannot be read back, so it is not compared.
    live = live_topic("orders", configs={"ssl.key.password": None}, sensitive=["ssl.key.password"])
    assert plan(want(topics=[wanted]), cluster(topics=[live])).changes == ()


@pytest.mark.parametrize(
    ("delete", "expected_changes", "expected_unmanaged"),
    [
        (True, [("-", "TOPIC_DELETE", "topic/team-old")], []),
        (False, [], ["topic/team-old"]),
    ],
)
def test_undeclared_owned_topic_is_deleted_or_unmanaged(
    delete: bool, expected_changes: list[Row], expected_unmanaged: list[str]
) -> None:
    live = [live_topic("team-old"), live_topic("other-team"), live_topic("__consumer_offsets", internal=True)]
    desired = want(own_topics=["team-", "__"], delete=["topic"] if delete else [])
    result = plan(desired, cluster(topics=live))
    assert rows(result) == expected_changes
    assert [u.address for u in result.unmanaged] == expected_unmanaged
    if not delete:
        assert result.unmanaged[0].reason == "not declared; would be deleted, but deletion is disabled for topics"


def test_owned_internal_topics_are_never_touched_even_with_deletion_enabled() -> None:
    live = [live_topic("connect-offsets"), live_topic("_schemas"), live_topic("x", internal=True)]
    result = plan(want(own_topics=[""], delete=["topic"]), cluster(topics=live))
    assert result.changes == () and result.unmanaged == ()


def test_declared_internal_topic_is_managed_when_its_manifest_allows_it() -> None:
    live = live_topic("_schemas", 1, 3, configs={"cleanup.policy": "delete"})
    declared = topic("_schemas", 1, 3, configs={"cleanup.policy": "compact"}, allow_internal=True)
    result = plan(want(topics=[declared]), cluster(topics=[live]))
    assert rows(result) == [("~", "TOPIC_CONFIG", "topic/_schemas")]


@pytest.mark.parametrize(
    ("name", "internal"),
    [
        ("__consumer_offsets", True),
        ("__transaction_state", True),
        ("__cluster_metadata", True),
        ("_schemas", True),
        ("_confluent-metrics", True),
        ("connect-configs", True),
        ("connect-offsets", True),
        ("connect-status", True),
        ("my-connect-cluster-status", True),
        ("mm2-offset-syncs.east.internal", True),
        ("orders-enricher-store-changelog", True),
        ("orders-enricher-KSTREAM-KEY-SELECT-0000000002-repartition", True),
        ("changelog", False),
        ("orders-status", False),
        ("payments-configs", False),
        ("reconnect-events", False),
        ("orders", False),
        ("_private", False),
    ],
)
def test_internal_topic_names(name: str, internal: bool) -> None:
    assert is_internal(name) is internal


def test_change_fingerprint_is_the_live_view_fingerprint() -> None:
    live = cluster(topics=[live_topic("orders", configs={"retention.ms": "1"})])
    change = only(plan(want(topics=[topic("orders")]), live), "topic/orders")
    assert change.fingerprint == fingerprint_of(live_view(live, kind=Kind.TOPIC, name="orders"))
    moved = cluster(topics=[live_topic("orders", configs={"retention.ms": "2"})])
    assert change.fingerprint != fingerprint_of(live_view(moved, kind=Kind.TOPIC, name="orders"))


def test_unreadable_topics_are_an_error_warning() -> None:
    result = plan(want(topics=[topic("orders")]), cluster(topics=None))
    assert [(w.code, w.severity) for w in result.warnings] == [("topics-unreadable", "error")]
    assert result.changes == ()


def test_reassignment_in_progress_is_mentioned() -> None:
    from reconciler.model.state import Reassignment

    live = cluster(topics=[live_topic("orders", 1, 2)], reassignments=(Reassignment("orders", 0, (1, 2, 3), (3,), ()),))
    change = only(plan(want(topics=[topic("orders", 1, 3)]), live), "topic/orders")
    assert change.warnings[0] == "1 partition reassignment(s) of this topic are still in progress"


def test_added_partitions_take_their_declared_replicas() -> None:
    declared = ((1, 2), (2, 3), (3, 1))
    live = live_topic("orders", 2, 2, assignment=((1, 2), (2, 3)))
    change = only(
        plan(want(topics=[topic("orders", 3, 2, assignment=declared)]), cluster(topics=[live])), "topic/orders"
    )
    assert change.phase is plans.Phase.PARTITIONS
    assert payloads.encode(change.after) == {"partitions": 3, "assignment": [[3, 1]]}


def test_added_partitions_with_a_replication_factor_change_are_placed_by_the_reassignment() -> None:
    declared = ((1, 2, 3), (2, 3, 1), (3, 1, 2))
    live = live_topic("orders", 2, 2, assignment=((1, 2), (2, 3)))
    result = plan(want(topics=[topic("orders", 3, 3, assignment=declared)]), cluster(topics=[live]))
    assert payloads.encode(only(result, "topic/orders", plans.Phase.PARTITIONS).after) == {"partitions": 3}
    assert payloads.encode(only(result, "topic/orders", plans.Phase.REASSIGN).after)["assignment"] == [
        list(r) for r in declared
    ]

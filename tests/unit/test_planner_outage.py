"""A broker that is down (replicas assigned to it, not in Metadata) is a warning, not a veto: only changes that
need the missing broker are blocked."""

from __future__ import annotations

from reconciler.model import plans
from reconciler.model.state import AclBinding
from reconciler.planner import plan
from tests.support.builders import brokers, cluster, live_topic, only, topic, want

# Brokers 1 and 2 are live; broker 3 holds replicas of every RF-3 topic but is down.
TWO_LIVE = brokers(3)[:2]
ACL = AclBinding("TOPIC", "LITERAL", "orders", "User:app", "*", "READ", "ALLOW")


def test_an_unchanged_rf3_topic_with_a_broker_down_is_a_warning_naming_the_broker_and_partitions() -> None:
    result = plan(
        want(topics=[topic("orders", 6, 3)], acls=[ACL]),
        cluster(broker_list=TWO_LIVE, topics=[live_topic("orders", 6, 3)], acls=[]),
    )
    assert [c.address for c in result.actionable] == [ACL.address]  # the new ACL still applies
    assert result.blocked == ()
    [warning] = [w for w in result.warnings if w.code == "brokers-down"]
    assert warning.severity == "warning"
    assert warning.address == "topic/orders"
    assert "broker(s) 3 down" in warning.message
    assert "6 of 6 partition(s) under-replicated (partition(s) 0, 1, 2, 3, 4, 5)" in warning.message
    assert not [w for w in result.warnings if w.severity == "error"]


def test_only_the_changes_that_need_the_down_broker_are_blocked() -> None:
    result = plan(
        want(
            topics=[
                topic("new3", 4, 3),  # a create that cannot be placed on 2 live brokers
                topic("new2", 4, 2),  # fits on the live brokers
                topic("grow", 3, 3, configs={"retention.ms": "1000"}),  # RF 2 -> 3: needs broker 3
                topic("wide", 6, 3),  # more partitions at RF 3: needs broker 3
                topic("conf", 3, 3, configs={"retention.ms": "2000"}),  # a config change: applies
            ]
        ),
        cluster(
            broker_list=TWO_LIVE,
            topics=[
                live_topic("grow", 3, 2, assignment=((1, 2), (2, 1), (1, 2))),
                live_topic("wide", 3, 3),
                live_topic("conf", 3, 3),
            ],
        ),
    )
    blocked = {(c.address, c.phase): c.reasons[0] for c in result.blocked}
    assert set(blocked) == {
        ("topic/new3", plans.Phase.TOPIC_CREATE),
        ("topic/grow", plans.Phase.REASSIGN),
        ("topic/wide", plans.Phase.PARTITIONS),
    }
    assert "only 2 are live: broker(s) 3 are down" in blocked[("topic/new3", plans.Phase.TOPIC_CREATE)]
    assert blocked[("topic/wide", plans.Phase.PARTITIONS)].startswith("cannot add partitions: replication factor 3")
    assert {(c.address, c.phase) for c in result.actionable} == {
        ("topic/new2", plans.Phase.TOPIC_CREATE),
        ("topic/grow", plans.Phase.TOPIC_CONFIG),
        ("topic/conf", plans.Phase.TOPIC_CONFIG),
    }


def test_a_reassignment_of_a_topic_with_replicas_on_a_down_broker_waits() -> None:
    result = plan(
        want(topics=[topic("orders", 3, 2)]),
        cluster(broker_list=TWO_LIVE, topics=[live_topic("orders", 3, 1, assignment=((3,), (1,), (2,)))]),
    )
    change = only(result, "topic/orders")
    assert change.action is plans.Action.BLOCKED
    assert "1 partition(s) have replicas on broker(s) 3, which are down" in change.reasons[0]


def test_a_cluster_that_is_too_small_is_not_called_down() -> None:
    result = plan(want(topics=[topic("orders", 3, 3)]), cluster(broker_list=brokers(2), topics=[]))
    assert only(result, "topic/orders").reasons == (
        "cannot create: replication factor 3 exceeds the 2 broker(s) in the cluster",
    )
    assert not [w for w in result.warnings if w.code == "brokers-down"]


def test_many_topics_on_a_down_broker_give_one_summary_warning() -> None:
    names = [f"t{i}" for i in range(5)]
    result = plan(
        want(topics=[topic(n, 2, 3) for n in names]),
        cluster(broker_list=TWO_LIVE, topics=[live_topic(n, 2, 3) for n in names]),
    )
    [warning] = [w for w in result.warnings if w.code == "brokers-down"]
    assert warning.address is None
    assert "10 partition(s) of 5 declared topics under-replicated (t0, t1, t2 and 2 more)" in warning.message


def test_an_error_about_one_resource_blocks_only_that_resource() -> None:
    from reconciler.planner import guards

    changes = list(plan(want(topics=[topic("a", 1, 1), topic("b", 1, 1)]), cluster(topics=[])).changes)
    guards.block_at_errors(changes, [plans.PlanWarning("bad", address="topic/a", code="x", severity="error")])
    assert [(c.address, c.action) for c in changes] == [
        ("topic/a", plans.Action.BLOCKED),
        ("topic/b", plans.Action.CREATE),
    ]
    assert changes[0].reasons[0] == "error: [x] bad"

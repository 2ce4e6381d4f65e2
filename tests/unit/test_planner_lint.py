"""Lint warnings stay readable on big plans: one replication warning per (RF, min ISR) past three topics."""

from __future__ import annotations

from reconciler import planner
from reconciler.model import desired as d
from reconciler.model import plans
from reconciler.model import state as s
from tests.support.builders import brokers, topic


def _warnings(count: int) -> list[plans.PlanWarning]:
    names = [f"t{i:02d}" for i in range(count)]
    wanted = d.DesiredState(topics={n: topic(n, 1, 1) for n in names})
    live = s.ClusterState(cluster_id="c", controller_id=1, brokers=brokers(1), topics={})
    return [w for w in planner.plan(wanted, live).warnings if w.code == "replication-below-min-isr"]


def test_few_topics_get_one_warning_each_with_their_address() -> None:
    warnings = _warnings(3)
    assert [w.address for w in warnings] == ["topic/t00", "topic/t01", "topic/t02"]
    assert warnings[0].message == (
        "topic t00: replication factor 1 is equal to min.insync.replicas 1; "
        "producers with acks=all are refused while any one replica is down"
    )


def test_many_topics_share_one_warning_that_counts_them() -> None:
    [warning] = _warnings(40)
    assert warning.address is None
    assert warning.message.startswith(
        "40 topics have replication factor 1, equal to min.insync.replicas 1 (t00, t01, t02 and 37 more)"
    )

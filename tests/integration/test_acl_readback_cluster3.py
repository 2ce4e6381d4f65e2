"""ACL changes are converged only when every broker's authorizer holds them, on three nodes with an authorizer.

Each broker's authorizer learns of ACL changes from the controller at its own moment (KRaft: the metadata log;
ZooKeeper mode: ZooKeeper's ACL change notices), and a later plan may ask any broker. The read-back asks each
broker's own DescribeAcls for the principals whose bindings it wrote before it calls the apply converged; right
after it, every broker holds exactly what was applied. (The session's ``kafka_cluster3`` has no authorizer, so this
module starts three nodes of its own with one; the ANONYMOUS principal is a super user there.)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pytest

from reconciler.apply import ApplyOptions, apply_plan
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import desired, state
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.kafka.kinds import multi_node
from tests.support.builders import acl
from tests.support.live import plan_now, settings

# On every Kafka version: ACL read-back: KRaft's metadata log vs ZooKeeper's ACL change notices.
pytestmark = [pytest.mark.kafka, pytest.mark.slow, pytest.mark.every_version]


class NotingViews(KafkaAdapter):
    """The real adapter, noting the brokers each per-broker ACL check got an answer from."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.asked: list[list[int]] = []

    def acl_views(self, principals: Iterable[str]) -> dict[int, frozenset[state.AclBinding]]:
        views = super().acl_views(principals)
        self.asked.append(sorted(views))
        return views


@pytest.fixture(scope="module")
def cluster3_acls() -> Iterator[KafkaCluster]:
    """Three combined nodes with the brokers' authorizer (ANONYMOUS a super user), for this module alone."""
    cluster = multi_node(3, authorizer=True)
    try:
        yield cluster
    finally:
        cluster.close()


def test_acls_applied_on_three_brokers_are_held_by_every_brokers_authorizer(
    cluster3_acls: KafkaCluster, topic_prefix: str
) -> None:
    principals = [f"User:{topic_prefix}app-{i}" for i in range(3)]
    bindings = [
        acl(p, op, f"{topic_prefix}orders-{t}") for p in principals for op in ("READ", "DESCRIBE") for t in range(5)
    ]
    own = desired.Ownership(
        principals=(desired.NamePattern("prefix", f"User:{topic_prefix}"),), delete={Kind.ACL: True}
    )
    create = desired.DesiredState(acls=dict.fromkeys(bindings), ownership=own)
    kept = [b for b in bindings if b.operation != "DESCRIBE" or b.principal != principals[0]]  # 5 deletes
    drop = desired.DesiredState(acls=dict.fromkeys(kept), ownership=own)
    try:
        for wanted, held in ((create, set(bindings)), (drop, set(kept))):
            adapter = NotingViews(settings(cluster3_acls))
            with adapter:
                report = apply_plan(plan_now(adapter, wanted), adapter, options=ApplyOptions(deadline_s=120))
                assert report.converged is True and report.exit_code == 0, report.to_json()
            assert adapter.asked and adapter.asked[-1] == [1, 2, 3], adapter.asked  # the read-back asked each broker
            with KafkaAdapter(settings(cluster3_acls)) as fresh:  # another client, as a later plan would be
                views = fresh.acl_views(principals)
            assert sorted(views) == [n.node_id for n in cluster3_acls.nodes]
            assert {broker: set(seen) for broker, seen in views.items()} == dict.fromkeys(views, held)
    finally:
        with KafkaAdapter(settings(cluster3_acls)) as admin:
            live = admin.read_state(kinds=frozenset({Kind.ACL}), principal_filter=lambda p: p in principals)
            leftovers: list[state.AclBinding] = sorted(live.acls or ())
            if leftovers:
                admin.delete_acls(leftovers)


def test_a_one_broker_cluster_is_asked_nothing_more(kafka_sasl: KafkaCluster, topic_prefix: str) -> None:
    """One broker: the read-back's own read already asked it, so the per-broker check sends no request."""
    with KafkaAdapter(settings(kafka_sasl)) as adapter:
        adapter.connect()
        before = dict(adapter.request_counts)
        assert adapter.acl_views([f"User:{topic_prefix}app"]) == {}
        assert adapter.request_counts == before

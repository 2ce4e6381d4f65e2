"""Fleet rows carry every registered kind there and back: the desired and live sections of one resource of each kind
(``SAMPLE``) rebuilt from their rows equal the originals, kind by kind over the registry, and plan the same. A kind
the sample holds no resource of fails here, so a new kind is checked as soon as it is registered."""

from __future__ import annotations

import pytest

from reconciler import planner
from reconciler.fleet import rows
from reconciler.kinds import registry
from reconciler.model import desired as d
from reconciler.model import state as s
from reconciler.model.kinds import Kind
from tests.support.fleet import offline

SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
BINDING = s.AclBinding("TOPIC", "PREFIXED", "orders", "User:app", "*", "READ", "ALLOW")
OTHER_BINDING = s.AclBinding("GROUP", "LITERAL", "billing", "User:app", "*", "READ", "ALLOW")
ENTITY = s.QuotaEntity.of(user="app")
WANTED = d.DesiredState(
    topics={"orders": d.DesiredTopic("orders", 3, 1, {"retention.ms": "3600000"})},
    acls={BINDING: d.Source("m.yaml", 3, 1)},
    quotas={ENTITY: d.DesiredQuota(ENTITY, {"producer_byte_rate": 1048576.0})},
    scram_users={"app": d.DesiredScramUser("app", "SCRAM-SHA-256", 8192, d.SecretRef(env="APP_PASSWORD"))},
    broker_configs={"<default>": d.DesiredBrokerConfig("<default>", {"log.cleaner.threads": "2"})},
    group_configs={"billing": d.DesiredEntityConfig("billing", {"consumer.session.timeout.ms": "50000"})},
    client_metrics={"producers": d.DesiredEntityConfig("producers", {"metrics": "org.apache.kafka.producer."})},
    connectors={"sink": d.DesiredConnector("sink", {"connector.class": SINK, "tasks.max": "1", "topics": "orders"})},
)
LIVE = s.ClusterState(
    cluster_id="c-1",
    controller_id=1,
    brokers=(s.Broker(1, "b1", 9092),),
    topics={"orders": s.TopicState("orders", ((1,), (1,)), configs={"retention.ms": "60000"})},
    broker_configs={"<default>": {"log.cleaner.threads": "1"}},
    acls=frozenset({OTHER_BINDING}),
    quotas={ENTITY: {"producer_byte_rate": 1024.0}},
    scram_users={"app": (s.ScramCredential("SCRAM-SHA-512", 4096),)},
    group_configs={"billing": {"consumer.heartbeat.interval.ms": "5000"}},
    client_metrics={"consumers": {"metrics": "org.apache.kafka.consumer.", "interval.ms": "60000"}},
    connect=s.ConnectState(
        url="http://c:8083",
        connectors={"sink": s.ConnectorState("sink", {"connector.class": SINK, "tasks.max": "2"}, "RUNNING")},
        plugins=(SINK,),
    ),
)


@pytest.mark.parametrize("kind", list(registry.KINDS), ids=str)
def test_every_kind_crosses_the_fleet_rows_whole(kind: Kind) -> None:
    declared = registry.spec(kind)
    assert declared.desired_section(WANTED), f"the sample declares no {kind}: add one to WANTED"
    assert declared.live_section(LIVE), f"the sample's live state holds no {kind}: add one to LIVE"
    back = rows.rebuild_desired(rows.desired_rows(WANTED))
    again = rows.rebuild_live(rows.live_rows(LIVE))
    assert declared.desired_section(back) == declared.desired_section(WANTED)
    assert declared.live_section(again) == declared.live_section(LIVE)


def test_the_rebuilt_sample_plans_like_the_original() -> None:
    back = rows.rebuild_desired(rows.desired_rows(WANTED))
    again = rows.rebuild_live(rows.live_rows(LIVE))
    reference = planner.plan(WANTED, offline(WANTED, LIVE))
    assert {c.kind for c in reference.changes} == set(registry.KINDS)  # every kind has a change to compare
    assert planner.plan(back, offline(back, again)).to_json() == reference.to_json()

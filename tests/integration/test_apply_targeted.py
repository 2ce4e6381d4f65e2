"""Apply reads only what the plan touches: the staleness check and the read-back are targeted reads.

A targeted read must see each touched resource exactly as a full read does (the stale-plan check compares
fingerprints), and must not see the rest: a change elsewhere on the cluster does not make a plan stale.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from kafka.admin import ConfigResource, NewTopic

from reconciler.base import errors
from reconciler.connection.settings import Secret
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import ScramUpsert
from reconciler.model import plans, state
from reconciler.model import views as model_views
from reconciler.model.kinds import Kind
from reconciler.model.payloads import ConfigOp
from reconciler.planner import views
from tests.kafka.cluster import KafkaCluster
from tests.support.integration import WRITE_APIS, apply, make_plan, ownership, topic_configs, topic_doc, write_manifests
from tests.support.polling import eventually

# On every Kafka version: the read-back's targeted reads must equal full reads on each release.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]


def _alter(cluster: KafkaCluster, name: str, value: str) -> None:
    with cluster.admin_session() as admin:
        done = admin.alter_configs([ConfigResource("TOPIC", name, configs={"retention.ms": value})], incremental=True)
    assert done["topic"][name] == "OK"
    eventually(lambda: topic_configs(cluster, name) == {"retention.ms": value}, what=f"retention.ms={value} on {name}")


def test_a_targeted_read_sees_the_named_resources_as_a_full_read_does_and_nothing_else(
    kafka_single: KafkaCluster, topic_prefix: str
) -> None:
    names = [f"{topic_prefix}{i}" for i in range(4)]
    user = f"{topic_prefix}svc"
    entity = state.QuotaEntity.of(user=user)
    with kafka_single.admin_session() as admin:
        admin.create_topics(
            [NewTopic(n, 3, 1, topic_configs={"retention.ms": "3600000"}) for n in names], wait_for_metadata=True
        )
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        assert all(r.ok for r in adapter.alter_client_quotas({entity: {"producer_byte_rate": 1024.0}}))
        upsert = ScramUpsert(user=user, mechanism="SCRAM-SHA-256", iterations=4096, password=Secret("pw-123456"))
        assert all(r.ok for r in adapter.alter_scram_credentials(upserts=[upsert]))
        # A broker config no other test uses, removed again at the end (the node is shared by the session).
        key = "log.cleaner.io.buffer.load.factor"
        assert all(r.ok for r in adapter.incremental_alter_configs({("BROKER", "1"): [ConfigOp.set(key, "0.8")]}))
        kinds = frozenset({Kind.TOPIC, Kind.QUOTA, Kind.SCRAM_USER, Kind.BROKER_CONFIG})
        touched = [(Kind.TOPIC, names[0]), (Kind.TOPIC, names[2]), (Kind.TOPIC, "absent")]
        touched += [(Kind.QUOTA, model_views.quota_name(entity)), (Kind.SCRAM_USER, user)]
        touched += [(Kind.BROKER_CONFIG, "1"), (Kind.BROKER_CONFIG, state.CLUSTER_DEFAULT)]
        scope = state.ReadScope(
            topics=frozenset({names[0], names[2], "absent"}),
            brokers=frozenset({"1", state.CLUSTER_DEFAULT}),
            quota_entities=frozenset({entity}),
            scram_users=frozenset({user}),
        )

        def both() -> tuple[state.ClusterState, state.ClusterState] | None:
            full, targeted = adapter.read_state(kinds=kinds), adapter.read_state(kinds=kinds, scope=scope)
            if user not in (targeted.scram_users or {}):
                return None
            # Two reads are two moments: compare once the new resources have settled on the broker.
            same = all(
                views.live_view(targeted, kind=k, name=n) == views.live_view(full, kind=k, name=n) for k, n in touched
            )
            return (full, targeted) if same else None

        try:
            full, targeted = eventually(both, what="a targeted read showing what a full read shows")
        finally:
            adapter.incremental_alter_configs({("BROKER", "1"): [ConfigOp.delete(key)]})

    assert sorted(targeted.topics or {}) == [names[0], names[2]]
    assert list(targeted.quotas or {}) == [entity] and list(targeted.scram_users or {}) == [user]
    assert (targeted.broker_configs or {}).get("1", {}).get(key) == "0.8"
    for kind, name in touched:
        assert views.live_view(targeted, kind=kind, name=name) == views.live_view(full, kind=kind, name=name), name
    assert views.live_view(targeted, kind=Kind.TOPIC, name=names[0]) is not None


def test_a_change_outside_the_plan_does_not_make_it_stale_one_inside_does_and_nothing_is_written(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    # `other` is neither declared nor owned (outside the Ownership prefix): outside the plan's scope
    mine, other = f"{topic_prefix}mine", f"x{topic_prefix}other"
    with kafka_single.admin_session() as admin:
        admin.create_topics(
            [NewTopic(n, 2, 1, topic_configs={"retention.ms": "1000"}) for n in (mine, other)], wait_for_metadata=True
        )
    # The manifests change only `mine`; `other` is another team's topic, so the plan does not touch it.
    directory = write_manifests(
        tmp_path / "m", ownership(topic_prefix) + topic_doc(mine, partitions=2, configs={"retention.ms": "2000"})
    )
    saved = tmp_path / "plans.json"
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        p = make_plan(adapter, directory)
        assert [c.address for c in p.actionable] == [f"topic/{mine}"]
        p.save(saved)

    _alter(kafka_single, other, "5000")  # outside the plan's scope
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        report = apply(adapter, plans.Plan.load(saved))
    assert report.exit_code == 0 and report.converged
    assert topic_configs(kafka_single, mine) == {"retention.ms": "2000"}

    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        make_plan(
            adapter,
            write_manifests(
                tmp_path / "m2",
                ownership(topic_prefix) + topic_doc(mine, partitions=2, configs={"retention.ms": "3000"}),
            ),
        ).save(saved)
    _alter(kafka_single, mine, "4000")  # inside the plan
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        with pytest.raises(errors.StalePlan, match=rf"topic/{mine} \(changed\)"):
            apply(adapter, plans.Plan.load(saved))
        assert WRITE_APIS.isdisjoint(adapter.request_counts)
    assert topic_configs(kafka_single, mine) == {"retention.ms": "4000"}


def test_a_targeted_acl_read_asks_per_principal_and_sees_their_bindings_as_a_full_read_does(
    kafka_sasl: KafkaCluster, topic_prefix: str
) -> None:
    alice, bob = f"User:{topic_prefix}alice", f"User:{topic_prefix}bob"
    bindings = [
        state.AclBinding("TOPIC", "PREFIXED", f"{topic_prefix}orders", who, "*", op, "ALLOW")
        for who in (alice, bob)
        for op in ("READ", "DESCRIBE")
    ]
    with KafkaAdapter(kafka_sasl.connection_settings()) as adapter:
        assert all(r.ok for r in adapter.create_acls(bindings))
        kinds = frozenset({Kind.ACL})

        def both() -> tuple[state.ClusterState, state.ClusterState] | None:
            targeted = adapter.read_state(kinds=kinds, scope=state.ReadScope(principals=frozenset({alice})))
            full = adapter.read_state(kinds=kinds)
            return (full, targeted) if len(targeted.acls or ()) == 2 else None

        full, targeted = eventually(both, what="alice's bindings to be readable")
    assert targeted.acls == frozenset(b for b in bindings if b.principal == alice)
    assert targeted.acls == frozenset(b for b in full.acls or () if b.principal == alice)


def test_a_targeted_topic_read_asks_the_broker_only_for_the_lint_keys_and_leaves_out_fallback_values(
    kafka_single: KafkaCluster, topic_prefix: str
) -> None:
    name = f"{topic_prefix}lean"
    with kafka_single.admin_session() as admin:
        admin.create_topics(
            [NewTopic(name, 2, 1, topic_configs={"segment.bytes": "268435456"})], wait_for_metadata=True
        )
    kinds = frozenset({Kind.TOPIC, Kind.BROKER_CONFIG})
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        full = adapter.read_state(kinds=kinds)
        targeted = adapter.read_state(
            kinds=kinds, scope=state.ReadScope(topics=frozenset({name}), brokers=frozenset({state.CLUSTER_DEFAULT}))
        )
    have, whole = (targeted.topics or {})[name], (full.topics or {})[name]
    # What the stale-plan check and the read-back compare is read whole.
    assert views.live_view(targeted, kind=Kind.TOPIC, name=name) == views.live_view(full, kind=Kind.TOPIC, name=name)
    assert dict(have.configs) == {"segment.bytes": "268435456"}
    # The lint values come from the lint keys alone, and equal a full read's.
    assert targeted.cluster_configs == full.cluster_configs
    assert targeted.cluster_configs["auto.create.topics.enable"] == "false"
    # Only the named broker section: broker 1 was asked for the lint keys, not for its own configs.
    assert set(targeted.broker_configs or {}) == {state.CLUSTER_DEFAULT}
    assert set(full.broker_configs or {}) == {state.CLUSTER_DEFAULT, "1"}
    # Without synonyms: the defaults a topic does not override are there, an override's fallback is not.
    assert have.defaults["cleanup.policy"] == whole.defaults["cleanup.policy"] == "delete"
    assert whole.defaults["segment.bytes"] == "1073741824" and "segment.bytes" not in have.defaults

"""Apply against a real single-node cluster: every kind converges, partial failures, staleness, dry run.

Desired state comes from YAML manifests (``reconciler.manifests.load``); what the cluster holds afterwards
is checked with plain kafka-python (and, for client quotas, which kafka-python cannot describe, with a
second adapter instance).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from kafka.admin import ConfigResource, NewTopic

from reconciler import manifests, planner
from reconciler.apply import Outcome
from reconciler.apply.apply_report import CheckedBy
from reconciler.base import errors
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import plans
from reconciler.model.kinds import Kind
from reconciler.model.state import QuotaEntity
from tests.kafka.cluster import KafkaCluster
from tests.support.integration import (
    WRITE_APIS,
    apply,
    describe_topics,
    make_plan,
    ownership,
    topic_configs,
    topic_doc,
    write_manifests,
)
from tests.support.polling import eventually

pytestmark = pytest.mark.kafka


def broker_config_source(cluster: KafkaCluster, key: str, value: str, *, timeout: float = 20.0) -> str:
    """Where broker 1 takes ``key`` from once it shows ``value`` (dynamic configs reach brokers asynchronously)."""

    def shown() -> dict[str, Any] | None:
        with cluster.admin_session() as admin:
            entry = admin.describe_configs([ConfigResource("BROKER", "1")], config_filter="all")["broker"]["1"][key]
        return dict(entry) if entry["value"] == value else None

    return str(eventually(shown, what=f"{key}={value} on broker 1", timeout=timeout)["config_source"])


@pytest.mark.every_version  # each kind's write and read-back per release
def test_every_kind_converges_and_a_second_plan_shows_no_changes(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    user = f"{topic_prefix}svc"
    existing = f"{topic_prefix}existing"
    with kafka_single.admin_session() as admin:
        admin.create_topics([NewTopic(existing, 1, 1, topic_configs={"retention.ms": "1000"})], wait_for_metadata=True)
    directory = write_manifests(
        tmp_path / "m",
        ownership(topic_prefix)
        + topic_doc(f"{topic_prefix}new", partitions=3, configs={"cleanup.policy": "compact"})
        + topic_doc(existing, partitions=2, configs={"retention.ms": "2h"})
        + f"""
        ---
        apiVersion: kafka-reconciler/v1
        kind: ClientQuota
        metadata: {{name: q}}
        spec:
          entity: {{user: "{user}"}}
          values: {{producer_byte_rate: 1MiB}}
        ---
        apiVersion: kafka-reconciler/v1
        kind: ScramUser
        metadata: {{name: "{user}"}}
        spec:
          mechanism: SCRAM-SHA-256
          iterations: 4096
          passwordFrom: {{env: SVC_PASSWORD}}
        ---
        apiVersion: kafka-reconciler/v1
        kind: BrokerConfig
        metadata: {{name: default}}
        spec:
          broker: default
          configs: {{log.cleaner.threads: 2}}
        """.replace("\n        ", "\n"),
    )
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        p = make_plan(adapter, directory)
        assert {c.phase for c in p.actionable} >= {
            plans.Phase.TOPIC_CREATE,
            plans.Phase.PARTITIONS,
            plans.Phase.TOPIC_CONFIG,
            plans.Phase.QUOTA,
            plans.Phase.SCRAM,
            plans.Phase.BROKER_CONFIG,
        }
        report = apply(adapter, p, environ={"SVC_PASSWORD": "pw-123456"})
        assert report.exit_code == 0, report.to_json()
        assert report.converged is True
        assert make_plan(adapter, directory).actionable == ()

    assert describe_topics(kafka_single, [f"{topic_prefix}new", existing]) == {f"{topic_prefix}new": 3, existing: 2}
    assert topic_configs(kafka_single, f"{topic_prefix}new") == {"cleanup.policy": "compact"}
    assert topic_configs(kafka_single, existing) == {"retention.ms": "7200000"}
    with kafka_single.admin_session() as admin:
        scram = admin.describe_user_scram_credentials()
    assert [(c["mechanism"].name, c["iterations"]) for c in scram[user]["credential_infos"]] == [
        ("SCRAM_SHA_256", 4096)
    ]
    assert broker_config_source(kafka_single, "log.cleaner.threads", "2") == "DYNAMIC_DEFAULT_BROKER_CONFIG"
    with KafkaAdapter(kafka_single.connection_settings()) as other:
        quotas = other.read_state(kinds=frozenset({Kind.QUOTA})).quotas or {}
    assert quotas[QuotaEntity.of(user=user)] == {"producer_byte_rate": 1048576.0}


@pytest.mark.every_version  # the broker's refusal per release
def test_one_invalid_config_among_fifty_new_topics(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    docs = ownership(topic_prefix) + "".join(
        topic_doc(f"{topic_prefix}{i:02d}", configs={"cleanup.policy": "compact"}) for i in range(50)
    )
    bad = f"{topic_prefix}17"
    loaded = manifests.load([write_manifests(tmp_path / "m", docs)]).desired
    # The manifests and the plan's decode refuse out-of-range values: the one the broker must refuse is a valid value
    # it cannot honour (tiered storage on a broker without it), set here past the manifests' lint.
    refused = {"remote.storage.enable": "true"}
    wanted = dataclasses.replace(
        loaded, topics={**loaded.topics, bad: dataclasses.replace(loaded.topics[bad], configs=refused)}
    )
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        p = planner.plan(wanted, adapter.read_state(kinds=planner.planned_kinds(wanted)))
        report = apply(adapter, p)
        assert report.counts()["applied"] == 49
        [failed] = report.failed()
        assert failed.address == f"topic/{bad}" and failed.error_name == "INVALID_CONFIG"
        assert failed.message
        assert report.exit_code == 3
        assert report.phases[0].requests_by_api["CreateTopics"] == 1  # one request for the 50 topics
        again = planner.plan(wanted, adapter.read_state(kinds=planner.planned_kinds(wanted)))
        assert plans.addresses(again.actionable) == [f"topic/{bad}"]
    created = describe_topics(kafka_single, [f"{topic_prefix}{i:02d}" for i in range(50)])
    assert len(created) == 49 and bad not in created


def test_saved_plan_is_refused_after_an_out_of_band_change(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name = f"{topic_prefix}orders"
    with kafka_single.admin_session() as admin:
        admin.create_topics([NewTopic(name, 1, 1, topic_configs={"retention.ms": "1000"})], wait_for_metadata=True)
    directory = write_manifests(
        tmp_path / "m",
        ownership(topic_prefix) + topic_doc(name, configs={"retention.ms": "2000"}) + topic_doc(f"{topic_prefix}new"),
    )
    saved = tmp_path / "plans.json"
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        make_plan(adapter, directory).save(saved)
    with kafka_single.admin_session() as admin:
        done = admin.alter_configs([ConfigResource("TOPIC", name, configs={"retention.ms": "3000"})], incremental=True)
    assert done["topic"][name] == "OK"
    eventually(lambda: topic_configs(kafka_single, name) == {"retention.ms": "3000"}, what="the out-of-band change")
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        with pytest.raises(errors.StalePlan, match=rf"{name} \(changed\)"):
            apply(adapter, plans.Plan.load(saved))
        assert WRITE_APIS.isdisjoint(adapter.request_counts)
    assert topic_configs(kafka_single, name) == {"retention.ms": "3000"}
    assert describe_topics(kafka_single, [f"{topic_prefix}new"]) == {}


@pytest.mark.every_version  # validate-only answers per release
def test_dry_run_changes_nothing_and_reports_the_brokers_rejection(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    cfg = f"{topic_prefix}cfg"
    with kafka_single.admin_session() as admin:
        admin.create_topics([NewTopic(cfg, 1, 1, topic_configs={"retention.ms": "1000"})], wait_for_metadata=True)
    directory = write_manifests(
        tmp_path / "m",
        ownership(topic_prefix)
        + topic_doc(f"{topic_prefix}ok", configs={"cleanup.policy": "compact"})
        + topic_doc(f"{topic_prefix}rf5", rf=5)
        + topic_doc(cfg, configs={"retention.ms": "5000"})
        + f"""
        ---
        apiVersion: kafka-reconciler/v1
        kind: ClientQuota
        metadata: {{name: q}}
        spec:
          entity: {{user: "{topic_prefix}dry"}}
          values: {{producer_byte_rate: 1024}}
        """.replace("\n        ", "\n"),
    )
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        p = make_plan(adapter, directory)
        # the planner blocks RF 5 on one broker itself; send it anyway to hear the broker's answer
        rf5 = next(c for c in p.changes if c.name == f"{topic_prefix}rf5")
        forced = plans.Plan(
            cluster=p.cluster,
            changes=plans.sort_changes(
                [
                    *(c for c in p.changes if c is not rf5),
                    dataclasses.replace(rf5, action=plans.Action.CREATE),
                ]
            ),
        )
        before = adapter.read_state(kinds=frozenset({Kind.TOPIC, Kind.QUOTA}))
        report = apply(adapter, forced, dry_run=True)
        after = adapter.read_state(kinds=frozenset({Kind.TOPIC, Kind.QUOTA}))
        assert WRITE_APIS.isdisjoint(
            set(adapter.request_counts) - {"CreateTopics", "IncrementalAlterConfigs", "AlterClientQuotas"}
        )

    by = {i.address: i for i in report.items}
    assert by[f"topic/{topic_prefix}ok"].outcome is Outcome.DRY_RUN_ACCEPTED
    assert by[f"topic/{topic_prefix}ok"].details["resolved_configs"]["cleanup.policy"] == "compact"
    rejected = by[f"topic/{topic_prefix}rf5"]
    assert rejected.outcome is Outcome.DRY_RUN_REJECTED and rejected.error_name == "INVALID_REPLICATION_FACTOR"
    assert rejected.checked_by is CheckedBy.BROKER and rejected.message
    assert by[f"topic/{cfg}"].outcome is Outcome.DRY_RUN_ACCEPTED
    assert by[f"quota/user={topic_prefix}dry"].outcome is Outcome.DRY_RUN_ACCEPTED
    assert report.exit_code == 3
    assert after.topics == before.topics and after.quotas == before.quotas
    assert describe_topics(kafka_single, [f"{topic_prefix}ok"]) == {}
    assert topic_configs(kafka_single, cfg) == {"retention.ms": "1000"}


@pytest.mark.every_version  # ZooKeeper mode deletes topics asynchronously
def test_delete_then_recreate_the_same_name_in_consecutive_applies(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name = f"{topic_prefix}cycle"
    declared = write_manifests(
        tmp_path / "a", ownership(topic_prefix, delete_topics=True) + topic_doc(name, partitions=2)
    )
    removed = write_manifests(tmp_path / "b", ownership(topic_prefix, delete_topics=True))
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        for _ in range(2):
            assert apply(adapter, make_plan(adapter, declared)).exit_code == 0
            assert describe_topics(kafka_single, [name]) == {name: 2}
            report = apply(adapter, make_plan(adapter, removed))
            assert report.exit_code == 0 and report.items[0].outcome is Outcome.APPLIED
            assert describe_topics(kafka_single, [name]) == {}
        assert apply(adapter, make_plan(adapter, declared)).exit_code == 0
    assert describe_topics(kafka_single, [name]) == {name: 2}

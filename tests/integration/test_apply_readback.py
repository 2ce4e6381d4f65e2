"""The read-back after an apply, as an operator sees it on a real broker: a status line with counts while it
verifies, and exactly the configs the apply wrote, read back and held by the cluster afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.model import state
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.support.integration import ownership, topic_doc, write_manifests
from tests.support.live import cli, topic_configs, topics_state

# On every Kafka version: read-back: brokers learn of topics differently in KRaft and ZooKeeper mode.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]


def test_apply_shows_the_read_back_status_and_the_cluster_holds_what_it_verified(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """Regression: after the progress bars the apply printed nothing until its summary while it read back."""
    names = [f"{topic_prefix}orders-{i}" for i in range(3)]
    configs = {"retention.ms": "86400000", "cleanup.policy": "compact", "max.message.bytes": "2097152"}
    docs = "".join(topic_doc(n, partitions=6, configs=configs) for n in names)
    directory = write_manifests(tmp_path / "m", ownership(topic_prefix) + docs)
    target = ["--bootstrap-server", kafka_single.bootstrap]

    created = cli(["apply", str(directory), *target, "--auto-approve"])
    assert created.returncode == 0, created.stdout + created.stderr
    lines = [line for line in created.stderr.splitlines() if line.startswith("read-back: ")]
    assert lines[0] == "read-back: verifying 3 changes: reading them back", created.stderr
    assert lines[-1].startswith("read-back: verifying 3 changes: all converged in "), created.stderr
    assert topics_state(kafka_single, topic_prefix) == dict.fromkeys(names, 6)
    assert topic_configs(kafka_single, names) == dict.fromkeys(names, configs)

    changed = {**configs, "retention.ms": "172800000"}
    write_manifests(tmp_path / "m", ownership(topic_prefix) + topic_doc(names[0], partitions=6, configs=changed))
    (tmp_path / "m" / "rest.yaml").write_text("".join(topic_doc(n, partitions=6, configs=configs) for n in names[1:]))
    updated = cli(["apply", str(directory), *target, "--auto-approve"])
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert "read-back: verifying 1 change: reading them back" in updated.stderr
    assert topic_configs(kafka_single, names)[names[0]] == changed


def test_a_read_of_some_config_keys_gets_those_from_the_broker_and_the_whole_topic_otherwise(
    kafka_single: KafkaCluster, topic_prefix: str
) -> None:
    """The read-back asks a topic only for the keys the apply wrote; the real broker answers with those alone."""
    from reconciler.kafka.adapter import KafkaAdapter
    from reconciler.kafka.results import TopicSpec

    name = f"{topic_prefix}keys"
    configs = {"retention.ms": "86400000", "segment.bytes": "268435456"}
    with KafkaAdapter(kafka_single.connection_settings()) as adapter:
        spec = TopicSpec(name=name, partitions=3, replication_factor=1, configs=configs)
        assert all(r.ok for r in adapter.create_topics([spec]))
        assert not adapter.wait_topics_present([name], timeout_s=60)
        some = adapter.read_state(
            kinds=frozenset({Kind.TOPIC}),
            scope=state.ReadScope(topics=frozenset({name}), topic_config_keys=frozenset({"retention.ms"})),
        )
        none = adapter.read_state(
            kinds=frozenset({Kind.TOPIC}),
            scope=state.ReadScope(topics=frozenset({name}), topic_config_keys=frozenset()),
        )
    assert (some.topics or {})[name].configs == {"retention.ms": "86400000"}
    assert (some.topics or {})[name].partitions == 3
    assert (none.topics or {})[name].configs == {} and (none.topics or {})[name].partitions == 3


def test_converged_on_three_brokers_means_each_broker_lists_every_new_and_deleted_topic(
    kafka_cluster3: KafkaCluster, topic_prefix: str
) -> None:
    """Brokers learn of new and deleted topics from the controller at different moments (ZooKeeper mode: through
    UpdateMetadata), and a later plan may ask any of them: the read-back asks each broker's own metadata before it
    calls the apply converged, and right after it every broker lists exactly what was applied."""
    from reconciler.apply import ApplyOptions, apply_plan
    from reconciler.kafka.adapter import KafkaAdapter
    from reconciler.model import desired
    from tests.support.live import plan_now, settings

    names = [f"{topic_prefix}spread-{i:02d}" for i in range(40)]
    own = desired.Ownership(topics=(desired.NamePattern("prefix", topic_prefix),), delete={Kind.TOPIC: True})
    create = desired.DesiredState(topics={n: desired.DesiredTopic(n, 3, 2, {}) for n in names}, ownership=own)
    drop = desired.DesiredState(topics={n: create.topics[n] for n in names[10:]}, ownership=own)
    for wanted, shown in ((create, set(names)), (drop, set(names[10:]))):
        with KafkaAdapter(settings(kafka_cluster3)) as adapter:
            report = apply_plan(plan_now(adapter, wanted), adapter, options=ApplyOptions(deadline_s=120))
            assert report.converged is True and report.exit_code == 0, report.to_json()
            asked = report.requests_by_api.get("Metadata", 0)
        with KafkaAdapter(settings(kafka_cluster3)) as fresh:  # another client, as a later plan would be
            views = fresh.topic_views(names)
        assert sorted(views) == [n.node_id for n in kafka_cluster3.nodes]
        assert {broker: set(seen) for broker, seen in views.items()} == dict.fromkeys(views, shown)
        assert all(seen[n] == 3 for seen in views.values() for n in shown)
        assert asked >= len(views), "the read-back asked each broker"

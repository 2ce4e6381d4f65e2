"""Apply at production size on a real broker: batches the KRaft controller would refuse as too large.

The controller writes at most 10,000 metadata records per request (a topic, each of its configs and each of its
partitions is one); the adapter packs requests under that limit, and halves a request the broker still refuses.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka.admin import ConfigResource

from reconciler.apply import ApplyOptions, Outcome, apply_plan
from reconciler.apply.events import ApplyEvent, EventKind
from reconciler.kafka import limits
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import TopicSpec
from tests.kafka.cluster import KafkaCluster
from tests.kafka.kinds import single_node
from tests.support.integration import kraft_only, make_plan, write_manifests

pytestmark = [
    pytest.mark.kafka,
    pytest.mark.slow,
    kraft_only(
        "the 10,000-records-per-request limit is the KRaft controller's; a ZooKeeper-mode broker takes any size "
        "(and times a 7,500-partition CreateTopics out instead, so the request counts asserted here do not hold)"
    ),
]
CONFIGS = {"retention.ms": "86400000", "cleanup.policy": "delete", "max.message.bytes": "2097152"}


@pytest.fixture(scope="module")
def kafka_scale() -> Iterator[KafkaCluster]:
    """A node of its own: the session's shared node would carry (or spend minutes deleting) 12,000 partitions."""
    cluster = single_node()
    try:
        yield cluster
    finally:
        cluster.close()


def manifests_of(prefix: str, count: int, *, partitions: int) -> str:
    docs = [
        f"""
apiVersion: kafka-reconciler/v1
kind: Ownership
metadata: {{name: scale}}
spec:
  topics: [{{prefix: "{prefix}"}}]
"""
    ]
    configs = "".join(f"\n    {k}: '{v}'" for k, v in CONFIGS.items())
    for i in range(count):
        docs.append(
            f"""
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {{name: {prefix}t{i:04}}}
spec:
  partitions: {partitions}
  replicationFactor: 1
  configs:{configs}
"""
        )
    return "---".join(docs)


def described(cluster: KafkaCluster, names: list[str]) -> tuple[dict[str, int], dict[str, dict[str, str]]]:
    """Partition counts and topic-level configs of ``names``, as plain kafka-python reports them."""
    with cluster.admin_session() as admin:
        counts = {t["name"]: len(t["partitions"]) for t in admin.describe_topics(names) if not t["error_code"]}
        found = admin.describe_configs([ConfigResource("TOPIC", n) for n in names])["topic"]
    configs = {
        name: {k: v["value"] for k, v in entries.items() if v["config_source"] == "DYNAMIC_TOPIC_CONFIG"}
        for name, entries in found.items()
    }
    return counts, configs


def test_a_request_the_broker_refuses_as_too_large_is_halved_and_sent_again(
    kafka_scale: KafkaCluster, topic_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pretend the controller took 100,000 records, lift the entity bound and size no request by its answer time:
    # the first request (12,000 records) goes out whole.
    monkeypatch.setattr(limits, "MAX_RECORDS_PER_REQUEST", 100_000)
    monkeypatch.setattr(limits, "MAX_ENTITIES_PER_REQUEST", 10_000)
    monkeypatch.setattr(limits, "FIRST_REQUEST_RECORDS", 100_000)
    monkeypatch.setattr(limits, "ANSWER_EVERY_S", 1e9)
    ten = {f"segment.{k}": v for k, v in {"ms": "3600000", "bytes": "104857600", "jitter.ms": "0"}.items()}
    ten |= {"retention.ms": "86400000", "retention.bytes": "-1", "cleanup.policy": "delete"}
    ten |= {"max.message.bytes": "2097152", "min.insync.replicas": "1", "flush.ms": "9223372036854775807"}
    ten |= {"message.timestamp.type": "CreateTime"}
    assert len(ten) == 10
    specs = [TopicSpec(f"{topic_prefix}t{i:04}", partitions=1, replication_factor=1, configs=ten) for i in range(1000)]
    with KafkaAdapter(kafka_scale.connection_settings()) as adapter:
        results = adapter.create_topics(specs)
        requests = adapter.request_counts["CreateTopics"]
        assert adapter.wait_topics_present([s.name for s in specs], timeout_s=120) == frozenset()

    assert [r.key for r in results] == [s.name for s in specs]
    assert [r.describe() for r in results if not r.ok] == []
    # Refused whole (POLICY_VIOLATION), then two requests of 500 topics (6,000 records) each.
    assert requests == 3
    counts, configs = described(kafka_scale, [s.name for s in specs])
    assert counts == {s.name: 1 for s in specs}
    assert all(found == ten for found in configs.values())


def test_a_thousand_topics_of_twelve_partitions_apply_in_requests_sized_by_cost_and_converge(
    kafka_scale: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    # 1,000 x (1 topic + 3 configs + 12 partitions) = 16,000 records: one request would be refused. The first
    # request carries at most limits.FIRST_REQUEST_RECORDS (1,000: 62 topics), each later one what the controller
    # answers in about 1.5 s, never past 10,000 records.
    directory = write_manifests(tmp_path / "m", manifests_of(topic_prefix, 1000, partitions=12))
    names = [f"{topic_prefix}t{i:04}" for i in range(1000)]
    events: list[ApplyEvent] = []
    with KafkaAdapter(kafka_scale.connection_settings()) as adapter:
        p = make_plan(adapter, directory)
        assert len(p.actionable) == 1000
        report = apply_plan(p, adapter, options=ApplyOptions(deadline_s=240), events=events.append)

        assert [i.outcome for i in report.items] == [Outcome.APPLIED] * 1000, [
            f"{i.address}: {i.error_name} {i.message}" for i in report.items if i.outcome is not Outcome.APPLIED
        ][:5]
        assert sorted(i.address for i in report.items) == [f"topic/{n}" for n in names]
        (phase,) = report.phases
        answered = [e.done for e in events if e.kind is EventKind.ANSWERED]
        assert answered[0] == 62 and answered[-1] == 1000
        assert phase.requests_by_api.get("CreateTopics") == len(answered) >= 2
        # A single broker creates 12,000 partition logs before its metadata shows the last topics: the read-back
        # waits for them (in proportion to the partitions created) and reports the cluster converged.
        assert report.converged and report.exit_code == 0, report.notes
        assert make_plan(adapter, directory).actionable == ()

    counts, configs = described(kafka_scale, names)
    assert counts == dict.fromkeys(names, 12)
    assert configs == dict.fromkeys(names, CONFIGS)

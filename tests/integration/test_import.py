"""``import`` against a real SASL cluster with an authorizer: hundreds of varied resources, then a plan that is empty.

Resources are created with plain kafka-python (and the adapter where kafka-python has no admin call: client
quotas, dynamic broker configs). The import reads the whole cluster as the command does; the node is shared
with other tests of the session, so anything the import could not express must be explained by its report,
and every resource this test created must be declared and unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka.admin import (
    ACL,
    UserScramCredentialUpsertion,
)

from reconciler import manifests, operations
from reconciler.adopt import from_live
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import state
from reconciler.model.kinds import Kind
from reconciler.model.payloads import ConfigOp
from tests.kafka.cluster import KafkaCluster
from tests.support import builders
from tests.support.polling import eventually

# On every Kafka version: a whole-cluster read and what each release cannot express.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]

TOPIC_CONFIGS = [
    {},
    {"retention.ms": "604800000"},
    {"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.2"},
    {"cleanup.policy": "compact,delete", "retention.ms": "3600001"},
    {"segment.bytes": "134217728", "max.message.bytes": "2097152"},
    {"compression.type": "zstd", "retention.bytes": "1073741824"},
    {"message.timestamp.type": "LogAppendTime", "min.insync.replicas": "1"},
    {"preallocate": "true", "segment.ms": "86400000", "delete.retention.ms": "60000"},
]
DEFAULT_QUOTAS = {
    state.QuotaEntity.of(user=None): {"producer_byte_rate": 104857600.0},
    state.QuotaEntity.of(user=None, client_id=None): {"consumer_byte_rate": 209715200.0},
    state.QuotaEntity.of(ip=None): {"connection_creation_rate": 1000.0},
}
BROKER_KEY = "log.cleaner.backoff.ms"


def acl(principal: str, op: str, rtype: str, name: str, *, prefixed: bool = False, deny: bool = False) -> ACL:
    """A plain kafka-python ACL; a DENY is from host 10.0.0.9."""
    binding = builders.acl(
        principal,
        op,
        name,
        resource=rtype,
        pattern="PREFIXED" if prefixed else "LITERAL",
        host="10.0.0.9" if deny else "*",
        permission="DENY" if deny else "ALLOW",
    )
    return builders.kafka_acl(binding)


def bindings_for(prefix: str, i: int) -> list[ACL]:
    p = f"User:{prefix}app-{i}"
    return [
        acl(p, "READ", "TOPIC", f"{prefix}topic-{i:03d}"),
        acl(p, "DESCRIBE", "TOPIC", f"{prefix}topic-{i:03d}"),
        acl(p, "WRITE", "TOPIC", f"{prefix}out-{i}.", prefixed=True),
        acl(p, "READ", "GROUP", f"{prefix}group-{i}"),
        acl(p, ["WRITE", "DESCRIBE"][i % 2], "TRANSACTIONAL_ID", f"{prefix}tx-{i}-", prefixed=True),
        acl(p, ["IDEMPOTENT_WRITE", "DESCRIBE", "ALTER_CONFIGS"][i % 3], "CLUSTER", "kafka-cluster"),
        acl(p, "DELETE", "TOPIC", f"{prefix}topic-{i:03d}", deny=True),
    ]


@pytest.fixture
def shared_settings(kafka_sasl: KafkaCluster) -> Iterator[None]:
    """Default quotas and dynamic broker configs are node-wide: remove them again after the test."""
    yield
    with KafkaAdapter(kafka_sasl.connection_settings()) as adapter:
        adapter.alter_client_quotas({e: {k: None for k in v} for e, v in DEFAULT_QUOTAS.items()})
        broker = str(adapter.read_state(kinds=frozenset()).brokers[0].id)
        adapter.incremental_alter_configs(
            {
                ("BROKER", state.CLUSTER_DEFAULT): [ConfigOp.delete(BROKER_KEY)],
                ("BROKER", broker): [ConfigOp.delete(BROKER_KEY)],
            }
        )


def create_everything(cluster: KafkaCluster, prefix: str) -> dict[str, int]:
    topics = {
        f"{prefix}topic-{i:03d}": {
            "num_partitions": 1 + i % 6,
            "replication_factor": 1,
            "configs": TOPIC_CONFIGS[i % len(TOPIC_CONFIGS)],
        }
        for i in range(200)
    }
    acls = [b for i in range(15) for b in bindings_for(prefix, i)]
    users = {f"{prefix}u-256": ("SCRAM-SHA-256", 4096), f"{prefix}u-512": ("SCRAM-SHA-512", 8192)}
    users[f"{prefix}u-4k"] = ("SCRAM-SHA-512", 4096)
    # 200 topics (700 partitions) in one CreateTopics: a ZooKeeper-mode broker on a loaded machine took longer than
    # the harness client's 15 s to answer it, so this set-up request gets a minute
    with cluster.admin_session(request_timeout_ms=60_000) as admin:
        admin.create_topics(topics, wait_for_metadata=True)
        result = admin.create_acls(acls)
        assert not result["failed"], result["failed"]
        for user, (mechanism, iterations) in users.items():
            upsert = UserScramCredentialUpsertion(user, mechanism, f"pw-{user}", iterations=iterations)
            assert admin.alter_user_scram_credentials([upsert]) == {user: None}
    quotas = {
        state.QuotaEntity.of(user=f"{prefix}app-0"): {"producer_byte_rate": 1048576.0, "request_percentage": 150.0},
        state.QuotaEntity.of(user=f"{prefix}app-1", client_id=f"{prefix}c"): {"consumer_byte_rate": 3000.0},
        state.QuotaEntity.of(user=f"{prefix}app-2", client_id=None): {"controller_mutation_rate": 2.5},
        state.QuotaEntity.of(client_id=f"{prefix}batch"): {"producer_byte_rate": 5242880.0},
        state.QuotaEntity.of(ip="10.0.0.9"): {"connection_creation_rate": 7.0},
        **DEFAULT_QUOTAS,
    }
    with KafkaAdapter(cluster.connection_settings()) as adapter:
        assert all(r.ok for r in adapter.alter_client_quotas(quotas))
        broker = str(adapter.read_state(kinds=frozenset()).brokers[0].id)
        results = adapter.incremental_alter_configs(
            {
                ("BROKER", state.CLUSTER_DEFAULT): [ConfigOp.set(BROKER_KEY, "16000")],
                ("BROKER", broker): [ConfigOp.set(BROKER_KEY, "17000")],
            }
        )
        assert all(r.ok for r in results), [r.describe() for r in results]
    return {"topics": len(topics), "acls": len(acls), "users": len(users), "quotas": len(quotas)}


def read_settled(cluster: KafkaCluster, prefix: str, expected_acls: int) -> state.ClusterState:
    """The whole cluster, once the ACLs and broker configs created above are visible (KRaft applies them async)."""

    def settled() -> state.ClusterState | None:
        with KafkaAdapter(cluster.connection_settings()) as adapter:
            live = adapter.read_state(kinds=frozenset(Kind))
        mine = [b for b in live.acls or () if b.principal.startswith(f"User:{prefix}")]
        configs = live.broker_configs or {}
        shown = len(mine) == expected_acls and all(BROKER_KEY in v for v in configs.values() if v is not None)
        return live if shown and len(configs) >= 2 else None

    return eventually(settled, what=f"{expected_acls} ACLs and {BROKER_KEY} on every broker", timeout=30)


def test_plan_after_importing_a_busy_cluster_is_empty(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path, shared_settings: None
) -> None:
    created = create_everything(kafka_sasl, topic_prefix)
    live = read_settled(kafka_sasl, topic_prefix, created["acls"])

    began = time.monotonic()
    with KafkaAdapter(kafka_sasl.connection_settings()) as adapter:
        full = from_live.read_for_adoption(adapter)
    report = from_live.adopt_cluster(full, out_dir=tmp_path / "imported", force=False)
    elapsed = time.monotonic() - began
    print(f"\nimport of {report.summary()}: {elapsed:.2f}s (read + write)")

    env = {name: "not-used-by-plan" for name in report.variables}
    result = manifests.load([tmp_path / "imported"], env=env)
    with KafkaAdapter(kafka_sasl.connection_settings()) as adapter:
        again = operations.read_live(adapter, result.desired)
    p = operations.make_plan(result.desired, again)

    def mine(address: str) -> bool:
        return topic_prefix in address

    assert [c.address for c in p.actionable if mine(c.address)] == []
    assert [u.address for u in p.unmanaged if mine(u.address)] == []
    explained = {n.resource for n in report.notes}
    addresses = [c.address for c in p.actionable] + [u.address for u in p.unmanaged]
    unexplained = [a for a in addresses if a not in explained]
    assert unexplained == [], "changes after import that the report does not explain"

    d = result.desired
    assert len([t for t in d.topics if t.startswith(topic_prefix)]) == created["topics"]
    assert {t: len(s.assignment) for t, s in (live.topics or {}).items() if t.startswith(topic_prefix)} == {
        t: s.partitions for t, s in d.topics.items() if t.startswith(topic_prefix)
    }
    assert len([b for b in d.acls if b.principal.startswith(f"User:{topic_prefix}")]) == created["acls"]
    assert {u for u in d.scram_users if u.startswith(topic_prefix)} == {
        f"{topic_prefix}u-256",
        f"{topic_prefix}u-512",
        f"{topic_prefix}u-4k",
    }
    assert {*DEFAULT_QUOTAS, state.QuotaEntity.of(ip="10.0.0.9")} <= set(d.quotas)
    assert len([e for e in d.quotas if topic_prefix in e.address]) == created["quotas"] - len(DEFAULT_QUOTAS) - 1
    assert {b: c.configs.get(BROKER_KEY) for b, c in d.broker_configs.items()} == {
        state.CLUSTER_DEFAULT: "16000",
        str(live.brokers[0].id): "17000",
    }
    owned = d.ownership
    assert owned.owns_topic(f"{topic_prefix}topic-007") and not owned.owns_topic(f"{topic_prefix}topic-")
    assert not any(owned.may_delete(k) for k in Kind)

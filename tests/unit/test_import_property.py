"""Property: for any live state of valid Kafka resources, planning the imported manifests against it is empty."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconciler import manifests, planner
from reconciler.adopt import from_live
from reconciler.model import state
from reconciler.model.state import AclBinding, Broker, ClusterState, QuotaEntity, ScramCredential, TopicState

# Config values as Kafka returns them, per key.
TOPIC_VALUES = {
    "retention.ms": ["-1", "0", "1000", "3600000", "604800000", "86400001", "9223372036854775807"],
    "retention.bytes": ["-1", "1048576", "1073741824", "1000000"],
    "segment.bytes": ["1048576", "134217728", "1000000000"],
    "cleanup.policy": ["delete", "compact", "compact,delete"],
    "compression.type": ["producer", "zstd", "lz4", "uncompressed"],
    "min.cleanable.dirty.ratio": ["0.01", "0.5", "0.99"],
    "preallocate": ["true", "false"],
    "message.timestamp.type": ["CreateTime", "LogAppendTime"],
    "max.message.bytes": ["1048588", "2097152"],
    "min.insync.replicas": ["1"],
    "unclean.leader.election.enable": ["true", "false"],
}
NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789.-_", min_size=1, max_size=12).filter(
    lambda s: s not in (".", "..") and not s.startswith("__") and s != "default"
)


@st.composite
def topics(draw: st.DrawFn) -> dict[str, TopicState]:
    names = draw(st.lists(NAME, max_size=8, unique_by=lambda n: n.replace(".", "_")))
    out: dict[str, TopicState] = {}
    for name in names:
        rf = draw(st.integers(1, 3))
        partitions = draw(st.integers(1, 6))
        assignment = tuple(tuple((p + r) % 3 + 1 for r in range(rf)) for p in range(partitions))
        keys = draw(st.lists(st.sampled_from(sorted(TOPIC_VALUES)), unique=True, max_size=5))
        configs = {k: draw(st.sampled_from(TOPIC_VALUES[k])) for k in keys}
        out[f"t{name}"] = TopicState(f"t{name}", assignment, configs=configs)
    return out


@st.composite
def acls(draw: st.DrawFn) -> frozenset[AclBinding]:
    found = set()
    for _ in range(draw(st.integers(0, 12))):
        rtype = draw(st.sampled_from(["TOPIC", "GROUP", "TRANSACTIONAL_ID", "CLUSTER"]))
        ops = {
            "TOPIC": ["READ", "WRITE", "DESCRIBE", "ALL", "DESCRIBE_CONFIGS", "ALTER"],
            "GROUP": ["READ", "DESCRIBE", "DELETE"],
            "TRANSACTIONAL_ID": ["WRITE", "DESCRIBE"],
            "CLUSTER": ["IDEMPOTENT_WRITE", "DESCRIBE", "ALTER_CONFIGS"],
        }[rtype]
        pattern = "LITERAL" if rtype == "CLUSTER" else draw(st.sampled_from(["LITERAL", "PREFIXED"]))
        name = "kafka-cluster" if rtype == "CLUSTER" else draw(NAME)
        principal = draw(st.sampled_from(["User:alice", "User:svc-1", "User:*", "User:CN=app,O=corp"]))
        found.add(
            AclBinding(
                rtype,
                pattern,
                name,
                principal,
                draw(st.sampled_from(["*", "10.0.0.1", "::1"])),
                draw(st.sampled_from(ops)),
                draw(st.sampled_from(["ALLOW", "DENY"])),
            )
        )
    return frozenset(found)


@st.composite
def quotas(draw: st.DrawFn) -> dict[QuotaEntity, dict[str, float]]:
    user = st.one_of(st.none(), NAME)
    entity = st.one_of(
        st.builds(lambda u: QuotaEntity.of(user=u), user),
        st.builds(lambda u, c: QuotaEntity.of(user=u, client_id=c), user, user),
        st.builds(lambda c: QuotaEntity.of(client_id=c), user),
    )
    rate = st.sampled_from([1.0, 1024.0, 1048576.0, 1500.5, 1e9])
    out: dict[QuotaEntity, dict[str, float]] = {}
    for e in draw(st.lists(entity, max_size=5)):
        keys = draw(st.lists(st.sampled_from(["producer_byte_rate", "consumer_byte_rate", "request_percentage"]),
                             min_size=1, unique=True))  # fmt: skip
        out[e] = {k: draw(rate) for k in keys}
    if draw(st.booleans()):
        out[QuotaEntity.of(ip=None)] = {"connection_creation_rate": draw(rate)}
    return out


@st.composite
def live_states(draw: st.DrawFn) -> ClusterState:
    users = draw(st.dictionaries(NAME, st.sampled_from(["SCRAM-SHA-256", "SCRAM-SHA-512"]), max_size=3))
    iterations = st.sampled_from([4096, 8192, 16384])
    default_configs = {"log.cleaner.threads": "2"} if draw(st.booleans()) else {}
    return ClusterState(
        cluster_id="c",
        controller_id=1,
        brokers=(Broker(1, "a", 9092), Broker(2, "b", 9092), Broker(3, "c", 9092)),
        topics=draw(topics()),
        acls=draw(acls()),
        quotas=draw(quotas()),
        scram_users={u: (ScramCredential(m, draw(iterations)),) for u, m in users.items()},
        broker_configs={state.CLUSTER_DEFAULT: default_configs, "2": {"log.retention.ms": "7200000"}},
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(live=live_states())
def test_plan_of_imported_manifests_is_empty(live: ClusterState) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        from_live.adopt_cluster(live, out_dir=out, force=False)
        result = manifests.load([out], env={})
    p = planner.plan(result.desired, live)
    assert [c.address for c in p.actionable] == []
    assert [u.address for u in p.unmanaged] == []
    assert set(result.desired.acls) == set(live.acls or ())
    assert set(result.desired.topics) == set(live.topics or {})

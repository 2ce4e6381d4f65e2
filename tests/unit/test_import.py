"""``import`` on plain live states: the written manifests load, and planning them against the same state is empty.

Also what a reviewer reads (grouped ACLs, readable values, ownership naming exactly what was imported), what is
left out with a note instead of breaking the load, and the output directory rules (non-empty, symlinks, modes).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from reconciler import manifests, planner
from reconciler.adopt import from_live, values
from reconciler.base import errors
from reconciler.model import state
from reconciler.model.kinds import Kind
from reconciler.model.state import Broker, ClusterState, QuotaEntity, ScramCredential, TopicState
from tests.support.builders import acl

ENV = {"SCRAM_PASSWORD_ALICE": "a", "SCRAM_PASSWORD_SVC_1": "b", "SCRAM_PASSWORD_BOB": "c"}


def varied_state(**overrides: object) -> ClusterState:
    topics = {
        "orders": TopicState(
            "orders",
            ((1, 2), (2, 3), (3, 1)),
            configs={
                "retention.ms": "604800000",
                "cleanup.policy": "compact,delete",
                "max.message.bytes": "2097152",
                "min.cleanable.dirty.ratio": "0.1",
                "preallocate": "true",
                "compression.type": "zstd",
                "min.insync.replicas": "2",
            },
        ),
        "audit.log": TopicState("audit.log", ((1, 2, 3),), configs={"retention.bytes": "-1", "segment.ms": "3600001"}),
        "plain": TopicState("plain", ((1,), (2,), (3,), (1,))),
        "__consumer_offsets": TopicState("__consumer_offsets", ((1,),), internal=True),
        "connect-offsets": TopicState("connect-offsets", ((1,),), configs={"cleanup.policy": "compact"}),
    }
    base: dict[str, object] = {
        "cluster_id": "c-1",
        "controller_id": 1,
        "brokers": (Broker(1, "h1", 9092), Broker(2, "h2", 9092), Broker(3, "h3", 9092)),
        "topics": topics,
        "broker_configs": {
            state.CLUSTER_DEFAULT: {"log.cleaner.threads": "2", "log.retention.ms": "259200000"},
            "2": {"log.cleaner.io.max.bytes.per.second": "1048576.0"},
            "3": {},
        },
        "acls": frozenset(
            {
                acl("User:alice", "READ", "orders"),
                acl("User:alice", "DESCRIBE", "orders"),
                acl("User:alice", "WRITE", "orders.", pattern="PREFIXED"),
                acl("User:alice", "IDEMPOTENT_WRITE", "kafka-cluster", resource="CLUSTER"),
                acl("User:alice", "READ", "payments", resource="GROUP"),
                acl("User:svc-1", "WRITE", "tx-", resource="TRANSACTIONAL_ID", pattern="PREFIXED"),
                acl("User:*", "DESCRIBE", "*", host="10.0.0.7", permission="DENY"),
            }
        ),
        "quotas": {
            QuotaEntity.of(user="alice"): {"producer_byte_rate": 1048576.0, "request_percentage": 50.5},
            QuotaEntity.of(user="alice", client_id="app"): {"consumer_byte_rate": 3000.0},
            QuotaEntity.of(user=None): {"producer_byte_rate": 10485760.0},
            QuotaEntity.of(user=None, client_id=None): {"controller_mutation_rate": 5.0},
            QuotaEntity.of(client_id="batch"): {"consumer_byte_rate": 1.0e9},
            QuotaEntity.of(ip=None): {"connection_creation_rate": 20.0},
            QuotaEntity.of(ip="10.1.2.3"): {"connection_creation_rate": 2.0},
            QuotaEntity.of(user="empty"): {},
        },
        "scram_users": {
            "alice": (ScramCredential("SCRAM-SHA-512", 8192),),
            "svc-1": (ScramCredential("SCRAM-SHA-256", 4096),),
        },
    }
    base.update(overrides)
    return ClusterState(**base)  # type: ignore[arg-type]


def load(out: Path, env: dict[str, str] | None = None) -> manifests.LoadResult:
    return manifests.load([out], env=ENV if env is None else env)


def assert_plan_empty(out: Path, live: ClusterState, env: dict[str, str] | None = None) -> None:
    result = load(out, env)
    p = planner.plan(result.desired, live)
    assert [c.address for c in p.actionable] == []
    assert [u.address for u in p.unmanaged] == []
    assert p.blocked == ()


def test_plan_right_after_import_shows_no_changes(tmp_path: Path) -> None:
    live = varied_state()
    report = from_live.adopt_cluster(live, out_dir=tmp_path / "out", force=False)
    assert_plan_empty(tmp_path / "out", live)
    assert report.counts["topics"] == 3
    assert report.counts["ACL bindings"] == 7
    assert report.counts["client quotas"] == 7  # the entity without values is not written
    assert report.variables == ["SCRAM_PASSWORD_ALICE", "SCRAM_PASSWORD_SVC_1"]


def test_desired_state_holds_exactly_what_the_cluster_holds(tmp_path: Path) -> None:
    live = varied_state()
    from_live.adopt_cluster(live, out_dir=tmp_path, force=False)
    d = load(tmp_path).desired
    assert set(d.topics) == {"orders", "audit.log", "plain"}
    assert d.topics["orders"].partitions == 3 and d.topics["orders"].replication_factor == 2
    assert dict(d.topics["orders"].configs) == dict(live.topics["orders"].configs)  # type: ignore[index]
    assert set(d.acls) == set(live.acls or ())
    assert {e: dict(q.values) for e, q in d.quotas.items()} == {e: v for e, v in (live.quotas or {}).items() if v}
    assert {u: (s.mechanism, s.iterations, s.password.env) for u, s in d.scram_users.items()} == {
        "alice": ("SCRAM-SHA-512", 8192, "SCRAM_PASSWORD_ALICE"),
        "svc-1": ("SCRAM-SHA-256", 4096, "SCRAM_PASSWORD_SVC_1"),
    }
    assert {b: dict(c.configs) for b, c in d.broker_configs.items()} == {
        state.CLUSTER_DEFAULT: {"log.cleaner.threads": "2", "log.retention.ms": "259200000"},
        "2": {"log.cleaner.io.max.bytes.per.second": "1048576.0"},
    }


def test_ownership_names_exactly_the_imported_resources_with_deletes_off(tmp_path: Path) -> None:
    from_live.adopt_cluster(varied_state(), out_dir=tmp_path, force=False)
    ownership = load(tmp_path).desired.ownership
    assert all(ownership.owns_topic(t) for t in ("orders", "audit.log", "plain"))
    assert not any(ownership.owns_topic(t) for t in ("orders2", "connect-offsets", "__consumer_offsets", "audit"))
    assert {p.value for p in ownership.principals} == {"User:alice", "User:svc-1", "User:*"}
    assert {p.kind for p in ownership.principals} == {"exact"}
    assert not any(
        ownership.may_delete(k) for k in (Kind.TOPIC, Kind.ACL, Kind.QUOTA, Kind.SCRAM_USER, Kind.BROKER_CONFIG)
    )


def test_reviewers_read_grouped_acls_and_readable_values(tmp_path: Path) -> None:
    from_live.adopt_cluster(varied_state(), out_dir=tmp_path, force=False)
    alice = (tmp_path / "acls" / "alice.yaml").read_text()
    assert alice.startswith("# yaml-language-server: $schema=../schemas/Acl.json\n")
    assert "operations: [READ, DESCRIBE]" in alice
    assert "patternType: PREFIXED" in alice
    topics = (tmp_path / "topics.yaml").read_text()
    for line in (
        "retention.ms: 7d",
        "max.message.bytes: 2MiB",
        "cleanup.policy: [compact, delete]",
        "segment.ms: 3600001",
    ):
        assert line in topics
    assert "__consumer_offsets" not in topics and "connect-offsets" not in topics
    assert (tmp_path / "acls" / "all-users.yaml").exists()
    assert (tmp_path / "schemas" / "Topic.json").exists()
    assert "SCRAM_PASSWORD_ALICE" in (tmp_path / "IMPORT.md").read_text()


@pytest.mark.parametrize(
    ("key", "kafka", "written"),
    [
        ("retention.ms", "604800000", "7d"),
        ("retention.ms", "-1", -1),
        ("retention.ms", "9223372036854775807", 9223372036854775807),
        ("segment.bytes", "1073741824", "1GiB"),
        ("segment.bytes", "1000000", 1000000),
        ("min.cleanable.dirty.ratio", "0.5", 0.5),
        ("preallocate", "false", False),
        ("cleanup.policy", "compact", "compact"),
        ("message.timestamp.type", "LogAppendTime", "LogAppendTime"),
        ("unknown.key", "7", "7"),
    ],
)
def test_config_values_are_readable_only_when_they_normalise_back(key: str, kafka: str, written: object) -> None:
    assert values.config_value(key, kafka) == written


def test_output_is_deterministic_whatever_the_read_order(tmp_path: Path) -> None:
    live = varied_state()
    shuffled = varied_state(
        topics=dict(reversed(list((live.topics or {}).items()))),
        quotas=dict(reversed(list((live.quotas or {}).items()))),
    )
    from_live.adopt_cluster(live, out_dir=tmp_path / "a", force=False)
    from_live.adopt_cluster(shuffled, out_dir=tmp_path / "b", force=False)
    a = {p.relative_to(tmp_path / "a"): p.read_bytes() for p in (tmp_path / "a").rglob("*") if p.is_file()}
    b = {p.relative_to(tmp_path / "b"): p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file()}
    assert a == b


def test_literal_dollar_braces_stay_literal(tmp_path: Path) -> None:
    live = varied_state(acls=frozenset({acl("User:alice", "READ", "grp-${HOME}", resource="GROUP")}))
    from_live.adopt_cluster(live, out_dir=tmp_path, force=False)
    d = load(tmp_path, env={**ENV, "HOME": "/root"}).desired
    assert {b.resource_name for b in d.acls} == {"grp-${HOME}"}


def test_what_cannot_be_expressed_is_left_out_with_a_note_and_the_rest_loads(tmp_path: Path) -> None:
    live = varied_state(
        topics={
            "t": TopicState(
                "t",
                ((1,), (1,)),
                configs={"min.insync.replicas": "2", "confluent.placement": "x", "retention.ms": "1000"},
            )
        },
        acls=frozenset({acl("Group:ops", "READ", "t"), acl("User:bob", "READ", "t")}),
        quotas={QuotaEntity.of(user="default"): {"producer_byte_rate": 1.0}},
        scram_users={"bob": (ScramCredential("SCRAM-SHA-256", 4096), ScramCredential("SCRAM-SHA-512", 4096))},
        broker_configs={"1": {"listener.name.x.ssl.keystore.password": None}},
        broker_config_sensitive=frozenset({"listener.name.x.ssl.keystore.password"}),
    )
    report = from_live.adopt_cluster(live, out_dir=tmp_path, force=False)
    text = "\n".join(report.lines())
    assert "min.insync.replicas=2 left out" in text
    assert "confluent.placement=x is not a topic config" in text
    assert "acl/Group:ops/" in text and "principal type 'Group' is not supported" in text
    assert "literally named 'default'" in text
    assert "has both SCRAM-SHA-256 and SCRAM-SHA-512" in text
    assert "listener.name.x.ssl.keystore.password is a secret" in text
    assert not (tmp_path / "brokers.yaml").exists()  # its only key was a secret
    d = load(tmp_path, env={"SCRAM_PASSWORD_BOB": "x"}).desired
    assert dict(d.topics["t"].configs) == {"retention.ms": "1000"}
    assert {b.principal for b in d.acls} == {"User:bob"}
    assert d.scram_users["bob"].mechanism == "SCRAM-SHA-512"
    assert d.broker_configs == {}


def test_secret_topic_config_becomes_a_variable_and_plans_clean(tmp_path: Path) -> None:
    topic = TopicState("vault", ((1,),), configs={"x.password": None}, sensitive=frozenset({"x.password"}))
    live = varied_state(topics={"vault": topic}, acls=frozenset(), quotas={}, scram_users={}, broker_configs={})
    report = from_live.adopt_cluster(live, out_dir=tmp_path, force=False)
    assert report.variables == ["TOPIC_VAULT_X_PASSWORD"]
    assert [n.severity for n in report.notes if n.resource == "topic/vault"] == ["todo"]
    assert "x.password: ${TOPIC_VAULT_X_PASSWORD}" in (tmp_path / "topics.yaml").read_text()
    with pytest.raises(errors.ValidationFailed):  # the topic config catalogue does not know this key
        load(tmp_path, env={"TOPIC_VAULT_X_PASSWORD": "s3cret"})


def test_sections_that_could_not_be_read_are_not_managed(tmp_path: Path) -> None:
    live = varied_state(acls=None, unavailable={"acl": "no authorizer"})
    report = from_live.adopt_cluster(live, out_dir=tmp_path, force=False)
    ownership = load(tmp_path).desired.ownership
    assert "acl" not in ownership.managed_kinds and "topic" in ownership.managed_kinds
    assert any(n.message == "not imported: no authorizer" for n in report.notes)


def test_refuses_a_non_empty_directory_unless_forced(tmp_path: Path) -> None:
    (tmp_path / "old.yaml").write_text("# mine\n")
    with pytest.raises(errors.ConfigError, match="not empty"):
        from_live.adopt_cluster(varied_state(), out_dir=tmp_path, force=False)
    assert not (tmp_path / "topics.yaml").exists()
    report = from_live.adopt_cluster(varied_state(), out_dir=tmp_path, force=True)
    assert (tmp_path / "topics.yaml").exists()
    assert report.leftovers == [tmp_path / "old.yaml"]
    assert (tmp_path / "old.yaml").read_text() == "# mine\n"


def test_never_writes_through_a_symlink_and_files_are_user_only(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "topics.yaml").symlink_to(target)
    with pytest.raises(errors.ConfigError, match="cannot write"):
        from_live.adopt_cluster(varied_state(), out_dir=out, force=True)
    assert target.read_text() == "keep\n"
    fresh = tmp_path / "fresh"
    report = from_live.adopt_cluster(varied_state(), out_dir=fresh, force=False)
    assert report.files
    assert {stat.S_IMODE(os.stat(p).st_mode) for p in report.files} == {0o600}

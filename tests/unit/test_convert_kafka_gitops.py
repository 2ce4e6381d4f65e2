"""``convert --from kafka-gitops`` on the sample state files: topics, services as role grants, users, custom ACLs.

The ACLs kafka-gitops itself generates for each service (its documented READ/WRITE/group bindings) must all be in
the converted desired state; the only additions are the ones docs/adopting.md lists for each role grant.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler import manifests
from reconciler.convert import build_conversion, convert
from reconciler.model.kinds import Kind
from reconciler.model.state import AclBinding
from tests.support.builders import allow

SAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "convert" / "kafka-gitops"


@pytest.fixture
def loaded(tmp_path: Path) -> manifests.LoadResult:
    convert("kafka-gitops", [SAMPLES / "state.yaml"], out_dir=tmp_path / "out", force=False)
    return manifests.load([tmp_path / "out"], env={})


def test_topics_with_defaults_and_configs(loaded: manifests.LoadResult) -> None:
    topics = loaded.desired.topics
    assert {n: (t.partitions, t.replication_factor) for n, t in topics.items()} == {
        "orders.created": (12, 3),
        "orders.enriched": (12, 2),
        "customers": (6, 3),
        "connect-configs-sink-cluster": (1, 3),
        "connect-offsets-sink-cluster": (25, 3),
        "connect-status-sink-cluster": (5, 3),
        "warehouse.loads": (3, 3),
    }
    assert dict(topics["orders.created"].configs) == {"retention.ms": "604800000", "min.insync.replicas": "2"}
    assert dict(topics["customers"].configs) == {"cleanup.policy": "compact"}


def by_principal(acls: set[AclBinding], principal: str) -> set[AclBinding]:
    return {b for b in acls if b.principal == principal}


def test_services_map_onto_role_grants_with_the_same_access(loaded: manifests.LoadResult) -> None:
    acls = set(loaded.desired.acls)
    order = "User:order-service"
    assert by_principal(acls, order) == (
        allow(order, "TOPIC", "orders.created", "WRITE", "DESCRIBE")
        | allow(order, "TOPIC", "customers", "READ", "DESCRIBE")
        | allow(order, "GROUP", "order-service", "READ")
        | allow(order, "TOPIC", "orders.", "READ", pattern="PREFIXED")  # customServiceAcls
    )
    billing = "User:billing"
    assert by_principal(acls, billing) == (
        allow(billing, "TOPIC", "orders.created", "READ", "DESCRIBE")
        | allow(billing, "GROUP", "billing-consumers", "READ")
    )
    streams = "User:enricher"
    assert by_principal(acls, streams) == (
        allow(streams, "TOPIC", "orders.created", "READ", "DESCRIBE")
        | allow(streams, "TOPIC", "customers", "READ", "DESCRIBE")
        | allow(streams, "TOPIC", "orders.enriched", "WRITE", "DESCRIBE")
        | allow(streams, "TOPIC", "order-enricher-", "ALL", pattern="PREFIXED")
        | allow(streams, "GROUP", "order-enricher", "READ", "DESCRIBE")
    )
    connect = "User:connect"
    storage = ("connect-configs-sink-cluster", "connect-offsets-sink-cluster", "connect-status-sink-cluster")
    assert by_principal(acls, connect) == (
        allow(connect, "GROUP", "sink-cluster", "READ")
        | {b for t in storage for b in allow(connect, "TOPIC", t, "READ", "WRITE", "DESCRIBE", "DESCRIBE_CONFIGS")}
        | allow(connect, "TOPIC", "warehouse.loads", "WRITE", "DESCRIBE")
        | allow(connect, "TOPIC", "orders.enriched", "READ", "DESCRIBE")
        | allow(connect, "GROUP", "connect-warehouse-sink", "READ")
    )


def test_every_acl_kafka_gitops_generates_is_kept(loaded: manifests.LoadResult) -> None:
    """The bindings kafka-gitops documents for these services: READ/WRITE per topic, READ on the group."""
    generated = (
        allow("User:order-service", "TOPIC", "orders.created", "WRITE")
        | allow("User:order-service", "TOPIC", "customers", "READ")
        | allow("User:order-service", "GROUP", "order-service", "READ")
        | allow("User:billing", "TOPIC", "orders.created", "READ")
        | allow("User:billing", "GROUP", "billing-consumers", "READ")
        | allow("User:enricher", "TOPIC", "orders.enriched", "WRITE")
        | allow("User:enricher", "GROUP", "order-enricher", "READ")
        | allow("User:connect", "TOPIC", "orders.enriched", "READ")
        | allow("User:connect", "GROUP", "connect-warehouse-sink", "READ")
        | allow("User:connect", "GROUP", "sink-cluster", "READ")
        | allow("User:connect", "TOPIC", "connect-offsets-sink-cluster", "READ", "WRITE")
    )
    assert generated <= set(loaded.desired.acls)


def test_user_roles_and_custom_user_acls_are_exact_bindings(loaded: manifests.LoadResult) -> None:
    acls = set(loaded.desired.acls)
    alice = "User:alice"
    assert by_principal(acls, alice) == (
        allow(alice, "TOPIC", "*", "READ", "DESCRIBE", "DESCRIBE_CONFIGS")
        | allow(alice, "GROUP", "*", "READ", "DESCRIBE")
        | allow(alice, "CLUSTER", "kafka-cluster", "DESCRIBE")
        | allow(alice, "TOPIC", "customers", "ALTER_CONFIGS")
    )
    assert by_principal(acls, "User:deploy-bot") == allow("User:deploy-bot", "TOPIC", "*", "WRITE")


def test_blacklist_becomes_the_ownership_rule(loaded: manifests.LoadResult) -> None:
    ownership = loaded.desired.ownership
    assert ownership.owns_topic("orders.created") and ownership.owns_topic("anything-else")
    assert not ownership.owns_topic("_confluent-metrics") and not ownership.owns_topic("scratch.tmp")
    assert ownership.owns_topic("scratch-not-the-prefix")
    assert ownership.owns_principal("User:enricher") and not ownership.owns_principal("User:stranger")
    assert not any(ownership.may_delete(k) for k in (Kind.TOPIC, Kind.ACL))


def test_whitelist_prefixes_become_prefix_rules(tmp_path: Path) -> None:
    state = tmp_path / "state.yaml"
    state.write_text(
        "settings:\n  topics:\n    whitelist:\n      prefixed: [team-a.]\n"
        "topics:\n  team-a.x: {partitions: 1, replication: 1}\n"
    )
    convert("kafka-gitops", [state], out_dir=tmp_path / "out", force=False)
    ownership = manifests.load([tmp_path / "out"]).desired.ownership
    assert ownership.owns_topic("team-a.y") and not ownership.owns_topic("team-b.y")


def test_confluent_cloud_files_report_what_has_no_equivalent(tmp_path: Path) -> None:
    report = convert("kafka-gitops", [SAMPLES / "ccloud.yaml"], out_dir=tmp_path / "out", force=False)
    text = (tmp_path / "out" / "CONVERSION.md").read_text()
    assert "Confluent Cloud mode has no equivalent" in text
    assert "`services.payments`: no principal" in text
    assert "`settings.schemaRegistry`: has no equivalent" in text
    result = manifests.load([tmp_path / "out"])
    assert set(result.desired.topics) == {"payments.settled"}
    assert not result.desired.acls
    assert report.counts == {"topics": 1}


def test_several_state_files_are_merged_first_declaration_wins(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("topics:\n  t: {partitions: 2, replication: 1}\n")
    (tmp_path / "b.yaml").write_text(
        "topics:\n  t: {partitions: 9, replication: 1}\n  u: {partitions: 1, replication: 1}\n"
    )
    files, report = build_conversion("kafka-gitops", [tmp_path / "a.yaml", tmp_path / "b.yaml"])
    topics = {d.name: d.spec["partitions"] for f in files if f.path == "topics.yaml" for d in f.documents}
    assert topics == {"t": 2, "u": 1}
    assert any(n.resource == "topics.t" and "declared again" in n.message for n in report.notes)

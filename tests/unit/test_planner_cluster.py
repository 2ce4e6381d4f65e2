"""Planner rules for dynamic broker configs, cluster lint, ordering, determinism and fingerprints."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from reconciler.base import errors
from reconciler.model import plans
from reconciler.model.desired import DesiredState, DesiredTopic
from reconciler.model.kinds import Kind
from reconciler.model.state import CLUSTER_DEFAULT, ClusterState, QuotaEntity, ScramCredential
from reconciler.planner import live_fingerprint, live_view, plan
from reconciler.planner.views import fingerprint_of
from tests.support.builders import (
    acl,
    attrs,
    brokers,
    cluster,
    live_topic,
    only,
    rows,
    scram_user,
    topic,
    want,
)

DEFAULT_ADDR = f"broker_config/{CLUSTER_DEFAULT}"


@pytest.mark.parametrize(
    ("declared", "live", "delete", "expected_attrs", "unmanaged"),
    [
        pytest.param(
            {CLUSTER_DEFAULT: {"log.cleaner.threads": "2"}},
            {},
            False,
            {"configs.log.cleaner.threads": (None, "2")},
            [],
            id="set",
        ),
        pytest.param(
            {CLUSTER_DEFAULT: {"log.cleaner.threads": "2"}},
            {CLUSTER_DEFAULT: {"log.cleaner.threads": "2"}},
            False,
            None,
            [],
            id="equal",
        ),
        pytest.param(
            {CLUSTER_DEFAULT: {"log.cleaner.threads": "2"}},
            {CLUSTER_DEFAULT: {"log.cleaner.threads": "1", "message.max.bytes": "2000000"}},
            True,
            {"configs.log.cleaner.threads": ("1", "2"), "configs.message.max.bytes": ("2000000", None)},
            [],
            id="reset-undeclared-when-allowed",
        ),
        pytest.param(
            {CLUSTER_DEFAULT: {"log.cleaner.threads": "2"}},
            {CLUSTER_DEFAULT: {"log.cleaner.threads": "2", "message.max.bytes": "2000000"}},
            False,
            None,
            [DEFAULT_ADDR],
            id="undeclared-key-unmanaged",
        ),
        pytest.param(
            {CLUSTER_DEFAULT: {"log.cleaner.threads": "2"}},
            {CLUSTER_DEFAULT: {"log.cleaner.threads": "2"}, "1": {"listener.name.x.ssl.keystore.location": "/k"}},
            True,
            None,
            [],
            id="undeclared-entry-invisible",
        ),
    ],
)
def test_broker_config_rules(
    declared: dict[str, dict[str, str]],
    live: dict[str, dict[str, str | None]],
    delete: bool,
    expected_attrs: dict[str, tuple[object, object]] | None,
    unmanaged: list[str],
) -> None:
    result = plan(
        want(broker_configs=declared, delete=["broker_config"] if delete else []), cluster(broker_configs=live)
    )
    if expected_attrs is None:
        assert result.changes == ()
    else:
        change = only(result, DEFAULT_ADDR)
        assert (change.action, change.phase) == (plans.Action.UPDATE, plans.Phase.BROKER_CONFIG)
        assert attrs(change) == expected_attrs
    assert [u.address for u in result.unmanaged] == unmanaged


def test_broker_config_for_unknown_broker_is_blocked() -> None:
    result = plan(want(broker_configs={"7": {"log.cleaner.threads": "2"}}), cluster())
    change = only(result, "broker_config/7")
    assert change.action is plans.Action.BLOCKED
    assert "broker 7 is not in the cluster" in change.reasons[0]


def test_sensitive_broker_config_is_redacted() -> None:
    declared = {"1": {"listener.name.internal.ssl.key.password": "hunter2"}}
    result = plan(want(broker_configs=declared), cluster(broker_configs={}))
    assert attrs(only(result, "broker_config/1")) == {
        "configs.listener.name.internal.ssl.key.password": (None, plans.REDACTED)
    }
    assert "hunter2" not in result.to_json()


# ------------------------------------------------------------------------------------------------ lint
def _codes(result: plans.Plan) -> list[tuple[str, str | None, str]]:
    return [(w.code, w.address, w.severity) for w in result.warnings]


@pytest.mark.parametrize(
    ("cluster_configs", "declared", "expected"),
    [
        ({"auto.create.topics.enable": "true"}, [], [("auto-create-enabled", None, "warning")]),
        ({"auto.create.topics.enable": "false"}, [], []),
        ({"min.insync.replicas": "2"}, [topic("t", rf=2)], [("replication-below-min-isr", "topic/t", "warning")]),
        ({"min.insync.replicas": "2"}, [topic("t", rf=3)], []),
        (
            {},
            [topic("t", rf=3, configs={"min.insync.replicas": "3"})],
            [("replication-below-min-isr", "topic/t", "warning")],
        ),
        ({}, [topic("t", rf=1)], [("replication-below-min-isr", "topic/t", "warning")]),
    ],
)
def test_lint(
    cluster_configs: dict[str, str | None], declared: list[DesiredTopic], expected: list[tuple[str, str | None, str]]
) -> None:
    live = cluster(
        topics=[live_topic(t.name, t.partitions, t.replication_factor) for t in declared],
        cluster_configs=cluster_configs,
    )
    assert _codes(plan(want(topics=declared), live)) == expected


def test_lint_single_rack_partitions() -> None:
    racked = brokers(4, racks=["a", "a", "b", "b"])
    live = live_topic("t", 2, 2, assignment=((1, 2), (1, 3)))
    result = plan(want(topics=[topic("t", 2, 2)]), cluster(broker_list=racked, topics=[live]))
    assert _codes(result) == [("single-rack", "topic/t", "warning")]
    assert "1 of 2 partition(s)" in result.warnings[0].message


def test_lint_checks_the_reassignment_target_not_the_old_layout() -> None:
    racked = brokers(4, racks=["a", "a", "b", "b"])
    live = live_topic("t", 2, 1, assignment=((1,), (2,)))
    result = plan(want(topics=[topic("t", 2, 2)]), cluster(broker_list=racked, topics=[live]))
    assert [w.code for w in result.warnings] == []


# -------------------------------------------------------------------------------------- whole plan
def _rich_inputs() -> tuple[DesiredState, ClusterState]:
    desired = want(
        topics=[topic("a-new", 3, 3), topic("a-grow", 6, 3, configs={"retention.ms": "86400000"})],
        acls=[acl("User:app", "READ", "a-", pattern="PREFIXED")],
        quotas={QuotaEntity.of(user="app"): {"producer_byte_rate": 1e6}},
        scram=[scram_user("app")],
        broker_configs={CLUSTER_DEFAULT: {"log.cleaner.threads": "2"}},
        own_topics=["a-"],
        own_principals=["User:app"],
        delete=["topic", "acl"],
    )
    live = cluster(
        topics=[live_topic("a-grow", 3), live_topic("a-old"), live_topic("zz")],
        acls=[acl("User:app", "READ", "a-grow")],
        scram={"app": (ScramCredential("SCRAM-SHA-512", 4096),)},
    )
    return desired, live


def test_changes_come_in_phase_order() -> None:
    desired, live = _rich_inputs()
    assert [c.phase for c in plan(desired, live).changes] == sorted(c.phase for c in plan(desired, live).changes)
    assert rows(plan(desired, live)) == [
        ("-", "ACL_DELETE", acl("User:app", "READ", "a-grow").address),
        ("-", "TOPIC_DELETE", "topic/a-old"),
        ("+", "TOPIC_CREATE", "topic/a-new"),
        ("~", "PARTITIONS", "topic/a-grow"),
        ("~", "TOPIC_CONFIG", "topic/a-grow"),
        ("+", "QUOTA", "quota/user=app"),
        ("~", "SCRAM", "scram_user/app"),
        ("~", "BROKER_CONFIG", DEFAULT_ADDR),
        ("+", "ACL_CREATE", acl("User:app", "READ", "a-", pattern="PREFIXED").address),
    ]


def test_same_inputs_give_byte_identical_plans_whatever_the_input_order() -> None:
    desired, live = _rich_inputs()
    first = plan(desired, live).to_json()
    assert live.topics is not None and live.scram_users is not None
    shuffled_topics = list(live.topics.items())
    random.Random(7).shuffle(shuffled_topics)
    live2 = cluster(topics=[t for _, t in shuffled_topics], acls=live.acls, scram=dict(live.scram_users))
    assert plan(desired, live2).to_json() == first


def test_plan_json_round_trips_and_detects_tampering() -> None:
    desired, live = _rich_inputs()
    result = plan(desired, live)
    assert plans.Plan.from_json_dict(json.loads(result.to_json())) == result
    doc = json.loads(result.to_json())
    doc["changes"][0]["action"] = "create"
    with pytest.raises(errors.PlanFileError, match="checksum mismatch"):
        plans.Plan.from_json_dict(doc)


def test_plan_records_cluster_options_and_unchanged_counts() -> None:
    desired = want(topics=[topic("same")], scram=[scram_user("app")])
    live = cluster(topics=[live_topic("same")], scram={"app": (ScramCredential("SCRAM-SHA-512", 8192),)})
    result = plan(desired, live)
    assert result.cluster.cluster_id == "test-cluster-id" and len(result.cluster.brokers) == 3
    assert result.unchanged == {"scram_user": 1, "topic": 1}
    assert result.summary().unchanged == 2
    assert result.summary().line() == "No changes. The cluster matches the manifests."
    assert result.options == {
        "rotate_scram_users": [],
        "allow_delete_in_use": False,
        "in_use_window_ms": 7 * 24 * 3600 * 1000,
        "kinds": ["scram_user", "topic"],
    }
    assert result.live_fingerprint == live_fingerprint(live, kinds=[Kind.SCRAM_USER, Kind.TOPIC])


def test_live_fingerprint_moves_with_any_read_section() -> None:
    live = cluster(topics=[live_topic("t")])
    other = cluster(topics=[live_topic("t", configs={"retention.ms": "1"})])
    assert live_fingerprint(live, kinds=[Kind.TOPIC]) != live_fingerprint(other, kinds=[Kind.TOPIC])
    assert live_fingerprint(live, kinds=[Kind.ACL]) == live_fingerprint(other, kinds=[Kind.ACL])


def test_live_fingerprint_is_the_sha256_of_canonical_json_that_any_tool_can_recompute() -> None:
    """The fingerprint is built from JSON text (keys sorted, no spaces), not from a Python-only encoding such as
    pickle: the same bytes come out of any Python version, and another tool can check it."""
    live = ClusterState(
        cluster_id="c1",
        controller_id=1,
        brokers=(),
        topics={"t": live_topic("t", assignment=((1,),), configs={"retention.ms": "1"})},
        quotas={QuotaEntity((("user", "alice"),)): {"producer_byte_rate": 1024.0}},
    )
    # One row per topic (name, internal, assignment no., key-set no., values no.), then the numbered tables.
    text = (
        '["kafka-reconciler/live/2","c1",[[["t",false,0,0,0]],[["retention.ms"]],[["1"]],[[[1]]]],'
        '[[[["user","alice"]],[["producer_byte_rate",1024.0]]]]]'
    )
    expected = hashlib.sha256(text.encode("ascii")).hexdigest()[:16]
    assert live_fingerprint(live, kinds=[Kind.TOPIC, Kind.QUOTA]) == expected
    canonical = b'{"a":"\\u00e9","b":[1,null]}'
    assert fingerprint_of({"b": [1, None], "a": "é"}) == hashlib.sha256(canonical).hexdigest()[:16]


def test_a_fingerprint_refuses_values_json_cannot_hold_instead_of_stringifying_them() -> None:
    with pytest.raises(TypeError):
        fingerprint_of({"when": object()})


@pytest.mark.parametrize(
    ("kind", "name", "present"),
    [
        (Kind.TOPIC, "t", True),
        (Kind.TOPIC, "missing", False),
        (Kind.ACL, acl("User:app", "READ", "t").address.removeprefix("acl/"), True),
        (Kind.ACL, acl("User:app", "WRITE", "t").address.removeprefix("acl/"), False),
        (Kind.QUOTA, "user=app", True),
        (Kind.QUOTA, "user=other", False),
        (Kind.SCRAM_USER, "app", True),
        (Kind.SCRAM_USER, "other", False),
    ],
)
def test_live_view_finds_resources_by_change_name(kind: Kind, name: str, present: bool) -> None:
    live = cluster(
        topics=[live_topic("t")],
        acls=[acl("User:app", "READ", "t")],
        quotas={QuotaEntity.of(user="app"): {"producer_byte_rate": 1.0}},
        scram={"app": (ScramCredential("SCRAM-SHA-256", 4096),)},
    )
    view = live_view(live, kind=kind, name=name)
    assert (view is not None) is present
    assert (fingerprint_of(view) is None) is not present


def test_broker_config_view_treats_missing_and_empty_entries_alike() -> None:
    assert live_view(cluster(broker_configs={}), kind=Kind.BROKER_CONFIG, name="1") == live_view(
        cluster(broker_configs={"1": {}}), kind=Kind.BROKER_CONFIG, name="1"
    )

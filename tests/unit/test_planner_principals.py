"""Planner rules for client quotas and SCRAM users."""

from __future__ import annotations

import dataclasses

import pytest

from reconciler.model import desired as d
from reconciler.model import payloads, plans
from reconciler.model.state import QuotaEntity, ScramCredential
from reconciler.planner import PlanOptions, plan
from tests.support.builders import Row, attrs, cluster, only, rows, scram_user, want

ALICE = QuotaEntity.of(user="alice")
ALICE_APP = QuotaEntity.of(user="alice", client_id="app")
APP = QuotaEntity.of(client_id="app")


@pytest.mark.parametrize(
    ("declared", "live", "delete", "expected", "unmanaged"),
    [
        pytest.param({ALICE: {"producer_byte_rate": 1e6}}, {}, False, [("+", "QUOTA", ALICE.address)], [], id="create"),
        pytest.param(
            {ALICE: {"producer_byte_rate": 1e6}}, {ALICE: {"producer_byte_rate": 1000000.0}}, False, [], [], id="equal"
        ),
        pytest.param(
            {ALICE: {"producer_byte_rate": 2e6}},
            {ALICE: {"producer_byte_rate": 1e6}},
            False,
            [("~", "QUOTA", ALICE.address)],
            [],
            id="update",
        ),
        pytest.param(
            {},
            {ALICE_APP: {"request_percentage": 50.0}},
            True,
            [("-", "QUOTA", ALICE_APP.address)],
            [],
            id="delete-owned",
        ),
        pytest.param({}, {ALICE: {"request_percentage": 50.0}}, False, [], [ALICE.address], id="unmanaged-owned"),
        pytest.param({}, {APP: {"request_percentage": 50.0}}, True, [], [], id="client-id-only-invisible"),
        pytest.param(
            {}, {QuotaEntity.of(user=None): {"request_percentage": 5.0}}, True, [], [], id="default-user-invisible"
        ),
        pytest.param(
            {APP: {"request_percentage": 10.0}}, {}, False, [("+", "QUOTA", APP.address)], [], id="declared-client-id"
        ),
    ],
)
def test_quota_rules(
    declared: dict[QuotaEntity, dict[str, float]],
    live: dict[QuotaEntity, dict[str, float]],
    delete: bool,
    expected: list[Row],
    unmanaged: list[str],
) -> None:
    desired = want(quotas=declared, own_principals=["User:alice"], delete=["quota"] if delete else [])
    result = plan(desired, cluster(quotas=live))
    assert rows(result) == expected
    assert [u.address for u in result.unmanaged] == unmanaged


def test_quota_update_sets_and_removes_keys() -> None:
    desired = want(quotas={ALICE: {"producer_byte_rate": 2e6}})
    live = cluster(quotas={ALICE: {"producer_byte_rate": 1e6, "consumer_byte_rate": 5e6}})
    change = only(plan(desired, live), ALICE.address)
    assert attrs(change) == {"consumer_byte_rate": (5e6, None), "producer_byte_rate": (1e6, 2e6)}


def test_a_declared_entity_with_no_values_has_every_quota_removed() -> None:
    desired = want(quotas={APP: {}, QuotaEntity.of(ip=None): {}})
    live = cluster(quotas={APP: {"producer_byte_rate": 1e6, "request_percentage": 50.0}})
    result = plan(desired, live)
    assert rows(result) == [("-", "QUOTA", APP.address)]  # ip=<default> holds none: nothing to do
    assert attrs(result.changes[0]) == {"producer_byte_rate": (1e6, None), "request_percentage": (50.0, None)}
    assert result.changes[0].reasons == ("declared with values: {}: every quota of the entity is removed",)


@pytest.mark.parametrize(
    "entity",
    [
        QuotaEntity.of(user=None),
        QuotaEntity.of(client_id="batch"),
        QuotaEntity.of(client_id=None),
        QuotaEntity.of(ip="10.0.0.1"),
        QuotaEntity.of(ip=None),
        QuotaEntity.of(user=None, client_id=None),
        QuotaEntity.of(user="bob", client_id="batch"),
    ],
    ids=lambda e: e.address,
)
def test_quota_entity_rules_own_every_entity_kind(entity: QuotaEntity) -> None:
    base = want(delete=["quota"])
    rule = d.NamePattern("exact", entity.address.removeprefix("quota/"))
    owned = dataclasses.replace(base, ownership=dataclasses.replace(base.ownership, quota_entities=(rule,)))
    live = cluster(quotas={entity: {"request_percentage": 50.0}, APP: {"request_percentage": 5.0}})
    assert rows(plan(owned, live)) == [("-", "QUOTA", entity.address)]
    assert rows(plan(base, live)) == []


# ----------------------------------------------------------------------------------------------- SCRAM
SHA512 = (ScramCredential("SCRAM-SHA-512", 8192),)


@pytest.mark.parametrize(
    ("live", "rotate", "expected_action", "reason"),
    [
        pytest.param({}, (), plans.Action.CREATE, "the user has no SCRAM credential", id="missing"),
        pytest.param({"alice": SHA512}, (), None, None, id="equal-no-password-drift"),
        pytest.param(
            {"alice": (ScramCredential("SCRAM-SHA-512", 4096),)},
            (),
            plans.Action.UPDATE,
            "iterations 4096 -> 8192",
            id="iterations",
        ),
        pytest.param(
            {"alice": (ScramCredential("SCRAM-SHA-256", 8192),)},
            (),
            plans.Action.UPDATE,
            "no SCRAM-SHA-512 credential",
            id="mechanism-missing",
        ),
        pytest.param(
            {"alice": (*SHA512, ScramCredential("SCRAM-SHA-256", 4096))},
            (),
            plans.Action.UPDATE,
            "the SCRAM-SHA-256 credential is not declared and is removed",
            id="extra-mechanism",
        ),
        pytest.param({"alice": SHA512}, ("alice",), plans.Action.UPDATE, "password rotation requested", id="rotate"),
    ],
)
def test_scram_rules(
    live: dict[str, tuple[ScramCredential, ...]],
    rotate: tuple[str, ...],
    expected_action: plans.Action | None,
    reason: str | None,
) -> None:
    desired = want(scram=[scram_user("alice", rotation="2024-05")])
    result = plan(desired, cluster(scram=live), options=PlanOptions(rotate_scram_users=frozenset(rotate)))
    if expected_action is None:
        assert result.changes == ()
        assert result.unchanged == {"scram_user": 1}
        return
    change = only(result, "scram_user/alice")
    assert change.action is expected_action and change.phase is plans.Phase.SCRAM
    assert reason is not None and any(reason in r for r in change.reasons), change.reasons
    assert payloads.encode(change.after) == {
        "credentials": {"SCRAM-SHA-512": {"iterations": 8192}},
        "password": "env:ALICE_SCRAM_PASSWORD",
        "rotation": "2024-05",
    }


def test_rotation_marker_alone_changes_nothing() -> None:
    result = plan(want(scram=[scram_user("alice", rotation="v2")]), cluster(scram={"alice": SHA512}))
    assert result.changes == ()


def test_rotation_of_undeclared_user_is_a_warning() -> None:
    result = plan(want(), cluster(), options=PlanOptions(rotate_scram_users=frozenset({"mallory"})))
    assert [(w.code, w.address) for w in result.warnings] == [("rotation-undeclared", "scram_user/mallory")]
    assert result.options["rotate_scram_users"] == ["mallory"]


@pytest.mark.parametrize(
    ("delete", "expected", "unmanaged"),
    [(True, [("-", "SCRAM", "scram_user/app-old")], []), (False, [], ["scram_user/app-old"])],
)
def test_undeclared_owned_scram_user(delete: bool, expected: list[Row], unmanaged: list[str]) -> None:
    desired = want(own_principals=["User:app-"], delete=["scram_user"] if delete else [])
    result = plan(desired, cluster(scram={"app-old": SHA512, "admin": SHA512}))
    assert rows(result) == expected
    assert [u.address for u in result.unmanaged] == unmanaged


def test_scram_unreadable_is_an_error_when_users_are_declared() -> None:
    result = plan(want(scram=[scram_user("alice")]), cluster(scram=None))
    assert [(w.code, w.severity) for w in result.warnings] == [("scram-unreadable", "error")]


def test_default_and_named_quota_entities_plan_together() -> None:
    default_user = QuotaEntity.of(user=None)
    declared = {default_user: {"request_percentage": 10.0}, ALICE: {"producer_byte_rate": 1e6}}
    live = {
        QuotaEntity.of(user=None, client_id=None): {"request_percentage": 1.0},
        ALICE_APP: {"request_percentage": 5.0},
    }
    result = plan(want(quotas=declared, own_principals=["User:alice"], delete=["quota"]), cluster(quotas=live))
    assert rows(result) == [
        ("-", "QUOTA", ALICE_APP.address),
        ("+", "QUOTA", default_user.address),
        ("+", "QUOTA", ALICE.address),
    ]


def test_unreadable_section_warning_carries_the_adapters_reason() -> None:
    import dataclasses

    live = dataclasses.replace(
        cluster(quotas=None), unavailable={"quota": "the cluster does not support DescribeClientQuotas"}
    )
    result = plan(want(quotas={ALICE: {"producer_byte_rate": 1.0}}), live)
    assert [(w.code, w.severity) for w in result.warnings] == [("quotas-unreadable", "error")]
    assert result.warnings[0].message.endswith("(the cluster does not support DescribeClientQuotas)")

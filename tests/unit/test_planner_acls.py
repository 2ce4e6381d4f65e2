"""Planner rules for ACLs: exact-binding set difference, ownership by principal, access gaps."""

from __future__ import annotations

import pytest

from reconciler.model import payloads, plans
from reconciler.model.state import AclBinding
from reconciler.planner import plan
from tests.support.builders import Row, acl, cluster, only, rows, want

ALICE_READ = acl("User:alice", "READ", "orders")


@pytest.mark.parametrize(
    ("declared", "live", "delete", "expected", "unmanaged"),
    [
        pytest.param([ALICE_READ], [], False, [("+", "ACL_CREATE", ALICE_READ.address)], [], id="create"),
        pytest.param([ALICE_READ], [ALICE_READ], False, [], [], id="equal"),
        pytest.param([], [ALICE_READ], True, [("-", "ACL_DELETE", ALICE_READ.address)], [], id="delete-owned"),
        pytest.param([], [ALICE_READ], False, [], [ALICE_READ.address], id="unmanaged-owned"),
        pytest.param([], [acl("User:bob", "READ", "orders")], True, [], [], id="unowned-invisible"),
        pytest.param(
            [acl("User:alice", "WRITE", "orders")],
            [ALICE_READ],
            True,
            [
                ("-", "ACL_DELETE", ALICE_READ.address),
                ("+", "ACL_CREATE", acl("User:alice", "WRITE", "orders").address),
            ],
            [],
            id="replace-delete-first-create-last",
        ),
    ],
)
def test_acl_rules(
    declared: list[AclBinding], live: list[AclBinding], delete: bool, expected: list[Row], unmanaged: list[str]
) -> None:
    desired = want(acls=declared, own_principals=["User:alice"], delete=["acl"] if delete else [])
    result = plan(desired, cluster(acls=live))
    assert rows(result) == expected
    assert [u.address for u in result.unmanaged] == unmanaged


def test_declared_acl_of_unowned_principal_is_still_managed() -> None:
    bob = acl("User:bob", "READ", "orders")
    assert rows(plan(want(acls=[bob]), cluster())) == [("+", "ACL_CREATE", bob.address)]


def test_create_records_source_and_binding() -> None:
    change = only(plan(want(acls=[ALICE_READ]), cluster()), ALICE_READ.address)
    assert payloads.encode(change.after) == ALICE_READ.to_dict()
    assert change.source == "acls.yaml:7:1 (grant consumer orders)"
    assert change.name == ALICE_READ.address.removeprefix("acl/")


def _gap_plan(old: list[AclBinding], new: list[AclBinding], kept: tuple[AclBinding, ...] = ()) -> plans.Plan:
    desired = want(acls=[*new, *kept], own_principals=["User:alice"], delete=["acl"])
    return plan(desired, cluster(acls=[*old, *kept]))


@pytest.mark.parametrize(
    ("old", "new", "kept", "gap"),
    [
        pytest.param(
            [ALICE_READ], [acl("User:alice", "READ", "ord", pattern="PREFIXED")], (), True, id="literal-to-prefix"
        ),
        pytest.param(
            [acl("User:alice", "READ", "ord", pattern="PREFIXED")], [ALICE_READ], (), True, id="prefix-to-literal"
        ),
        pytest.param([ALICE_READ], [acl("User:alice", "ALL", "orders")], (), True, id="read-to-all"),
        pytest.param([ALICE_READ], [acl("User:alice", "READ", "*")], (), True, id="literal-to-wildcard"),
        pytest.param(
            [ALICE_READ], [acl("User:alice", "READ", "orders", host="10.0.0.1")], (), True, id="host-narrowed"
        ),
        pytest.param([ALICE_READ], [acl("User:alice", "READ", "payments")], (), False, id="other-resource"),
        pytest.param(
            [ALICE_READ], [acl("User:alice", "WRITE", "orders", resource="GROUP")], (), False, id="other-type"
        ),
        pytest.param([ALICE_READ], [], (), False, id="plain-revoke"),
        pytest.param(
            [ALICE_READ],
            [acl("User:alice", "READ", "ord", pattern="PREFIXED")],
            (acl("User:alice", "ALL", "orders"),),
            False,
            id="kept-binding-covers",
        ),
        pytest.param(
            [ALICE_READ],
            [acl("User:alice", "READ", "ord", pattern="PREFIXED")],
            (acl("User:alice", "READ", "order", pattern="PREFIXED"),),
            False,
            id="kept-prefix-covers",
        ),
        pytest.param(
            [acl("User:alice", "READ", "orders", permission="DENY")],
            [acl("User:alice", "READ", "orders")],
            (),
            False,
            id="deny-not-a-grant",
        ),
    ],
)
def test_access_gap_detection(
    old: list[AclBinding], new: list[AclBinding], kept: tuple[AclBinding, ...], gap: bool
) -> None:
    result = _gap_plan(old, new, kept)
    gaps = [w for w in result.warnings if w.code == "access-gap"]
    flagged = [c for c in result.changes if any(w.startswith("access gap") for w in c.warnings)]
    if gap:
        assert len(gaps) == 1
        assert sorted(c.phase.name for c in flagged) == ["ACL_CREATE", "ACL_DELETE"]
    else:
        assert gaps == [] and flagged == []


def test_access_gap_message_names_principal_operation_and_resource() -> None:
    result = _gap_plan([ALICE_READ], [acl("User:alice", "READ", "ord", pattern="PREFIXED")])
    delete = only(result, ALICE_READ.address)
    assert "User:alice has no DESCRIBE/READ access to TOPIC 'orders'" in delete.warnings[0]


def test_acls_unreadable_is_an_error_when_acls_are_declared() -> None:
    result = plan(want(acls=[ALICE_READ]), cluster(acls=None))
    assert [(w.code, w.severity) for w in result.warnings] == [("acls-unavailable", "error")]
    assert "no authorizer" in result.warnings[0].message
    assert result.changes == ()

"""The self-lockout guard on plain ACL data."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from reconciler.apply import guard
from reconciler.model.state import AclBinding
from tests.support import builders

ADMIN = "User:admin"


def acl(
    op: str,
    rtype: str = "CLUSTER",
    name: str = "kafka-cluster",
    *,
    principal: str = ADMIN,
    perm: str = "ALLOW",
    pattern: str = "LITERAL",
) -> AclBinding:
    return builders.acl(principal, op, name, resource=rtype, pattern=pattern, permission=perm)


def lost(
    live: set[AclBinding],
    *,
    deletes: Sequence[AclBinding] = (),
    creates: Sequence[AclBinding] = (),
    topics: tuple[str, ...] = (),
) -> set[tuple[str, str, str]]:
    found = guard.lost_access(
        principal=ADMIN, live_acls=live, deletes=list(deletes), creates=list(creates), topics=topics
    )
    return {(x.operation, x.resource_type, x.resource_name) for x in found}


def test_deleting_cluster_all_loses_every_cluster_operation() -> None:
    binding = acl("ALL")
    assert lost({binding}, deletes=[binding]) == {
        ("DESCRIBE", "CLUSTER", "kafka-cluster"),
        ("ALTER", "CLUSTER", "kafka-cluster"),
        ("DESCRIBE_CONFIGS", "CLUSTER", "kafka-cluster"),
        ("ALTER_CONFIGS", "CLUSTER", "kafka-cluster"),
        ("CREATE", "CLUSTER", "kafka-cluster"),
    }


def test_replacing_a_binding_with_an_equivalent_one_loses_nothing() -> None:
    old, new = acl("ALL"), acl("ALL", principal="User:*")
    assert lost({old}, deletes=[old], creates=[new]) == set()


def test_describe_stays_when_alter_remains() -> None:
    describe, alter = acl("DESCRIBE"), acl("ALTER")
    assert lost({describe, alter}, deletes=[describe]) == set()


def test_a_new_deny_takes_access_away() -> None:
    allow = acl("ALL", "TOPIC", "*")
    deny = acl("DELETE", "TOPIC", "orders", perm="DENY")
    assert lost({allow}, creates=[deny], topics=("orders",)) == {("DELETE", "TOPIC", "orders")}


def test_prefixed_topic_grant_removal_is_seen_through_a_probe() -> None:
    grant = acl("ALL", "TOPIC", "team-", pattern="PREFIXED")
    assert ("CREATE", "TOPIC", "team-") in lost({grant}, deletes=[grant])


def test_other_principals_and_unused_resource_types_do_not_count() -> None:
    alice = acl("ALL", principal="User:alice")
    group = acl("ALL", "GROUP", "g")
    assert lost({alice, group}, deletes=[alice, group]) == set()


def test_super_users_without_acls_are_never_flagged() -> None:
    other = acl("READ", "TOPIC", "orders", principal="User:alice")
    assert lost(set(), deletes=[other], topics=("orders",)) == set()


def test_check_raises_with_every_lost_permission_and_the_override_flag() -> None:
    binding = acl("ALTER")
    with pytest.raises(guard.SelfLockoutRisk) as info:
        guard.check_self_lockout(principal=ADMIN, live_acls={binding}, deletes=[binding], creates=[])
    text = str(info.value)
    assert "User:admin" in text and "ALTER on CLUSTER 'kafka-cluster'" in text and "--allow-self-lockout-risk" in text
    assert binding.address in text


def test_no_principal_means_no_check() -> None:
    binding = acl("ALTER")
    guard.check_self_lockout(principal=None, live_acls={binding}, deletes=[binding], creates=[])


@pytest.mark.parametrize(("username", "principal"), [("admin", "User:admin"), (None, None), ("", None)])
def test_principal_from_username(username: str | None, principal: str | None) -> None:
    assert guard.principal_from_username(username) == principal


def test_the_connection_principal_comes_from_the_settings() -> None:
    from reconciler.apply.guard import connection_principal
    from reconciler.connection.settings import ConnectionSettings, Secret
    from tests.support.recording import RecordingAdapter

    sasl = ConnectionSettings(
        bootstrap_servers=("h:1",),
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="PLAIN",
        username="ops",
        password=Secret("x"),
    )
    assert connection_principal(RecordingAdapter(settings=sasl)) == "User:ops"
    assert connection_principal(RecordingAdapter(settings=ConnectionSettings(bootstrap_servers=("h:1",)))) == (
        "User:ANONYMOUS"
    )
    ssl = ConnectionSettings(bootstrap_servers=("h:1",), security_protocol="SSL")
    assert connection_principal(RecordingAdapter(settings=ssl)) is None  # the certificate's DN is not known here

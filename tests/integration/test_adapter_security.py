"""The adapter on a SASL cluster with an authorizer: ACL reads and exact writes, SCRAM logins, auth failures."""

from __future__ import annotations

import logging
import time

import pytest
from kafka import KafkaConsumer

from reconciler.base import errors
from reconciler.connection.settings import ConnectionSettings, Secret
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import ItemResult, RequestFailed, ScramUpsert, TopicSpec
from reconciler.model import state
from reconciler.model.entities import ENTITY_KINDS
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.support.builders import acl
from tests.support.integration import acls_of
from tests.support.polling import eventually

# On every Kafka version: ACLs (StandardAuthorizer vs AclAuthorizer), SCRAM logins, auth failures.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]


def sasl(cluster: KafkaCluster, user: str | None = None, password: str | None = None) -> ConnectionSettings:
    return cluster.connection_settings(user, password=password, request_timeout_ms=15_000)


def acls_on_cluster(cluster: KafkaCluster, principal: str) -> set[tuple[str, str, str, str]]:
    """ACLs of ``principal`` as plain kafka-python sees them."""
    return {
        (a.resource_pattern.resource_name, a.resource_pattern.pattern_type.name, a.operation.name, a.host)
        for a in acls_of(cluster, principal)
    }


def test_acls_read_and_created_with_a_bad_binding_in_the_batch(kafka_sasl: KafkaCluster, topic_prefix: str) -> None:
    principal = f"User:{topic_prefix}svc"
    good = [acl(principal, "READ", f"{topic_prefix}orders"), acl(principal, "WRITE", topic_prefix, pattern="PREFIXED")]
    invalid = acl(principal, "ALTER", "not-the-cluster", resource="CLUSTER")
    with KafkaAdapter(sasl(kafka_sasl)) as adapter:
        results = adapter.create_acls([good[0], invalid, good[1]])
        assert adapter.request_counts == {"CreateAcls": 1}
    assert [r.key for r in results] == [good[0].address, invalid.address, good[1].address]
    assert [r.ok for r in results] == [True, False, True]
    assert results[1].error_name == "INVALID_REQUEST"

    expected = {(f"{topic_prefix}orders", "LITERAL", "READ", "*"), (topic_prefix, "PREFIXED", "WRITE", "*")}
    eventually(lambda: acls_on_cluster(kafka_sasl, principal) == expected, what="the two good bindings")

    with KafkaAdapter(sasl(kafka_sasl)) as adapter:
        live = adapter.read_state(kinds=frozenset({Kind.ACL}), principal_filter=lambda p: p == principal)
        assert adapter.request_counts == {"Metadata": 1, "DescribeAcls": 1}
    assert live.acls == frozenset(good)
    assert Kind.ACL not in live.unavailable


def test_delete_acls_removes_only_the_exact_binding(kafka_sasl: KafkaCluster, topic_prefix: str) -> None:
    principal = f"User:{topic_prefix}app"
    topic = f"{topic_prefix}events"
    read, describe = acl(principal, "READ", topic), acl(principal, "DESCRIBE", topic)
    prefixed = acl(principal, "READ", topic, pattern="PREFIXED")
    never_created = acl(principal, "WRITE", topic)
    with KafkaAdapter(sasl(kafka_sasl)) as adapter:
        assert all(r.ok for r in adapter.create_acls([read, describe, prefixed]))
        created = {
            (topic, "LITERAL", "READ", "*"),
            (topic, "LITERAL", "DESCRIBE", "*"),
            (topic, "PREFIXED", "READ", "*"),
        }
        eventually(lambda: acls_on_cluster(kafka_sasl, principal) == created, what="the three bindings created")
        results = adapter.delete_acls([read, never_created])
    assert [r.ok for r in results] == [True, True]
    assert results[0].extra["deleted"] == 1 and results[1].extra["deleted"] == 0

    remaining = {(topic, "LITERAL", "DESCRIBE", "*"), (topic, "PREFIXED", "READ", "*")}
    eventually(lambda: acls_on_cluster(kafka_sasl, principal) == remaining, what="only the exact binding deleted")


def test_wildcard_bindings_are_refused_before_sending(kafka_sasl: KafkaCluster) -> None:
    """A wildcard (ANY, MATCH) cannot even be built as a binding; a binding holding a code a broker reported that this
    release does not know (UNKNOWN) is refused by the adapter before anything is sent."""
    with pytest.raises(ValueError, match="resource_type: 'ANY' is not one of"):
        state.AclBinding("ANY", "LITERAL", "x", "User:x", "*", "READ", "ALLOW")
    with pytest.raises(ValueError, match="pattern_type: 'MATCH' is not one of"):
        state.AclBinding("TOPIC", "MATCH", "x", "User:x", "*", "READ", "ALLOW")
    unknown = state.AclBinding("TOPIC", "LITERAL", "x", "User:x", "*", "UNKNOWN", "ALLOW")
    with KafkaAdapter(sasl(kafka_sasl)) as adapter:
        with pytest.raises(ValueError, match="not an exact ACL binding"):
            adapter.delete_acls([unknown])
        with pytest.raises(ValueError, match="not an exact ACL binding"):
            adapter.create_acls([unknown])
        assert adapter.request_count == 0


def test_scram_credential_set_by_the_adapter_logs_in(kafka_sasl: KafkaCluster, topic_prefix: str) -> None:
    user = f"{topic_prefix}login"
    password = Secret("a-long-and-random-passphrase")
    with KafkaAdapter(sasl(kafka_sasl)) as adapter:
        (result,) = adapter.alter_scram_credentials(upserts=[ScramUpsert(user, "SCRAM-SHA-256", 4096, password)])
        assert result.ok, result.describe()

    settings = kafka_sasl.connection_settings(
        user, mechanism="SCRAM-SHA-256", password=password.reveal(), request_timeout_ms=10_000
    )

    def logs_in() -> bool:
        consumer = KafkaConsumer(
            bootstrap_servers=kafka_sasl.bootstrap,
            **kafka_sasl.client_kwargs(user, mechanism="SCRAM-SHA-256", password=password.reveal()),
        )
        consumer.close()
        return True

    eventually(logs_in, what=f"a SCRAM-SHA-256 login of {user}", retry_on=(Exception,))
    # The new user may log in but has no ACLs: reading ACLs is refused for the whole request.
    with KafkaAdapter(settings) as adapter, pytest.raises(RequestFailed) as info:
        adapter.read_state(kinds=frozenset({Kind.ACL}))
    assert info.value.error_name == "CLUSTER_AUTHORIZATION_FAILED"
    assert password.reveal() not in str(info.value)


def test_wrong_password_fails_plainly_without_showing_it(kafka_sasl: KafkaCluster) -> None:
    wrong = "definitely-wrong-password-123"
    adapter = KafkaAdapter(sasl(kafka_sasl, password=wrong))
    started = time.monotonic()
    with pytest.raises(errors.ConnectionFailed) as info:
        adapter.read_state(kinds=frozenset({Kind.TOPIC}))
    adapter.close()
    assert time.monotonic() - started < 10, "a SASL failure must not wait for the connection timeout"
    message = str(info.value)
    assert message.startswith(f"authentication failed at {kafka_sasl.bootstrap} (SASL_PLAINTEXT, PLAIN as admin)")
    # kafka-python often sees only the socket close that follows the broker's error response.
    assert "Invalid username or password" in message or "closed the connection during the handshake" in message
    assert wrong not in message and wrong not in repr(info.value)
    assert info.value.__cause__ is None


def test_full_read_as_admin_sees_acls_and_is_constant(kafka_sasl: KafkaCluster) -> None:
    with KafkaAdapter(sasl(kafka_sasl)) as adapter:
        live = adapter.read_state(kinds=frozenset(Kind) - frozenset(ENTITY_KINDS))
        assert adapter.request_count == 6
    assert live.acls is not None and live.quotas is not None and live.scram_users is not None
    assert live.unavailable == {}


def test_topic_only_principal_is_told_which_cluster_right_the_read_needs(
    kafka_sasl: KafkaCluster, topic_prefix: str
) -> None:
    grants = [acl("User:alice", op, topic_prefix, pattern="PREFIXED") for op in ("DESCRIBE", "DESCRIBE_CONFIGS")]
    with KafkaAdapter(sasl(kafka_sasl)) as admin:
        assert all(r.ok for r in admin.create_acls(grants))
    try:
        # A read that is missing broker settings or ongoing reassignments would plan blind: it fails whole.
        with KafkaAdapter(sasl(kafka_sasl, "alice")) as adapter, pytest.raises(RequestFailed) as info:
            adapter.read_state(kinds=frozenset({Kind.TOPIC}))
        assert info.value.error_name == "CLUSTER_AUTHORIZATION_FAILED"
        assert str(info.value).startswith("cannot describe the configs of broker 1: CLUSTER_AUTHORIZATION_FAILED")
        assert adapter.request_counts == {"Metadata": 1, "DescribeConfigs": 1}
    finally:
        with KafkaAdapter(sasl(kafka_sasl)) as admin:
            admin.delete_acls(grants)


def test_controller_mutation_quota_throttles_per_topic(kafka_sasl: KafkaCluster, topic_prefix: str) -> None:
    bob = state.QuotaEntity.of(user="bob")
    grants = [acl("User:bob", op, topic_prefix, pattern="PREFIXED") for op in ("CREATE", "DESCRIBE")]
    with KafkaAdapter(sasl(kafka_sasl)) as admin:
        assert all(r.ok for r in admin.create_acls(grants))
        assert admin.alter_client_quotas({bob: {"controller_mutation_rate": 1.0}})[0].ok
    try:
        attempts: list[list[ItemResult]] = []

        def throttled_create() -> list[ItemResult]:
            # The ACLs and the quota reach the broker asynchronously: fresh names on each attempt.
            names = [f"{topic_prefix}q{len(attempts) + 1}a", f"{topic_prefix}q{len(attempts) + 1}b"]
            with KafkaAdapter(sasl(kafka_sasl, "bob")) as adapter:
                results = adapter.create_topics([TopicSpec(n, partitions=10, replication_factor=1) for n in names])
            attempts.append(results)
            return [r for r in results if r.error_name == "THROTTLING_QUOTA_EXCEEDED"]

        throttled = eventually(throttled_create, what="a topic creation throttled by bob's quota", interval=0.5)
        assert all(r.retriable and r.extra["throttle_time_ms"] > 0 for r in throttled)
        with kafka_sasl.admin_session() as admin:
            existing = set(admin.list_topics())
        assert not {r.key for r in throttled} & existing  # a throttled topic was not created
    finally:
        with KafkaAdapter(sasl(kafka_sasl)) as admin:
            admin.alter_client_quotas({bob: {"controller_mutation_rate": None}})
            admin.delete_acls(grants)


def test_no_password_reaches_the_logs_even_at_debug_level(
    kafka_sasl: KafkaCluster, topic_prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    scram_password = Secret("scram-password-for-the-log-test")
    settings = sasl(kafka_sasl)
    with KafkaAdapter(settings) as adapter:
        adapter.read_state(kinds=frozenset(Kind) - frozenset(ENTITY_KINDS))
        (result,) = adapter.alter_scram_credentials(
            upserts=[ScramUpsert(f"{topic_prefix}logged", "SCRAM-SHA-512", 4096, scram_password)]
        )
        assert result.ok
    assert caplog.records, "the client logs something at this level"
    assert settings.password is not None
    for secret in (settings.password.reveal(), scram_password.reveal()):
        assert secret not in caplog.text

"""The tool's principal as the broker sees it, where the client side alone would get it wrong.

Each case connects to the ``kafka_secure`` node as a principal the broker names by its own rules: a certificate
subject rewritten by the broker's ``ssl.principal.mapping.rules`` (not repeated in the client settings), a subject
with an emailAddress attribute (which Java writes as ``<OID>=#<hex DER>``), and an OAuth token whose principal
comes from the ``azp`` claim (``sasl.oauthbearer.sub.claim.name=azp`` on that listener). The expected principal is
spelled out literally from the known subject or claim, never computed with the product's code; that the broker
uses it is shown by the broker itself: ACLs are granted to that literal name and the tool's writes succeed with
them. Then a plan that deletes those ACLs must be refused by the self-lockout guard, and they must still exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from kafka.admin import ACL, ACLOperation, ACLPermissionType, ACLResourcePatternType, NewTopic, ResourcePattern
from kafka.admin import ResourceType as KafkaResourceType

from reconciler.apply.access import MissingAccess
from reconciler.apply.guard import PrincipalUnexplained, SelfLockoutRisk
from reconciler.connection.settings import ConnectionSettings, Secret
from reconciler.kafka import identity
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import RequestFailed
from reconciler.model.kinds import Kind
from tests.integration.test_secure import assert_applied, grant, own_acls_deleted, plan_apply_replan, topics
from tests.kafka.secure import SecureCluster
from tests.support.integration import acls_of, apply, make_plan, write_manifests
from tests.support.manifest_texts import topic_documents
from tests.support.polling import eventually

# On every Kafka version: security: principals as each release's broker maps them.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]

DESCRIBE, DESCRIBE_CONFIGS = ACLOperation.DESCRIBE, ACLOperation.DESCRIBE_CONFIGS
# "mailer@acme.test" as DER: IA5String (tag 0x16), 16 bytes.
EMAIL_DER_HEX = "1610" + b"mailer@acme.test".hex()


def guarded(cluster: SecureCluster, settings: ConnectionSettings, principal: str, prefix: str, tmp: Path) -> None:
    """With ACLs granted to ``principal`` only: the tool applies, names ``principal`` when refused, and will not
    delete its own ACLs."""
    grant(cluster, principal, prefix)
    with KafkaAdapter(settings) as adapter:
        assert adapter.principal == principal
        plan_apply_replan(adapter, write_manifests(tmp / "ok", topics(prefix)))

        outside = write_manifests(tmp / "outside", topic_documents({f"x{prefix}other": (3, 1, {})}))
        with pytest.raises(
            MissingAccess, match=rf"(?s){re.escape(principal)} lacks 3 permission.*grant CREATE on TOPIC x"
        ):
            apply(adapter, make_plan(adapter, outside))

        lockout = write_manifests(tmp / "lockout", own_acls_deleted(principal, prefix))
        plan = make_plan(adapter, lockout)
        assert len(plan.changes) == 4  # the plan does delete the tool's own four bindings
        with pytest.raises(SelfLockoutRisk, match=rf"{re.escape(principal)} \(the principal this tool connects as\)"):
            apply(adapter, plan)
    assert_applied(cluster, prefix)
    assert len(acls_of(cluster, principal)) == 4  # nothing was deleted


def test_certificate_mapped_by_the_brokers_rule_alone(
    kafka_secure: SecureCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """Regression: without the rule in the client settings the tool guarded User:CN=...,OU=mapped,... while the
    broker (RULE:^CN=([^,]+),OU=mapped,.*$/$1/) knows the certificate as User:<CN>, and the apply deleted the tool's
    own ACLs."""
    name = f"{topic_prefix}svc"
    client = kafka_secure.pki.client(name, unit="mapped")
    settings = kafka_secure.mtls_settings(client)
    assert settings.ssl_principal_mapping_rules is None
    guarded(kafka_secure, settings, f"User:{name}", topic_prefix, tmp_path)


def test_certificate_subject_with_an_email_address(
    kafka_secure: SecureCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """Regression: the tool wrote 1.2.840.113549.1.9.1=mailer@acme.test; Java writes the value as hex DER."""
    name = f"{topic_prefix}mailer"
    client = kafka_secure.pki.client(name, unit="ops", email="mailer@acme.test")
    principal = f"User:1.2.840.113549.1.9.1=#{EMAIL_DER_HEX},CN={name},OU=ops,O=kafka-reconciler tests"
    guarded(kafka_secure, kafka_secure.mtls_settings(client), principal, topic_prefix, tmp_path)


def test_oauth_principal_from_the_claim_the_broker_names(
    kafka_secure: SecureCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """Regression: the tool always took ``sub``; this listener names principals by ``azp``."""
    if not kafka_secure.has_oauth:
        pytest.skip(f"Kafka {kafka_secure.version} has no broker-side JWKS validator for OAUTHBEARER (KIP-768, 3.1+)")
    client = kafka_secure.oauth_azp
    settings = kafka_secure.settings(
        "OAUTHAZP",
        sasl_mechanism="OAUTHBEARER",
        oauth_token_endpoint_url=kafka_secure.oidc.token_url,
        oauth_client_id=client.client_id,
        oauth_client_secret=Secret(client.secret),
        oauth_scope="kafka",
    )
    assert client.azp == "svc-azp-orders" and client.client_id == "azp-client"  # sub is the client id
    guarded(kafka_secure, settings, "User:svc-azp-orders", topic_prefix, tmp_path)


def test_a_principal_the_acls_cannot_explain_is_refused_not_guessed(
    kafka_secure: SecureCluster, topic_prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the brokers' naming rules cannot be read (here: the read is made to fail) the tool falls back to the
    client settings, which lack the mapping rule, and computes User:CN=...,OU=mapped,... The broker still grants
    this connection the rights of User:<CN>, which no ACL of the computed name explains: the apply must refuse
    with that reason and delete nothing, rather than guard the wrong principal."""
    name = f"{topic_prefix}svc"
    client = kafka_secure.pki.client(name, unit="mapped")
    principal = f"User:{name}"
    grant(kafka_secure, principal, topic_prefix)
    monkeypatch.setattr(identity, "broker_rules", lambda wire, *, mechanism: None)
    with KafkaAdapter(kafka_secure.mtls_settings(client)) as adapter:
        assert adapter.principal == f"User:CN={name},OU=mapped,O=kafka-reconciler tests"
        plan = make_plan(adapter, write_manifests(tmp_path / "lockout", own_acls_deleted(principal, topic_prefix)))
        assert len(plan.changes) == 4
        with pytest.raises(PrincipalUnexplained) as refused:
            apply(adapter, plan)
    message = str(refused.value)
    assert "the brokers grant this connection DESCRIBE on CLUSTER kafka-cluster" in message
    assert "the client settings (the brokers' configuration could not be read)" in message
    assert "nothing was written" in message
    assert len(acls_of(kafka_secure, principal)) == 4


def test_a_principal_that_may_not_read_the_brokers_rules_is_told_first_that_its_name_is_uncertain(
    kafka_secure: SecureCluster, topic_prefix: str
) -> None:
    """Regression: when the principal may not read broker configs, the hint named the client-side identity (the
    certificate's whole subject) although the brokers' mapping rule names it otherwise: granting that granted the
    wrong principal. The hint now says so first and names the cluster grant that lets the tool read the rules;
    granting that to the brokers' principal makes the next hint name it."""
    name, topic = f"{topic_prefix}blind", f"{topic_prefix}orders"
    principal = f"User:{name}"
    settings = kafka_secure.mtls_settings(kafka_secure.pki.client(name, unit="mapped"))
    cluster = ResourcePattern(KafkaResourceType.CLUSTER, "kafka-cluster", ACLResourcePatternType.LITERAL)
    on_topic = ResourcePattern(KafkaResourceType.TOPIC, topic, ACLResourcePatternType.LITERAL)
    with kafka_secure.admin_session() as admin:
        admin.create_topics([NewTopic(topic, 1, 1)])
        admin.create_acls(
            [ACL(principal, "*", DESCRIBE, ACLPermissionType.ALLOW, p) for p in (on_topic, cluster)]
        )  # fmt: skip
    eventually(lambda: len(acls_of(kafka_secure, principal)) == 2, what="the principal's two ACLs")

    def refused(adapter: KafkaAdapter) -> str:
        with pytest.raises(RequestFailed) as info:
            adapter.read_state(kinds=frozenset({Kind.TOPIC}), topic_filter=lambda n: n == topic)
        return str(info.value)

    subject = f"User:CN={name},OU=mapped,O=kafka-reconciler tests"
    with KafkaAdapter(settings) as adapter:
        adapter.principal  # noqa: B018  (apply reads the brokers' rules here: refused, DESCRIBE_CONFIGS is missing)
        message = refused(adapter)
    hint = (
        "the brokers' ssl.principal.mapping.rules could not be read, so the principal they give this connection may "
        f"not be the one the client computes ({subject} by the client settings and Kafka's default rule): first "
        "grant DESCRIBE_CONFIGS on CLUSTER kafka-cluster to the brokers' principal for this connection, which lets "
        f"the tool read the rules and name it, then grant DESCRIBE_CONFIGS on TOPIC {topic} to the principal it names"
    )
    assert message.endswith(hint), message
    with kafka_secure.admin_session() as admin:
        admin.create_acls([ACL(principal, "*", DESCRIBE_CONFIGS, ACLPermissionType.ALLOW, cluster)])
    eventually(lambda: len(acls_of(kafka_secure, principal)) == 3, what="the cluster grant")
    with KafkaAdapter(settings) as adapter:
        assert adapter.principal == principal
        assert refused(adapter).endswith(f"grant DESCRIBE_CONFIGS on TOPIC {topic} to {principal}")


def test_a_refused_read_names_the_principal_the_brokers_mapping_rule_makes(
    kafka_secure: SecureCluster, topic_prefix: str
) -> None:
    """A read refused for lack of DESCRIBE_CONFIGS on a topic names whom to grant it: before the brokers' rules
    were read (as in a plan: a hint sends no request), the subject as the client settings map it, saying so; once
    read (as apply does), the name the broker's rule makes. Granting exactly that name lets the read through."""
    name, topic = f"{topic_prefix}reader", f"{topic_prefix}orders"
    principal = f"User:{name}"
    settings = kafka_secure.mtls_settings(kafka_secure.pki.client(name, unit="mapped"))
    cluster = ResourcePattern(KafkaResourceType.CLUSTER, "kafka-cluster", ACLResourcePatternType.LITERAL)
    on_topic = ResourcePattern(KafkaResourceType.TOPIC, topic, ACLResourcePatternType.LITERAL)
    with kafka_secure.admin_session() as admin:
        admin.create_topics([NewTopic(topic, 6, 1, topic_configs={"retention.ms": "86400000"})])
        admin.create_acls(
            [
                ACL(principal, "*", ACLOperation.DESCRIBE, ACLPermissionType.ALLOW, on_topic),
                *(ACL(principal, "*", op, ACLPermissionType.ALLOW, cluster) for op in (DESCRIBE, DESCRIBE_CONFIGS)),
            ]
        )
    eventually(lambda: len(acls_of(kafka_secure, principal)) == 3, what="the reader's three ACLs")

    def refused(adapter: KafkaAdapter) -> str:
        with pytest.raises(RequestFailed) as info:
            adapter.read_state(kinds=frozenset({Kind.TOPIC}), topic_filter=lambda n: n == topic)
        return str(info.value)

    with KafkaAdapter(settings) as adapter:
        subject = f"User:CN={name},OU=mapped,O=kafka-reconciler tests"
        assert refused(adapter).endswith(
            f"grant DESCRIBE_CONFIGS on TOPIC {topic} to {subject} "
            "(named by the client settings; the brokers' ssl.principal.mapping.rules was not read)"
        )
        assert adapter.principal == principal  # reads the brokers' rules once
        assert refused(adapter).endswith(f"grant DESCRIBE_CONFIGS on TOPIC {topic} to {principal}")
    with kafka_secure.admin_session() as admin:
        admin.create_acls([ACL(principal, "*", DESCRIBE_CONFIGS, ACLPermissionType.ALLOW, on_topic)])
    eventually(lambda: len(acls_of(kafka_secure, principal)) == 4, what="the granted ACL")
    with KafkaAdapter(settings) as adapter:
        live = adapter.read_state(kinds=frozenset({Kind.TOPIC}), topic_filter=lambda n: n == topic)
    assert live.topics is not None
    assert live.topics[topic].partitions == 6 and live.topics[topic].configs["retention.ms"] == "86400000"

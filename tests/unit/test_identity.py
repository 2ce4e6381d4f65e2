"""The principal Kafka's default principal builder gives a certificate or a token, computed from plain data; and
the sentences for TLS handshake failures, which name the certificate's real problem.

Expected strings are written out as Java's ``X500Principal.getName()`` prints them (RFC 2253, most specific RDN
first, attributes without an RFC 2253 keyword as ``<OID>=#<hex DER>``), not derived with the code under test.
"""

from __future__ import annotations

import kafka.errors as kafka_errors
import pytest
from cryptography import x509
from cryptography.x509.oid import NameOID

from reconciler.apply import guard
from reconciler.kafka import bootstrap, identity
from reconciler.kafka.access import AuthorizedOperations
from reconciler.model.state import AclBinding


def name(*pairs: tuple[x509.ObjectIdentifier, str]) -> x509.Name:
    return x509.Name([x509.NameAttribute(oid, value) for oid, value in pairs])


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        (name((NameOID.ORGANIZATION_NAME, "acme"), (NameOID.COMMON_NAME, "svc")), "CN=svc,O=acme"),
        (
            name((NameOID.COMMON_NAME, "mailer"), (NameOID.EMAIL_ADDRESS, "a@b.c")),
            "1.2.840.113549.1.9.1=#1605614062 2e63,CN=mailer".replace(" ", ""),
        ),
        (name((NameOID.COMMON_NAME, "a,b+c"), (NameOID.ORGANIZATIONAL_UNIT_NAME, " x ")), "OU=\\ x\\ ,CN=a\\,b\\+c"),
        (name((NameOID.SERIAL_NUMBER, "42"), (NameOID.COUNTRY_NAME, "DE")), "C=DE,2.5.4.5=#13023432"),
        (name((NameOID.DOMAIN_COMPONENT, "example"), (NameOID.USER_ID, "u1")), "UID=u1,DC=example"),
    ],
    ids=["keywords", "email-as-hex", "escapes", "serial-number-as-hex", "dc-uid"],
)
def test_java_subject(subject: x509.Name, expected: str) -> None:
    assert identity.java_subject(subject) == expected


@pytest.mark.parametrize(
    ("subject", "rules", "expected"),
    [
        ("CN=app,OU=mapped,O=acme", "RULE:^CN=([^,]+),OU=mapped,.*$/$1/,DEFAULT", "app"),
        ("CN=app,OU=ops,O=acme", "RULE:^CN=([^,]+),OU=mapped,.*$/$1/,DEFAULT", "CN=app,OU=ops,O=acme"),
        ("CN=App,O=acme", "RULE:^CN=(.*?),O=(.*)$/$1@$2/L", "app@acme"),
        ("CN=app,O=acme", "RULE:^CN=(.*?),O=(.*)$/$1-$3/U", "APP-$3"),
    ],
    ids=["mapped", "default", "lower-case", "missing-group-is-literal"],
)
def test_mapping_rules(subject: str, rules: str, expected: str) -> None:
    assert identity.map_principal(subject, rules) == expected


def test_listener_rules_override_the_brokers_defaults() -> None:
    configs = {
        "advertised.listeners": "INTERNAL://10.0.0.1:9092,MTLS://10.0.0.1:9094,OAUTH://10.0.0.1:9095",
        "ssl.principal.mapping.rules": "DEFAULT",
        "listener.name.mtls.ssl.principal.mapping.rules": "RULE:^CN=([^,]+),.*$/$1/",
        "listener.name.oauth.sasl.oauthbearer.sub.claim.name": "azp",
    }
    mtls = identity.rules_from_configs(configs, port=9094, mechanism=None, broker=1)
    assert (mtls.mapping_rules, mtls.sub_claim, mtls.builder) == ("RULE:^CN=([^,]+),.*$/$1/", "sub", None)
    assert mtls.source == "broker 1's configuration (listener MTLS)"
    oauth = identity.rules_from_configs(configs, port=9095, mechanism="OAUTHBEARER", broker=1)
    assert (oauth.mapping_rules, oauth.sub_claim) == ("DEFAULT", "azp")


def test_rights_the_acls_of_the_principal_do_not_explain() -> None:
    """The consistency check: what the broker grants must follow from the computed principal's ACLs."""
    ops = AuthorizedOperations(
        cluster=frozenset({"DESCRIBE", "ALTER", "DESCRIBE_CONFIGS"}), topics={"orders": frozenset({"DESCRIBE"})}
    )
    theirs = [
        AclBinding("CLUSTER", "LITERAL", guard.CLUSTER_RESOURCE, "User:app", "*", op, "ALLOW")
        for op in ("DESCRIBE", "ALTER", "DESCRIBE_CONFIGS")
    ]
    wrong = guard.unexplained_rights(ops, principal="User:CN=app,OU=mapped", acls=[], topics=["orders"])
    assert wrong == [
        "DESCRIBE on CLUSTER kafka-cluster",
        "ALTER on CLUSTER kafka-cluster",
        "DESCRIBE_CONFIGS on CLUSTER kafka-cluster",
        "DESCRIBE on TOPIC orders",
    ]
    topic = AclBinding("TOPIC", "PREFIXED", "ord", "User:*", "*", "READ", "ALLOW")
    assert guard.unexplained_rights(ops, principal="User:app", acls=[*theirs, topic], topics=["orders"]) == []


@pytest.mark.parametrize(
    ("openssl", "expected"),
    [
        (
            "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: Hostname mismatch, certificate is not valid "
            "for 'kafka-1'. (_ssl.c:1006)",
            "the broker's certificate does not name the host connected to (Hostname mismatch",
        ),
        (
            "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired (_ssl.c:1006)",
            "the broker's certificate has expired; the broker needs a renewed certificate",
        ),
        (
            "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate in certificate chain",
            "the broker's certificate is not trusted: self-signed certificate in certificate chain; check the trust",
        ),
    ],
    ids=["host-name", "expired", "unknown-ca"],
)
def test_tls_failures_name_their_cause(openssl: str, expected: str) -> None:
    sentence = bootstrap.tls_failure(openssl)
    assert sentence is not None and sentence.startswith(expected), sentence


@pytest.mark.parametrize(
    ("length", "kind"),
    [
        (0x15030300, "mismatch"),  # an alert record, TLS 1.2 framing: what Kafka's TLS listener answers
        (0x16030100, "mismatch"),  # a handshake record
        (1_000_000_000, "other"),  # too long, and no TLS record head
    ],
)
def test_a_tls_record_read_as_a_frame_length_names_a_tls_port(length: int, kind: str) -> None:
    failure = bootstrap.classify("b:9093", kafka_errors.InvalidReceiveError(f"Invalid frame length: {length}"))
    assert failure.kind == kind
    if kind == "mismatch":
        assert failure.detail.startswith("protocol mismatch: the port speaks TLS")


def test_a_refused_client_certificate_is_named_by_what_the_client_knows_of_it() -> None:
    watch = bootstrap.BootstrapWatch(("b:9093",))
    refused = "TLS handshake failed: the broker does not trust the client certificate (...)"
    watch.failures.append(bootstrap.Failure("b:9093", "tls", refused))
    watch.gave_up = True
    plain = watch.failure_message("b:9093 (SSL)")
    assert plain is not None and "does not trust the client certificate" in plain
    expired = watch.failure_message("b:9093 (SSL)", client_problem="it expired on 2026-01-01 00:00 UTC (CN=x)")
    assert expired == (
        "cannot connect to Kafka at b:9093 (SSL): b:9093: TLS handshake failed: the broker refused the client "
        "certificate: it expired on 2026-01-01 00:00 UTC (CN=x)"
    )

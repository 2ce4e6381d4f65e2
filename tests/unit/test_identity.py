"""The principal Kafka's default principal builder gives a certificate or a token, computed from plain data.

Expected strings are written out as Java's ``X500Principal.getName()`` prints them (RFC 2253, most specific RDN
first, attributes without an RFC 2253 keyword as ``<OID>=#<hex DER>``), not derived with the code under test.
"""

from __future__ import annotations

import pytest
from cryptography import x509
from cryptography.x509.oid import NameOID

from reconciler.apply import access, guard
from reconciler.kafka import identity
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
    wrong = access.unexplained_rights(ops, principal="User:CN=app,OU=mapped", acls=[], topics=["orders"])
    assert wrong == [
        "DESCRIBE on CLUSTER kafka-cluster",
        "ALTER on CLUSTER kafka-cluster",
        "DESCRIBE_CONFIGS on CLUSTER kafka-cluster",
        "DESCRIBE on TOPIC orders",
    ]
    topic = AclBinding("TOPIC", "PREFIXED", "ord", "User:*", "*", "READ", "ALLOW")
    assert access.unexplained_rights(ops, principal="User:app", acls=[*theirs, topic], topics=["orders"]) == []

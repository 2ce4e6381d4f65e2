"""The principal a refused read's grant hint names: over TLS and OAUTHBEARER, the one the brokers give the
connection (``identity``: Java's subject format, the brokers' mapping rules, the claim they name), from what the
connection already holds; the generic description only when that cannot be computed. Plain data: a certificate
file written here and a connection object that never connects."""

from __future__ import annotations

import dataclasses
import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from reconciler.connection.settings import ConnectionSettings, Secret
from reconciler.kafka import identity, rights

RULES = r"RULE:^CN=([a-z-]+),OU=ci,O=acme$/svc-$1/L,DEFAULT"


def certificate_file(tmp_path: Path) -> Path:
    """A self-signed client certificate for CN=Kafka-Plan,OU=ci,O=acme (subject written most general first)."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "acme"),
            x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "ci"),
            x509.NameAttribute(NameOID.COMMON_NAME, "kafka-plan"),
        ]
    )
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(7)
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    path = tmp_path / "client.pem"
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return path


def broker_rules(*, mapping: str | None = None, claim: str = "sub", builder: str | None = None) -> identity.BrokerRules:
    return identity.BrokerRules(mapping_rules=mapping, sub_claim=claim, builder=builder, source="broker 1")


def tls_wire(tmp_path: Path, rules: identity.BrokerRules | bool | None) -> Any:
    settings = ConnectionSettings(
        bootstrap_servers=("broker1:9093",), security_protocol="SSL", ssl_certfile=str(certificate_file(tmp_path))
    )
    return SimpleNamespace(settings=settings, broker_rules=rules, token_provider=None)


def oauth_wire(claims: dict[str, Any], rules: identity.BrokerRules | bool | None) -> Any:
    settings = ConnectionSettings(
        bootstrap_servers=("broker1:9094",),
        security_protocol="SASL_SSL",
        sasl_mechanism="OAUTHBEARER",
        oauth_token_endpoint_url="file:/run/token.jwt",
    )
    return SimpleNamespace(settings=settings, broker_rules=rules, token_provider=SimpleNamespace(claims=claims))


def hint(wire: Any) -> str | None:
    return rights.grant_hint("DescribeConfigs:topic", settings=wire.settings, name="orders", wire=wire)


def test_a_tls_hint_names_the_subject_as_java_writes_it_under_the_brokers_default_rules(tmp_path: Path) -> None:
    wire = tls_wire(tmp_path, broker_rules())
    assert hint(wire) == "grant DESCRIBE_CONFIGS on TOPIC orders to User:CN=kafka-plan,OU=ci,O=acme"


def test_a_tls_hint_names_the_principal_the_brokers_mapping_rules_make(tmp_path: Path) -> None:
    wire = tls_wire(tmp_path, broker_rules(mapping=RULES))
    assert hint(wire) == "grant DESCRIBE_CONFIGS on TOPIC orders to User:svc-kafka-plan"


def test_without_the_brokers_rules_the_hint_says_the_client_settings_named_it(tmp_path: Path) -> None:
    # not read yet (no request is sent for a hint); could not be read: the next test
    assert hint(tls_wire(tmp_path, None)) == (
        "grant DESCRIBE_CONFIGS on TOPIC orders to User:CN=kafka-plan,OU=ci,O=acme "
        "(named by the client settings; the brokers' ssl.principal.mapping.rules was not read)"
    )


def test_an_oauth_hint_names_the_claim_the_brokers_name_the_principal_by() -> None:
    wire = oauth_wire({"sub": "5f1c-uuid", "azp": "kafka-plan"}, broker_rules(claim="azp"))
    assert hint(wire) == "grant DESCRIBE_CONFIGS on TOPIC orders to User:kafka-plan"


def test_unknown_identities_keep_the_generic_text(tmp_path: Path) -> None:
    custom = tls_wire(tmp_path, broker_rules(builder="com.acme.PrincipalBuilder"))
    no_claim = oauth_wire({"azp": "kafka-plan"}, broker_rules())
    unmatched = tls_wire(tmp_path, broker_rules(mapping=r"RULE:^CN=nobody$/x/"))
    assert (
        hint(custom)
        == hint(unmatched)
        == (
            "grant DESCRIBE_CONFIGS on TOPIC orders to the connecting principal "
            "(the certificate's subject, e.g. User:CN=...)"
        )
    )
    assert hint(no_claim) == (
        "grant DESCRIBE_CONFIGS on TOPIC orders to the connecting principal "
        "(User: and the token's claim the brokers name it by, e.g. User:<sub>)"
    )


def test_sasl_and_plaintext_hints_need_no_computation() -> None:
    scram = ConnectionSettings(
        bootstrap_servers=("broker1:9092",),
        security_protocol="SASL_SSL",
        sasl_mechanism="SCRAM-SHA-512",
        username="kafka-plan",
        password=Secret("pw-1234"),
    )
    assert rights.principal_of(scram) == "User:kafka-plan"
    assert rights.principal_of(ConnectionSettings(bootstrap_servers=("broker1:9092",))) == "User:ANONYMOUS"


def test_when_the_brokers_rules_could_not_be_read_the_hint_says_first_that_the_principal_is_uncertain(
    tmp_path: Path,
) -> None:
    """Regression: with the brokers' rules unreadable (the principal may not read broker configs) the hint named
    the client-side identity as if it were the brokers', and granting it granted the wrong principal under mapping
    rules or another OAuth claim. It now says so first, names the grant that lets the tool read the rules, and the
    candidates."""
    wire = tls_wire(tmp_path, False)
    wire.settings = dataclasses.replace(wire.settings, ssl_principal_mapping_rules=RULES)
    assert hint(wire) == (
        "the brokers' ssl.principal.mapping.rules could not be read, so the principal they give this connection may "
        "not be the one the client computes (User:svc-kafka-plan by the client settings, "
        "User:CN=kafka-plan,OU=ci,O=acme by Kafka's default rule): first grant DESCRIBE_CONFIGS on CLUSTER "
        "kafka-cluster to the brokers' principal for this connection, which lets the tool read the rules and name "
        "it, then grant DESCRIBE_CONFIGS on TOPIC orders to the principal it names"
    )
    refused_rules = rights.grant_hint("DescribeConfigs:broker", settings=wire.settings, wire=wire)
    assert refused_rules is not None and refused_rules.endswith("lets the tool read the rules and name it")
    oauth = rights.grant_hint("DescribeAcls", settings=oauth_wire({"sub": "5f1c"}, False).settings,
                              wire=oauth_wire({"sub": "5f1c"}, False))  # fmt: skip
    assert oauth is not None and oauth.startswith(
        "the brokers' sasl.oauthbearer.sub.claim.name could not be read, so the principal they give this connection "
        "may not be the one the client computes (User:5f1c by the client settings and the default claim, sub): first"
    )
    assert oauth.endswith("then grant DESCRIBE on CLUSTER kafka-cluster to the principal it names")

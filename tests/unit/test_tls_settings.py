"""TLS, OAuth and MSK IAM settings without a broker: store readers, Java properties, environment, mapping rules.

The stores are made at test time by ``tests.support.tls`` (JKS and trust stores by the JDK's keytool), so the
JKS reader is checked against files the JDK wrote, not against files this project wrote itself.
"""

from __future__ import annotations

import dataclasses
import ssl
from pathlib import Path

import pytest
from cryptography import x509

from reconciler import manifests
from reconciler.base import errors
from reconciler.connection import layers as connection_sources
from reconciler.connection.settings import ConnectionSettings, Secret, env_layer, properties_layer
from reconciler.kafka import oauth, stores, tls
from reconciler.kafka.bootstrap import tls_failure
from reconciler.kafka.wire import Wire
from tests.support.oidc import OidcServer
from tests.support.tls import ClientFiles, TestPki


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> TestPki:
    return TestPki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def client(pki: TestPki) -> ClientFiles:
    return pki.client("svc-orders", unit="mapped")


def pem_subjects(pem: str) -> list[str]:
    return [c.subject.rfc4514_string() for c in x509.load_pem_x509_certificates(pem.encode())]


@pytest.mark.parametrize("store", ["truststore_p12", "truststore_jks"])
def test_trust_stores_written_by_keytool_give_the_ca(pki: TestPki, store: str) -> None:
    pem = stores.trusted_certificates(getattr(pki, store), password=Secret(pki.store_password))
    assert pem_subjects(pem) == [pki.ca.cert.subject.rfc4514_string()]


def test_a_jks_trust_store_reads_without_its_password_as_java_does(pki: TestPki) -> None:
    assert pem_subjects(stores.trusted_certificates(pki.truststore_jks)) == [pki.ca.cert.subject.rfc4514_string()]


@pytest.mark.parametrize("store", ["truststore_p12", "truststore_jks"])
def test_a_wrong_store_password_is_named_without_the_password(pki: TestPki, store: str) -> None:
    with pytest.raises(errors.ConfigError, match=r"wrong password \(check ssl.truststore.password\)") as info:
        stores.trusted_certificates(getattr(pki, store), password=Secret("Wr0ng-pass"))
    assert "Wr0ng-pass" not in str(info.value) and pki.store_password not in str(info.value)


@pytest.mark.parametrize("kind", ["jks", "p12", "pem"])
def test_key_stores_give_the_key_and_chain(pki: TestPki, client: ClientFiles, kind: str) -> None:
    if kind == "jks":
        material = stores.key_material(
            client.keystore_jks,
            store_password=Secret(client.store_password),
            key_password=Secret(client.jks_key_password),
        )
    elif kind == "p12":
        material = stores.key_material(client.keystore_p12, store_password=Secret(client.store_password))
    else:
        combined = client.key_pem.parent / "combined.pem"
        combined.write_bytes(client.key_pem.read_bytes() + client.cert_pem.read_bytes())
        material = stores.key_material(combined, key_password=Secret(client.key_password))
    assert material.chain[0].subject.rfc4514_string() == client.subject
    assert material.chain[-1] == pki.ca.cert
    assert material.key.public_key() == material.chain[0].public_key()


def test_a_wrong_jks_key_password_names_the_setting(client: ClientFiles) -> None:
    with pytest.raises(errors.ConfigError, match=r"wrong password \(check ssl.key.password\)"):
        stores.key_material(
            client.keystore_jks, store_password=Secret(client.store_password), key_password=Secret("nope")
        )


def test_a_file_that_is_no_store_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "garbage.p12"
    path.write_bytes(b"\x30\x03\x02\x01\x00 not pkcs12")
    with pytest.raises(errors.ConfigError, match=r"cannot open the trust store .*garbage.p12 \(PKCS12\)"):
        stores.trusted_certificates(path, password=Secret("x"))


def test_ssl_context_from_java_stores_verifies_the_broker(pki: TestPki, client: ClientFiles) -> None:
    settings = ConnectionSettings(
        bootstrap_servers=("127.0.0.1:9093",),
        security_protocol="SSL",
        ssl_truststore_location=str(pki.truststore_jks),
        ssl_truststore_password=Secret(pki.store_password),
        ssl_keystore_location=str(client.keystore_p12),
        ssl_keystore_password=Secret(client.store_password),
        ssl_check_hostname=False,
    )
    ctx = tls.ssl_context(settings)
    assert ctx.verify_mode is ssl.CERT_REQUIRED and ctx.check_hostname is False
    assert [c["subject"] for c in ctx.get_ca_certs()] == [
        ((("organizationName", "kafka-reconciler tests"),), (("commonName", "kafka-reconciler test CA"),))
    ]


def test_certificate_principal_follows_the_mapping_rules(client: ClientFiles) -> None:
    settings = ConnectionSettings(
        bootstrap_servers=("b:9093",),
        security_protocol="SSL",
        ssl_certfile=str(client.cert_pem),
        ssl_keyfile=str(client.key_pem),
        ssl_key_password=Secret(client.key_password),
    )
    assert tls.certificate_principal(settings) == f"User:{client.subject}"
    assert client.subject == "CN=svc-orders,OU=mapped,O=kafka-reconciler tests"
    rules = r"RULE:^CN=([^,]+),OU=([^,]+),.*$/$2-$1/L, DEFAULT"
    mapped = dataclasses.replace(settings, ssl_principal_mapping_rules=rules)
    assert tls.certificate_principal(mapped) == "User:mapped-svc-orders"


@pytest.mark.parametrize(
    ("rules", "subject", "expected"),
    [
        ("DEFAULT", "CN=a,OU=b", "CN=a,OU=b"),
        ("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,DEFAULT", "CN=kafka1,OU=ServiceUsers,O=Org", "kafka1"),
        ("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,DEFAULT", "CN=adminUser,OU=Admin,O=Org", "CN=adminUser,OU=Admin,O=Org"),
        ("RULE:^CN=(.*?),OU=(.*?),O=.*$/$1@$2/U", "CN=duke,OU=javasoft,O=Org", "DUKE@JAVASOFT"),
    ],
)
def test_mapping_rules_as_kafka_documents_them(rules: str, subject: str, expected: str) -> None:
    assert tls.map_principal(subject, rules) == expected


def test_a_subject_no_rule_matches_is_an_error() -> None:
    with pytest.raises(errors.ConfigError, match="no rule matches the certificate subject"):
        tls.map_principal("CN=x", "RULE:^CN=y$/y/")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "client.properties"
    path.write_text(text)
    return path


def test_java_client_properties_for_oauthbearer(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "bootstrap.servers=b:9093\nsecurity.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\n"
        "sasl.oauthbearer.token.endpoint.url=https://idp.example/oauth2/token\n"
        "sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler\n"
        "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \\\n"
        '  clientId="reconciler" clientSecret="S3cr3t-value" scope="kafka.admin";\n',
    )
    settings = ConnectionSettings.from_layers(properties_layer(path))
    assert (settings.sasl_mechanism, settings.oauth_client_id, settings.oauth_scope) == (
        "OAUTHBEARER",
        "reconciler",
        "kafka.admin",
    )
    assert settings.oauth_token_endpoint_url == "https://idp.example/oauth2/token"
    assert settings.oauth_client_secret == Secret("S3cr3t-value")
    assert "S3cr3t-value" not in repr(settings) + settings.describe()


def test_oauthbearer_without_a_token_endpoint_is_refused(tmp_path: Path) -> None:
    jaas = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="a" clientSecret="b";'
    path = write(tmp_path, f"bootstrap.servers=b:9093\nsecurity.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\n"
                           f"sasl.jaas.config={jaas}\n")  # fmt: skip
    with pytest.raises(errors.ConfigError, match=r"needs sasl\.oauthbearer\.token\.endpoint\.url"):
        ConnectionSettings.from_layers(properties_layer(path))


def test_msk_iam_properties_map_to_kafka_python(tmp_path: Path) -> None:
    """What AWS documents for Java clients; kafka-python signs with botocore's credentials and region."""
    path = write(
        tmp_path,
        "bootstrap.servers=b-1.msk.eu-west-1.amazonaws.com:9098\nsecurity.protocol=SASL_SSL\n"
        "sasl.mechanism=AWS_MSK_IAM\nsasl.jaas.config=software.amazon.msk.auth.iam.IAMLoginModule required;\n"
        "sasl.client.callback.handler.class=software.amazon.msk.auth.iam.IAMClientCallbackHandler\n",
    )
    settings = ConnectionSettings.from_layers(properties_layer(path))
    kwargs = Wire(settings)._client_kwargs()
    assert (kwargs["security_protocol"], kwargs["sasl_mechanism"]) == ("SASL_SSL", "AWS_MSK_IAM")
    assert "sasl_plain_username" not in kwargs and isinstance(kwargs["ssl_context"], ssl.SSLContext)
    assert Wire(settings).principal is None  # IAM policies, not Kafka ACLs, govern access


def test_msk_iam_profile_option_points_to_the_environment(tmp_path: Path) -> None:
    jaas = 'software.amazon.msk.auth.iam.IAMLoginModule required awsProfileName="ops";'
    path = write(tmp_path, f"bootstrap.servers=b:9098\nsecurity.protocol=SASL_SSL\nsasl.mechanism=AWS_MSK_IAM\n"
                           f"sasl.jaas.config={jaas}\n")  # fmt: skip
    with pytest.raises(errors.ConfigError, match=r"awsProfileName are not supported.*AWS_PROFILE"):
        ConnectionSettings.from_layers(properties_layer(path))


def test_environment_variables_for_stores_and_oauth() -> None:
    env = {
        "KAFKA_BOOTSTRAP_SERVERS": "b:9093",
        "KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
        "KAFKA_SASL_MECHANISM": "OAUTHBEARER",
        "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL": "https://idp/token",
        "KAFKA_SASL_OAUTHBEARER_CLIENT_ID": "svc",
        "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET": "env-s3cret",
        "KAFKA_SSL_TRUSTSTORE_LOCATION": "/etc/kafka/truststore.jks",
        "KAFKA_SSL_TRUSTSTORE_PASSWORD": "store-s3cret",
        "KAFKA_SSL_KEYSTORE_TYPE": "PKCS12",
    }
    settings = ConnectionSettings.from_layers(env_layer(env))
    assert settings.oauth_client_secret == Secret("env-s3cret")
    assert settings.ssl_truststore_password == Secret("store-s3cret")
    assert (settings.ssl_truststore_location, settings.ssl_keystore_type) == ("/etc/kafka/truststore.jks", "PKCS12")
    assert len(settings.secrets()) == 2


def test_token_provider_caches_reports_expiry_and_refusal() -> None:
    server = OidcServer(audience="kafka").start()
    try:
        good = server.register("svc")
        expired = server.register("old", lifetime_s=-300)

        def provider(client_id: str, secret: str) -> oauth.ClientCredentialsTokenProvider:
            return oauth.ClientCredentialsTokenProvider(
                ConnectionSettings(
                    bootstrap_servers=("b:9093",),
                    security_protocol="SASL_SSL",
                    sasl_mechanism="OAUTHBEARER",
                    oauth_token_endpoint_url=server.token_url,
                    oauth_client_id=client_id,
                    oauth_client_secret=Secret(secret),
                )
            )

        ok = provider("svc", good.secret)
        assert ok.token() == ok.token() and server.token_requests == 1
        assert ok.subject == "svc" and oauth.claims(ok.token())["aud"] == "kafka"
        with pytest.raises(oauth.OAuthTokenError, match=r"for client old expired \d+s ago") as info:
            provider("old", expired.secret).token()
        with pytest.raises(oauth.OAuthTokenError, match=r"HTTP 401 \(invalid_client\)") as refused:
            provider("svc", "wrong-secret-value").token()
        for message in (str(info.value), str(refused.value)):
            assert good.secret not in message and expired.secret not in message and "wrong-secret-value" not in message
    finally:
        server.close()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Handshake failed: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate "
         "in certificate chain (_ssl.c:1006)", "not trusted: self-signed certificate in certificate chain;"),
        ("[SSL: SSLV3_ALERT_CERTIFICATE_UNKNOWN] sslv3 alert certificate unknown", "does not trust the client"),
        ("[SSL: SSLV3_ALERT_BAD_CERTIFICATE] sslv3 alert bad certificate", "needs one and none was sent"),
        ("KafkaConnectionError: [SSL: DECRYPTION_FAILED_OR_BAD_RECORD_MAC] decryption failed or bad record mac "
         "(_ssl.c:2580)", "broke off the handshake after the client certificate was sent"),
        ("KafkaConnectionError: socket disconnected", None),
    ],
)  # fmt: skip
def test_tls_failures_are_told_apart(text: str, expected: str | None) -> None:
    found = tls_failure(text)
    assert found is None if expected is None else (found is not None and expected in found)


def test_cluster_profile_with_java_stores_and_oauth(tmp_path: Path) -> None:
    """A ``Cluster`` profile names stores and OAuth credentials; secrets stay references until connecting."""
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "cluster.yaml").write_text(
        "apiVersion: kafka-reconciler/v1\nkind: Cluster\nmetadata: {name: prod}\nspec:\n"
        '  bootstrapServers: ["b-1:9094"]\n  securityProtocol: SASL_SSL\n  saslMechanism: OAUTHBEARER\n'
        "  oauth:\n    tokenEndpointUrl: https://idp/token\n    clientId: reconciler\n"
        "    clientSecretFrom: {env: OAUTH_SECRET}\n    scope: kafka\n"
        "  tls:\n    truststore: stores/truststore.jks\n    truststoreType: jks\n"
        "    truststorePasswordFrom: {env: TRUST_PASS}\n    endpointIdentification: false\n"
    )
    loaded = manifests.load([tmp_path / "m"])
    env = {"OAUTH_SECRET": "0auth-s3cret", "TRUST_PASS": "trust-s3cret"}
    settings = connection_sources.resolve(profiles=loaded.profiles, environ=env)
    assert settings.ssl_truststore_location == str(tmp_path / "m" / "stores" / "truststore.jks")
    assert (settings.ssl_truststore_type, settings.ssl_check_hostname) == ("JKS", False)
    assert (settings.oauth_client_id, settings.oauth_scope) == ("reconciler", "kafka")
    assert settings.oauth_client_secret == Secret("0auth-s3cret")
    assert settings.ssl_truststore_password == Secret("trust-s3cret")
    assert "0auth-s3cret" not in repr(loaded.profiles) + repr(settings)


def test_the_test_pki_passwords_are_never_read_by_keytool_as_a_jvm_option() -> None:
    """keytool takes an argument beginning with ``-J`` as a JVM option, a password value included."""
    from tests.support.tls import store_secret

    assert not any(store_secret().startswith("-") for _ in range(2_000))

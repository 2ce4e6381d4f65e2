"""Plan, apply and read back over TLS, mTLS, SASL_SSL/SCRAM and SASL_SSL/OAUTHBEARER on a real broker.

The ``kafka_secure`` node (tests/kafka/secure.py) serves one listener per set-up; certificates, Java stores and
OAuth tokens are all made at test time. What is read back is read by plain kafka-python over the harness's own
listener. Connection settings come the ways users give them: a Java ``client.properties`` file (trust and key
stores in PEM, PKCS12 and JKS), ``KAFKA_*`` environment variables, and the reconciler's settings object.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from kafka.admin import ACL, ACLOperation, ACLPermissionType, ACLResourcePatternType, ResourcePattern
from kafka.admin import ResourceType as KafkaResourceType

from reconciler.apply import Outcome
from reconciler.apply.access import MissingAccess
from reconciler.apply.guard import SelfLockoutRisk
from reconciler.connection.settings import ConnectionSettings, Secret, env_layer, properties_layer
from reconciler.kafka.adapter import KafkaAdapter
from tests.kafka.secure import MAPPING_RULES, SecureCluster
from tests.support.builders import kafka_acl, lock_right
from tests.support.integration import acls_of, apply, make_plan, write_manifests
from tests.support.live import cli, topic_configs, topics_state
from tests.support.manifest_texts import topic_documents

# On every Kafka version: connections and security: TLS, mTLS, SCRAM, OAUTHBEARER per release.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]


def properties(path: Path, lines: dict[str, str]) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in lines.items()))
    path.chmod(0o600)
    return path


def topics(prefix: str) -> str:
    return topic_documents(
        {
            f"{prefix}orders": (6, 1, {"retention.ms": "3600000", "cleanup.policy": "compact"}),
            f"{prefix}events": (3, 1, {"max.message.bytes": "2097152"}),
        }
    )


def assert_applied(cluster: SecureCluster, prefix: str) -> None:
    assert topics_state(cluster, prefix) == {f"{prefix}orders": 6, f"{prefix}events": 3}
    configs = topic_configs(cluster, [f"{prefix}orders", f"{prefix}events"])
    assert configs[f"{prefix}orders"] == {"retention.ms": "3600000", "cleanup.policy": "compact"}
    assert configs[f"{prefix}events"] == {"max.message.bytes": "2097152"}


def plan_apply_replan(adapter: KafkaAdapter, directory: Path) -> None:
    p = make_plan(adapter, directory)
    assert len(p.changes) == 2
    report = apply(adapter, p)
    assert report.exit_code == 0, report
    assert make_plan(adapter, directory).changes == ()


def grant(cluster: SecureCluster, principal: str, prefix: str) -> None:
    """ALL on topics under ``prefix``; DESCRIBE, DESCRIBE_CONFIGS and ALTER on the cluster (to plan, manage ACLs)."""
    bindings = [
        ACL(principal, "*", ACLOperation.ALL, ACLPermissionType.ALLOW,
            ResourcePattern(KafkaResourceType.TOPIC, prefix, ACLResourcePatternType.PREFIXED)),
        *(ACL(principal, "*", op, ACLPermissionType.ALLOW,
              ResourcePattern(KafkaResourceType.CLUSTER, "kafka-cluster", ACLResourcePatternType.LITERAL))
          for op in (ACLOperation.DESCRIBE, ACLOperation.DESCRIBE_CONFIGS, ACLOperation.ALTER)),
    ]  # fmt: skip
    with cluster.admin_session() as admin:
        result = admin.create_acls(bindings)
    assert not result["failed"], result["failed"]


def own_acls_deleted(principal: str, prefix: str) -> str:
    """Manifests that own ``principal`` and declare no ACL for it: the plan deletes its bindings."""
    return f"""
        apiVersion: kafka-reconciler/v1
        kind: Ownership
        metadata: {{name: tests}}
        spec:
          topics: [{{prefix: "{prefix}"}}]
          principals: [{{name: "{principal}"}}]
          delete: {{acl: true}}
        """


@pytest.mark.parametrize("store", ["PEM", "PKCS12", "JKS"])
def test_tls_with_each_truststore_format_plans_applies_and_reads_back(
    kafka_secure: SecureCluster, topic_prefix: str, tmp_path: Path, store: str
) -> None:
    pki = kafka_secure.pki
    location = {"PEM": pki.ca_pem, "PKCS12": pki.truststore_p12, "JKS": pki.truststore_jks}[store]
    lines = {
        "bootstrap.servers": kafka_secure.address("TLS"),
        "security.protocol": "SSL",
        "ssl.truststore.location": str(location),
    }
    if store != "PEM":
        lines["ssl.truststore.password"] = pki.store_password
    settings = ConnectionSettings.from_layers(properties_layer(properties(tmp_path / "client.properties", lines)))
    directory = write_manifests(tmp_path / "m", topics(topic_prefix))
    with KafkaAdapter(settings) as adapter:
        assert adapter.principal == "User:ANONYMOUS"
        plan_apply_replan(adapter, directory)
    assert_applied(kafka_secure, topic_prefix)


def test_mtls_principal_from_a_mapped_certificate_is_guarded_and_checked(
    kafka_secure: SecureCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """A JKS key store whose certificate maps to ``User:app``: allowed work applies, the rest is refused early."""
    app = kafka_secure.mtls_app
    lines = {
        "bootstrap.servers": kafka_secure.address("MTLS"),
        "security.protocol": "SSL",
        "ssl.truststore.location": str(kafka_secure.pki.truststore_jks),
        "ssl.truststore.password": app.store_password,
        "ssl.keystore.location": str(app.keystore_jks),
        "ssl.keystore.password": app.store_password,
        "ssl.key.password": app.jks_key_password,
        "ssl.principal.mapping.rules": MAPPING_RULES,
    }
    settings = ConnectionSettings.from_layers(properties_layer(properties(tmp_path / "client.properties", lines)))
    grant(kafka_secure, "User:app", topic_prefix)
    with KafkaAdapter(settings) as adapter:
        assert adapter.principal == "User:app"
        plan_apply_replan(adapter, write_manifests(tmp_path / "ok", topics(topic_prefix)))

        outside = write_manifests(tmp_path / "outside", topic_documents({f"x{topic_prefix}other": (1, 1, {})}))
        with pytest.raises(MissingAccess, match=r"(?s)User:app lacks 3 permission.*grant CREATE on TOPIC x"):
            apply(adapter, make_plan(adapter, outside))

        lockout = write_manifests(tmp_path / "lockout", own_acls_deleted("User:app", topic_prefix))
        with pytest.raises(SelfLockoutRisk, match=r"User:app \(the principal this tool connects as\)"):
            apply(adapter, make_plan(adapter, lockout))
    assert_applied(kafka_secure, topic_prefix)
    assert len(acls_of(kafka_secure, "User:app")) == 4  # nothing was deleted


def test_mtls_subject_principal_applies_acls_for_certificate_principals(
    kafka_secure: SecureCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """A PKCS12 key store with an unmapped certificate: the principal is the whole subject, a super user here."""
    admin = kafka_secure.mtls_admin
    settings = kafka_secure.settings(
        "MTLS",
        ssl_keystore_location=str(admin.keystore_p12),
        ssl_keystore_password=Secret(admin.store_password),
        ssl_principal_mapping_rules=MAPPING_RULES,
    )
    reader = f"User:CN={topic_prefix}reader,OU=apps,O=kafka-reconciler tests"
    directory = write_manifests(
        tmp_path / "m",
        f"""
        apiVersion: kafka-reconciler/v1
        kind: Acl
        metadata: {{name: reader}}
        spec:
          bindings:
            - principal: "{reader}"
              operations: [READ, DESCRIBE]
              resourceType: TOPIC
              resourceName: "{topic_prefix}"
              patternType: PREFIXED
        """,
    )
    with KafkaAdapter(settings) as adapter:
        assert adapter.principal == f"User:{admin.subject}"
        assert admin.subject == "CN=admin,OU=ops,O=kafka-reconciler tests"
        p = make_plan(adapter, directory)
        report = apply(adapter, p)
        assert report.exit_code == 0 and {i.outcome for i in report.items} == {Outcome.APPLIED}, report
        assert make_plan(adapter, directory).changes == ()
    found = {(a.resource_pattern.resource_name, a.operation.name) for a in acls_of(kafka_secure, reader)}
    assert found == {(topic_prefix, "READ"), (topic_prefix, "DESCRIBE")}


def test_scram_over_tls_from_a_command_config_file(
    kafka_secure: SecureCluster, topic_prefix: str, tmp_path: Path
) -> None:
    password = kafka_secure.scram["admin"]
    config = properties(
        tmp_path / "client.properties",
        {
            "bootstrap.servers": kafka_secure.address("SCRAM"),
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required "
            f'username="admin" password="{password}";',
            "ssl.truststore.location": str(kafka_secure.pki.truststore_p12),
            "ssl.truststore.password": kafka_secure.pki.store_password,
        },
    )
    directory = write_manifests(tmp_path / "m", topics(topic_prefix))
    planned = cli(["plan", str(directory), "--command-config", str(config), "--out", str(tmp_path / "plan.json")])
    assert planned.returncode == 0, planned.stderr
    applied = cli(["apply", "--plan", str(tmp_path / "plan.json"), "--command-config", str(config), "--auto-approve"])
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert_applied(kafka_secure, topic_prefix)
    for run in (planned, applied):
        for secret in (password, kafka_secure.pki.store_password):
            assert secret not in run.stdout + run.stderr
    assert password not in (tmp_path / "plan.json").read_text()


def oauth_env(cluster: SecureCluster, client_id: str, secret: str) -> dict[str, str]:
    """Environment for the OAUTH listener; skips the test on a broker without one (Kafka before 3.1)."""
    if not cluster.has_oauth:
        pytest.skip(f"Kafka {cluster.version} has no broker-side JWKS validator for OAUTHBEARER (KIP-768, 3.1+)")
    return {
        "KAFKA_BOOTSTRAP_SERVERS": cluster.address("OAUTH"),
        "KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
        "KAFKA_SASL_MECHANISM": "OAUTHBEARER",
        "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL": cluster.oidc.token_url,
        "KAFKA_SASL_OAUTHBEARER_CLIENT_ID": client_id,
        "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET": secret,
        "KAFKA_SASL_OAUTHBEARER_SCOPE": "kafka",
        "KAFKA_SSL_TRUSTSTORE_LOCATION": str(cluster.pki.truststore_jks),
        "KAFKA_SSL_TRUSTSTORE_PASSWORD": cluster.pki.store_password,
    }


def test_oauth_from_the_environment_plans_applies_and_guards_the_token_principal(
    kafka_secure: SecureCluster, topic_prefix: str, tmp_path: Path
) -> None:
    client = kafka_secure.oauth_app
    env = oauth_env(kafka_secure, client.client_id, client.secret)
    grant(kafka_secure, "User:app-client", topic_prefix)
    with kafka_secure.admin_session() as admin:  # an apply through the command line joins the apply lock's group
        assert not admin.create_acls([kafka_acl(lock_right("User:app-client"))])["failed"]
    directory = write_manifests(tmp_path / "m", topics(topic_prefix))
    applied = cli(["apply", str(directory), "--auto-approve"], env=env)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert client.secret not in applied.stdout + applied.stderr
    assert_applied(kafka_secure, topic_prefix)

    settings = ConnectionSettings.from_layers(env_layer(env))
    lockout = write_manifests(tmp_path / "lockout", own_acls_deleted("User:app-client", topic_prefix))
    with KafkaAdapter(settings) as adapter:
        assert adapter.principal == "User:app-client"  # the token's sub claim (asking connects)
        p = make_plan(adapter, lockout)
    lockout_risk = pytest.raises(SelfLockoutRisk, match=r"User:app-client \(the principal this tool connects as\)")
    with KafkaAdapter(settings) as adapter, lockout_risk:  # a fresh connection, as apply --plan has
        apply(adapter, p)


FAILURES = ["untrusted-server", "untrusted-client", "expired-token", "wrong-password", "wrong-client-secret"]


@pytest.mark.parametrize("case", FAILURES)
def test_each_connection_failure_has_its_own_message_without_secrets(
    kafka_secure: SecureCluster, tmp_path: Path, case: str
) -> None:
    pki, oidc = kafka_secure.pki, kafka_secure.oidc
    trust = {"ssl.truststore.location": str(pki.truststore_jks), "ssl.truststore.password": pki.store_password}
    env: dict[str, str] = {}
    secrets = [pki.store_password]
    lines: dict[str, str] = {}
    if case == "untrusted-server":
        lines = {"security.protocol": "SSL", "bootstrap.servers": kafka_secure.address("TLS"), **trust}
        lines["ssl.truststore.location"] = str(pki.rogue_truststore_jks)
        expected = "cannot connect to Kafka at .*: TLS handshake failed: the broker's certificate is not trusted"
    elif case == "untrusted-client":
        rogue = kafka_secure.mtls_rogue
        lines = {
            "security.protocol": "SSL",
            "bootstrap.servers": kafka_secure.address("MTLS"),
            **trust,
            "ssl.keystore.location": str(rogue.keystore_p12),
            "ssl.keystore.password": rogue.store_password,
        }
        expected = "cannot connect to Kafka at .*: TLS handshake failed: the broker does not trust the client cert"
        if kafka_secure.dist.major < 3:
            # Kafka 2.8 on Java 17 (TLS 1.3) closes the session without an alert: the client reads a broken record.
            expected = "cannot connect to Kafka at .*: TLS handshake failed: the broker broke off the handshake after "
            expected += "the client certificate was sent"
    elif case == "wrong-password":
        wrong = f"not-{kafka_secure.scram['alice']}"
        lines = {
            "security.protocol": "SASL_SSL",
            "bootstrap.servers": kafka_secure.address("SCRAM"),
            "sasl.mechanism": "SCRAM-SHA-256",
            "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" '
            f'password="{wrong}";',
            **trust,
        }
        secrets += [wrong, kafka_secure.scram["alice"]]
        expected = "authentication failed at .*SCRAM-SHA-256 as alice.*check the username"
    else:
        client = kafka_secure.oauth_expired if case == "expired-token" else kafka_secure.oauth_app
        secret = client.secret if case == "expired-token" else f"not-{client.secret}"
        env = oauth_env(kafka_secure, client.client_id, secret)
        secrets += [secret, client.secret]
        expected = (
            f"the OAuth token from {oidc.token_url} for client expired-client expired \\d+s ago"
            if case == "expired-token"
            else "the OAuth token endpoint .* refused the request: HTTP 401 \\(invalid_client\\)"
        )
    args = ["plan", str(write_manifests(tmp_path / "m", topics("t-never-")))]
    if lines:
        args += ["--command-config", str(properties(tmp_path / "client.properties", lines))]
    result = cli(args, env=env)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert re.search(expected, output), output
    assert "Traceback" not in output  # kafka-python's own log lines only with -v
    for secret in secrets:
        assert secret not in output


def test_a_token_the_broker_refuses_fails_plan_and_apply_by_name_and_writes_nothing(
    kafka_secure: SecureCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """The token endpoint issues a token signed by a key the broker's JWKS does not hold: the broker refuses it."""
    client = kafka_secure.oauth_forged
    env = oauth_env(kafka_secure, client.client_id, client.secret)
    directory = write_manifests(tmp_path / "m", topics(topic_prefix))
    plan_file = tmp_path / "plan.json"
    address = re.escape(kafka_secure.address("OAUTH"))
    expected = (
        f"authentication failed at {address} \\(SASL_SSL, OAUTHBEARER as forged-client\\): "
        ".*the broker rejected the OAuth token; check that its issuer, audience and signing key"
    )
    for args in (["plan", str(directory), "--out", str(plan_file)], ["apply", str(directory), "--auto-approve"]):
        result = cli(args, env=env)
        output = result.stdout + result.stderr
        assert result.returncode == 1, output
        assert re.search(expected, output), output
        assert "Traceback" not in output
        token = kafka_secure.oidc.issued[client.client_id]  # the token this run was issued
        for secret in (client.secret, token, kafka_secure.pki.store_password):
            assert secret not in output
    assert not plan_file.exists()
    assert topics_state(kafka_secure, topic_prefix) == {}

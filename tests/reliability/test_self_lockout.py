"""The self-lockout guard on the SASL node with an authorizer, through the CLI: a DENY that would lock the tool
out is refused before any write, ``--allow-self-lockout-risk`` applies it, and a super user is never refused.
(``tests/integration/test_apply_sasl.py`` covers the deletion of the tool's own ALLOW bindings.)"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka.errors import KafkaError

from reconciler.connection.settings import Secret
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import ScramDeletion, ScramUpsert
from reconciler.model import state
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.support.builders import acl, all_rights, lock_right
from tests.support.live import cli, settings
from tests.support.polling import eventually


def acls_of(cluster: KafkaCluster, principal: str) -> frozenset[state.AclBinding]:
    with KafkaAdapter(settings(cluster)) as admin:
        live = admin.read_state(kinds=frozenset({Kind.ACL}), principal_filter=lambda p: p == principal)
    return frozenset(live.acls or ())


@pytest.fixture
def operator(kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A SCRAM user with ALL on the cluster and its topics (granted outside the manifests); its properties file."""
    user = f"{topic_prefix}operator"
    password = secrets.token_urlsafe(12)
    grants = [*all_rights(f"User:{user}", topic_prefix), lock_right(f"User:{user}")]
    with KafkaAdapter(settings(kafka_sasl)) as admin:
        [r] = admin.alter_scram_credentials(upserts=[ScramUpsert(user, "SCRAM-SHA-256", 4096, Secret(password))])
        assert r.ok
        assert all(r.ok for r in admin.create_acls(grants))
    props = tmp_path / "operator.properties"
    props.write_text(
        f"bootstrap.servers={kafka_sasl.bootstrap}\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n"
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
        f'username="{user}" password="{password}";\n'
    )
    try:
        yield f"User:{user}", props
    finally:
        with KafkaAdapter(settings(kafka_sasl)) as admin:
            admin.delete_acls(sorted(acls_of(kafka_sasl, f"User:{user}")))
            admin.alter_scram_credentials(deletions=[ScramDeletion(user, "SCRAM-SHA-256")])


def deny_manifest(root: Path, principal: str) -> Path:
    root.mkdir()
    (root / "m.yaml").write_text(
        "apiVersion: kafka-reconciler/v1\nkind: Acl\nmetadata: {name: freeze}\nspec:\n  bindings:\n"
        f'    - {{principal: "{principal}", permission: DENY, operation: ALTER, resourceType: CLUSTER, '
        "resourceName: kafka-cluster}\n"
    )
    return root


def test_a_deny_on_the_tools_own_principal_is_refused_unless_overridden(
    kafka_sasl: KafkaCluster, tmp_path: Path, operator: tuple[str, Path]
) -> None:
    principal, props = operator
    root = deny_manifest(tmp_path / "m", principal)
    before = acls_of(kafka_sasl, principal)
    refused = cli(["apply", str(root), "--auto-approve", "--command-config", str(props)])
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert f"take away access that {principal}" in refused.stderr and "ALTER on CLUSTER" in refused.stderr
    assert "--allow-self-lockout-risk" in refused.stderr
    assert acls_of(kafka_sasl, principal) == before

    forced = cli(["apply", str(root), "--auto-approve", "--allow-self-lockout-risk", "--command-config", str(props)])
    assert forced.returncode == 0, forced.stdout + forced.stderr
    deny = acl(principal, "ALTER", "kafka-cluster", resource="CLUSTER", permission="DENY")
    eventually(
        lambda: acls_of(kafka_sasl, principal) == before | {deny},
        what="the DENY binding applied",
        retry_on=(KafkaError,),
    )


def test_a_super_user_is_never_refused(kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path) -> None:
    """``admin`` is in super.users: removing ACLs that name it cannot lock it out, so the guard lets it pass."""
    admin_principal = "User:admin"
    own = acl(admin_principal, "ALL", topic_prefix, pattern="PREFIXED")
    with KafkaAdapter(settings(kafka_sasl)) as admin:
        assert all(r.ok for r in admin.create_acls([own]))
    try:
        root = tmp_path / "m"
        root.mkdir()
        (root / "m.yaml").write_text(
            "apiVersion: kafka-reconciler/v1\nkind: Ownership\nmetadata: {name: o}\n"
            f'spec: {{principals: [{{name: "{admin_principal}"}}], topics: [{{prefix: "{topic_prefix}"}}], '
            "delete: {acl: true}}\n"
        )
        assert kafka_sasl.admin is not None
        env = {
            "KAFKA_BOOTSTRAP_SERVERS": kafka_sasl.bootstrap,
            "KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
            "KAFKA_SASL_MECHANISM": "PLAIN",
            "KAFKA_SASL_USERNAME": "admin",
            "KAFKA_SASL_PASSWORD": kafka_sasl.admin.password,
        }
        result = cli(["apply", str(root), "--auto-approve"], env=env)
        print(result.stdout[-1500:], result.stderr[-1500:])
        assert result.returncode == 0, result.stdout + result.stderr
        assert own not in acls_of(kafka_sasl, admin_principal)
    finally:
        with KafkaAdapter(settings(kafka_sasl)) as admin:
            admin.delete_acls([own])

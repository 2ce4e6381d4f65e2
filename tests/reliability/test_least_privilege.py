"""The minimal ACLs of docs/security.md, on the SASL node with an authorizer: the read-only principal can plan and
cannot apply (refused before any write, every missing permission named); the apply principal can apply."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka.errors import KafkaError

from reconciler.connection.settings import Secret
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import ScramDeletion, ScramUpsert
from reconciler.model import state
from reconciler.model.defaults import APPLY_LOCK_GROUP
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.kafka.dist import selected_release
from tests.support.builders import acl, lock_right
from tests.support.live import cli, settings, topic_configs, topics_state
from tests.support.manifest_texts import topic_documents
from tests.support.polling import eventually

PLAN_OPS: dict[str, tuple[str, ...]] = {
    "TOPIC": ("DESCRIBE", "DESCRIBE_CONFIGS"),
    "CLUSTER": ("DESCRIBE", "DESCRIBE_CONFIGS"),
}
APPLY_OPS: dict[str, tuple[str, ...]] = {
    "TOPIC": ("DESCRIBE", "DESCRIBE_CONFIGS", "CREATE", "DELETE", "ALTER", "ALTER_CONFIGS"),
    "CLUSTER": ("DESCRIBE", "DESCRIBE_CONFIGS", "ALTER", "ALTER_CONFIGS"),
}


def documented_acls(principal: str, prefix: str, ops: dict[str, tuple[str, ...]]) -> list[state.AclBinding]:
    """The bindings docs/security.md gives for a principal managing topics that start with ``prefix`` (an apply
    principal also joins the apply lock's group)."""
    lock = [lock_right(principal)] if ops is APPLY_OPS else []
    return (
        [acl(principal, op, prefix, pattern="PREFIXED") for op in ops["TOPIC"]]
        + [acl(principal, op, "kafka-cluster", resource="CLUSTER") for op in ops["CLUSTER"]]
        + lock
    )


@pytest.fixture
def principals(kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path) -> Iterator[dict[str, Path]]:
    """``reader`` and ``writer`` SCRAM users with exactly the documented ACLs; their properties files."""
    users: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = {
        "reader": (f"{topic_prefix}plan", PLAN_OPS),
        "writer": (f"{topic_prefix}apply", APPLY_OPS),
    }
    files: dict[str, Path] = {}
    bindings: list[state.AclBinding] = []
    with KafkaAdapter(settings(kafka_sasl)) as admin:
        for role, (user, ops) in users.items():
            password = secrets.token_urlsafe(12)
            [r] = admin.alter_scram_credentials(upserts=[ScramUpsert(user, "SCRAM-SHA-256", 4096, Secret(password))])
            assert r.ok, r.describe()
            bindings += documented_acls(f"User:{user}", topic_prefix, ops)
            files[role] = tmp_path / f"{role}.properties"
            files[role].write_text(
                f"bootstrap.servers={kafka_sasl.bootstrap}\nsecurity.protocol=SASL_PLAINTEXT\n"
                "sasl.mechanism=SCRAM-SHA-256\nsasl.jaas.config=org.apache.kafka.common.security.scram."
                f'ScramLoginModule required username="{user}" password="{password}";\n'
            )
        assert all(r.ok for r in admin.create_acls(bindings))
    try:
        yield files
    finally:
        with KafkaAdapter(settings(kafka_sasl)) as admin:
            admin.delete_acls(bindings)
            admin.delete_acls(wanted_acls(topic_prefix))
            admin.alter_client_quotas({state.QuotaEntity.of(user=f"{topic_prefix}app"): {"producer_byte_rate": None}})
            admin.alter_scram_credentials(deletions=[ScramDeletion(u, "SCRAM-SHA-256") for u, _ in users.values()])
            admin.delete_topics(sorted(topics_state(kafka_sasl, topic_prefix)))


def wanted_acls(prefix: str) -> list[state.AclBinding]:
    return [acl(f"User:{prefix}app", "READ", prefix, pattern="PREFIXED")]


def manifests(root: Path, prefix: str) -> Path:
    root.mkdir()
    text = topic_documents(
        {
            f"{prefix}new-a": (1, 1, {}),
            f"{prefix}new-b": (1, 1, {}),
            f"{prefix}old": (2, 1, {"retention.ms": "3600000"}),
        }
    )
    text += (
        "---\napiVersion: kafka-reconciler/v1\nkind: Ownership\nmetadata: {name: o}\n"
        f'spec: {{topics: [{{prefix: "{prefix}"}}], principals: [{{prefix: "User:{prefix}app"}}]}}\n'
        "---\napiVersion: kafka-reconciler/v1\nkind: Acl\nmetadata: {name: app}\nspec:\n  bindings:\n"
        f'    - {{principal: "User:{prefix}app", operation: READ, resourceType: TOPIC, resourceName: "{prefix}", '
        "patternType: PREFIXED}\n"
        "---\napiVersion: kafka-reconciler/v1\nkind: ClientQuota\nmetadata: {name: q}\n"
        f'spec: {{entity: {{user: "{prefix}app"}}, values: {{producer_byte_rate: 1048576}}}}\n'
    )
    (root / "m.yaml").write_text(text)
    return root


def cluster_view(cluster: KafkaCluster, prefix: str) -> tuple[object, ...]:
    with KafkaAdapter(settings(cluster)) as admin:
        live = admin.read_state(
            kinds=frozenset({Kind.ACL, Kind.QUOTA}), principal_filter=lambda p: p == f"User:{prefix}app"
        )
    old = topic_configs(cluster, [f"{prefix}old"])
    return (topics_state(cluster, prefix), old, live.acls, live.quotas)


def test_plan_needs_only_describe_and_apply_is_refused_before_any_write(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path, principals: dict[str, Path]
) -> None:
    with kafka_sasl.admin_session() as admin:
        from kafka.admin import NewTopic

        admin.create_topics([NewTopic(f"{topic_prefix}old", 1, 1)])
    root = manifests(tmp_path / "m", topic_prefix)
    before = cluster_view(kafka_sasl, topic_prefix)

    plan = cli(["plan", str(root), "--command-config", str(principals["reader"]), "--detailed-exitcode"])
    assert plan.returncode == 2, plan.stderr
    assert "Plan: 4 to create, 1 to update, 0 to delete." in plan.stdout, plan.stdout

    refused = cli(["apply", str(root), "--auto-approve", "--command-config", str(principals["reader"])])
    assert refused.returncode == 1, refused.stdout + refused.stderr
    message = refused.stderr
    assert f"User:{topic_prefix}plan lacks 6 permission(s)" in message, message
    who = f"User:{topic_prefix}plan"
    for needed in (
        f"grant CREATE on TOPIC {topic_prefix}new-a to {who} (or CREATE on CLUSTER kafka-cluster)",
        f"grant ALTER on TOPIC {topic_prefix}old to {who}",
        f"grant ALTER_CONFIGS on TOPIC {topic_prefix}old to {who}",
        f"grant ALTER on CLUSTER kafka-cluster to {who}",
        f"grant ALTER_CONFIGS on CLUSTER kafka-cluster to {who}",
        f"kafka-acls --bootstrap-server {kafka_sasl.bootstrap} --command-config <admin.properties> --add "
        f"--allow-principal {who} --operation Alter --operation AlterConfigs --cluster",
    ):
        assert needed in message, (needed, message)
    assert (
        f"And for the cluster's apply lock (or apply with --no-lock):\n  grant READ on GROUP {APPLY_LOCK_GROUP}"
        in message
    )
    assert "Nothing was written" in message
    assert cluster_view(kafka_sasl, topic_prefix) == before

    applied = cli(["apply", str(root), "--auto-approve", "--command-config", str(principals["writer"])])
    assert applied.returncode == 0, applied.stdout + applied.stderr
    eventually(
        lambda: (
            cli(["plan", str(root), "--command-config", str(principals["reader"]), "--detailed-exitcode"]).returncode
            == 0
        ),
        what="a plan by the reader that shows no changes",
        retry_on=(KafkaError,),
    )


KAFKA_ACLS = re.compile(
    r"kafka-acls .* --add --allow-principal (\S+) ((?:--operation \w+ ?)+)(--cluster|(?:--(?:topic|group) \S+ ?)+)"
)


def granted_as_hinted(line: re.Match[str]) -> list[state.AclBinding]:
    """The bindings one ``kafka-acls ... --add`` line of a refusal adds, read as kafka-acls reads it (literal)."""
    principal, operations, targets = line.groups()
    ops = [re.sub(r"(?<!^)([A-Z])", r"_\1", op).upper() for op in operations.split()[1::2]]
    if targets == "--cluster":
        resources = [("CLUSTER", "kafka-cluster")]
    else:
        words = targets.split()
        resources = [
            (flag.removeprefix("--").upper(), name) for flag, name in zip(words[::2], words[1::2], strict=True)
        ]
    return [acl(principal, op, name, resource=rtype) for op in ops for rtype, name in resources]


def every_kind(root: Path, prefix: str) -> Path:
    """Manifests over every kind a Kafka principal writes: topics (create, config), an ACL, a quota, a SCRAM user,
    a group config and a client-metrics subscription."""
    root.mkdir()
    text = topic_documents({f"{prefix}new": (1, 1, {}), f"{prefix}old": (1, 1, {"retention.ms": "3600000"})})
    text += (
        "---\napiVersion: kafka-reconciler/v1\nkind: Acl\nmetadata: {name: app}\nspec:\n  bindings:\n"
        f'    - {{principal: "User:{prefix}app", operation: READ, resourceType: TOPIC, resourceName: "{prefix}", '
        "patternType: PREFIXED}\n"
        "---\napiVersion: kafka-reconciler/v1\nkind: ClientQuota\nmetadata: {name: q}\n"
        f'spec: {{entity: {{user: "{prefix}app"}}, values: {{producer_byte_rate: 1048576}}}}\n'
        "---\napiVersion: kafka-reconciler/v1\nkind: ScramUser\n"
        f'metadata: {{name: "{prefix}svc"}}\nspec: {{mechanism: SCRAM-SHA-256, passwordFrom: {{env: LP_PASSWORD}}}}\n'
        f"---\napiVersion: kafka-reconciler/v1\nkind: GroupConfig\nmetadata: {{name: {prefix}group}}\n"
        "spec: {configs: {consumer.session.timeout.ms: 50s}}\n"
        f"---\napiVersion: kafka-reconciler/v1\nkind: ClientMetrics\nmetadata: {{name: {prefix}producers}}\n"
        "spec: {metrics: [org.apache.kafka.producer.]}\n"
    )
    (root / "m.yaml").write_text(text)
    return root


@pytest.mark.skipif(selected_release() < (4, 1, 0), reason="group configs need Kafka 4.1+ (ListConfigResources v1)")
def test_following_the_grant_hints_over_every_kind_reaches_exit_0_and_a_refusal_writes_nothing(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """Regression: the rights check before writing did not ask for ALTER_CONFIGS on the GROUP of a group config, so
    an apply following the hints wrote its other changes and then failed with GROUP_AUTHORIZATION_FAILED."""
    user, password = f"{topic_prefix}lp", secrets.token_urlsafe(12)
    who = f"User:{user}"
    with kafka_sasl.admin_session() as admin:
        from kafka.admin import NewTopic

        admin.create_topics([NewTopic(f"{topic_prefix}old", 1, 1)])
    # what planning needs (docs/security.md), group configs included; nothing to write with
    group_reads = acl(who, "DESCRIBE_CONFIGS", topic_prefix, resource="GROUP", pattern="PREFIXED")
    bindings = [*documented_acls(who, topic_prefix, PLAN_OPS), group_reads]
    with KafkaAdapter(settings(kafka_sasl)) as admin:
        [r] = admin.alter_scram_credentials(upserts=[ScramUpsert(user, "SCRAM-SHA-256", 4096, Secret(password))])
        assert r.ok, r.describe()
        assert all(r.ok for r in admin.create_acls(bindings))
    props = tmp_path / "lp.properties"
    props.write_text(
        f"bootstrap.servers={kafka_sasl.bootstrap}\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n"
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
        f'username="{user}" password="{password}";\n'
    )
    admin_props = kafka_sasl.write_command_config(tmp_path / "admin.properties")
    root = every_kind(tmp_path / "m", topic_prefix)
    env = {"LP_PASSWORD": "lp-" + secrets.token_urlsafe(8)}

    def pending() -> str:
        """What a super user's plan still wants: the summary line (a write would change it)."""
        planned = cli(
            ["plan", str(root), "--bootstrap-server", kafka_sasl.bootstrap, "--command-config", str(admin_props)],
            env=env,
        )
        assert planned.returncode == 0, planned.stdout + planned.stderr
        return next(line for line in planned.stdout.splitlines() if line.startswith(("Plan: ", "No changes")))

    hinted: list[state.AclBinding] = []
    try:
        before = pending()
        assert before == "Plan: 6 to create, 1 to update, 0 to delete.", before
        refusals = 0
        for _ in range(4):
            applied = cli(["apply", str(root), "--auto-approve", "--command-config", str(props)], env=env)
            if applied.returncode == 0:
                break
            assert applied.returncode == 1, applied.stdout + applied.stderr
            assert "Nothing was written" in applied.stderr, applied.stderr
            assert pending() == before and sorted(topics_state(kafka_sasl, topic_prefix)) == [f"{topic_prefix}old"]
            refusals += 1
            lines = list(KAFKA_ACLS.finditer(applied.stderr))
            assert lines, applied.stderr
            added = [b for line in lines for b in granted_as_hinted(line)]
            hinted += added
            with KafkaAdapter(settings(kafka_sasl)) as admin:
                assert all(r.ok for r in admin.create_acls(added))
        assert applied.returncode == 0, applied.stdout + applied.stderr
        assert refusals == 1  # one refusal names every right, the group's included
        assert acl(who, "ALTER_CONFIGS", f"{topic_prefix}group", resource="GROUP") in hinted
        assert acl(who, "ALTER", "kafka-cluster", resource="CLUSTER") in hinted
        eventually(lambda: pending().startswith("No changes"), what="a super user's plan with nothing left to do")
    finally:
        with KafkaAdapter(settings(kafka_sasl)) as admin:
            admin.delete_acls([*bindings, *hinted, *wanted_acls(topic_prefix)])
            admin.alter_client_quotas({state.QuotaEntity.of(user=f"{topic_prefix}app"): {"producer_byte_rate": None}})
            admin.alter_scram_credentials(
                deletions=[ScramDeletion(u, "SCRAM-SHA-256") for u in (user, f"{topic_prefix}svc")]
            )
            admin.delete_topics(sorted(topics_state(kafka_sasl, topic_prefix)))

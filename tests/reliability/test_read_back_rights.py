"""The rights check before writing covers the read-back: on the SASL node with an authorizer, a least-privilege
principal that may create topics and alter one topic's configs, but not describe the topic it creates, is refused
before any write, each missing right named as ``grant OP on RESOURCE to PRINCIPAL`` with a ready ``kafka-acls``
line; granted exactly those, the apply writes, reads back and exits 0. A read-back right lost after the check (revoked
while the apply writes, in process; or by the plan's own ACL phase, through the CLI) is reported applied, not verified,
exit 3."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka.admin import NewTopic

from reconciler.apply import ApplyEvent, ApplyOptions, EventKind, Outcome, apply_plan
from reconciler.commands import apply_display
from reconciler.connection.settings import Secret
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import ScramDeletion, ScramUpsert
from reconciler.model import desired
from reconciler.model.defaults import APPLY_LOCK_GROUP
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.support.builders import acl, lock_right
from tests.support.live import cli, plan_now, settings, topic_configs, topics_state
from tests.support.manifest_texts import topic_documents

OLD = "3600000"
NEW = "7200000"


@pytest.fixture
def least(kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A SCRAM user allowed to plan (DESCRIBE/DESCRIBE_CONFIGS on the cluster and on ``<prefix>old``), to create
    topics (CREATE on the cluster) and to alter ``<prefix>old``'s configs; its properties file."""
    user = f"{topic_prefix}ci"
    principal = f"User:{user}"
    password = secrets.token_urlsafe(12)
    bindings = [
        acl(principal, op, "kafka-cluster", resource="CLUSTER") for op in ("DESCRIBE", "DESCRIBE_CONFIGS", "CREATE")
    ] + [acl(principal, op, f"{topic_prefix}old") for op in ("DESCRIBE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS")]
    with KafkaAdapter(settings(kafka_sasl)) as admin:
        [r] = admin.alter_scram_credentials(upserts=[ScramUpsert(user, "SCRAM-SHA-256", 4096, Secret(password))])
        assert r.ok, r.describe()
        assert all(r.ok for r in admin.create_acls(bindings))
    props = tmp_path / "ci.properties"
    props.write_text(
        f"bootstrap.servers={kafka_sasl.bootstrap}\nsecurity.protocol=SASL_PLAINTEXT\n"
        "sasl.mechanism=SCRAM-SHA-256\nsasl.jaas.config=org.apache.kafka.common.security.scram."
        f'ScramLoginModule required username="{user}" password="{password}";\n'
    )
    try:
        yield principal, props
    finally:
        with KafkaAdapter(settings(kafka_sasl)) as admin:
            live = admin.read_state(kinds=frozenset({Kind.ACL}), principal_filter=lambda p: p == principal)
            admin.delete_acls(sorted(live.acls or ()))
            admin.alter_scram_credentials(deletions=[ScramDeletion(user, "SCRAM-SHA-256")])
            admin.delete_topics(sorted(topics_state(kafka_sasl, topic_prefix)))


def test_the_read_back_rights_are_checked_before_any_write(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path, least: tuple[str, Path]
) -> None:
    principal, props = least
    old, new = f"{topic_prefix}old", f"{topic_prefix}new"
    with kafka_sasl.admin_session() as admin:
        admin.create_topics([NewTopic(old, 3, 1, topic_configs={"retention.ms": OLD})])
    root = tmp_path / "m"
    root.mkdir()
    (root / "m.yaml").write_text(
        topic_documents({old: (3, 1, {"retention.ms": NEW}), new: (6, 1, {"retention.ms": NEW})})
    )

    refused = cli(["apply", str(root), "--auto-approve", "--command-config", str(props)])
    print(refused.stdout, refused.stderr)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    message = refused.stderr
    assert f"{principal} lacks 2 permission(s)" in message, message
    assert f"grant DESCRIBE on TOPIC {new} to {principal} (read-back)" in message
    assert f"grant DESCRIBE_CONFIGS on TOPIC {new} to {principal} (read-back)" in message
    line = (
        f"kafka-acls --bootstrap-server {kafka_sasl.bootstrap} --command-config <admin.properties> --add "
        f"--allow-principal {principal} --operation Describe --operation DescribeConfigs --topic {new}"
    )
    assert line in message
    assert f"grant READ on GROUP {APPLY_LOCK_GROUP} to {principal}" in message  # the apply lock's right too
    assert "Nothing was written" in message
    assert new not in topics_state(kafka_sasl, topic_prefix)
    assert topic_configs(kafka_sasl, [old])[old].get("retention.ms") == OLD

    # Granted exactly what the refusal named: the apply writes, reads back and converges.
    with KafkaAdapter(settings(kafka_sasl)) as admin:
        granted = [acl(principal, op, new) for op in ("DESCRIBE", "DESCRIBE_CONFIGS")] + [lock_right(principal)]
        assert all(r.ok for r in admin.create_acls(granted))
    applied = cli(["apply", str(root), "--auto-approve", "--command-config", str(props)])
    print(applied.stdout, applied.stderr)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "the cluster converged" in applied.stdout
    assert topics_state(kafka_sasl, topic_prefix) == {old: 3, new: 6}
    assert {n: c.get("retention.ms") for n, c in topic_configs(kafka_sasl, [old, new]).items()} == {old: NEW, new: NEW}


def test_a_read_back_refused_for_rights_is_applied_not_verified(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """The right to read a new topic's configs is revoked while the apply writes (it passed the check before): the
    refused read-back is reported as applied, not verified, with the missing right; never "did not converge"."""
    user = f"{topic_prefix}ci2"
    principal = f"User:{user}"
    password = secrets.token_urlsafe(12)
    new = f"{topic_prefix}unseen"
    cluster_rights = [
        acl(principal, op, "kafka-cluster", resource="CLUSTER") for op in ("DESCRIBE", "DESCRIBE_CONFIGS", "CREATE")
    ]
    describe = acl(principal, "DESCRIBE", new)
    describe_configs = acl(principal, "DESCRIBE_CONFIGS", new)
    with KafkaAdapter(settings(kafka_sasl)) as admin:
        [r] = admin.alter_scram_credentials(upserts=[ScramUpsert(user, "SCRAM-SHA-256", 4096, Secret(password))])
        assert r.ok, r.describe()
        assert all(r.ok for r in admin.create_acls([*cluster_rights, describe, describe_configs]))
    wanted = desired.DesiredState(topics={new: desired.DesiredTopic(new, 2, 1, {"retention.ms": NEW})})
    revoked: list[bool] = []

    def revoke_after_the_write(event: ApplyEvent) -> None:
        if event.kind is EventKind.PHASE_FINISHED and not revoked:
            with KafkaAdapter(settings(kafka_sasl)) as admin:
                revoked.append(all(r.ok for r in admin.delete_acls([describe_configs])))

    try:
        as_ci = settings(kafka_sasl, username=user, password=Secret(password), sasl_mechanism="SCRAM-SHA-256")
        with KafkaAdapter(as_ci) as adapter:
            p = plan_now(adapter, wanted)
            report = apply_plan(
                p, adapter, options=ApplyOptions(deadline_s=60, principal=principal), events=revoke_after_the_write
            )
        assert revoked == [True]
        print(report.to_json())
        assert [i.outcome for i in report.items] == [Outcome.APPLIED]
        assert report.exit_code == 3
        assert report.converged is None and report.not_converged == ()
        assert report.unverified == (f"grant DESCRIBE_CONFIGS on TOPIC {new} to {principal}",)
        line = apply_display.summary_line(report)
        assert f"applied, not verified (missing right: grant DESCRIBE_CONFIGS on TOPIC {new} to {principal})" in line
        assert "did not converge" not in line
        assert topics_state(kafka_sasl, topic_prefix) == {new: 2}
    finally:
        with KafkaAdapter(settings(kafka_sasl)) as admin:
            admin.delete_acls([*cluster_rights, describe, describe_configs])
            admin.alter_scram_credentials(deletions=[ScramDeletion(user, "SCRAM-SHA-256")])
            admin.delete_topics(sorted(topics_state(kafka_sasl, topic_prefix)))


def test_a_plan_revoking_its_own_read_back_right_is_applied_not_verified_through_the_cli(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """Through the CLI: the plan itself deletes the tool principal's DESCRIBE_CONFIGS on the topic it creates
    (``--allow-self-lockout-risk``). The rights check passes (the right is there when it reads), the ACL phase runs
    before the topic is created, so the read-back after the writes is refused, every time, with no timing involved:
    both changes applied, the summary says applied, not verified, naming the right, exit 3."""
    user = f"{topic_prefix}ci3"
    principal = f"User:{user}"
    password = secrets.token_urlsafe(12)
    new = f"{topic_prefix}revoked"
    kept = [acl(principal, op, "kafka-cluster", resource="CLUSTER") for op in ("DESCRIBE_CONFIGS", "CREATE", "ALTER")]
    kept += [acl(principal, "DESCRIBE", new), lock_right(principal)]
    revoked = acl(principal, "DESCRIBE_CONFIGS", new)
    with KafkaAdapter(settings(kafka_sasl)) as admin:
        [r] = admin.alter_scram_credentials(upserts=[ScramUpsert(user, "SCRAM-SHA-256", 4096, Secret(password))])
        assert r.ok, r.describe()
        assert all(r.ok for r in admin.create_acls([*kept, revoked]))
    props = tmp_path / "ci.properties"
    props.write_text(
        f"bootstrap.servers={kafka_sasl.bootstrap}\nsecurity.protocol=SASL_PLAINTEXT\n"
        "sasl.mechanism=SCRAM-SHA-256\nsasl.jaas.config=org.apache.kafka.common.security.scram."
        f'ScramLoginModule required username="{user}" password="{password}";\n'
    )
    root = tmp_path / "m"
    root.mkdir()
    bindings = "".join(
        f'    - {{principal: "{principal}", operation: {b.operation}, resourceType: {b.resource_type}, '
        f'resourceName: "{b.resource_name}"}}\n'
        for b in kept
    )
    (root / "m.yaml").write_text(
        topic_documents({new: (2, 1, {"retention.ms": NEW})})
        + "\n---\napiVersion: kafka-reconciler/v1\nkind: Ownership\nmetadata: {name: o}\n"
        f'spec: {{principals: [{{name: "{principal}"}}], delete: {{acl: true}}}}\n'
        "---\napiVersion: kafka-reconciler/v1\nkind: Acl\nmetadata: {name: ci}\nspec:\n  bindings:\n" + bindings
    )
    try:
        result = cli(
            ["apply", str(root), "--auto-approve", "--allow-self-lockout-risk", "--command-config", str(props)]
        )
        print(result.stdout, result.stderr)
        assert result.returncode == 3, result.stdout + result.stderr
        out = result.stdout + result.stderr
        assert f"applied, not verified (missing right: grant DESCRIBE_CONFIGS on TOPIC {new} to {principal})" in out
        assert "did not converge" not in out
        assert "2 applied" in out, out
        assert topics_state(kafka_sasl, topic_prefix) == {new: 2}
        with KafkaAdapter(settings(kafka_sasl)) as admin:
            live = admin.read_state(kinds=frozenset({Kind.ACL}), principal_filter=lambda p: p == principal)
        assert set(live.acls or ()) == set(kept)
        assert topic_configs(kafka_sasl, [new])[new].get("retention.ms") == NEW
    finally:
        with KafkaAdapter(settings(kafka_sasl)) as admin:
            admin.delete_acls([*kept, revoked])
            admin.alter_scram_credentials(deletions=[ScramDeletion(user, "SCRAM-SHA-256")])
            admin.delete_topics(sorted(topics_state(kafka_sasl, topic_prefix)))

"""A saved plan is stale when anything in its scope changed out of band (a resource the manifests declare or the
Ownership rules own), and only then: on the SASL node with an authorizer, through the command line."""

from __future__ import annotations

import textwrap
from pathlib import Path

from kafka.admin import NewTopic

from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.support.builders import acl
from tests.support.live import cli, settings, topics_state


def manifests(root: Path, prefix: str) -> Path:
    root.mkdir()
    (root / "m.yaml").write_text(
        textwrap.dedent(
            f"""\
            apiVersion: kafka-reconciler/v1
            kind: Ownership
            metadata: {{name: o}}
            spec:
              topics: [{{prefix: "{prefix}"}}]
              principals: [{{prefix: "User:{prefix}"}}]
            ---
            apiVersion: kafka-reconciler/v1
            kind: Topic
            metadata: {{name: "{prefix}a"}}
            spec: {{partitions: 3, replicationFactor: 1}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: Acl
            metadata: {{name: app}}
            spec:
              bindings:
                - {{principal: "User:{prefix}app", operation: READ, resourceType: TOPIC, resourceName: "{prefix}a"}}
            """
        )
    )
    return root


def acls_of(cluster: KafkaCluster, principal: str) -> set[str]:
    with KafkaAdapter(settings(cluster)) as admin:
        live = admin.read_state(kinds=frozenset({Kind.ACL}), principal_filter=lambda p: p == principal)
    return {b.address for b in live.acls or ()}


def test_an_out_of_band_acl_for_an_owned_principal_makes_the_saved_plan_stale(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    root = manifests(tmp_path / "m", topic_prefix)
    conf = str(kafka_sasl.write_command_config(tmp_path / "admin.properties"))
    saved = tmp_path / "plan.json"
    app, other = f"User:{topic_prefix}app", f"User:x{topic_prefix}other"
    planned = cli(
        ["plan", str(root), "--command-config", conf, "--bootstrap-server", kafka_sasl.bootstrap, "--out", str(saved)]
    )
    assert planned.returncode == 0, planned.stdout + planned.stderr

    out_of_band = acl(app, "WRITE", f"{topic_prefix}c")
    with KafkaAdapter(settings(kafka_sasl)) as admin:
        assert all(r.ok for r in admin.create_acls([out_of_band]))
    try:
        stale = cli(
            [
                "apply",
                "--plan",
                str(saved),
                "--command-config",
                conf,
                "--bootstrap-server",
                kafka_sasl.bootstrap,
                "--auto-approve",
            ]
        )
        print(stale.stdout, stale.stderr)
        assert stale.returncode == 1, stale.stdout + stale.stderr
        assert "the cluster changed since the plan was made, in the plan's scope" in stale.stderr
        assert "ACLs: 0 -> 1 in scope" in stale.stderr
        assert "Nothing was written" in stale.stderr
        assert topics_state(kafka_sasl, topic_prefix) == {}
        assert acls_of(kafka_sasl, app) == {out_of_band.address}

        # Outside the scope: another team's ACL and topic. A fresh plan stays current and applies.
        planned = cli(
            [
                "plan",
                str(root),
                "--command-config",
                conf,
                "--bootstrap-server",
                kafka_sasl.bootstrap,
                "--out",
                str(saved),
            ]
        )
        assert planned.returncode == 0, planned.stdout + planned.stderr
        unowned = acl(other, "READ", f"x{topic_prefix}b")
        with KafkaAdapter(settings(kafka_sasl)) as admin:
            assert all(r.ok for r in admin.create_acls([unowned]))
        with kafka_sasl.admin_session() as session:
            session.create_topics([NewTopic(f"x{topic_prefix}b", 1, 1)])
        applied = cli(
            [
                "apply",
                "--plan",
                str(saved),
                "--command-config",
                conf,
                "--bootstrap-server",
                kafka_sasl.bootstrap,
                "--auto-approve",
            ]
        )
        print(applied.stdout, applied.stderr)
        assert applied.returncode == 0, applied.stdout + applied.stderr
        assert topics_state(kafka_sasl, topic_prefix) == {f"{topic_prefix}a": 3}
    finally:
        with KafkaAdapter(settings(kafka_sasl)) as admin:
            admin.delete_acls(
                [out_of_band, acl(app, "READ", f"{topic_prefix}a"), acl(other, "READ", f"x{topic_prefix}b")]
            )
            admin.delete_topics(
                sorted(topics_state(kafka_sasl, topic_prefix) | topics_state(kafka_sasl, f"x{topic_prefix}"))
            )

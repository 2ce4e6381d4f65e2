"""A broker down on the 3-node cluster is not a veto: existing topics get a warning naming it, only the changes
that need it are blocked, everything else applies, and the re-run after it returns converges."""

from __future__ import annotations

import textwrap
from pathlib import Path

from kafka.admin import NewTopic
from kafka.errors import KafkaError

from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.support.live import cli, settings, topic_configs
from tests.support.polling import eventually

OLD = "3600000"
NEW = "7200000"


def manifest(name: str, *, partitions: int, rf: int, retention: str) -> str:
    return textwrap.dedent(
        f"""
        ---
        apiVersion: kafka-reconciler/v1
        kind: Topic
        metadata: {{name: "{name}"}}
        spec:
          partitions: {partitions}
          replicationFactor: {rf}
          configs: {{retention.ms: "{retention}"}}
        """
    )


def replication(cluster: KafkaCluster, names: list[str]) -> dict[str, tuple[int, int]]:
    """Topic -> (partitions, replication factor) as plain kafka-python sees it; absent topics are left out."""
    with cluster.admin_session() as admin:
        present = set(admin.list_topics())
        described = admin.describe_topics([n for n in names if n in present]) if present & set(names) else []
    return {t["name"]: (len(t["partitions"]), len(t["partitions"][0]["replica_nodes"])) for t in described}


def test_a_stopped_broker_blocks_only_what_needs_it(
    kafka_cluster3: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    keep, conf, new2, new3 = (f"{topic_prefix}{s}" for s in ("keep", "conf", "new2", "new3"))
    with kafka_cluster3.admin_session() as admin:
        admin.create_topics(
            [
                NewTopic(keep, 6, 3, topic_configs={"retention.ms": OLD}),
                NewTopic(conf, 6, 3, topic_configs={"retention.ms": OLD}),
            ]
        )
    (tmp_path / "m.yaml").write_text(
        manifest(keep, partitions=6, rf=3, retention=OLD)  # unchanged: must stay so, with a warning
        + manifest(conf, partitions=6, rf=3, retention=NEW)  # a config change: applies
        + manifest(new2, partitions=4, rf=2, retention=NEW)  # a create that fits on two brokers: applies
        + manifest(new3, partitions=4, rf=3, retention=NEW)  # a create that needs the stopped broker: blocked
    )
    conn = ["--bootstrap-server", kafka_cluster3.bootstrap]
    victim = kafka_cluster3.nodes[2]
    victim.stop()
    try:
        with KafkaAdapter(settings(kafka_cluster3, request_timeout_ms=10_000)) as adapter:

            def fenced() -> bool:
                live = adapter.read_state(kinds=frozenset({Kind.TOPIC}), topic_filter=lambda n: n == keep)
                return victim.node_id not in {b.id for b in live.brokers} and keep in (live.topics or {})

            eventually(fenced, what=f"broker {victim.node_id} gone from Metadata", timeout=60, retry_on=(KafkaError,))

        planned = cli(["plan", str(tmp_path), *conn, "--detailed-exitcode"])
        print(planned.stdout, planned.stderr)
        assert planned.returncode == 2, planned.stderr
        assert "error:" not in planned.stdout
        assert f"[brokers-down] topic {keep}: broker(s) {victim.node_id} down" in planned.stdout
        assert "6 of 6 partition(s) under-replicated" in planned.stdout
        assert f"broker(s) {victim.node_id} are down" in planned.stdout  # the reason new3 is blocked

        applied = cli(["apply", str(tmp_path), *conn, "--auto-approve"], timeout=240)
        print(applied.stdout, applied.stderr)
        assert applied.returncode == 3, applied.stderr  # partial: one change blocked, the others applied
        assert "blocked" in applied.stdout
        on_cluster = replication(kafka_cluster3, [keep, conf, new2, new3])
        assert on_cluster == {keep: (6, 3), conf: (6, 3), new2: (4, 2)}
        assert {n: c.get("retention.ms") for n, c in topic_configs(kafka_cluster3, [keep, conf, new2]).items()} == {
            keep: OLD,
            conf: NEW,
            new2: NEW,
        }
    finally:
        if not victim.running:
            victim.start()

    rerun = cli(["apply", str(tmp_path), *conn, "--auto-approve"], timeout=240)
    print(rerun.stdout, rerun.stderr)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert replication(kafka_cluster3, [new3]) == {new3: (4, 3)}
    assert cli(["plan", str(tmp_path), *conn, "--detailed-exitcode"]).returncode == 0

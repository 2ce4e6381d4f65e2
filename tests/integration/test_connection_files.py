"""Connection files as users have them, read by Kafka's own Java client and by the reconciler alike.

Confluent Cloud's generated ``client.properties`` quotes the JAAS options with single quotes
(``username='KEY' password='SECRET';``); Kafka's JaasConfig accepts both quote characters. The same file is
given to Kafka's Java Admin client (``tests.support.java_client``) and to ``kafka-reconciler`` against the SASL
node, and what the apply wrote is read back over the harness's own connection. A wrong password is refused by
both, and the tool names the broker's reason on every run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kafka.cluster import KafkaCluster
from tests.support.integration import write_manifests
from tests.support.java_client import list_topics
from tests.support.live import cli, topics_state
from tests.support.manifest_texts import topic_documents

# On every Kafka version: connections and security: SASL logins from users' files.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"


def confluent_style(path: Path, cluster: KafkaCluster, *, password: str) -> Path:
    """A client.properties as Confluent Cloud writes it: single-quoted JAAS options, extra blanks."""
    assert cluster.admin is not None
    path.write_text(
        f"bootstrap.servers={cluster.bootstrap}\n"
        "security.protocol=SASL_PLAINTEXT\n"
        "sasl.mechanism=PLAIN\n"
        f"sasl.jaas.config={PLAIN}   required username='{cluster.admin.username}'   password='{password}';\n"
    )
    path.chmod(0o600)
    return path


def test_single_quoted_jaas_is_accepted_by_java_and_the_tool(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    assert kafka_sasl.admin is not None
    config = confluent_style(tmp_path / "client.properties", kafka_sasl, password=kafka_sasl.admin.password)
    java = list_topics(kafka_sasl.dist, config)
    assert java.returncode == 0, java.stderr[-3000:]

    directory = write_manifests(
        tmp_path / "m",
        topic_documents(
            {
                f"{topic_prefix}orders": (12, 1, {"retention.ms": "3600000", "cleanup.policy": "compact"}),
                f"{topic_prefix}events": (6, 1, {"max.message.bytes": "2097152"}),
            }
        ),
    )
    applied = cli(["apply", str(directory), "--command-config", str(config), "--auto-approve"])
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert topics_state(kafka_sasl, topic_prefix) == {f"{topic_prefix}orders": 12, f"{topic_prefix}events": 6}
    assert kafka_sasl.admin.password not in applied.stdout + applied.stderr
    # Kafka's client lists what the tool created, through the same file.
    listed = list_topics(kafka_sasl.dist, config)
    assert {f"{topic_prefix}orders", f"{topic_prefix}events"} <= set(listed.stdout.split())


def test_a_wrong_single_quoted_password_is_refused_by_both(kafka_sasl: KafkaCluster, tmp_path: Path) -> None:
    config = confluent_style(tmp_path / "client.properties", kafka_sasl, password="not-the-password")
    java = list_topics(kafka_sasl.dist, config)
    assert java.returncode != 0
    assert "SaslAuthenticationException" in java.stdout + java.stderr
    directory = write_manifests(tmp_path / "m", topic_documents({"unused.topic": (3, 1, {})}))
    # The broker answers "Invalid username or password" and closes at once; the message must not depend on
    # whether the answer and the close arrive in one read (it used to alternate between runs).
    for _ in range(4):
        planned = cli(["plan", str(directory), "--command-config", str(config)])
        assert planned.returncode == 1, planned.stdout + planned.stderr
        assert "authentication failed" in planned.stderr
        assert "Invalid username or password" in planned.stderr, planned.stderr
        assert "not-the-password" not in planned.stdout + planned.stderr

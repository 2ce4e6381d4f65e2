"""A one-character password is kept out of the output without garbling the message around it (no broker needed:
the connection is refused on a port nothing listens on)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from reconciler.cli import app

TOPIC = """\
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {name: orders}
spec: {partitions: 12, replicationFactor: 3, configs: {retention.ms: "86400000", cleanup.policy: delete}}
"""


def test_plan_with_a_one_character_password_names_the_refusal_in_plain_words(tmp_path: Path) -> None:
    (tmp_path / "topics.yaml").write_text(TOPIC, encoding="utf-8")
    env = {
        "KAFKA_BOOTSTRAP_SERVERS": "127.0.0.1:9",
        "KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
        "KAFKA_SASL_MECHANISM": "PLAIN",
        "KAFKA_SASL_USERNAME": "alice",
        "KAFKA_SASL_PASSWORD": "b",
    }
    result = CliRunner().invoke(app, ["plan", str(tmp_path), "--timeout", "20"], env=env)
    assert result.exit_code == 1, result.output
    assert "connection refused (is a broker listening on that port?)" in result.output  # was "a ***roker"
    assert "***" not in result.output

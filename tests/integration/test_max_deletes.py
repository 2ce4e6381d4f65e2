"""A mass delete needs consent for the run: on a real broker, apply refuses a plan deleting more than the limit.

Twelve owned, undeclared, empty topics (six partitions each) with topic deletion enabled: over the default limit
of 10, ``apply --auto-approve`` exits 1 and every topic is still on the cluster; the same apply with
``--max-deletes 12`` deletes them all.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from kafka.admin import NewTopic
from typer.testing import CliRunner

from reconciler.cli import app
from tests.kafka.cluster import KafkaCluster
from tests.support.integration import describe_topics

pytestmark = pytest.mark.kafka
runner = CliRunner()


def test_apply_refuses_more_deletes_than_the_limit_until_the_run_raises_it(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    names = [f"{topic_prefix}old-{i:02d}" for i in range(12)]
    with kafka_single.admin_session() as admin:
        admin.create_topics([NewTopic(n, 6, 1) for n in names])
    manifests = tmp_path / "m"
    manifests.mkdir()
    (manifests / "ownership.yaml").write_text(
        textwrap.dedent(
            f"""\
            apiVersion: kafka-reconciler/v1
            kind: Ownership
            metadata: {{name: o}}
            spec: {{topics: [{{prefix: "{topic_prefix}"}}], delete: {{topic: true}}}}
            """
        )
    )
    conn = ["--bootstrap-server", kafka_single.bootstrap]

    refused = runner.invoke(app, ["apply", str(manifests), *conn, "--auto-approve"])
    assert refused.exit_code == 1, refused.output
    assert "this plan deletes 12 resources (Topics: 12), more than the limit of 10" in refused.stdout
    assert "allow them for this run with --max-deletes 12" in refused.stderr
    assert describe_topics(kafka_single, names) == {n: 6 for n in names}

    too_few = runner.invoke(app, ["apply", str(manifests), *conn, "--auto-approve", "--max-deletes", "11"])
    assert too_few.exit_code == 1, too_few.output
    assert describe_topics(kafka_single, names) == {n: 6 for n in names}

    allowed = runner.invoke(app, ["apply", str(manifests), *conn, "--auto-approve", "--max-deletes", "12"])
    assert allowed.exit_code == 0, allowed.output
    assert describe_topics(kafka_single, names) == {}

"""A Kafka Connect worker that masks secret values in the configs it returns, against a real worker behind a relay.

``tests.support.http_mask`` answers ``[hidden]`` for the connector's secret key in every config the worker returns
(as some distributions do); writes reach the real worker unchanged, and the test reads what the worker holds
directly. A masked value must not be a permanent difference: the plan says it cannot be compared until an apply
that writes the connector's config records the digests of its secrets; from then on a rotated secret is a change
and an unchanged one is none.
"""

from __future__ import annotations

import json
import textwrap
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.connect import secrets as connect_secrets
from tests.kafka.cluster import KafkaCluster
from tests.kafka.connect import FILE_SINK, ConnectWorker
from tests.support.connect_manifests import write_connect_manifests
from tests.support.http_mask import MaskingRelay

pytestmark = pytest.mark.kafka
runner = CliRunner()
KEY = "producer.override.sasl.jaas.config"


@pytest.fixture
def masking(connect_worker: ConnectWorker) -> Iterator[MaskingRelay]:
    parts = urllib.parse.urlsplit(connect_worker.url)
    relay = MaskingRelay((parts.hostname or "127.0.0.1", parts.port or 80), {KEY})
    try:
        yield relay
    finally:
        relay.close()


def doc(name: str, topic: str, out: Path, batch: int) -> str:
    return textwrap.dedent(
        f"""\
        apiVersion: kafka-reconciler/v1
        kind: Connector
        metadata: {{name: {name}}}
        spec:
          class: {FILE_SINK}
          config: {{topics: {topic}, file: "{out}", batch.size: {batch}}}
          secrets:
            {KEY}: {{env: MASKED_JAAS}}
        """
    )


def test_a_masked_secret_is_no_permanent_difference_and_is_changed_only_when_its_digest_changed(
    connect_worker: ConnectWorker,
    kafka_single: KafkaCluster,
    masking: MaskingRelay,
    topic_prefix: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name, topic, out = f"{topic_prefix}masked", f"{topic_prefix}x", tmp_path / "o.txt"
    monkeypatch.setenv("MASKED_JAAS", "first-secret")

    def manifests(batch: int) -> Path:
        return write_connect_manifests(tmp_path / "m", kafka_single, masking.url, doc(name, topic, out, batch))

    def held() -> dict[str, str]:
        found: dict[str, str] = connect_worker.rest("GET", f"/connectors/{name}/config")
        return found

    directory = manifests(1)
    created = runner.invoke(app, ["apply", str(directory), "--auto-approve", "--timeout", "120"])
    assert created.exit_code == 0, created.output
    assert held()[KEY] == "first-secret"
    assert connect_worker.rest("GET", "/connectors?expand=info")[name]["info"]["config"][KEY] == "first-secret"
    with urllib.request.urlopen(f"{masking.url}/connectors/{urllib.parse.quote(name)}/config", timeout=30) as answer:
        assert json.loads(answer.read())[KEY] == "[hidden]"  # what the tool reads through the relay

    blind = runner.invoke(app, ["plan", str(directory), "--detailed-exitcode"])
    assert blind.exit_code == 0, blind.output  # not a permanent difference
    assert f"Kafka Connect masks the value of {KEY} of connector {name}: it cannot be compared" in blind.output

    changed = runner.invoke(app, ["apply", str(manifests(2)), "--auto-approve", "--timeout", "120"])
    assert changed.exit_code == 0, changed.output
    record = held()[connect_secrets.RECORD_KEY]
    assert record == f"{KEY}={connect_secrets.digest(name, KEY, 'first-secret').removeprefix(connect_secrets.MARKER)}"
    assert "first-secret" not in record

    same = runner.invoke(app, ["plan", str(directory), "--detailed-exitcode"])
    assert same.exit_code == 0, same.output
    assert "cannot be compared" not in same.output

    monkeypatch.setenv("MASKED_JAAS", "second-secret")
    rotated = runner.invoke(app, ["plan", str(directory), "--detailed-exitcode"])
    assert rotated.exit_code == 2, rotated.output
    assert f"~ config.{KEY}: (sensitive value) -> (sensitive value)" in rotated.output
    assert "compared by the digest recorded when this tool last wrote them" in rotated.output
    assert "second-secret" not in rotated.output and "first-secret" not in rotated.output
    applied = runner.invoke(app, ["apply", str(directory), "--auto-approve", "--timeout", "120"])
    assert applied.exit_code == 0, applied.output
    assert held()[KEY] == "second-secret"
    after = runner.invoke(app, ["plan", str(directory), "--detailed-exitcode"])
    assert after.exit_code == 0, after.output

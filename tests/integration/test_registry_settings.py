"""A Cluster profile's ``schemaRegistry`` block opened against the real test registry (Apicurio Registry 2.4.2).

That server checks credentials only through an OpenID Connect server, which cannot run here, so basic auth is
checked at the HTTP level: ``tests/support/http_auth.BasicAuthGate`` stands in front of the real server, answers
401 as Confluent's registry does to a request without the profile's credentials, and forwards the others. The tests
assert what the registry holds afterwards, the exact ``Authorization`` header sent, and that the password appears
in no error, ``repr``, count or output; ``plan --cluster prod`` reaches the brokers and the registry of that one
profile through the CLI.
"""

from __future__ import annotations

import base64
import json
import logging
import textwrap
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler import manifests
from reconciler.manifests.registry_profile import RegistryProfile
from reconciler.registry.port import RegistryError
from reconciler.registry_access import settings as registry_settings
from tests.kafka.cluster import KafkaCluster
from tests.kafka.registry import API_PATH, SchemaRegistryServer
from tests.support.http_auth import BasicAuthGate
from tests.support.live import cli

PASSWORD = "s3cret-Registry-pw"
ORDER = {"type": "record", "name": "Order", "namespace": "shop", "fields": [{"name": "id", "type": "long"}]}


def later() -> float:
    return time.monotonic() + 30


@pytest.fixture
def gate(schema_registry: SchemaRegistryServer) -> Iterator[BasicAuthGate]:
    upstream = urllib.parse.urlsplit(schema_registry.url)
    assert upstream.hostname is not None and upstream.port is not None
    relay = BasicAuthGate((upstream.hostname, upstream.port), username="svc-registry", password=PASSWORD)
    try:
        yield relay
    finally:
        relay.close()


def profile(tmp_path: Path, url: str) -> RegistryProfile:
    (tmp_path / "cluster.yaml").write_text(
        textwrap.dedent(
            f"""\
            apiVersion: kafka-reconciler/v1
            kind: Cluster
            metadata: {{name: prod}}
            spec:
              bootstrapServers: ["127.0.0.1:9092"]
              schemaRegistry:
                url: {url}
                username: svc-registry
                passwordFrom: {{file: registry-password}}
                timeout: 20s
            """
        ),
        encoding="utf-8",
    )
    loaded = manifests.load([tmp_path / "cluster.yaml"], env={})
    found = registry_settings.settings_for(cluster="prod", profiles=loaded.profiles, explicit=False, environ={})
    assert found is not None
    return found


def test_the_profile_reaches_the_registry_with_its_basic_auth(
    tmp_path: Path, gate: BasicAuthGate, topic_prefix: str
) -> None:
    (tmp_path / "registry-password").write_text(PASSWORD + "\n", encoding="utf-8")
    port = registry_settings.open_registry(profile(tmp_path, gate.url + API_PATH))
    subject = f"{topic_prefix}orders-value"
    schema_id = port.register(subject, json.dumps(ORDER), schema_type="AVRO", deadline=later())
    latest = port.latest(subject, deadline=later())
    assert latest is not None and (latest.id, latest.version) == (schema_id, 1)
    expected = "Basic " + base64.b64encode(f"svc-registry:{PASSWORD}".encode()).decode()
    assert gate.headers == [expected, expected] and gate.refused == 0


def test_a_wrong_password_is_refused_and_never_shown(
    tmp_path: Path,
    gate: BasicAuthGate,
    topic_prefix: str,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    wrong = "not-the-Registry-pw"
    (tmp_path / "registry-password").write_text(wrong, encoding="utf-8")
    caplog.set_level(logging.DEBUG)
    port = registry_settings.open_registry(profile(tmp_path, gate.url + API_PATH))
    with pytest.raises(RegistryError) as refused:
        port.register(f"{topic_prefix}orders-value", json.dumps(ORDER), schema_type="AVRO", deadline=later())
    printed = capfd.readouterr()
    token = base64.b64encode(f"svc-registry:{wrong}".encode()).decode()  # what the Authorization header carries
    for shown in (caplog.text, printed.out, printed.err):
        assert wrong not in shown and token not in shown
    assert refused.value.status == 401
    assert str(refused.value) == (
        f"POST /subjects/{topic_prefix}orders-value/versions: HTTP 401 (error 401): Unauthorized"
    )
    shown = " ".join([str(refused.value), repr(refused.value), repr(port.transport), repr(port)])
    assert wrong not in shown and PASSWORD not in shown
    assert gate.refused == 1


def test_the_environment_variable_reaches_the_registry_without_auth(schema_registry: SchemaRegistryServer) -> None:
    found = registry_settings.settings_for(
        cluster=None, profiles={}, explicit=True, environ={"SCHEMA_REGISTRY_URL": schema_registry.api_url}
    )
    assert found is not None
    port = registry_settings.open_registry(found)
    assert "AVRO" in port.features(deadline=later()).schema_types


def test_cluster_prod_plans_with_the_brokers_and_the_registry_of_its_profile(
    kafka_single: KafkaCluster, gate: BasicAuthGate, tmp_path: Path, topic_prefix: str
) -> None:
    """``plan --cluster prod`` through the CLI: prod's brokers and prod's registry (basic auth from its
    ``passwordFrom``) are read; the dev profile's unreachable ones are not; the password is printed nowhere."""
    subject = f"{topic_prefix}orders-value"
    (tmp_path / "clusters.yaml").write_text(
        textwrap.dedent(
            f"""\
            apiVersion: kafka-reconciler/v1
            kind: Cluster
            metadata: {{name: prod}}
            spec:
              bootstrapServers: ["{kafka_single.bootstrap}"]
              schemaRegistry:
                url: {gate.url + API_PATH}
                username: svc-registry
                passwordFrom: {{env: REGISTRY_PASSWORD}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: Cluster
            metadata: {{name: dev}}
            spec:
              bootstrapServers: ["127.0.0.1:9"]
              schemaRegistry: {{url: "http://127.0.0.1:9"}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: SchemaSubject
            metadata: {{name: orders}}
            spec:
              subject: {subject}
              schema: {json.dumps(ORDER)}
            """
        ),
        encoding="utf-8",
    )
    shown = cli(
        ["plan", str(tmp_path), "--cluster", "prod", "--detailed-exitcode"], env={"REGISTRY_PASSWORD": PASSWORD}
    )
    assert shown.returncode == 2, shown.stdout + shown.stderr
    assert f"+ schema_subject/{subject}" in shown.stdout
    assert gate.refused == 0 and len(gate.headers) >= 3  # features, the global level, the subject: all with auth
    token = base64.b64encode(f"svc-registry:{PASSWORD}".encode()).decode()
    for text in (shown.stdout, shown.stderr):
        assert PASSWORD not in text and token not in text

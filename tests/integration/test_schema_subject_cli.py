"""The ``SchemaSubject`` kind through the CLI, as a user runs it, against a real broker and a real registry (Apicurio
Registry 2.4.2.Final, reached through ``SCHEMA_REGISTRY_URL``): ``validate`` a subject whose schema is a file beside
the manifest; an incompatible schema is blocked at the manifest's file:line with the registry's verdict (``plan
--detailed-exitcode`` exits 2; ``apply`` writes nothing and exits 3, as for any blocked change); ``plan`` shows a
compatible new version with its schema diff and the registry's verdict; ``apply`` registers it, and the next plan
shows no changes; ``import`` writes the registry's subjects, and the plan right after shows no changes."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from pathlib import Path

from reconciler.registry_access import settings
from tests.kafka.cluster import KafkaCluster
from tests.kafka.registry import SchemaRegistryServer
from tests.support.live import cli

ID = {"name": "id", "type": "long"}
V1 = {"type": "record", "name": "Order", "namespace": "shop", "fields": [ID]}
COMPATIBLE = {**V1, "fields": [ID, {"name": "note", "type": "string", "default": ""}]}
INCOMPATIBLE = {**V1, "fields": [ID, {"name": "amount", "type": "double"}]}  # a new field without a default


def _manifests(folder: Path, topic: str, schema: Mapping[str, object]) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "orders.avsc").write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    (folder / "subjects.yaml").write_text(
        "apiVersion: kafka-reconciler/v1\n"
        "kind: SchemaSubject\n"
        "metadata:\n"
        "  name: orders-value\n"
        "spec:\n"
        f"  topic: {topic}\n"
        "  schemaFile: orders.avsc\n"
        "  compatibility: BACKWARD\n"
        "---\n"
        "apiVersion: kafka-reconciler/v1\n"
        "kind: SchemaSubject\n"
        "metadata:\n"
        "  name: orders-key\n"
        "spec:\n"
        f"  topic: {topic}\n"
        "  part: key\n"
        '  schema: {"type": "string"}\n',
        encoding="utf-8",
    )
    return folder


def test_validate_plan_block_apply_and_no_change_through_the_cli(
    kafka_single: KafkaCluster, schema_registry: SchemaRegistryServer, tmp_path: Path, topic_prefix: str
) -> None:
    topic = f"{topic_prefix}orders"
    subject = f"{topic}-value"
    env = {settings.REGISTRY_URL_ENV: schema_registry.api_url}
    found = settings.from_environment(env)
    assert found is not None
    port = settings.open_registry(found)
    deadline = time.monotonic() + 60
    port.set_compatibility("BACKWARD", subject, deadline=deadline)
    port.register(subject, json.dumps(V1), schema_type="AVRO", deadline=deadline)
    # declared too and already as declared: in the plan's scope, never changed (apply's scope check reads it again)
    port.register(f"{topic}-key", '"string"', schema_type="AVRO", deadline=deadline)
    target = ["--bootstrap-server", kafka_single.bootstrap]

    folder = _manifests(tmp_path / "m", topic, INCOMPATIBLE)
    assert cli(["validate", str(folder)], env=env).returncode == 0
    blocked = cli(["plan", str(folder), *target, "--detailed-exitcode"], env=env)
    assert blocked.returncode == 2, blocked.stderr
    assert f"! schema_subject/{subject}" in blocked.stdout
    assert "blocked:" in blocked.stdout and "incompatible" in blocked.stdout.lower()
    assert f"declared at {folder / 'subjects.yaml'}:1:1" in blocked.stdout  # the manifest's file:line:column
    refused = cli(["apply", str(folder), *target, "--auto-approve"], env=env)
    assert refused.returncode == 3, refused.stdout + refused.stderr  # as for any blocked change: not carried out
    assert port.versions(subject, deadline=time.monotonic() + 60) == (1,)  # nothing was registered

    _manifests(folder, topic, COMPATIBLE)
    shown = cli(["plan", str(folder), *target, "--detailed-exitcode"], env=env)
    assert shown.returncode == 2, shown.stderr
    assert f"~ schema_subject/{subject}" in shown.stdout
    assert "schema: new version (after version 1)" in shown.stdout
    assert '+      "name": "note",' in shown.stdout  # the unified diff of the canonical schema text
    assert "dry run: the registry finds it compatible under BACKWARD" in shown.stdout

    applied = cli(["apply", str(folder), *target, "--auto-approve"], env=env)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    latest = port.latest(subject, deadline=time.monotonic() + 60)
    assert latest is not None and latest.version == 2 and json.loads(latest.schema) == COMPATIBLE

    again = cli(["plan", str(folder), *target, "--detailed-exitcode"], env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "schema_subject/" not in again.stdout
    nothing = cli(["apply", str(folder), *target, "--auto-approve"], env=env)
    assert nothing.returncode == 0, nothing.stdout + nothing.stderr
    assert port.versions(subject, deadline=time.monotonic() + 60) == (1, 2)


def test_a_saved_plan_applies_and_a_snapshot_plans_offline_through_the_cli(
    kafka_single: KafkaCluster, schema_registry: SchemaRegistryServer, tmp_path: Path, topic_prefix: str
) -> None:
    """``plan --out`` then ``apply --plan`` registers the version the saved plan holds; ``snapshot --out`` keeps the
    subjects, and a plan from it (``--live-state``, no registry) shows the same new version, its compatibility not
    checked (the registry was not asked), and sends nothing."""
    topic = f"{topic_prefix}orders"
    subject = f"{topic}-value"
    env = {settings.REGISTRY_URL_ENV: schema_registry.api_url}
    found = settings.from_environment(env)
    assert found is not None
    port = settings.open_registry(found)
    port.set_compatibility("BACKWARD", subject, deadline=time.monotonic() + 60)
    port.register(subject, json.dumps(V1), schema_type="AVRO", deadline=time.monotonic() + 60)
    port.register(f"{topic}-key", '"string"', schema_type="AVRO", deadline=time.monotonic() + 60)
    folder = _manifests(tmp_path / "m", topic, COMPATIBLE)
    target = ["--bootstrap-server", kafka_single.bootstrap]

    snap = tmp_path / "snap.json"
    taken = cli(["snapshot", "--out", str(snap), *target, str(folder)], env=env)
    assert taken.returncode == 0, taken.stdout + taken.stderr
    assert subject in json.loads(snap.read_text())["schema_subjects"]["subjects"]
    offline = cli(["plan", str(folder), "--live-state", str(snap)])  # no registry named
    assert offline.returncode == 0, offline.stdout + offline.stderr
    assert f"~ schema_subject/{subject}" in offline.stdout and "schema: new version (after version 1)" in offline.stdout
    assert "not checked: the registry was not asked" in offline.stdout

    saved = tmp_path / "plan.json"
    planned = cli(["plan", str(folder), *target, "--out", str(saved)], env=env)
    assert planned.returncode == 0, planned.stdout + planned.stderr
    applied = cli(["apply", "--plan", str(saved), *target], env=env)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert port.versions(subject, deadline=time.monotonic() + 60) == (1, 2)


def test_import_writes_the_registrys_subjects_and_the_plan_right_after_changes_nothing(
    kafka_single: KafkaCluster, schema_registry: SchemaRegistryServer, tmp_path: Path, topic_prefix: str
) -> None:
    """``import`` with the registry named (``SCHEMA_REGISTRY_URL``) writes ``schema-subjects.yaml`` and each schema
    in its file, as docs/adopting.md says, and the plan of what it wrote against the same cluster and registry
    changes nothing. Regression: ``import`` read the Kafka cluster and Kafka Connect only, and wrote no subject."""
    subject = f"{topic_prefix}orders-value"
    env = {settings.REGISTRY_URL_ENV: schema_registry.api_url}
    found = settings.from_environment(env)
    assert found is not None
    port = settings.open_registry(found)
    port.set_compatibility("FULL", subject, deadline=time.monotonic() + 60)
    port.register(subject, json.dumps(V1), schema_type="AVRO", deadline=time.monotonic() + 60)
    target = ["--bootstrap-server", kafka_single.bootstrap]

    out = tmp_path / "imported"
    imported = cli(["import", "--out", str(out), *target], env=env)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    written = (out / "schema-subjects.yaml").read_text(encoding="utf-8")
    assert f"subject: {subject}" in written and "compatibility: FULL" in written
    stem = subject.replace("/", "_")
    assert json.loads((out / "subjects" / f"{stem}.avsc").read_text(encoding="utf-8")) == V1
    # The shared broker holds other tests' resources too (a SCRAM user's password is never imported, so its plan asks
    # for the variable): what is checked is that no subject changes and the imported one is counted unchanged.
    again = cli(["plan", str(out), *target, "--detailed-exitcode"], env=env)
    assert again.returncode in (0, 2), again.stdout + again.stderr
    changed = [line for line in again.stdout.splitlines() if re.match(r"\s+[-+~!] schema_subject/", line)]
    assert changed == [], again.stdout
    assert re.search(r"unchanged \(.*schema_subject: \d+", again.stdout), again.stdout

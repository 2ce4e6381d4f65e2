"""The subjects' snapshot section (an offline plan equals the online one; a malformed section is an error naming
the place) and import (documents and schema files that plan no change right after)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from reconciler.adopt import output
from reconciler.kinds.schema_subject import adopt, diff, manifest, snapshot, views
from reconciler.model import plans
from reconciler.registry.port import RestRegistryPort
from reconciler.registry.requests import Reference
from tests.support.registry_fake import FakeRegistry

CUSTOMER = json.dumps(
    {"type": "record", "name": "Customer", "namespace": "shop", "fields": [{"name": "id", "type": "long"}]}
)
INVOICE = json.dumps(
    {"type": "record", "name": "Invoice", "namespace": "shop", "fields": [{"name": "c", "type": "shop.Customer"}]}
)
PAYMENT = json.dumps({"title": "Payment", "type": "object", "properties": {"amount": {"type": "number"}}}, indent=2)
PROTO = 'syntax = "proto3";\npackage shop.v1;\n\nmessage Click {\n  string page = 1;\n}\n'


def later() -> float:
    return time.monotonic() + 30


@pytest.fixture
def registry() -> RestRegistryPort:
    port = RestRegistryPort(FakeRegistry())
    port.register("customer-value", CUSTOMER, schema_type="AVRO", deadline=later())
    refs = (Reference("shop.Customer", "customer-value", 1),)
    port.register("team/invoice-value", INVOICE, schema_type="AVRO", references=refs, deadline=later())
    port.register("payments-value", PAYMENT, schema_type="JSON", deadline=later())
    port.register("clicks-value", PROTO, schema_type="PROTOBUF", deadline=later())
    port.register("Clicks_value", PROTO, schema_type="PROTOBUF", deadline=later())
    port.set_compatibility("FULL_TRANSITIVE", "customer-value", deadline=later())
    port.set_mode("READONLY", "payments-value", deadline=later())
    return port


def read_all(registry: RestRegistryPort) -> views.LiveSubjects:
    names = registry.subjects(deadline=later())
    return views.read(registry, names, modes=names, deadline=later())


def test_a_snapshot_plans_offline_what_the_registry_plans_online(registry: RestRegistryPort) -> None:
    live = read_all(registry)
    offline = snapshot.from_dict(json.loads(json.dumps(snapshot.to_dict(live))))
    assert offline is not None
    assert (offline.subjects, offline.features, offline.global_level) == (
        live.subjects,
        live.features,
        live.global_level,
    )
    wanted = {"customer-value": views.DesiredSubject("customer-value", CUSTOMER, compatibility="FULL")}
    assert diff.diff(wanted, offline) == diff.diff(wanted, live)
    assert snapshot.from_dict(None) is None


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(subjects=[]), "schema_subjects.subjects: expected Mapping"),
        (
            lambda d: d["subjects"]["customer-value"]["latest"].update(version="1"),
            "schema_subjects.subjects['customer-value'].latest.version: expected int, found '1'",
        ),
        (
            lambda d: d["subjects"]["customer-value"]["latest"].update(version=True),
            "schema_subjects.subjects['customer-value'].latest.version: expected int, found True",
        ),
        (
            lambda d: d["subjects"]["customer-value"].update(compatibility="SIDEWAYS"),
            "schema_subjects.subjects['customer-value'].compatibility: 'SIDEWAYS' is not one of NONE, BACKWARD",
        ),
        (
            lambda d: d["subjects"]["customer-value"]["latest"].update(schemaType="XML"),
            "schema_subjects.subjects['customer-value'].latest.schemaType: 'XML' is not one of AVRO, JSON, PROTOBUF",
        ),
        (
            lambda d: d["subjects"]["team/invoice-value"]["latest"]["references"][0].pop("subject"),
            "schema_subjects.subjects['team/invoice-value'].latest.references[0].subject: expected str, found None",
        ),
        (lambda d: d.update(features="yes"), "schema_subjects.features: expected Mapping"),
    ],
)
def test_a_malformed_section_is_an_error_naming_the_place(registry: RestRegistryPort, edit: Any, message: str) -> None:
    doc = json.loads(json.dumps(snapshot.to_dict(read_all(registry))))
    edit(doc)
    with pytest.raises(snapshot.SnapshotError) as raised:
        snapshot.from_dict(doc)
    assert str(raised.value).startswith(message)


def test_import_writes_documents_and_schema_files_that_plan_nothing(registry: RestRegistryPort, tmp_path: Path) -> None:
    live = read_all(registry)
    found, notes = adopt.documents(live)
    assert notes == []
    assert [(d.name, d.schema_file) for d in found] == [
        ("Clicks_value", "subjects/Clicks_value.proto"),
        ("clicks-value", "subjects/clicks-value.proto"),
        ("customer-value", "subjects/customer-value.avsc"),
        ("payments-value", f"{adopt.SCHEMA_DIR}/payments-value.json"),
        ("team_invoice-value", "subjects/team_invoice-value.avsc"),
    ]
    (tmp_path / adopt.SCHEMA_DIR).mkdir()
    declared: dict[str, views.DesiredSubject] = {}
    problems: list[str] = []
    for doc in found:
        (tmp_path / doc.schema_file).write_text(doc.schema, encoding="utf-8")
        spec = manifest.SchemaSubjectSpec.model_validate(json.loads(json.dumps(doc.spec)))
        subject = manifest.build(
            doc.name, spec, manifest_file=tmp_path / "subjects.yaml", error=lambda p, m: problems.append(m)
        )
        assert problems == [] and subject is not None
        declared[subject.subject] = subject
    assert found[2].spec == {
        "subject": "customer-value",
        "schemaFile": "subjects/customer-value.avsc",
        "compatibility": "FULL_TRANSITIVE",
    }
    assert found[3].spec["mode"] == "READONLY" and found[3].spec["schemaType"] == "JSON"
    assert found[4].spec["references"] == [{"name": "shop.Customer", "subject": "customer-value", "version": 1}]
    changes = diff.diff(declared, live)
    assert [(c.subject, c.action) for c in changes] == [(name, plans.Action.NOOP) for name in sorted(live.subjects)]


def test_a_case_insensitive_clash_of_file_names_is_numbered(tmp_path: Path) -> None:
    port = RestRegistryPort(FakeRegistry())
    for subject in ("Orders-value", "orders-value", "orders/value"):
        port.register(subject, CUSTOMER, schema_type="AVRO", deadline=later())
    found, _ = adopt.documents(read_all(port))
    assert [d.schema_file for d in found] == [
        "subjects/Orders-value.avsc",
        "subjects/orders-value-2.avsc",
        "subjects/orders_value.avsc",
    ]


def test_two_snapshots_differ_by_the_subjects_that_changed_and_only_those(registry: RestRegistryPort) -> None:
    before = snapshot.resources(read_all(registry))
    spaced = json.dumps(json.loads(CUSTOMER), indent=6)
    registry.register("customer-value", spaced, schema_type="AVRO", deadline=later())  # the same schema: no version
    registry.set_compatibility("NONE", "customer-value", deadline=later())
    registry.register("clicks-value", PROTO.replace("page", "path"), schema_type="PROTOBUF", deadline=later())
    after = snapshot.resources(read_all(registry))
    changed = {a for a in before.keys() | after.keys() if before.get(a) != after.get(a)}
    assert changed == {"schema_subject/customer-value", "schema_subject/clicks-value"}
    assert {
        k
        for k in before["schema_subject/customer-value"]
        if before["schema_subject/customer-value"][k] != after["schema_subject/customer-value"][k]
    } == {"compatibility"}
    old, new = before["schema_subject/clicks-value"], after["schema_subject/clicks-value"]
    assert (old["version"], new["version"]) == (1, 2)
    assert [line for line in new["schema"] if line not in old["schema"]] == ["  string path = 1;"]
    assert snapshot.resources(None) == {}


def test_a_json_subject_named_like_a_kind_keeps_its_schema_apart_from_the_kinds_json_schemas() -> None:
    """Regression: import wrote a JSON subject's schema to schemas/<subject>.json, where it also writes each kind's
    JSON Schema for editors, so a subject named ``Topic`` and the Topic kind's schema were the same file."""
    port = RestRegistryPort(FakeRegistry())
    port.register("Topic", '{"type": "object"}', schema_type="JSON", deadline=later())
    found, _ = adopt.documents(read_all(port))
    kinds_schema = f"{output.SCHEMA_DIR}/Topic.json"
    assert [d.schema_file for d in found] == [f"{adopt.SCHEMA_DIR}/Topic.json"]
    assert found[0].schema_file != kinds_schema

"""``SchemaSubject`` manifests: the subject name each naming strategy derives, the schema from a file beside the
manifest or inline, and the errors a user sees for an unreadable or invalid schema (naming the file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pydantic
import pytest

from reconciler.kinds.schema_subject import manifest
from reconciler.kinds.schema_subject.views import DesiredSubject
from reconciler.registry.requests import Reference

ORDER = {"type": "record", "name": "Order", "namespace": "shop", "fields": [{"name": "id", "type": "long"}]}


def built(tmp_path: Path, spec: dict[str, Any], name: str = "orders") -> tuple[DesiredSubject | None, list[str]]:
    errors: list[str] = []
    model = manifest.SchemaSubjectSpec.model_validate(spec)
    found = manifest.build(
        name,
        model,
        manifest_file=tmp_path / "subjects.yaml",
        error=lambda path, message: errors.append(f"{'.'.join(map(str, path))}: {message}"),
    )
    return found, errors


@pytest.mark.parametrize(
    ("spec", "subject", "topics"),
    [
        ({"subject": "team/orders"}, "team/orders", ()),
        ({"topic": "orders"}, "orders-value", ("orders",)),
        ({"topic": "orders", "part": "key"}, "orders-key", ("orders",)),
        ({"topic": "orders", "strategy": "RecordNameStrategy"}, "shop.Order", ("orders",)),
        ({"topic": "orders", "strategy": "TopicRecordNameStrategy"}, "orders-shop.Order", ("orders",)),
        ({}, "orders", ()),  # metadata.name
        ({"subject": "payments-value"}, "payments-value", ("payments",)),
    ],
)
def test_the_subject_name_each_strategy_derives(
    tmp_path: Path, spec: dict[str, Any], subject: str, topics: tuple[str, ...]
) -> None:
    found, errors = built(tmp_path, {**spec, "schema": ORDER})
    assert errors == []
    assert found is not None
    assert (found.subject, found.topics) == (subject, topics)


def test_record_names_of_json_and_protobuf_schemas() -> None:
    assert manifest.record_name(json.dumps({"title": "Payment", "type": "object"}), "JSON") == "Payment"
    proto = 'syntax = "proto3";\npackage shop.v1;\n\nmessage Order {\n  int64 id = 1;\n}\n'
    assert manifest.record_name(proto, "PROTOBUF") == "shop.v1.Order"
    assert manifest.record_name(json.dumps({"type": "object"}), "JSON") is None


def test_a_schema_file_is_read_relative_to_the_manifest(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    text = json.dumps(ORDER, indent=2)
    (tmp_path / "schemas" / "order.avsc").write_text(text, encoding="utf-8")
    found, errors = built(
        tmp_path,
        {
            "topic": "orders",
            "schemaFile": "schemas/order.avsc",
            "references": [{"name": "shop.Customer", "subject": "customer-value", "version": 2}],
            "compatibility": "FULL_TRANSITIVE",
            "mode": "READWRITE",
        },
    )
    assert errors == []
    assert found == DesiredSubject(
        subject="orders-value",
        schema=text,
        schema_type="AVRO",
        references=(Reference("shop.Customer", "customer-value", 2),),
        compatibility="FULL_TRANSITIVE",
        mode="READWRITE",
        topics=("orders",),
        schema_origin=str(tmp_path / "schemas" / "order.avsc"),
    )


def test_an_unreadable_schema_file_is_an_error_naming_its_path(tmp_path: Path) -> None:
    found, errors = built(tmp_path, {"topic": "orders", "schemaFile": "missing.avsc"})
    assert found is None
    assert errors == [
        f"spec.schemaFile: cannot read schema file {tmp_path / 'missing.avsc'}: No such file or directory"
    ]


def test_an_invalid_schema_file_is_an_error_naming_its_path_and_where_in_it(tmp_path: Path) -> None:
    (tmp_path / "order.avsc").write_text('{"type": "record",\n  "name": }\n', encoding="utf-8")
    found, errors = built(tmp_path, {"topic": "orders", "schemaFile": "order.avsc"})
    assert found is None
    assert len(errors) == 1
    assert errors[0].startswith(f"spec.schemaFile: the AVRO schema in {tmp_path / 'order.avsc'} is not valid")
    assert "line 2, column 11" in errors[0]


def test_a_record_name_strategy_needs_a_named_schema(tmp_path: Path) -> None:
    found, errors = built(
        tmp_path, {"topic": "payments", "strategy": "RecordNameStrategy", "schemaType": "JSON", "schema": {}}
    )
    assert found is None
    assert errors == [
        f"spec.strategy: RecordNameStrategy names the subject by the schema's record name, and the schema in "
        f"{tmp_path / 'subjects.yaml'} has none"
    ]


def test_a_protobuf_schema_must_be_text(tmp_path: Path) -> None:
    found, errors = built(tmp_path, {"subject": "s", "schemaType": "PROTOBUF", "schema": {"message": "x"}})
    assert (found, errors) == (None, ["spec.schema: a PROTOBUF schema is written as text, not as a mapping"])


def test_a_subject_referencing_itself_is_an_error(tmp_path: Path) -> None:
    refs = [{"name": "x", "subject": "orders-value", "version": 1}]
    found, errors = built(tmp_path, {"topic": "orders", "schema": ORDER, "references": refs})
    assert (found, errors) == (None, ["spec.references: subject 'orders-value' references itself"])


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"topic": "t"}, "give exactly one of schemaFile and schema"),
        ({"topic": "t", "schema": "{}", "schemaFile": "a.avsc"}, "give exactly one of schemaFile and schema"),
        ({"topic": "t", "subject": "s", "schema": "{}"}, "give subject or topic, not both"),
        ({"subject": "s", "schema": "{}", "compatibility": "SIDEWAYS"}, "compatibility"),
        ({"subject": "s", "schema": "{}", "permanent": True}, "permanent"),
    ],
)
def test_the_model_refuses_what_cannot_be_built(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(pydantic.ValidationError, match=message):
        manifest.SchemaSubjectSpec.model_validate(spec)


def test_every_field_has_hover_text() -> None:
    schema = manifest.SchemaSubjectSpec.model_json_schema(by_alias=True)
    models = [schema, *schema.get("$defs", {}).values()]
    fields = [(m["title"], name, f) for m in models for name, f in m["properties"].items()]
    assert {name for title, name, _ in fields if title == "SchemaSubjectSpec"} == {
        "subject",
        "topic",
        "part",
        "strategy",
        "schemaType",
        "schemaFile",
        "schema",
        "references",
        "compatibility",
        "mode",
    }
    rules = manifest.SubjectRuleSpec.model_json_schema(by_alias=True)
    fields += [(rules["title"], name, f) for name, f in rules["properties"].items()]
    for title, name, field in fields:
        assert isinstance(field.get("description"), str) and len(field["description"]) > 10, (title, name)


def test_ownership_rules_name_the_subjects_they_own_and_how_they_are_deleted() -> None:
    rules = [
        manifest.SubjectRuleSpec.model_validate(r).rule()
        for r in ({"name": "orders-value"}, {"prefix": "legacy-", "permanent": True}, {"regex": "tmp-[0-9]+-value"})
    ]
    assert [(r.pattern.kind, r.pattern.value, r.permanent) for r in rules] == [
        ("exact", "orders-value", False),
        ("prefix", "legacy-", True),
        ("regex", "tmp-[0-9]+-value", False),
    ]
    for bad, message in (
        ({"prefix": "a", "glob": "b"}, "give exactly one of name, prefix, glob or regex"),
        ({"prefix": "a", "permanent": "yes"}, "permanent"),
        ({"regex": "(unclosed"}, "regex '\\(unclosed' does not compile"),
    ):
        with pytest.raises(pydantic.ValidationError, match=message):
            manifest.SubjectRuleSpec.model_validate(bad)


def test_a_schema_file_that_is_not_a_file_or_too_big_or_too_deep_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "dir.avsc").mkdir()
    found, errors = built(tmp_path, {"topic": "orders", "schemaFile": "dir.avsc"})
    assert (found, errors) == (None, [f"spec.schemaFile: schema file {tmp_path / 'dir.avsc'} is not a regular file"])
    with (tmp_path / "huge.avsc").open("wb") as f:
        f.truncate(manifest.MAX_SCHEMA_BYTES + 1)  # sparse: nothing written, nothing read
    found, errors = built(tmp_path, {"topic": "orders", "schemaFile": "huge.avsc"})
    assert (found, errors) == (
        None,
        [f"spec.schemaFile: schema file {tmp_path / 'huge.avsc'} is 8.0 MiB, over the 8 MiB limit"],
    )
    (tmp_path / "deep.avsc").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    found, errors = built(tmp_path, {"topic": "orders", "schemaFile": "deep.avsc"})
    assert (found, errors) == (
        None,
        [
            f"spec.schemaFile: the AVRO schema in {tmp_path / 'deep.avsc'} is not valid: nested too deeply to read "
            "(more levels than Python's recursion limit)"
        ],
    )

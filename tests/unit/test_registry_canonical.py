"""Schema canonicalisation: whitespace and key order do not make a new version, a changed default does; Avro's
Parsing Canonical Form follows the specification's rules (examples checked against the rules one by one)."""

from __future__ import annotations

import json

import pytest

from reconciler.registry.canonical import SchemaTextError, avro_canonical_form, normalize, same_schema

DECLARED = """
{
  "namespace": "shop",
  "type": "record",
  "name": "Order",
  "doc": "an order",
  "fields": [
    {"name": "id", "type": {"type": "long"}},
    {"name": "note", "type": ["null", "string"], "default": null},
    {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
      "fields": [{"name": "sku", "type": "string"}]}}},
    {"name": "again", "type": "Line"},
    {"name": "state", "type": {"type": "enum", "name": "State", "namespace": "other", "symbols": ["NEW", "PAID"]}},
    {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 16}},
    {"name": "tags", "type": {"type": "map", "values": "string"}},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}}
  ]
}
"""


def test_avro_parsing_canonical_form() -> None:
    assert avro_canonical_form(DECLARED) == (
        '{"name":"shop.Order","type":"record","fields":['
        '{"name":"id","type":"long"},'
        '{"name":"note","type":["null","string"]},'
        '{"name":"lines","type":{"type":"array","items":{"name":"shop.Line","type":"record","fields":'
        '[{"name":"sku","type":"string"}]}}},'
        '{"name":"again","type":"shop.Line"},'
        '{"name":"state","type":{"name":"other.State","type":"enum","symbols":["NEW","PAID"]}},'
        '{"name":"hash","type":{"name":"shop.Hash","type":"fixed","size":16}},'
        '{"name":"tags","type":{"type":"map","values":"string"}},'
        '{"name":"at","type":"long"}]}'
    )


def test_canonical_form_of_primitives_and_escapes() -> None:
    assert avro_canonical_form('{"type": "string"}') == '"string"'
    assert avro_canonical_form('  "int" ') == '"int"'
    assert avro_canonical_form('{"type":"enum","name":"E","symbols":["\\u00e9"]}') == (
        '{"name":"E","type":"enum","symbols":["\u00e9"]}'
    )


def test_the_registry_split_of_a_full_name_is_the_same_avro_schema() -> None:
    # Avro's Java writer (both registries) splits "shop.Order" into name and namespace and drops {"type": ...}
    declared = '{"type":"record","name":"shop.Order","fields":[{"name":"id","type":{"type":"long"}}]}'
    registered = '{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"id","type":"long"}]}'
    assert same_schema(declared, registered, "AVRO")


def test_whitespace_and_key_order_are_not_a_change_but_a_default_is() -> None:
    reordered = json.dumps(json.loads(DECLARED), indent=None, sort_keys=True)
    assert same_schema(DECLARED, reordered, "AVRO")
    changed = json.loads(DECLARED)
    changed["fields"][1]["default"] = "none"
    assert not same_schema(DECLARED, json.dumps(changed), "AVRO")
    assert avro_canonical_form(DECLARED) == avro_canonical_form(json.dumps(changed))  # the form strips defaults
    logical = json.loads(DECLARED)
    logical["fields"][7]["type"]["logicalType"] = "timestamp-micros"
    assert not same_schema(DECLARED, json.dumps(logical), "AVRO")


def test_json_schema_normalisation() -> None:
    a = '{"type": "object",\n "properties": {"b": {"type": "string"}, "a": {"type": "integer"}}}'
    b = '{"properties":{"a":{"type":"integer"},"b":{"type":"string"}},"type":"object"}'
    assert normalize(a, "JSON") == b
    assert not same_schema(a, b.replace("integer", "number"), "JSON")


def test_protobuf_text_is_compared_by_line() -> None:
    a = 'syntax = "proto3";\r\nmessage A {  \r\n  int32 x = 1;\r\n}\r\n\r\n'
    b = '\nsyntax = "proto3";\nmessage A {\n  int32 x = 1;\n}'
    assert same_schema(a, b, "PROTOBUF")
    assert not same_schema(a, b.replace("x = 1", "x = 2"), "PROTOBUF")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"type": "record", "fields": []', "line 1, column 32"),
        ('{"type": "record", "fields": []}', "record without a name"),
        ('{"name": "x"}', "without a type"),
        ('{"type": "array"}', "without 'items'"),
        ('{"type":"record","name":"R","fields":[{"name":"a"}]}', "needs a name and a type"),
        ("42", "not 42"),
    ],
)
def test_bad_schema_text_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(SchemaTextError, match=message):
        avro_canonical_form(text)


def test_unknown_schema_type() -> None:
    with pytest.raises(ValueError, match="XML"):
        normalize("<a/>", "XML")


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,  # too deep for the JSON reader
        '{"type": "array", "items": ' * 900 + '"int"' + "}" * 900,  # readable JSON, too deep for the Avro walk
    ],
)
def test_a_text_nested_too_deeply_is_a_schema_error_not_a_crash(text: str) -> None:
    with pytest.raises(SchemaTextError, match="nested too deeply to read"):
        normalize(text, "AVRO")
    with pytest.raises(SchemaTextError, match="nested too deeply to read"):
        avro_canonical_form(text)

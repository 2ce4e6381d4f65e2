"""The JSON Schemas read well in an editor: every property titled with its YAML key and described, each
described once (no anyOf branch per type, where an editor's hover repeats the title per branch), and no
reStructuredText. The real editor's view is tested in tests/tooling/test_yaml_language_server.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from reconciler.manifests import models, schema
from reconciler.model import catalogue

SCHEMAS = schema.all_schemas()


def _properties(node: Any, where: str = "") -> Iterator[tuple[str, str, dict[str, Any]]]:
    if isinstance(node, dict):
        for key, field in (node.get("properties") or {}).items():
            yield f"{where}.{key}", key, field
        for key, value in node.items():
            if key != "if":  # the kind dispatch of manifest.json: {"kind": {"const": ...}}, not a field
                yield from _properties(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _properties(value, f"{where}[{i}]")


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_property_is_titled_by_its_key_and_described(name: str) -> None:
    found = list(_properties(SCHEMAS[name]))
    assert len(found) > 3
    for where, key, field in found:
        assert field.get("title") == key, where
        assert isinstance(field.get("description"), str) and len(field["description"]) > 10, where


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_no_restructuredtext_and_no_per_type_branches(name: str) -> None:
    text = schema.render(SCHEMAS[name])
    assert "``" not in text
    for where, _, field in _properties(SCHEMAS[name]):
        for option in field.get("anyOf", []):
            assert set(option) - {"type"} or option.get("type") == "null" or "$ref" in option, where
            assert "title" not in option and "description" not in option, where


def test_a_config_key_is_one_schema_of_several_types() -> None:
    configs = SCHEMAS["Topic.json"]["$defs"]["TopicSpec"]["properties"]["configs"]
    retention = configs["properties"]["retention.ms"]
    assert retention["type"] == ["string", "integer", "number", "boolean", "array", "null"]
    assert "anyOf" not in retention
    assert retention["description"].startswith("retention.ms (long, milliseconds;")
    partitions = SCHEMAS["Topic.json"]["$defs"]["TopicSpec"]["properties"]["partitions"]
    assert partitions["type"] == ["integer", "null"] and partitions["minimum"] == 1


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_no_class_name_reaches_an_editor(name: str) -> None:
    """An editor names a matched branch or a list's items by its title or its $ref: neither may be a model's class
    name (hover read "#### SecretRefSpec", completion offered "AclBindingSpec")."""
    document = SCHEMAS[name]
    kinds = set(models.DOCUMENTS)
    for key, definition in document.get("$defs", {}).items():
        assert definition.get("title", key) in kinds if key in kinds else "title" not in definition, key
    for where, _, field in _properties(document):
        assert "anyOf" not in field, where
        assert "$ref" not in (field.get("items") or {}), where


def test_quota_value_keys_are_listed_described_and_closed() -> None:
    values = SCHEMAS["ClientQuota.json"]["$defs"]["ClientQuotaSpec"]["properties"]["values"]
    every = sorted(set().union(*catalogue.QUOTA_KEYS.values()))
    assert sorted(values["properties"]) == every
    assert values["propertyNames"] == {"enum": every}
    assert values["properties"]["producer_byte_rate"]["description"].startswith("Bytes per second")


def _texts(node: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """Every text an editor shows from a schema: each ``description``, ``markdownDescription`` and each of the
    ``markdownEnumDescriptions``/``enumDescriptions``, with where it is."""
    if isinstance(node, dict):
        for key, value in node.items():
            if "escription" in key:
                for text in value if isinstance(value, list) else [value]:
                    if isinstance(text, str):
                        yield f"{where}/{key}", text
            yield from _texts(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _texts(value, f"{where}[{i}]")


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_each_paragraph_of_a_description_is_one_line(name: str) -> None:
    """Regression: a model docstring's wrapping reached the schema ("which metrics matching clients push, how\\noften"),
    and yaml-language-server's hover shows a single newline as a break mid-sentence."""
    found = list(_texts(SCHEMAS[name]))
    assert len(found) > 3
    for where, text in found:
        for paragraph in text.split("\n\n"):
            assert "\n" not in paragraph and paragraph == paragraph.strip(), (where, paragraph)

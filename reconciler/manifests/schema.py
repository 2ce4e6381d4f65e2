"""JSON Schemas for editors and CI, generated from the manifest models: ``python -m reconciler.manifests.schema [DIR]``.

Writes one ``<Kind>.json`` per kind plus ``manifest.json`` (any kind, dispatched on ``kind``) into ``DIR``; by
default into ``reconciler/schemas/`` (shipped in the wheel; ``kafka-reconciler schema --out DIR`` copies them out)
and, in a source checkout, into the repository's top-level ``schemas/`` too (real files, the same bytes), which the
examples' and docs' modelines point at.
Never edit the output by hand. Every schema has a ``$id`` (``urn:kafka-reconciler:manifest:v1:<Kind>``) and is
self-contained: ``manifest.json`` carries every kind inside it, so a schema copied anywhere needs no other file.
Topic and broker config keys are listed with a description built from the config catalogue (type, unit, Kafka's
default, range or allowed values), which an editor shows on hover and offers in completion.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from reconciler.manifests import models
from reconciler.model import catalogue as config_catalogue
from reconciler.model import configs
from reconciler.model.catalogue import ConfigSpec

DRAFT = "https://json-schema.org/draft/2020-12/schema"
PACKAGED = Path(__file__).resolve().parents[1] / "schemas"
# The repository's own copy, beside pyproject.toml; absent from an installed package.
REPOSITORY = PACKAGED.parents[1] / "schemas"
_UNITS = {
    "ms": "milliseconds; durations such as 7d or 12h are accepted",
    "bytes": "bytes; sizes such as 1GiB are accepted",
}


def schema_id(name: str) -> str:
    """The ``$id`` of a schema: ``urn:kafka-reconciler:manifest:v1:Topic`` (``manifest`` for the combined one)."""
    return f"urn:kafka-reconciler:manifest:v1:{name}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def config_description(spec: ConfigSpec) -> str:
    """One line per fact the catalogue holds about a config key, for an editor's hover."""
    kind = spec.type + (f", {_UNITS[spec.unit]}" if spec.unit in _UNITS else "")
    lines = [f"`{spec.name}` ({kind})."]
    if spec.default is not None:
        lines.append(f"Kafka's default: {configs.humanize(spec.name, spec.default) if spec.default else '(empty)'}.")
    if spec.choices:
        lines.append("Allowed: " + ", ".join(spec.choices) + ".")
    if spec.minimum is not None and spec.maximum is not None:
        lines.append(f"Range: {_number(spec.minimum)} to {_number(spec.maximum)}.")
    elif spec.minimum is not None:
        lines.append(f"At least {_number(spec.minimum)}.")
    if spec.update_mode:
        lines.append(f"Update mode: {spec.update_mode}.")
    if spec.removed_in:
        lines.append(f"Removed in Kafka {spec.removed_in}.")
    if spec.doc:
        lines.append(spec.doc)
    return "\n\n".join(lines)


def _config_properties(catalogue: Any, value_schema: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for name in sorted(catalogue):
        text = config_description(catalogue[name])
        plain = text.replace("\n\n", " ").replace("`", "")
        props[name] = {**value_schema, "title": name, "description": plain, "markdownDescription": text}
    return props


def kind_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of one kind's documents, with config keys listed and described for editors."""
    schema = models.DOCUMENTS[kind].model_json_schema(by_alias=True, mode="validation")
    schema = {"$schema": DRAFT, "$id": schema_id(kind), **schema, "title": kind}
    defs = schema.get("$defs", {})
    for name, catalogue, closed in (
        ("TopicSpec", config_catalogue.TOPIC_CONFIGS, True),
        ("TopicDefaultsSpec", config_catalogue.TOPIC_CONFIGS, True),
        ("BrokerConfigSpec", config_catalogue.BROKER_CONFIGS, False),
        ("GroupConfigSpec", config_catalogue.GROUP_CONFIGS, True),
    ):
        spec = defs.get(name)
        if spec is None:
            continue
        field = spec["properties"]["configs"]
        value = dict(field.get("additionalProperties") or {})
        field["properties"] = _config_properties(catalogue, value)
        if closed:
            field["propertyNames"] = {"enum": sorted(catalogue)}
    if "ClientQuotaSpec" in defs:
        _quota_values(defs["ClientQuotaSpec"]["properties"]["values"])
    if "ClientMetricsSpec" in defs:  # the selectors a subscription may match on, for completion
        defs["ClientMetricsSpec"]["properties"]["match"]["propertyNames"] = {
            "enum": list(config_catalogue.CLIENT_METRICS_SELECTORS)
        }
    _describe(schema)
    schema = dict(_flat_unions(schema))
    for definition in schema.get("$defs", {}).values():
        _nullable_optionals(definition)
    schema = dict(_flat_unions(_inline_refs(schema, schema.get("$defs", {}))))
    return _without_class_titles(schema)


def _quota_values(field: dict[str, Any]) -> None:
    """A ClientQuota's value keys listed, described and closed, as topic config keys are."""
    from reconciler.manifests import descriptions

    value = dict(field.get("additionalProperties") or {})
    field["properties"] = {
        key: {**value, "title": key, "description": text} for key, text in sorted(descriptions.QUOTA_VALUES.items())
    }
    field["propertyNames"] = {"enum": sorted(set().union(*config_catalogue.QUOTA_KEYS.values()))}


def _inline_refs(node: Any, defs: dict[str, Any]) -> Any:
    """Each ``anyOf`` option or list item that only names a model (``{"$ref": ...}``) replaced by the model's own
    schema without its title and description: an editor then shows the field's key and text, never the class name
    (``TlsSpec``) of the branch that matched or of a list's items (``AclBindingSpec``), and ``_flat_unions`` can
    fold ``object | null`` into one schema.
    """
    if isinstance(node, list):
        return [_inline_refs(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _inline_refs(v, defs) for k, v in node.items()}
    options = out.get("anyOf")
    if isinstance(options, list):
        out["anyOf"] = [_inlined(option, defs) for option in options]
    if "items" in out:
        out["items"] = _inlined(out["items"], defs)
    return out


def _inlined(option: Any, defs: dict[str, Any]) -> Any:
    if not isinstance(option, dict) or set(option) != {"$ref"}:
        return option
    name = str(option["$ref"]).removeprefix("#/$defs/")
    target = defs.get(name)
    if target is None or option["$ref"] in json.dumps(target):  # unknown or recursive: keep the reference
        return option
    return _inline_refs({k: v for k, v in target.items() if k not in ("title", "description")}, defs)


def _without_class_titles(schema: dict[str, Any]) -> dict[str, Any]:
    """Models no longer referenced dropped, and the rest without pydantic's class-name titles (``AclBindingSpec``),
    which editors would offer in completion and show on hover."""
    defs = schema.get("$defs", {})
    text = json.dumps({k: v for k, v in schema.items() if k != "$defs"})
    used: set[str] = set()
    while True:
        found = {name for name in defs if f'"#/$defs/{name}"' in text} - used
        if not found:
            break
        used |= found
        text = json.dumps([defs[name] for name in found])
    kept = {name: {k: v for k, v in defs[name].items() if k != "title"} for name in sorted(used)}
    return {**{k: v for k, v in schema.items() if k != "$defs"}, **({"$defs": kept} if kept else {})}


_ENUM_TEXT = "markdownEnumDescriptions"  # hover text of each enum value, in step with "enum" (VS Code's keyword)

# Keywords that constrain one JSON type only: options of a union that differ in type and use only these merge
# into one schema of several types, which an editor's hover shows once instead of once per branch.
_TYPE_SPECIFIC = frozenset(
    {
        "items",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "properties",
        "additionalProperties",
        "required",
        "propertyNames",
        "minProperties",
        "maxProperties",
    }
)


def _flat_unions(node: Any) -> Any:
    """``anyOf`` of plain typed options (``string | integer | array``) as one schema with a list of types."""
    if isinstance(node, list):
        return [_flat_unions(v) for v in node]
    if not isinstance(node, dict):
        return node
    node = {k: _flat_unions(v) for k, v in node.items()}
    options = node.get("anyOf")
    if not isinstance(options, list) or not options:
        return node
    merged = _merged(options)
    if merged is None:
        return node
    body = {k: v for k, v in node.items() if k != "anyOf"}
    return {**body, **merged}


def _merged(options: list[Any]) -> dict[str, Any] | None:
    """One schema for options that differ in type, or ``None``; an ``enum | null`` keeps its values plus null."""
    types: list[str] = []
    merged: dict[str, Any] = {}
    enums: list[list[Any]] = []
    texts: list[list[str]] = []  # each enum's values' hover text, in step with them
    open_values = False
    for option in options:
        if not isinstance(option, dict):
            return None
        kind = option.get("type")
        kinds: list[Any] = kind if isinstance(kind, list) else [kind]
        rest = {k: v for k, v in option.items() if k not in ("type", "enum", _ENUM_TEXT)}
        if not all(isinstance(k, str) for k in kinds) or set(kinds) & set(types) or set(rest) - _TYPE_SPECIFIC:
            return None
        if set(rest) & set(merged):
            return None
        if "enum" in option:
            enums.append(list(option["enum"]))
            texts.append(list(option.get(_ENUM_TEXT, [""] * len(option["enum"]))))
        elif kinds != ["null"]:
            open_values = True
        types += [str(k) for k in kinds]
        merged.update(rest)
    if enums and open_values:
        return None
    if enums:
        merged["enum"] = [v for values in enums for v in values] + ([None] if "null" in types else [])
        if any(any(t) for t in texts):
            merged[_ENUM_TEXT] = [t for values in texts for t in values] + ([""] if "null" in types else [])
    return {"type": types, **merged}


def _plain(text: str) -> str:
    """A model docstring as JSON Schema text: no reStructuredText literals (````Topic```` reads ``Topic``), and each
    paragraph on one line (an editor renders the docstring's wrapping as breaks mid-sentence)."""
    paragraphs = (" ".join(line.strip() for line in p.splitlines()) for p in re.split(r"\n\s*\n", text.strip()))
    return "\n\n".join(paragraphs).replace("``", "")


def _describe(schema: dict[str, Any]) -> None:
    """Every property titled with its YAML key and described (``reconciler.manifests.descriptions``), for hover."""
    from reconciler.manifests import descriptions

    for name, definition in [("", schema), *schema.get("$defs", {}).items()]:
        texts = descriptions.FIELDS.get(name, descriptions.ENVELOPE if not name else {})
        if isinstance(definition.get("description"), str):
            definition["description"] = _plain(definition["description"])
        for key, field in definition.get("properties", {}).items():
            field["title"] = key
            target = schema.get("$defs", {}).get(str(field.get("$ref", "")).removeprefix("#/$defs/"), {})
            if key in texts and "description" not in field:
                field["description"] = texts[key]
            elif "description" not in field and isinstance(target.get("description"), str):
                field["description"] = _plain(target["description"])  # the spec model's own docstring
            elif isinstance(field.get("description"), str):
                field["description"] = _plain(field["description"])


_META = ("default", "description", "title", "markdownDescription")


def _nullable_optionals(schema: dict[str, Any]) -> None:
    """Let every optional field and every map value be ``null``: in an environment overlay ``null`` removes the
    key from the base document (``cleanup.policy: null`` goes back to the default), and the same schema serves
    base and overlay files. A base document that keeps a ``null`` where a value is needed is refused by the tool.
    """
    for value in schema.values():
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, dict):
                _nullable_optionals(child)
    required = set(schema.get("required", []))
    for name, field in schema.get("properties", {}).items():
        if name not in required:
            schema["properties"][name] = _or_null(field)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        schema["additionalProperties"] = _or_null(extra)


def _or_null(field: dict[str, Any]) -> dict[str, Any]:
    if _accepts_null(field):
        return field
    meta = {k: v for k, v in field.items() if k in _META}
    body = {k: v for k, v in field.items() if k not in _META}
    kind = body.get("type")
    if kind is not None and not {"$ref", "anyOf", "oneOf", "allOf", "const"} & body.keys():
        # One schema with "null" among its types: an editor shows one description, not one per anyOf branch.
        nullable = {**body, "type": [*(kind if isinstance(kind, list) else [kind]), "null"]}
        if "enum" in body:
            nullable["enum"] = [*body["enum"], None]
        if _ENUM_TEXT in body:
            nullable[_ENUM_TEXT] = [*body[_ENUM_TEXT], ""]
        return {**nullable, **meta}
    return {"anyOf": [body, {"type": "null"}], **meta}


def _accepts_null(field: dict[str, Any]) -> bool:
    kind = field.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(_accepts_null(option) for option in field.get("anyOf", []) + field.get("oneOf", []))


def _rewrite_refs(node: Any, prefix: str) -> Any:
    if isinstance(node, dict):
        return {
            k: (
                "#/$defs/" + prefix + v.removeprefix("#/$defs/")
                if k == "$ref" and isinstance(v, str) and v.startswith("#/$defs/")
                else _rewrite_refs(v, prefix)
            )
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_rewrite_refs(v, prefix) for v in node]
    return node


def manifest_schema() -> dict[str, Any]:
    """Any kind's document, dispatched on ``kind``; every kind's schema is inside, under ``$defs``."""
    from reconciler.manifests import descriptions

    defs: dict[str, Any] = {}
    for kind in models.DOCUMENTS:
        body = kind_schema(kind)
        for name, inner in body.pop("$defs", {}).items():
            defs[f"{kind}.{name}"] = _rewrite_refs(inner, f"{kind}.")
        body.pop("$schema")
        body.pop("$id")
        defs[kind] = _rewrite_refs(body, f"{kind}.")
    return {
        "$schema": DRAFT,
        "$id": schema_id("manifest"),
        "title": "kafka-reconciler manifest",
        "type": "object",
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {
            "kind": {"enum": list(models.DOCUMENTS), "title": "kind", "description": descriptions.ENVELOPE["kind"]}
        },
        "allOf": [
            {"if": {"properties": {"kind": {"const": kind}}}, "then": {"$ref": f"#/$defs/{kind}"}}
            for kind in models.DOCUMENTS
        ],
        "$defs": defs,
    }


def all_schemas() -> dict[str, dict[str, Any]]:
    """File name -> schema, for every kind and the combined ``manifest.json``."""
    out = {f"{kind}.json": kind_schema(kind) for kind in models.DOCUMENTS}
    out["manifest.json"] = manifest_schema()
    return out


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write(directory: Path) -> list[Path]:
    """Write every schema into ``directory``; returns the written paths."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in all_schemas().items():
        path = directory / name
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


def default_targets() -> list[Path]:
    """Where ``main`` writes without an argument: the package's folder, and the repository's top-level
    ``schemas/`` when this module runs from a source checkout (``pyproject.toml`` beside it)."""
    targets = [PACKAGED]
    if (REPOSITORY.parent / "pyproject.toml").is_file():
        targets.append(REPOSITORY)
    return targets


def main(argv: list[str]) -> int:
    for target in [Path(argv[0])] if argv else default_targets():
        for path in write(target):
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

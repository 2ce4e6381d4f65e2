"""JSON Schemas for editors and CI, generated from the manifest models: ``python -m reconciler.manifests.schema [DIR]``.

Writes one ``<Kind>.json`` per kind plus ``manifest.json`` (any kind, dispatched on ``kind``) into
``DIR`` (default: ``schemas/`` at the repository root). Never edit the output by hand.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from reconciler import configs
from reconciler.manifests import models


def kind_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of one kind's documents, with topic config names listed for editor completion."""
    schema = models.DOCUMENTS[kind].model_json_schema(by_alias=True, mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = kind
    for name in ("TopicSpec", "TopicDefaultsSpec"):
        spec = schema.get("$defs", {}).get(name)
        if spec is not None:
            spec["properties"]["configs"]["propertyNames"] = {"enum": sorted(configs.TOPIC_CONFIGS)}
    for definition in schema.get("$defs", {}).values():
        _nullable_optionals(definition)
    return schema


_META = ("default", "description", "title")


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
    return {"anyOf": [body, {"type": "null"}], **meta}


def _accepts_null(field: dict[str, Any]) -> bool:
    kind = field.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(_accepts_null(option) for option in field.get("anyOf", []) + field.get("oneOf", []))


def all_schemas() -> dict[str, dict[str, Any]]:
    """File name -> schema, for every kind and the combined ``manifest.json``."""
    out = {f"{kind}.json": kind_schema(kind) for kind in models.DOCUMENTS}
    out["manifest.json"] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "kafka-reconciler manifest",
        "type": "object",
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {"kind": {"enum": list(models.DOCUMENTS)}},
        "allOf": [
            {"if": {"properties": {"kind": {"const": kind}}}, "then": {"$ref": f"{kind}.json"}}
            for kind in models.DOCUMENTS
        ],
    }
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


def main(argv: list[str]) -> int:
    target = Path(argv[0]) if argv else Path(__file__).resolve().parents[2] / "schemas"
    for path in write(target):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

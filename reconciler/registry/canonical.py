"""Canonical schema text, to tell whether a declared schema is the one the registry holds.

Registries differ in what they keep: Confluent re-serialises an Avro schema through Avro's Java parser (other
whitespace, other key order, a full name split into ``name`` and ``namespace``) and answers a reformatted schema
with the id it already has; Apicurio Registry 2.4 keeps the text as sent and registers a reformatted text as a new
version (docs/schema-registry.md). So texts are compared after ``normalize``, and a schema the registry already
holds in this sense is not registered again:
- JSON Schema: parsed and written back with sorted keys and no whitespace.
- Avro: the same, after every named type's name is made its full name (``namespace`` then dropped) and a primitive
  written as an object with nothing else (``{"type": "int"}``) is written as its name. Everything that can change
  what readers and writers do (``default``, ``aliases``, ``order``, ``logicalType``, ``doc``) is kept, so a new
  default is a new version.
- Protobuf: line endings, trailing spaces and blank lines at the ends only (the text is not parsed).
``avro_canonical_form`` is Avro's Parsing Canonical Form (the specification's PRIMITIVES, FULLNAMES, STRIP, ORDER,
STRINGS and WHITESPACE rules): the schema as a reader resolves it, with defaults and docs stripped; two schemas
with the same form are the same schema to a decoder (the form Avro fingerprints hash).
"""

from __future__ import annotations

import json
from typing import Any

PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
NAMED = frozenset({"record", "error", "enum", "fixed"})
PCF_ORDER = ("name", "type", "fields", "symbols", "items", "values", "size")


class SchemaTextError(ValueError):
    """A schema's text is not valid JSON (for an Avro or JSON schema); the message says where."""


def _load(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SchemaTextError(f"not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None


def _dump(value: Any, *, sort_keys: bool) -> str:
    return json.dumps(value, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False)


def normalize(text: str, schema_type: str) -> str:
    """The text to compare for ``schema_type`` (AVRO, JSON or PROTOBUF; see the module docstring). A text nested
    too deeply for Python's JSON reader and this module's walk is a ``SchemaTextError``, not a ``RecursionError``."""
    try:
        return _normalize(text, schema_type)
    except RecursionError:
        raise SchemaTextError("nested too deeply to read (more levels than Python's recursion limit)") from None


def _normalize(text: str, schema_type: str) -> str:
    if schema_type == "JSON":
        return _dump(_load(text), sort_keys=True)
    if schema_type == "AVRO":
        return _dump(_avro(_load(text), None, strip=False), sort_keys=True)
    if schema_type == "PROTOBUF":
        return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").split("\n")).strip("\n")
    raise ValueError(f"schema type {schema_type!r} is not AVRO, JSON or PROTOBUF")


def same_schema(declared: str, registered: str, schema_type: str) -> bool:
    """Whether two schema texts are the same schema after ``normalize``."""
    return normalize(declared, schema_type) == normalize(registered, schema_type)


def avro_canonical_form(text: str) -> str:
    """Avro's Parsing Canonical Form of an Avro schema text (too deep a text: ``SchemaTextError``, as ``normalize``)."""
    try:
        return _dump(_avro(_load(text), None, strip=True), sort_keys=False)
    except RecursionError:
        raise SchemaTextError("nested too deeply to read (more levels than Python's recursion limit)") from None


def _fullname(name: str, namespace: str | None) -> str:
    if "." in name or not namespace:
        return name
    return f"{namespace}.{name}"


def _avro(node: Any, namespace: str | None, *, strip: bool) -> Any:
    """One schema node with names made full; ``strip``: only the attributes (and order) of the canonical form."""
    if isinstance(node, str):
        return node if node in PRIMITIVES else _fullname(node, namespace)
    if isinstance(node, list):
        return [_avro(branch, namespace, strip=strip) for branch in node]
    if not isinstance(node, dict):
        raise SchemaTextError(f"an Avro schema is a name, an object or a union, not {_dump(node, sort_keys=True)}")
    kind = node.get("type")
    if isinstance(kind, str) and kind in PRIMITIVES:
        return kind if strip or set(node) == {"type"} else dict(node)
    if kind in NAMED:
        return _named(node, namespace, strip=strip)
    if kind == "array":
        return _container(node, "items", namespace, strip=strip)
    if kind == "map":
        return _container(node, "values", namespace, strip=strip)
    if kind is None:
        raise SchemaTextError(f"an Avro schema object without a type: {_dump(node, sort_keys=True)}")
    resolved = _avro(kind, namespace, strip=strip)  # {"type": "com.example.Named"} or {"type": {...}}
    if strip or set(node) == {"type"}:
        return resolved
    return {**node, "type": resolved}


def _named(node: dict[str, Any], namespace: str | None, *, strip: bool) -> dict[str, Any]:
    kind = node["type"]
    if not isinstance(node.get("name"), str):
        raise SchemaTextError(f"an Avro {kind} without a name")
    own = node.get("namespace", namespace)
    full = _fullname(node["name"], own if isinstance(own, str) else namespace)
    inner = full.rpartition(".")[0] or None
    out: dict[str, Any] = {"name": full, "type": kind} if strip else {**node, "name": full}
    out.pop("namespace", None)
    if kind in ("record", "error"):
        out["fields"] = [_field(f, inner, strip=strip) for f in node.get("fields") or ()]
    elif kind == "enum":
        out["symbols"] = list(node.get("symbols") or ())
    elif kind == "fixed":
        out["size"] = int(node.get("size", 0))
    return out


def _field(field: Any, namespace: str | None, *, strip: bool) -> dict[str, Any]:
    if not isinstance(field, dict) or "name" not in field or "type" not in field:
        raise SchemaTextError(f"an Avro record field needs a name and a type: {_dump(field, sort_keys=True)}")
    resolved = _avro(field["type"], namespace, strip=strip)
    return {"name": field["name"], "type": resolved} if strip else {**field, "type": resolved}


def _container(node: dict[str, Any], key: str, namespace: str | None, *, strip: bool) -> dict[str, Any]:
    if key not in node:
        raise SchemaTextError(f"an Avro {node['type']} without {key!r}")
    resolved = _avro(node[key], namespace, strip=strip)
    return {"type": node["type"], key: resolved} if strip else {**node, key: resolved}

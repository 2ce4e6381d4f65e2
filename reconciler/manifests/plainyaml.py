"""Plain values of a manifest file's documents, read straight from libyaml's event stream (PyYAML's C parser).

The common manifest (mappings, lists and scalars; no anchors, aliases, merge keys, explicit tags, ``%``
directives, ``${VAR}`` references or duplicate keys) needs no node graph: each event becomes its value at
once, with an explicit stack (no recursion), and a plain scalar is typed by the YAML 1.2 core schema as
ruamel.yaml's resolver types it (the same patterns, tried in the same order). Anything else, a syntax error
included, makes ``documents`` answer None and the caller reads the file with the full reader (yamlio), which
records positions, reports problems at their place, bounds aliases and substitutes variables. Positions are
not recorded here: they are only needed for a diagnostic, and yamlio computes them then.
"""

from __future__ import annotations

import re
from typing import Any

try:  # pragma: no cover - depends on the installed wheel
    from yaml import YAMLError
    from yaml._yaml import CParser
    from yaml.events import (
        AliasEvent,
        DocumentEndEvent,
        DocumentStartEvent,
        MappingEndEvent,
        MappingStartEvent,
        ScalarEvent,
        SequenceEndEvent,
        SequenceStartEvent,
        StreamEndEvent,
        StreamStartEvent,
    )

    AVAILABLE = True
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    AVAILABLE = False

# ruamel.yaml's YAML 1.2 implicit resolvers (ruamel/yaml/resolver.py), by first character, in its order.
_FLOAT = re.compile(
    r"""^(?:
     [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
    |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)
_INT = re.compile(
    r"""^(?:[-+]?0b[0-1_]+
    |[-+]?0o?[0-7_]+
    |[-+]?[0-9_]+
    |[-+]?0x[0-9a-fA-F_]+)$""",
    re.X,
)
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_TIMESTAMP = re.compile(
    r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
    |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
    (?:[Tt]|[ \t]+)[0-9][0-9]?
    :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
    (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""",
    re.X,
)
_MERGE = re.compile(r"^(?:<<)$")
_VALUE = re.compile(r"^(?:=)$")
_YAML = re.compile(r"^(?:!|&|\*)$")
_NUMBER = [("float", _FLOAT), ("int", _INT)]
RESOLVERS: dict[str, list[tuple[str, re.Pattern[str]]]] = {
    **{c: [("bool", _BOOL)] for c in "tTfF"},
    **{c: list(_NUMBER) for c in "-+"},
    ".": [("float", _FLOAT)],
    **{c: [*_NUMBER, ("timestamp", _TIMESTAMP)] for c in "0123456789"},
    "<": [("merge", _MERGE)],
    **{c: [("null", _NULL)] for c in "~nN"},
    "": [("null", _NULL)],
    "=": [("value", _VALUE)],
    **{c: [("yaml", _YAML)] for c in "!&*"},
}
_BOOL_KEYS = frozenset({"true", "True", "TRUE", "false", "False", "FALSE"})


def resolve(text: str) -> str:
    """The YAML 1.2 core schema type of a plain (unquoted) scalar: ``str``, ``int``, ``float``, ``bool``, ..."""
    for kind, pattern in RESOLVERS.get(text[:1], ()):
        if pattern.match(text):
            return kind
    return "str"


def typed(kind: str, text: str) -> Any:
    """The Python value of a scalar of YAML type ``kind`` written as ``text`` (unknown types stay text)."""
    if kind == "null":
        return None
    if kind == "bool":  # only true/false (any case) are YAML 1.2 booleans; an explicit !!bool yes stays text
        lowered = text.lower()
        return lowered == "true" if lowered in ("true", "false") else text
    if kind == "int":
        digits = text.replace("_", "")
        try:
            if digits.lower().lstrip("+-").startswith(("0o", "0x", "0b")):
                return int(digits, 0)
            return int(digits)
        except ValueError:
            return text
    if kind == "float":
        try:
            return float(text.replace("_", "").replace(".inf", "inf").replace(".Inf", "inf").replace(".nan", "nan"))
        except ValueError:
            return text
    return text


class _Unsupported(Exception):
    """Something only the full reader handles."""


_NO_KEY = object()


def documents(text: str, *, max_depth: int) -> list[tuple[Any, int, int]] | None:
    """Each non-empty document's value and its root's 1-based (line, column); None: read with the full reader."""
    if not AVAILABLE:
        return None
    try:
        return _read(text, max_depth)
    except (_Unsupported, YAMLError, ValueError):
        return None


def _read(text: str, max_depth: int) -> list[tuple[Any, int, int]]:
    get = CParser(text).get_event
    cache: dict[str, Any] = {}  # plain scalar text -> value (manifests repeat most values)
    keys: dict[str, str] = {}  # one string object per distinct key: thousands of documents repeat a few keys
    out: list[tuple[Any, int, int]] = []
    stack: list[Any] = []
    top: Any = None  # the innermost open collection
    in_map = False
    key: Any = _NO_KEY  # the innermost mapping's key waiting for its value
    root: Any = None
    at = (0, 0)
    while True:
        event = get()
        kind = type(event)
        if kind is ScalarEvent:
            if event.anchor is not None or event.tag is not None:
                raise _Unsupported
            plain = event.implicit[0]
            value: Any = event.value
            if in_map and key is _NO_KEY:
                if plain:
                    if value == "<<":
                        raise _Unsupported  # a merge key
                    if value in _BOOL_KEYS:
                        value = value.lower()
                if value in top:
                    raise _Unsupported  # a duplicate key: reported with both places
                key = keys.setdefault(value, value)
                continue
            if "$" in value:
                raise _Unsupported  # a ${VAR} to substitute (a comment's $schema is no scalar: it stays here)
            if plain:
                found = cache.get(value, _NO_KEY)
                if found is _NO_KEY:
                    found = cache[value] = typed(resolve(value), value)
                value = found
            if len(stack) > max_depth:
                raise _Unsupported
            if top is None:
                root, at = value, (event.start_mark.line + 1, event.start_mark.column + 1)
            elif in_map:
                top[key] = value
                key = _NO_KEY
            else:
                top.append(value)
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            if event.anchor is not None or event.tag is not None or len(stack) >= max_depth + 1:
                raise _Unsupported
            if in_map and key is _NO_KEY:
                raise _Unsupported  # a collection as a mapping key
            new: Any = {} if kind is MappingStartEvent else []
            if top is None:
                root, at = new, (event.start_mark.line + 1, event.start_mark.column + 1)
            elif in_map:
                top[key] = new
                key = _NO_KEY
            else:
                top.append(new)
            stack.append(new)
            top, in_map = new, kind is MappingStartEvent
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            stack.pop()
            top = stack[-1] if stack else None
            in_map = type(top) is dict
        elif kind is DocumentStartEvent:
            if event.version is not None or event.tags:
                raise _Unsupported  # %YAML / %TAG directives
            root = None
        elif kind is StreamEndEvent:
            return out
        elif kind is StreamStartEvent:
            continue
        elif kind is DocumentEndEvent:
            if root is not None:
                out.append((root, *at))
        elif kind is AliasEvent:
            raise _Unsupported

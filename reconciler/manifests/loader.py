"""Finding manifest files, applying environment overlays and validating each document against its kind's model.

Files: every ``*.yaml`` / ``*.yml`` under the given directories (hidden directories skipped), in sorted
order. A manifest name that is not a regular file (a symlink loop, a dangling symlink, a symlink to a device
such as ``/dev/zero``, a FIFO) and a directory symlink back to an ancestor are skipped with a warning naming the
path. A file under ``overlays/<env>/`` belongs to environment ``<env>``: it is read only when that
environment is selected, after every base file, and each of its documents either patches the base
document of the same kind and name (a deep merge of mappings; ``null`` removes a key) or adds a new one.
"""

from __future__ import annotations

import dataclasses
import difflib
import errno
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pydantic

from reconciler.base import errors
from reconciler.manifests import depth, models, yamlio
from reconciler.model import configs
from reconciler.model.kinds import Manifest

OVERLAYS_DIR = "overlays"
MAX_KEYS = 10_000  # keys in one mapping (a topic has a few dozen configs at most, a broker a few hundred)
_SCALARS = frozenset({"a string", "an integer", "a number", "true or false"})
_TYPE_ERRORS = frozenset(
    {
        "string_type",
        "int_type",
        "int_parsing",
        "float_type",
        "float_parsing",
        "bool_type",
        "bool_parsing",
        "model_type",
        "model_attributes_type",
        "dict_type",
        "list_type",
        "int_from_float",
    }
)
# Fields whose inline value would be a secret: refused with a pointer to the reference form.
INLINE_SECRETS: dict[str, str] = {Manifest.SCRAM_USER: "password", Manifest.CLUSTER: "password"}


@dataclasses.dataclass(slots=True)
class Document:
    """A document that passed its kind's model: the raw form (for positions) and the validated model."""

    raw: yamlio.RawDocument
    kind: str
    name: str
    model: Any  # an instance of models.DOCUMENTS[kind]

    @property
    def spec(self) -> Any:
        return self.model.spec


def discover(
    paths: Sequence[Path], *, environment: str | None, diags: list[errors.Diagnostic]
) -> list[tuple[Path, bool]]:
    """Manifest files in load order, each with whether it is an overlay: base files sorted, then overlays."""
    base: list[Path] = []
    overlays: list[Path] = []
    seen: set[Path] = set()
    available: set[str] = set()
    for root in paths:
        if root.is_file():
            candidates: list[tuple[Path, str | None]] = [(root, None)]
        elif root.is_dir():
            found = sorted(
                (p for p in root.rglob("*") if _usable(p, diags)),
                key=lambda p: p.relative_to(root).as_posix(),
            )
            found = [p for p in found if not any(part.startswith(".") for part in p.relative_to(root).parts[:-1])]
            if not found:
                diags.append(
                    errors.Diagnostic(message="no *.yaml or *.yml manifests in this directory", file=str(root))
                )
            candidates = [(p, _overlay_env(p.relative_to(root))) for p in found]
        else:
            unusable = _not_regular(root)
            message = "no such file or directory" if unusable is None else f"not a manifest file: {unusable}"
            diags.append(errors.Diagnostic(message=message, file=str(root)))
            continue
        for path, env_name in candidates:
            if env_name is not None:
                available.add(env_name)
            resolved = path.resolve()
            if resolved in seen:
                continue
            seen.add(resolved)
            if env_name is None:
                base.append(path)
            elif env_name == environment:
                overlays.append(path)
    if environment is not None and environment not in available:
        known = ", ".join(sorted(available)) or "none"
        diags.append(
            errors.Diagnostic(
                message=f"environment {environment!r} has no {OVERLAYS_DIR}/{environment}/ directory (found: {known})",
                file=", ".join(str(p) for p in paths) or None,
            )
        )
    return [(p, False) for p in base] + [(p, True) for p in overlays]


def _usable(path: Path, diags: list[errors.Diagnostic]) -> bool:
    """Whether ``path`` (found under a directory) is a manifest file to read; warns of one that cannot be."""
    if path.suffix not in (".yaml", ".yml"):
        if path.is_symlink() and path.is_dir() and path.resolve() in path.parent.resolve().parents:
            _skip(path, "a symlink to an ancestor directory (a loop), not followed", diags)
        return False
    if path.is_file():
        return True
    if path.is_dir() and not path.is_symlink():
        return False
    _skip(path, _not_regular(path) or "not a regular file", diags)
    return False


def _not_regular(path: Path) -> str | None:
    """Why ``path`` is not a readable regular file, for a path that exists as something (else ``None``)."""
    if path.is_symlink():
        try:
            target = path.resolve(strict=True)
        except RuntimeError:
            return "a symlink loop"
        except OSError as exc:
            return "a symlink loop" if exc.errno == errno.ELOOP else "a dangling symlink (its target does not exist)"
        if not target.is_file():
            return f"a symlink to {target}, which is not a regular file"
        return None
    if not path.exists():
        return None
    return "not a regular file (a device, FIFO or socket)"


def _skip(path: Path, why: str, diags: list[errors.Diagnostic]) -> None:
    diags.append(errors.Diagnostic(message=f"skipped: {why}", file=str(path), severity=errors.Severity.WARNING))


def _overlay_env(relative: Path) -> str | None:
    parts = relative.parts[:-1]
    for index, part in enumerate(parts[:-1]):
        if part == OVERLAYS_DIR:
            return parts[index + 1]
    return None


def identity(raw: yamlio.RawDocument, diags: list[errors.Diagnostic]) -> tuple[str, str] | None:
    """(kind, name) of a document after checking the envelope; None (with diagnostics) when unusable."""
    data = raw.data
    if not isinstance(data, dict):
        diags.append(
            raw.diagnostic(
                (), f"a manifest must be a mapping of apiVersion, kind, metadata, spec; got {_type_name(data)}"
            )
        )
        return None
    api = data.get("apiVersion")
    if api != models.API_VERSION:
        message = "missing apiVersion" if api is None else f"unsupported apiVersion {api!r}"
        diags.append(raw.diagnostic(("apiVersion",), message, hint=f"use apiVersion: {models.API_VERSION}"))
        return None
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in models.DOCUMENTS:
        if kind is None:
            diags.append(raw.diagnostic((), "missing kind", hint="one of " + ", ".join(models.DOCUMENTS)))
        else:
            close = difflib.get_close_matches(str(kind), list(models.DOCUMENTS), n=1, cutoff=0.5)
            hint = f"did you mean {close[0]}?" if close else "one of " + ", ".join(models.DOCUMENTS)
            diags.append(raw.diagnostic(("kind",), f"unknown kind {kind!r}", hint=hint))
        return None
    metadata = data.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if isinstance(name, bool) or not isinstance(name, (str, int)) or name == "":
        diags.append(raw.diagnostic(("metadata",), "missing metadata.name", hint="every document needs a name"))
        return None
    if kind == Manifest.CONNECTOR:  # one name may run on several Connect clusters: one connector on each
        spec = data.get("spec")
        cluster = spec.get("connectCluster") if isinstance(spec, dict) else None
        if isinstance(cluster, str) and cluster:
            return kind, f"{cluster}/{name}"
    return kind, str(name)


def merge_overlay(base: yamlio.RawDocument, patch: yamlio.RawDocument) -> None:
    """Deep-merge ``patch`` into ``base`` in place (mappings merged, other values replaced, null removes)."""
    base.data = _merge(base.data, patch.data)
    base.positions.update(patch.positions)
    base.broken = base.broken or patch.broken


def _merge(base: Any, patch: Any) -> Any:
    if not isinstance(base, dict) or not isinstance(patch, dict):
        return patch
    merged = dict(base)
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = _merge(merged.get(key), value)
    return merged


def crowded(raw: yamlio.RawDocument, diags: list[errors.Diagnostic]) -> bool:
    """Whether a mapping of the document has more than ``MAX_KEYS`` keys (reported): it is not validated."""
    found = depth.crowded_mapping(raw.data, limit=MAX_KEYS)
    if found is not None:
        message = f"a mapping of {found[1]:,} keys, over the limit of {MAX_KEYS:,}"
        diags.append(raw.diagnostic(found[0], message, hint="no manifest needs that many; the document is skipped"))
    return found is not None


def validate(raw: yamlio.RawDocument, kind: str, name: str, diags: list[errors.Diagnostic]) -> Document | None:
    """Validate a document against its kind's model; every problem becomes a positioned diagnostic."""
    data = raw.data
    secret_field = INLINE_SECRETS.get(kind)
    spec = data.get("spec")
    if secret_field and isinstance(spec, dict) and secret_field in spec:
        from reconciler.manifests import hints  # error paths only: a valid tree never reads the hints

        message, hint = hints.password_hint(spec[secret_field])
        diags.append(raw.diagnostic(("spec", secret_field), message, hint=hint, key=True))
        data = {**data, "spec": {k: v for k, v in spec.items() if k != secret_field}}
    try:
        model = models.document_model(kind, data).model_validate(data)
    except pydantic.ValidationError as exc:
        diags.extend(_diagnostics(raw, kind, data, exc))
        return None
    if secret_field and isinstance(spec, dict) and secret_field in spec:
        return None
    return Document(raw=raw, kind=kind, name=name, model=model)


def _diagnostics(
    raw: yamlio.RawDocument, kind: str, data: Any, exc: pydantic.ValidationError
) -> list[errors.Diagnostic]:
    groups: dict[tuple[Any, ...], list[tuple[tuple[Any, ...], Mapping[str, Any]]]] = {}
    entry: Mapping[str, Any]
    for entry in exc.errors(include_url=False):
        path, group = _data_path(data, entry)
        groups.setdefault(group, []).append((path, entry))
    out: list[errors.Diagnostic] = []
    seen: set[tuple[Any, ...]] = set()
    for entries in groups.values():
        specific = [e for e in entries if e[1]["type"] not in _TYPE_ERRORS] or entries
        if len(specific) > 1 and all(e[1]["type"] in _TYPE_ERRORS for e in specific):
            path = min((e[0] for e in specific), key=len)
            expected = list(dict.fromkeys(_expected(e[1]) for e in specific))
            if {"a string", "an integer", "a number", "true or false"} <= set(expected):
                expected = ["a single value"] + [e for e in expected if e not in _SCALARS]
            kinds = " or ".join(expected)
            specific = [(path, {"type": "union", "msg": f"expected {kinds}", "loc": path})]
        for path, err in specific:
            diag = _one(raw, kind, path, err)
            key = (diag.line, diag.column, diag.message)
            if key not in seen:
                seen.add(key)
                out.append(diag)
    return out


def _data_path(data: Any, err: Mapping[str, Any]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The part of a pydantic ``loc`` that exists in the document, and the group key for union branches."""
    path: list[Any] = []
    group: tuple[Any, ...] | None = None
    current = data
    loc = tuple(err["loc"])
    for index, part in enumerate(loc):
        if _has(current, part):
            current = current[part]
            path.append(part)
        elif index == len(loc) - 1 and err["type"] in ("missing", "extra_forbidden"):
            path.append(part)
        elif group is None:
            group = tuple(path)
    return tuple(path), group if group is not None else tuple(path)


def _has(container: Any, part: Any) -> bool:
    if isinstance(container, dict):
        return isinstance(part, str) and part in container
    return isinstance(container, list) and isinstance(part, int) and 0 <= part < len(container)


def _expected(err: Mapping[str, Any]) -> str:
    return {
        "string_type": "a string",
        "int_type": "an integer",
        "int_parsing": "an integer",
        "int_from_float": "an integer",
        "float_type": "a number",
        "float_parsing": "a number",
        "bool_type": "true or false",
        "bool_parsing": "true or false",
        "model_type": "a mapping",
        "model_attributes_type": "a mapping",
        "dict_type": "a mapping",
        "list_type": "a list",
    }.get(str(err["type"]), str(err["msg"]))


def _one(raw: yamlio.RawDocument, kind: str, path: tuple[Any, ...], err: Mapping[str, Any]) -> errors.Diagnostic:
    kind_of = str(err["type"])
    message = str(err["msg"]).removeprefix("Value error, ")
    if kind_of == "missing":
        return raw.diagnostic(path[:-1], f"missing required field {path[-1]!r}", key=True)
    if kind_of == "extra_forbidden":
        from reconciler.manifests import hints

        hint = hints.unknown_field_hint(kind, path, _vocabulary(kind))
        return raw.diagnostic(path, f"unknown field {path[-1]!r}", key=True, hint=hint)
    field = next((str(p) for p in reversed(path) if isinstance(p, str)), "value")
    ctx: Mapping[str, Any] = err.get("ctx") or {}
    got = _type_name(_value_at(raw.data, path))
    if any(isinstance(p, str) and configs.is_sensitive(p) for p in path) and isinstance(_value_at(raw.data, path), str):
        got = "a string (not shown: this field is secret)"
    if kind_of in _TYPE_ERRORS or kind_of == "union":
        message = f"{field}: {message if kind_of == 'union' else 'expected ' + _expected(err)}, got {got}"
    elif kind_of == "greater_than_equal":
        message = f"{field} must be at least {ctx.get('ge')}, got {err.get('input')}"
    elif kind_of == "less_than_equal":
        message = f"{field} must be at most {ctx.get('le')}, got {err.get('input')}"
    elif kind_of == "string_too_short":
        message = f"{field} must not be empty"
    elif kind_of == "too_short":
        message = f"{field} needs at least {ctx.get('min_length')} item(s)"
    elif kind_of == "literal_error":
        message = f"{field} must be {ctx.get('expected')}, got {got}"
        value = _value_at(raw.data, path)
        allowed = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        close = difflib.get_close_matches(value, allowed, n=1, cutoff=0.6) if isinstance(value, str) else []
        if close:
            return raw.diagnostic(path, message, hint=f"did you mean {close[0]}?")
    elif kind_of == "string_pattern_mismatch":
        message = _PATTERN_MESSAGES.get(field, f"{field} {got} does not match {ctx.get('pattern')}")
    return raw.diagnostic(path, message)


_PATTERN_MESSAGES = {
    "broker": "broker must be 'default' (the cluster-wide default) or a numeric broker id",
    "env": "env must be an environment variable name (letters, digits and '_', not starting with a digit)",
}


def _value_at(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


_VOCAB: dict[str, frozenset[str]] = {}


def _vocabulary(kind: str) -> frozenset[str]:
    """Every YAML field name reachable from a kind's document model (for did-you-mean hints)."""
    if kind not in _VOCAB:
        names: set[str] = set()
        _collect(models.DOCUMENTS[kind].model_json_schema(by_alias=True), names)
        _VOCAB[kind] = frozenset(names)
    return _VOCAB[kind]


def _collect(schema: Any, names: set[str]) -> None:
    if isinstance(schema, dict):
        props = schema.get("properties")
        if isinstance(props, dict):
            names.update(props)
        for value in schema.values():
            _collect(value, names)
    elif isinstance(schema, list):
        for value in schema:
            _collect(value, names)

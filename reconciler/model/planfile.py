"""The plan file's envelope: its format name and version, the release that wrote it, and its checksum.

``Plan.to_json_dict`` writes the envelope with ``seal``; ``Plan.load`` reads the file's JSON with
``read_document`` and ``Plan.from_json_dict`` calls ``check`` before it reads a single change, so a file that is
not JSON, of another format or version, written by another release, or edited after it was written is refused as a
whole, with the reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import reconciler
from reconciler.base import errors, fileio
from reconciler.model import state
from reconciler.model.kinds import Kind

PLAN_FORMAT = "kafka-reconciler/plan"
PLAN_FORMAT_VERSION = 3  # 2: the release that wrote the plan is recorded; 3: a quota change carries its entity
UNSEALED = ("summary", "checksum")  # derived from the rest of the document, not covered by the checksum


def same_tool_version(written_by: object, *, reader: str = reconciler.__version__) -> bool:
    """Whether a plan written by kafka-reconciler ``written_by`` was written by this very release. A plan says what to
    write as the planner of its release understood the manifests; another release may plan them differently, and
    may read the file's fields differently, so only the release that wrote a plan applies it (as Terraform does)."""
    return written_by == reader


def seal(body: Mapping[str, Any]) -> str:
    """The checksum of a plan document: the fingerprint of everything but ``UNSEALED``."""
    return state.fingerprint({k: v for k, v in body.items() if k not in UNSEALED})


def check(doc: Any, *, other_version: bool = False) -> str:
    """Refuse (``PlanFileError``) a document that is not a plan this release reads; the release that wrote it.
    ``other_version`` (``--allow-other-version``) accepts a plan written by another release of the same format."""
    if not isinstance(doc, Mapping) or doc.get("format") != PLAN_FORMAT:
        raise errors.PlanFileError(f"not a kafka-reconciler plan (expected format {PLAN_FORMAT!r})")
    version = doc.get("format_version")
    if version != PLAN_FORMAT_VERSION:
        raise errors.PlanFileError(
            f"plan format version {version!r} is not supported; this tool reads version {PLAN_FORMAT_VERSION}"
        )
    if doc.get("checksum") != seal(doc):
        raise errors.PlanFileError(
            "plan file checksum mismatch: the file was edited or corrupted after it was written; re-run plan"
        )
    written_by = doc.get("tool_version")
    if not isinstance(written_by, str) or not (other_version or same_tool_version(written_by)):
        shown = written_by if isinstance(written_by, str) else "(unknown version)"
        raise errors.PlanFileError(
            f"the plan was written by kafka-reconciler {shown}; "
            f"this is {reconciler.__version__}, which applies only the plans it wrote: re-run plan with this "
            "version (or, having checked that both plan the same, pass --allow-other-version)"
        )
    return written_by


def read_document(path: Path) -> Any:
    """The JSON document of the plan file at ``path``; ``PlanFileError`` naming the file when it is not JSON, is
    beyond what a plan ever holds, or holds a key twice in one object (a second ``address`` that ``json`` would read
    in place of the first, unseen by whoever read the file)."""
    text = fileio.read_text(path, what="plan", error=errors.PlanFileError)
    try:
        return fileio.parse_json(text, unique_keys=True)
    except json.JSONDecodeError as exc:
        raise errors.PlanFileError(
            f"{path}:{exc.lineno}:{exc.colno}: plan file is not valid JSON (truncated?): {exc.msg}"
        ) from None
    except (fileio.JsonLimitError, fileio.JsonDuplicateKey) as exc:
        raise errors.PlanFileError(
            f"{path}: refused: the plan file {exc}; plans written by this tool never do"
        ) from None


class MalformedPlan(ValueError):
    """A plan file's section or change that is not shaped as this release writes it: a field missing, unknown or of
    the wrong type, an action or phase that does not exist. The message names the field and where it is."""


CHANGE_FIELDS = (
    "address", "kind", "name", "action", "phase", "before", "after", "attributes", "reasons", "warnings",
    "fingerprint", "source",
)  # fmt: skip
REQUIRED_CHANGE_FIELDS = ("address", "kind", "name", "action", "phase")


def check_change_fields(d: Any, *, actions: Sequence[str], phases: Sequence[str]) -> None:
    """Refuse (``MalformedPlan``) a change entry that is not an object of ``CHANGE_FIELDS``, lacks one of
    ``REQUIRED_CHANGE_FIELDS``, or names an action or phase that is not one of ``actions``/``phases``."""
    if not isinstance(d, Mapping):
        raise MalformedPlan(f"a change must be an object, not {type(d).__name__}")
    unknown = sorted(str(k) for k in d if k not in CHANGE_FIELDS)
    if unknown:
        raise MalformedPlan(
            f"unknown field(s) {', '.join(map(repr, unknown))}; a change has {', '.join(CHANGE_FIELDS)}"
        )
    missing = [f for f in REQUIRED_CHANGE_FIELDS if f not in d]
    if missing:
        raise MalformedPlan(f"the change lacks the field(s) {', '.join(map(repr, missing))}")
    if not isinstance(d["action"], str) or d["action"] not in actions:
        raise MalformedPlan(f"action {d['action']!r} is not one of {', '.join(actions)}")
    if not isinstance(d["phase"], str) or d["phase"] not in phases:
        raise MalformedPlan(f"phase {d['phase']!r} is not one of {', '.join(phases)}")


def attribute_list(value: Any) -> list[Mapping[str, Any]]:
    """A change's attribute lines as a plan file holds them: a list of objects, each with at least its ``name``."""
    if not isinstance(value, list):
        raise MalformedPlan(f"'attributes' must be a list, not {type(value).__name__}")
    for i, item in enumerate(value):
        if not isinstance(item, Mapping) or "name" not in item:
            raise MalformedPlan(f"attributes[{i}] must be an object with a 'name'")
    return value


def texts(value: Any, field: str) -> tuple[str, ...]:
    """A plan file's list of strings; ``TypeError`` (a malformed plan) for anything else."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TypeError(f"a change's {field!r} must be a list of strings")
    return tuple(value)


def strings(d: Any, what: str, *, optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """A plan file's warning or unmanaged entry: an object of text fields (``optional`` ones may be null)."""
    if not isinstance(d, dict) or not all(isinstance(v, str) or (k in optional and v is None) for k, v in d.items()):
        raise TypeError(f"a plan's {what} must be an object of text fields")
    return d


def optional_text(value: Any, field: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"a change's {field!r} must be a string or null")
    return value


T = TypeVar("T")


def entries(value: Any, read: Callable[[Any], T], *, keep: tuple[type[Exception], ...] = ()) -> tuple[T, ...]:
    """The plan file's ``changes``, each read by ``read``; a malformed one (``KeyError``, ``TypeError``,
    ``ValueError``, ``AttributeError``, but not ``keep``) is named by its position and its address, when it has one:
    ``MalformedPlan("changes[3] (topic/orders): the change lacks the field(s) 'phase'")``."""
    if not isinstance(value, list):
        raise MalformedPlan(f"'changes' must be a list, not {type(value).__name__}")
    out = []
    for i, item in enumerate(value):
        try:
            out.append(read(item))
        except keep:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            address = item.get("address") if isinstance(item, Mapping) else None
            where = f"changes[{i}]" + (f" ({address})" if isinstance(address, str) else "")
            detail = f"lacks the field {exc}" if isinstance(exc, KeyError) else str(exc)
            raise MalformedPlan(f"{where}: {detail}") from None
    return tuple(out)


def scope_section(value: Any) -> Mapping[str, Any] | None:
    """A plan document's ``scope`` (``None`` when absent), checked field by field against the shape the planner writes
    (``reconciler.planner.scope``): ``TypeError`` (a malformed plan, refused before anything is read or written)
    naming the field that does not fit."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TypeError(f"scope must be an object, not {type(value).__name__}")
    unknown = sorted(str(k) for k in value if k not in _SCOPE_FIELDS)
    if unknown:
        raise TypeError(f"scope has unexpected field(s) {', '.join(unknown)}")
    for field, check in _SCOPE_FIELDS.items():
        if field in value:
            check(value[field], f"scope.{field}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"{where} must be a list, not {type(value).__name__}")
    return value


def _by_kind(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"{where} must be an object, not {type(value).__name__}")
    for key in value:
        _kind(key, f"{where} key")
    return value


def _kind(value: Any, where: str) -> None:
    if not isinstance(value, str) or value not in {k.value for k in Kind}:
        raise TypeError(f"{where} {value!r} is not a resource kind ({', '.join(k.value for k in Kind)})")


def _kinds(value: Any, where: str) -> None:
    for i, item in enumerate(_list(value, where)):
        _kind(item, f"{where}[{i}]")


def _names(value: Any, where: str) -> None:
    for kind, names in _by_kind(value, where).items():
        for i, name in enumerate(_list(names, f"{where}.{kind}")):
            if not isinstance(name, str):
                raise TypeError(f"{where}.{kind}[{i}] must be a string, not {type(name).__name__}")


def _rules(value: Any, where: str) -> None:
    for i, rule in enumerate(_list(value, where)):
        at = f"{where}[{i}]"
        if not (isinstance(rule, list) and len(rule) == 2 and all(isinstance(part, str) for part in rule)):
            raise TypeError(f"{at} must be a [kind, value] pair of strings")
        if rule[0] not in _RULE_KINDS:
            raise TypeError(f"{at} rule kind {rule[0]!r} is not one of {', '.join(_RULE_KINDS)}")
        if rule[0] == "regex":
            try:
                re.compile(rule[1])
            except re.error as exc:
                raise TypeError(f"{at} is not a regular expression: {exc}") from None


def _rules_by_kind(value: Any, where: str) -> None:
    for kind, rules in _by_kind(value, where).items():
        _rules(rules, f"{where}.{kind}")


def _fingerprints(value: Any, where: str) -> None:
    for kind, text in _by_kind(value, where).items():
        if not isinstance(text, str):
            raise TypeError(f"{where}.{kind} must be a string, not {type(text).__name__}")


def _counts(value: Any, where: str) -> None:
    for kind, n in _by_kind(value, where).items():
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
            raise TypeError(f"{where}.{kind} must be a count (a whole number, or null), not {n!r}")


_RULE_KINDS = ("prefix", "exact", "glob", "regex")  # desired.NamePattern kinds
_SCOPE_FIELDS: dict[str, Callable[[Any, str], None]] = {
    "kinds": _kinds,
    "declared": _names,
    "topics": _rules,
    "principals": _rules_by_kind,
    "quota_entities": _rules,
    "internal_topics": _rules,
    "entities": _rules_by_kind,  # group configs and client-metrics subscriptions owned by name
    "connectors": _rules,
    "fingerprints": _fingerprints,
    "counts": _counts,
}


def scope_rules(field: str) -> None:
    """Let a saved plan's ``scope`` hold ``field``: a kind's Ownership rules as ``[kind, value]`` pairs (what the
    planner's scope writes for it, ``reconciler.kinds.spec.RuleSet``). A kind declared in a place of its own registers
    its fields when its module is imported, which ``reconciler.kinds.registry`` does for every kind; a field nobody
    registered stays an unexpected one. ``ValueError`` for a field the scope holds already."""
    if field in _SCOPE_FIELDS:
        raise ValueError(f"the plan scope field {field!r} is registered already")
    _SCOPE_FIELDS[field] = _rules

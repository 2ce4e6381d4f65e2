"""The plan file's envelope: its format name and version, the release that wrote it, and its checksum.

``Plan.to_json_dict`` writes the envelope with ``seal``; ``Plan.load`` reads the file's JSON with
``read_document`` and ``Plan.from_json_dict`` calls ``check`` before it reads a single change, so a file that is
not JSON, of another format or version, written by another release, or edited after it was written is refused as a
whole, with the reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

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
    """The JSON document of the plan file at ``path``; ``PlanFileError`` naming the file when it is not JSON."""
    text = fileio.read_text(path, what="plan", error=errors.PlanFileError)
    try:
        return fileio.parse_json(text)
    except json.JSONDecodeError as exc:
        raise errors.PlanFileError(
            f"{path}:{exc.lineno}:{exc.colno}: plan file is not valid JSON (truncated?): {exc.msg}"
        ) from None
    except fileio.JsonLimitError as exc:
        raise errors.PlanFileError(
            f"{path}: refused: the plan file {exc}; plans written by this tool never do"
        ) from None


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

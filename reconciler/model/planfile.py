"""The plan file's envelope: its format name and version, the release that wrote it, and its checksum.

``Plan.to_json_dict`` writes the envelope with ``seal``; ``Plan.load`` reads the file's JSON with
``read_document`` and ``Plan.from_json_dict`` calls ``check`` before it reads a single change, so a file that is
not JSON, of another format or version, of another release series, or edited after it was written is refused as a
whole, with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import reconciler
from reconciler.base import errors, fileio
from reconciler.model import state

PLAN_FORMAT = "kafka-reconciler/plan"
PLAN_FORMAT_VERSION = 3  # 2: the release that wrote the plan is recorded; 3: a quota change carries its entity
UNSEALED = ("summary", "checksum")  # derived from the rest of the document, not covered by the checksum


def compatible_tool_version(written_by: str, *, reader: str = reconciler.__version__) -> bool:
    """Whether a plan written by kafka-reconciler ``written_by`` may be shown and applied by ``reader``: the same
    release series (major and minor version: 0.1.0 reads plans of 0.1.*). A plan says what to write as the
    planner of its release understood the manifests; another series may plan the same manifests differently."""
    return written_by.split(".")[:2] == reader.split(".")[:2]


def seal(body: Mapping[str, Any]) -> str:
    """The checksum of a plan document: the fingerprint of everything but ``UNSEALED``."""
    return state.fingerprint({k: v for k, v in body.items() if k not in UNSEALED})


def check(doc: Any) -> str:
    """Refuse (``PlanFileError``) a document that is not a plan this release reads; the release that wrote it."""
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
    if not isinstance(written_by, str) or not compatible_tool_version(written_by):
        series = ".".join(reconciler.__version__.split(".")[:2])
        raise errors.PlanFileError(
            f"the plan was written by kafka-reconciler {written_by or '(unknown version)'}; this is "
            f"{reconciler.__version__}, which reads plans of its own release series ({series}.*): "
            "re-run plan with this version"
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
    """A plan document's ``scope`` (plain JSON data, or ``None``); ``TypeError`` (a malformed plan) if no object."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TypeError(f"scope must be an object, not {type(value).__name__}")
    return value

"""Turns diagnostics into CI annotations: GitHub workflow-command lines and GitLab code-quality records.

GitHub shows ``::error file=F,line=L,col=C,title=T::message`` lines printed by a step as annotations
on the pull request's diff. The message and the property values are escaped as the runner expects:
``%``, CR and LF everywhere, plus ``:`` and ``,`` inside property values. Paths are reported
relative to the repository root (``GITHUB_WORKSPACE``) even when the tool ran in a subdirectory.

GitHub shows only the first few annotations of each kind per step, so a finding repeated at ``GROUP_AT`` places
or more (one mistake copied into 2,000 topics) is annotated at its first ``PLACES_ANNOTATED`` places, then once
more at the next place with how many places are left and where ("... and N more"), as the text output does.
The GitLab code-quality report is JSON and keeps one entry per diagnostic, as ``--format json`` does.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from reconciler.base.errors import GROUP_AT, Diagnostic, Severity

TITLE = "kafka-reconciler"
PLACES_ANNOTATED = 3  # of a repeated finding, annotated one by one before the "... and N more" annotation
_PLACES_LISTED = 5  # places named in that last annotation


def escape_data(text: str) -> str:
    """Escape a workflow-command message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow-command property value (``file=``, ``title=``...)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation_path(file: str, *, workspace: Path | None, cwd: Path | None = None) -> str:
    """``file`` relative to ``workspace`` (POSIX separators) when it lies inside it, else unchanged.

    A relative ``file`` is taken relative to ``cwd`` (default: the current directory) first, so a run
    from ``working-directory: kafka/`` still annotates ``kafka/topics.yaml``.
    """
    if workspace is None:
        return Path(file).as_posix()
    base = cwd if cwd is not None else Path.cwd()
    absolute = Path(os.path.normpath(base / file))
    try:
        return absolute.relative_to(Path(os.path.normpath(workspace))).as_posix()
    except ValueError:
        return Path(file).as_posix()


def _message(diagnostic: Diagnostic) -> str:
    text = diagnostic.message
    if diagnostic.path:
        text += f" (at {diagnostic.path})"
    if diagnostic.hint:
        text += f"\nhint: {diagnostic.hint}"
    return text


def workflow_command(diagnostic: Diagnostic, *, workspace: Path | None = None, cwd: Path | None = None) -> str:
    """One ``::error``/``::warning`` line for ``diagnostic``."""
    command = "error" if diagnostic.severity is Severity.ERROR else "warning"
    props: list[str] = []
    if diagnostic.file:
        props.append("file=" + escape_property(annotation_path(diagnostic.file, workspace=workspace, cwd=cwd)))
        if diagnostic.line is not None:
            props.append(f"line={int(diagnostic.line)}")
            if diagnostic.column is not None:
                props.append(f"col={int(diagnostic.column)}")
    props.append("title=" + escape_property(TITLE))
    return f"::{command} {','.join(props)}::{escape_data(_message(diagnostic))}"


def github_annotations(
    diagnostics: Iterable[Diagnostic], *, workspace: Path | None = None, cwd: Path | None = None
) -> list[str]:
    """Workflow-command lines in order: one per diagnostic, a repeated finding grouped (see the module's note)."""
    items = list(diagnostics)
    groups: dict[tuple[object, ...], list[Diagnostic]] = {}
    for d in items:
        groups.setdefault(d.repeat_key(), []).append(d)
    lines: list[str] = []
    seen: dict[tuple[object, ...], int] = {}
    for d in items:
        group = groups[d.repeat_key()]
        if len(group) < GROUP_AT:
            lines.append(workflow_command(d, workspace=workspace, cwd=cwd))
            continue
        at = seen[d.repeat_key()] = seen.get(d.repeat_key(), -1) + 1
        if at < PLACES_ANNOTATED:
            lines.append(workflow_command(d, workspace=workspace, cwd=cwd))
        elif at == PLACES_ANNOTATED:
            lines.append(workflow_command(_the_rest(group, workspace=workspace, cwd=cwd), workspace=workspace, cwd=cwd))
    return lines


def _the_rest(group: list[Diagnostic], *, workspace: Path | None, cwd: Path | None) -> Diagnostic:
    """The one annotation that stands for ``group[PLACES_ANNOTATED:]``, at the first of those places."""
    rest = group[PLACES_ANNOTATED:]
    first = rest[0]

    def place(d: Diagnostic) -> str:
        file = annotation_path(d.file, workspace=workspace, cwd=cwd) if d.file else None
        return dataclasses.replace(d, file=file).location()

    places = ", ".join(place(d) for d in rest[:_PLACES_LISTED])
    more = len(rest) - _PLACES_LISTED
    tail = f", ... and {more:,} more" if more > 0 else ""
    message = (
        f"... and {len(rest):,} more places with the same {first.severity.value} ({places}{tail}; "
        f"'kafka-reconciler validate --format json' lists each): {first.message}"
    )
    return dataclasses.replace(first, message=message)


def gitlab_code_quality(
    diagnostics: Iterable[Diagnostic], *, workspace: Path | None = None, cwd: Path | None = None
) -> list[dict[str, Any]]:
    """GitLab code-quality report entries (the ``artifacts:reports:codequality`` JSON array)."""
    entries: list[dict[str, Any]] = []
    for d in diagnostics:
        path = annotation_path(d.file, workspace=workspace, cwd=cwd) if d.file else "<input>"
        line = d.line if d.line is not None else 1
        key = f"{path}:{line}:{d.column}:{d.severity.value}:{d.message}:{d.path}"
        entries.append(
            {
                "description": _message(d).replace("\n", "; "),
                "check_name": "kafka-reconciler/validate",
                "fingerprint": hashlib.sha256(key.encode("utf-8")).hexdigest(),
                "severity": "critical" if d.severity is Severity.ERROR else "minor",
                "location": {"path": path, "lines": {"begin": line}},
            }
        )
    return entries

"""A subject change as the plan shows it: text lines for the terminal and a markdown block for a PR comment.

The change's line is its action's symbol, its address and where the manifest declares it; below it, the attributes
derived from its payloads (``payload.attributes``; the schema itself is not repeated as a value), the dry run's
verdict, the impact finding, a blocked change's reasons, and for a new version the unified diff of the canonical
schema text (``reconciler.registry.schema_diff``: a reformatted schema shows no line, a long diff is cut at
``max_lines`` with how many lines were left out). The PR comment puts the diff in the change's folded details,
with ``+added -removed`` in its summary.
"""

from __future__ import annotations

from reconciler.kinds.schema_subject import payload
from reconciler.kinds.schema_subject.diff import SubjectChange
from reconciler.kinds.schema_subject.dryrun import Verdict
from reconciler.kinds.schema_subject.impact import Finding
from reconciler.model import plans
from reconciler.registry import schema_diff

INDENT = "    "


def _where(change: SubjectChange) -> str:
    src = change.source
    return "" if src is None else f" ({src.file}:{src.line}:{src.column})"


def _diff(
    before: payload.SubjectPayload | None, after: payload.SubjectPayload | None, *, max_lines: int
) -> schema_diff.SchemaDiff | None:
    """The schema diff of a change that writes or deletes a version (``None``: it writes none)."""
    new_version = any(a.name == "schema" for a in payload.attributes(before, after))
    if after is not None and not new_version:
        return None
    kind = (after or before or payload.SubjectPayload()).schema_type or "AVRO"
    return schema_diff.schema_diff(
        before=None if before is None else before.schema,
        after=None if after is None else after.schema,
        schema_type=kind,
        before_type=None if before is None else before.schema_type,
        version=None if before is None else before.version,
        max_lines=max_lines,
    )


def schema_lines(
    before: payload.SubjectPayload | None,
    after: payload.SubjectPayload | None,
    *,
    max_lines: int = schema_diff.DEFAULT_MAX_LINES,
) -> list[str]:
    """A new (or deleted) version in a plan's text: ``schema: new version (after version N)``, then the unified
    diff of the canonical schema text (cut at ``max_lines``, saying how many lines were left out)."""
    version = "" if before is None or before.version is None else f" (after version {before.version})"
    head = f"schema: new version{version}" if after is not None else f"schema: version {version.strip(' ()')} deleted"
    found = _diff(before, after, max_lines=max_lines)
    if found is None or not found.changed:
        return [head]
    return [head, *("    " + line for line in found.text().split("\n"))]


def attribute_lines(change: plans.Change, attribute: plans.AttributeChange) -> list[str] | None:
    """The plan's lines of a subject change's ``schema`` attribute (``schema_lines``: its new version and the diff of
    the canonical schema text); ``None`` for its other attributes, which show as one line (the declaration's
    ``attribute_lines``)."""
    before = change.before if isinstance(change.before, payload.SubjectPayload) else None
    after = change.after if isinstance(change.after, payload.SubjectPayload) else None
    if attribute.name != "schema" or (before is None and after is None):
        return None
    return schema_lines(before, after)


def notes(change: SubjectChange, verdict: Verdict | None, finding: Finding | None) -> list[str]:
    lines = [f"blocked: {r}" for r in change.reasons]
    if verdict is not None and verdict.compatible is True and verdict.note is None:
        lines.append(f"dry run: the registry finds it compatible under {verdict.level}")
    elif verdict is not None and verdict.note is not None:
        lines.append(f"dry run: {verdict.note}")
    if finding is not None:
        lines.append(f"impact: {finding.text}")
    return lines


def text_lines(
    change: SubjectChange,
    *,
    before: payload.SubjectPayload | None,
    after: payload.SubjectPayload | None,
    verdict: Verdict | None = None,
    finding: Finding | None = None,
    max_lines: int = schema_diff.DEFAULT_MAX_LINES,
) -> list[str]:
    """The change's lines in the text plan."""
    lines = [f"{change.action.symbol} {change.address}{_where(change)}"]
    for a in payload.attributes(before, after):
        if a.name == "schema":
            version = "" if before is None or before.version is None else f" (after version {before.version})"
            lines.append(f"{INDENT}new version{version}")
        else:
            lines.append(f"{INDENT}{a.name}: {a.before if a.before is not None else '(none)'} -> {a.after}")
    lines += [INDENT + n for n in notes(change, verdict, finding)]
    found = _diff(before, after, max_lines=max_lines)
    if found is not None and found.changed:
        lines += [INDENT + "  " + line for line in found.text().split("\n")]
    return lines


def markdown(
    change: SubjectChange,
    *,
    before: payload.SubjectPayload | None,
    after: payload.SubjectPayload | None,
    verdict: Verdict | None = None,
    finding: Finding | None = None,
    max_lines: int = schema_diff.DEFAULT_MAX_LINES,
) -> str:
    """The change as a PR comment's item: a line, its notes, and the schema diff folded under ``+added -removed``."""
    head = f"- `{change.action.symbol}` `{change.address}`{_where(change)}"
    shown = [
        f"`{a.name}`: {a.before if a.before is not None else '(none)'} → {a.after}"
        for a in payload.attributes(before, after)
        if a.name not in ("schema",)
    ]
    body = [head, *(f"  - {s}" for s in [*shown, *notes(change, verdict, finding)])]
    found = _diff(before, after, max_lines=max_lines)
    if found is not None and found.changed:
        block = schema_diff.markdown(found).replace("\n", "\n  ")
        body.append(f"  <details><summary>schema {found.summary()}</summary>\n\n  {block}\n\n  </details>")
    return "\n".join(body)

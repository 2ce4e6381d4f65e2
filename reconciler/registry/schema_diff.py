"""A unified diff of two schema versions' canonical text, for plan renders and PR comments.

What the diff compares is what the plan compares: each side is ``canonical.normalize``d (JSON and Avro parsed,
keys sorted, Avro names made full; Protobuf line ends and trailing spaces) and then pretty-printed (``pretty``:
JSON with two-space indents, one key per line), so a reformatted schema shows no difference and a changed one shows
only the lines that changed, the same lines on every run (``difflib.unified_diff`` over stable text). A side whose
text does not parse as its type is shown as written, its line ends normalised, rather than failing the render.

The diff carries nothing but schema text: the two headers are fixed words (``registered`` with the version, and
``declared``) built here, not caller text, and the hunks hold the schemas' own lines. Schemas are not secret (the
registry serves them to every client); they can be long, so ``schema_diff`` keeps at most ``max_lines`` lines of
the diff (headers included) and says how many it left out (``SchemaDiff.more``; ``text`` ends with
``... N more lines``), each line at most ``LINE_LIMIT`` characters, as ``reconciler.render.markdown_lists`` cuts a
list to ``... and N more``.

How a render uses it: for a change that registers a new schema version under a subject, call
``schema_diff(before=<the schema the registry holds>, after=<the schema to register>, schema_type=..., version=<the
registered version>)``; a new subject has ``before=None`` (every line added), a deleted one ``after=None``. The text
render prints ``diff.text()`` indented under the change; the markdown render (PR comment) puts ``markdown(diff)``
inside the change's folded details, where ``fence`` picks a code fence longer than any run of backticks in the
schemas. ``added``/``removed`` count the changed lines for a one-line summary (``+3 -1``) when the comment is cut to
its budget and the diff itself is left out.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re

from reconciler.registry import canonical

DEFAULT_MAX_LINES = 80  # diff lines shown (headers included) before "... N more lines"
LINE_LIMIT = 200  # characters of one diff line shown
CONTEXT_LINES = 3  # unchanged lines shown around each change, as diff -u


@dataclasses.dataclass(frozen=True, slots=True)
class SchemaDiff:
    """A unified diff cut to its size: ``lines`` shown, ``more`` left out, ``added``/``removed`` changed lines of
    the whole diff (``0``/``0``: the same schema after canonicalisation)."""

    lines: tuple[str, ...]
    more: int
    added: int
    removed: int

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)

    def text(self) -> str:
        """The diff as text, with ``... N more lines`` when it was cut; empty when nothing changed."""
        tail = (f"... {self.more} more line{'' if self.more == 1 else 's'}",) if self.more else ()
        return "\n".join((*self.lines, *tail))

    def summary(self) -> str:
        """``+3 -1``: the lines added and removed."""
        return f"+{self.added} -{self.removed}"


def pretty(text: str, schema_type: str) -> str:
    """The canonical text of a schema, one JSON key per line for AVRO and JSON (PROTOBUF: ``normalize``'s text); a
    text that does not parse as its type is returned as written, line ends normalised."""
    try:
        flat = canonical.normalize(text, schema_type)
    except (canonical.SchemaTextError, ValueError):
        return text.replace("\r\n", "\n").strip("\n")
    if schema_type == "PROTOBUF":
        return flat
    return json.dumps(json.loads(flat), indent=2, sort_keys=True, ensure_ascii=False)


def schema_diff(
    *,
    before: str | None,
    after: str | None,
    schema_type: str,
    before_type: str | None = None,
    version: int | None = None,
    max_lines: int = DEFAULT_MAX_LINES,
) -> SchemaDiff:
    """The diff from ``before`` (the registered schema, ``version``; ``None``: none) to ``after`` (the declared one;
    ``None``: the subject is deleted), both of ``schema_type`` unless ``before_type`` says the registered one's."""
    old = [] if before is None else pretty(before, before_type or schema_type).split("\n")
    new = [] if after is None else pretty(after, schema_type).split("\n")
    registered = "registered" + ("" if version is None else f" version {version}")
    lines = list(
        difflib.unified_diff(
            old,
            new,
            fromfile="/dev/null" if before is None else registered,
            tofile="/dev/null" if after is None else "declared",
            n=CONTEXT_LINES,
            lineterm="",
        )
    )
    body = [line for line in lines if not line.startswith(("---", "+++", "@@"))]
    added = sum(1 for line in body if line.startswith("+"))
    removed = sum(1 for line in body if line.startswith("-"))
    shown = tuple(_clip(line) for line in lines[: max(0, max_lines)])
    return SchemaDiff(lines=shown, more=len(lines) - len(shown), added=added, removed=removed)


def fence(text: str) -> str:
    """A markdown code fence longer than any run of backticks in ``text`` (at least three)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def markdown(diff: SchemaDiff) -> str:
    """The diff in a ```` ```diff ```` block for a PR comment (empty when nothing changed)."""
    if not diff.changed:
        return ""
    body = diff.text()
    marks = fence(body)
    return f"{marks}diff\n{body}\n{marks}"


def _clip(line: str) -> str:
    return line if len(line) <= LINE_LIMIT else line[: LINE_LIMIT - 3] + "..."

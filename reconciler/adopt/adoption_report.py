"""What an import or a conversion produced and what the user still has to do, as text lines and Markdown.

Both reports share one shape: the files written, counts per kind, the environment variables the user
must provide (SCRAM passwords, secret configs), and notes about resources that were left out, changed
or have no equivalent. The CLI prints ``lines()``; ``IMPORT.md`` / ``CONVERSION.md`` hold ``markdown()``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from reconciler.adopt.output import Note


@dataclasses.dataclass
class AdoptionReport:
    """The outcome of writing generated manifests into ``out_dir``."""

    title: str
    out_dir: Path
    counts: dict[str, int] = dataclasses.field(default_factory=dict)
    notes: list[Note] = dataclasses.field(default_factory=list)
    variables: list[str] = dataclasses.field(default_factory=list)
    files: list[Path] = dataclasses.field(default_factory=list)
    leftovers: list[Path] = dataclasses.field(default_factory=list)
    intro: list[str] = dataclasses.field(default_factory=list)
    next_steps: list[str] = dataclasses.field(default_factory=list)
    # text files written beside the manifests (relative path -> text): what a kind's documents read from a file
    texts: dict[str, str] = dataclasses.field(default_factory=dict)

    def note(self, resource: str, message: str, *, severity: str = "warning") -> None:
        self.notes.append(Note(resource=resource, message=message, severity=severity))

    def by_severity(self, severity: str) -> list[Note]:
        return [n for n in self.notes if n.severity == severity]

    def summary(self) -> str:
        parts = [f"{n} {what}" for what, n in self.counts.items()]
        return ", ".join(parts) if parts else "nothing"

    def lines(self) -> list[str]:
        """Plain lines for the terminal: what was written, what to do, what was left out."""
        out = [f"{self.title}: wrote {self.summary()} to {self.out_dir} ({len(self.files)} files)."]
        if self.variables:
            out.append("Set these environment variables before apply (values cannot be read from Kafka):")
            out.extend(f"  {name}" for name in self.variables)
        for note in sorted(self.notes, key=_note_order):
            out.append(note.line())
        for path in self.leftovers:
            out.append(f"WARNING: {path} was there before and was not overwritten; plan will read it too")
        return out

    def markdown(self) -> str:
        """The report file written next to the manifests."""
        out = [f"# {self.title}", ""]
        out.extend(self.intro)
        if self.intro:
            out.append("")
        out += ["| What | Count |", "| --- | --- |"]
        out.extend(f"| {what} | {n} |" for what, n in self.counts.items())
        out.append("")
        if self.variables:
            out += ["## Secrets to provide", ""]
            out.append("These values cannot be read or converted; set the variables where `apply` runs:")
            out.append("")
            out.extend(f"- `{name}`" for name in self.variables)
            out.append("")
        for severity, heading in (
            ("todo", "To do"),
            ("warning", "Left out, changed or without an equivalent"),
            ("info", "Notes"),
        ):
            notes = self.by_severity(severity)
            if notes:
                out += [f"## {heading}", ""]
                out.extend(f"- `{_md(n.resource)}`: {_md(n.message)}" for n in sorted(notes, key=_note_order))
                out.append("")
        steps = list(self.next_steps)
        if self.variables:
            steps.insert(1, "Provide the environment variables listed above where apply runs.")
        if steps:
            out += ["## Next steps", ""]
            out.extend(f"{i}. {step}" for i, step in enumerate(steps, start=1))
            out.append("")
        return "\n".join(out).rstrip("\n") + "\n"


def _note_order(note: Note) -> tuple[int, str, str]:
    return ({"todo": 0, "warning": 1}.get(note.severity, 2), note.resource, note.message)


def _md(text: str) -> str:
    return text.replace("|", "\\|")

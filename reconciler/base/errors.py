"""Error hierarchy and positioned diagnostics shared by every layer.

Every failure a user can cause is a ``ReconcilerError`` subclass carrying a message that names the
file, line and column or the resource; the CLI maps these to exit codes and never shows a traceback.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Sequence


class Severity(str, enum.Enum):
    """How bad a diagnostic is: errors stop the run, warnings are reported and carried on."""

    ERROR = "error"
    WARNING = "warning"


# One mistake copied into 2,000 topics is reported once: a diagnostic repeated at this many places or more (the same
# ``Diagnostic.repeat_key``) is shown at its first places with a count of the rest, by the text output and the CI
# annotations alike; ``--format json`` keeps every one.
GROUP_AT = 5


@dataclasses.dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in the input, with its position (1-based line and column) when known."""

    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    path: str | None = None  # location inside the document, e.g. "spec.configs.retention.ms"
    hint: str | None = None
    severity: Severity = Severity.ERROR

    def location(self) -> str:
        """``file:line:column`` with whatever parts are known."""
        parts = [self.file or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def repeat_key(self) -> tuple[object, ...]:
        """What makes two diagnostics the same finding at different places: severity, message, path and hint."""
        return (self.severity, self.message, self.path, self.hint)

    def format(self) -> str:
        """One human line: ``file:line:col: error: message (at path) hint: ...``."""
        text = f"{self.location()}: {self.severity.value}: {self.message}"
        if self.path:
            text += f" (at {self.path})"
        if self.hint:
            text += f"; hint: {self.hint}"
        return text

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form used by ``--format json`` and CI annotations."""
        return {
            "severity": self.severity.value,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "path": self.path,
            "hint": self.hint,
        }


class ReconcilerError(Exception):
    """Base class of every error the tool reports to users without a traceback."""

    exit_code = 1


class ValidationFailed(ReconcilerError):
    """The manifests are invalid; carries every diagnostic collected, not just the first."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics = list(diagnostics)
        errors = [d for d in self.diagnostics if d.severity is Severity.ERROR]
        super().__init__(f"{len(errors)} error(s) in manifests")


class ConnectionFailed(ReconcilerError):
    """The cluster could not be reached or refused authentication."""


class AuthenticationFailed(ConnectionFailed):
    """The cluster was reached and refused the credentials (or the token could not be had): not a cluster down."""


class DeadlineReached(ConnectionFailed):
    """The command's time limit for talking to the cluster is spent: the request was not sent."""


class UnsupportedByCluster(ReconcilerError):
    """The broker lacks an API (or an authorizer) that the manifests need."""


class SnapshotError(ReconcilerError):
    """A live-state snapshot file cannot be read."""


class PlanFileError(ReconcilerError):
    """A saved plan is unreadable, of the wrong version, tampered with, or for another cluster."""


class StalePlan(ReconcilerError):
    """The live state changed since the saved plan was made; nothing was written."""


class ConfigError(ReconcilerError):
    """Bad command-line options, connection settings or referenced files."""


class GrantMissing(ReconcilerError):
    """The principal lacks a right found before any write; ``grant`` names it (``grant OP on RESOURCE to WHO``) and
    ``command`` is the ``kafka-acls`` line that adds it, for a refusal that lists every missing right at once."""

    def __init__(self, message: str, *, grant: str, command: str) -> None:
        super().__init__(message)
        self.grant = grant
        self.command = command


def errors_only(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics of severity error."""
    return [d for d in diagnostics if d.severity is Severity.ERROR]

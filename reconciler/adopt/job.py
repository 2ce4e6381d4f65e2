"""One import in progress (``Job``): the live state read, and the manifest files, report and Ownership names written
so far. Each kind's import (its declaration's ``adopt`` part) adds its documents to it; ``from_live`` runs them in
``Kind`` order, then writes the Ownership document from the names they imported.

A kind whose own package may not import this stage (``reconciler.kinds.<kind>``) sees the job as
``reconciler.kinds.spec.ImportJob``: the live state, ``note``, ``count`` and ``write``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from reconciler.adopt import output
from reconciler.adopt.adoption_report import AdoptionReport
from reconciler.adopt.output import Document, ManifestFile, Variable
from reconciler.model import state
from reconciler.model.kinds import Kind


class Job:
    """The manifests of one import, built kind by kind."""

    def __init__(self, live: state.ClusterState, *, include_tool_topics: bool) -> None:
        self.live = live
        self.include_tool_topics = include_tool_topics
        self.report = AdoptionReport(title="Import", out_dir=Path("."))
        self.files: list[ManifestFile] = []
        self.topics: list[str] = []  # the Ownership's topics: exactly the topics imported
        self.principals: set[str] = set()  # the Ownership's principals: of the ACLs, quotas and SCRAM users imported
        self.owned: dict[str, list[str]] = {}  # any other Ownership rule field (``groups``) -> the names imported
        self._variables: set[str] = set()

    def variable(self, *parts: str) -> Variable:
        """A new environment variable the user sets before the first apply (listed in the report)."""
        name = output.unique(output.env_name(*parts), self._variables)
        self.report.variables.append(name)
        return Variable(name)

    def unread(self, kind: Kind, what: str) -> None:
        """The note that ``what`` (``ACLs``) was not imported because the section of ``kind`` was not read."""
        reason = self.live.unavailable.get(kind, "not read")
        self.report.note(what, f"not imported: {reason}", severity="info")

    def note(self, resource: str, message: str, *, severity: str = "warning") -> None:
        """A note on ``resource`` (its address) in the report."""
        self.report.note(resource, message, severity=severity)

    def count(self, what: str, n: int) -> None:
        """How many of ``what`` (``schema subjects``) were imported, in the report's summary."""
        self.report.counts[what] = n

    def write(
        self, path: str, documents: Iterable[tuple[str, str, Mapping[str, Any]]], *, texts: Mapping[str, str]
    ) -> None:
        """A manifest file of ``(manifest kind, name, spec)`` documents, and ``texts`` (relative path -> text) the
        documents read beside it."""
        self.files.append(ManifestFile(path, [Document(kind, name, spec) for kind, name, spec in documents]))
        self.report.texts.update(texts)

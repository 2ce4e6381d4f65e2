"""What the imports of the entity kinds (``reconciler.model.entities``: group configs, client-metrics subscriptions)
share: ``add_documents`` writes one kind's documents, made by the kind's own import (``kinds/group_config/adopt.py``,
``kinds/client_metrics/adopt.py``), to its file and names them under its Ownership rule field, and ``unread_notes``
notes the entities whose configs could not be read: they are neither imported nor owned.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from reconciler.adopt.job import Job
from reconciler.adopt.output import Document, ManifestFile
from reconciler.model import entities
from reconciler.model.kinds import Kind

Note = Callable[[str, str], None]


def unread_notes(kind: Kind, unread: Mapping[str, str], note: Note) -> None:
    """A note for each entity of ``kind`` whose configs could not be read, with the refusal and the grant to ask for
    (one note naming the first 20 when there are more than 5): it is neither imported nor owned (the Ownership written
    names only what was imported, so no plan touches it)."""
    if len(unread) > 5:  # a principal scoped to its team's groups on a shared cluster: one line, not hundreds
        text = entities.unread_text(kind, unread, shown=20)
        note(entities.LABELS[kind], f"not imported, their configs could not be read: {text}")
        return
    for name in sorted(unread):
        note(kind.address(name), f"not imported, its configs could not be read: {unread[name]}")


def add_documents(
    job: Job, kind: Kind, make: Callable[[entities.Section, Note], list[Document]], *, path: str, rules: str
) -> None:
    """The documents of ``kind`` (``make``) in ``path``, their names under the Ownership document's ``rules``."""
    section = entities.live_section(job.live, kind)
    if section is None:
        job.unread(kind, entities.LABELS[kind])
        return
    unread_notes(kind, job.live.unread_entities.get(kind.value, {}), job.report.note)
    docs = make(section, lambda address, message: job.report.note(address, message))
    job.owned[rules] = [d.name for d in docs]
    job.report.counts[entities.LABELS[kind]] = len(docs)
    if docs:
        job.files.append(ManifestFile(path, docs))

"""``SchemaSubject`` documents into the desired state: the kind's manifest model builds each declared subject
(``reconciler.kinds.schema_subject.manifest.build``: the schema read from its file beside the manifest, or inline,
checked for its type; the subject's name by its naming strategy); a subject declared twice is an error at the
second document, naming the first."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from reconciler.kinds.schema_subject import manifest
from reconciler.manifests import loader, topics
from reconciler.model.schema_subjects import DesiredSubject

Error = Callable[[Iterable[str | int], str], None]


def add(doc: loader.Document, found: dict[str, DesiredSubject], error: Error) -> None:
    """Build ``doc``'s subject into ``found`` (by subject name), reporting each problem through ``error``."""
    subject = manifest.build(
        doc.name,
        doc.spec,
        manifest_file=doc.raw.directory / Path(doc.raw.file).name,
        error=error,
        source=topics.source(doc),
    )
    if subject is None:
        return
    first = found.get(subject.subject)
    if first is not None:
        error(("metadata", "name"), f"subject {subject.subject!r} is declared twice (first at {first.source})")
        return
    found[subject.subject] = subject

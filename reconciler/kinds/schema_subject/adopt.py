"""Import of Schema Registry subjects: one ``SchemaSubject`` document per live subject with a version, its schema
written to a file beside the manifests, so the plan right after the import changes nothing.

The document names the subject with ``subject:`` (the registry's name, whatever strategy made it), its
``schemaType`` when not AVRO, its references, and the level and mode set on the subject (a subject with none of its
own gets none: it keeps following the registry's global level). The schema file holds the registry's text as it is
(``subjects/<subject>.avsc``, ``.json`` or ``.proto``; a subject name's characters outside ``[A-Za-z0-9._-]`` become
``_``, and a name taken twice gets ``-2``, ``-3``). The document's ``metadata.name`` is that file's stem. ``add``, the
kind's ``adopt`` part, writes them all to ``schema-subjects.yaml``.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from reconciler.kinds.schema_subject import state as subject_state
from reconciler.kinds.schema_subject import views
from reconciler.kinds.spec import ImportJob
from reconciler.model.kinds import Kind, Manifest

EXTENSIONS = {"AVRO": ".avsc", "JSON": ".json", "PROTOBUF": ".proto"}
FILE = "schema-subjects.yaml"
SCHEMA_DIR = "subjects"  # apart from schemas/, where import writes the kinds' JSON Schemas (a JSON subject "Topic")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


@dataclasses.dataclass(frozen=True, slots=True)
class Imported:
    """One subject's document (``name`` and ``spec``) and its schema file (a path relative to the manifest)."""

    name: str
    spec: dict[str, Any]
    schema_file: str
    schema: str


def _stem(subject: str, taken: set[str]) -> str:
    base = _UNSAFE.sub("_", subject).strip(".") or "subject"
    stem, n = base, 1
    while stem.lower() in taken:
        n += 1
        stem = f"{base}-{n}"
    taken.add(stem.lower())
    return stem


def documents(live: views.LiveSubjects) -> tuple[list[Imported], list[tuple[str, str]]]:
    """Each live subject with a version as a document and schema file, and (subject, note) for those left out."""
    taken: set[str] = set()
    found: list[Imported] = []
    notes: list[tuple[str, str]] = []
    for name, s in sorted(live.subjects.items()):
        latest = s.latest
        if latest is None:
            notes.append((name, "left out: the registry holds no version of it"))
            continue
        stem = _stem(name, taken)
        path = f"{SCHEMA_DIR}/{stem}{EXTENSIONS[latest.schema_type]}"
        spec: dict[str, Any] = {"subject": name}
        if latest.schema_type != "AVRO":
            spec["schemaType"] = latest.schema_type
        spec["schemaFile"] = path
        if latest.references:
            spec["references"] = [r.as_json() for r in latest.references]
        if s.compatibility is not None:
            spec["compatibility"] = s.compatibility
        if s.mode is not None:
            spec["mode"] = s.mode
        found.append(Imported(stem, spec, path, latest.schema))
    return found, notes


def add(job: ImportJob) -> None:
    """``schema-subjects.yaml`` and each subject's schema file (when the registry was read and holds subjects)."""
    live = subject_state.live_subjects(job.live)
    if live is None:
        return
    found, notes = documents(live)
    for subject, note in notes:
        job.note(Kind.SCHEMA_SUBJECT.address(subject), note)
    job.count("schema subjects", len(found))
    if found:
        docs = [(Manifest.SCHEMA_SUBJECT.value, i.name, i.spec) for i in found]
        job.write(FILE, docs, texts={i.schema_file: i.schema for i in found})

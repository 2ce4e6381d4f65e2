"""Import of Schema Registry subjects: ``schema-subjects.yaml`` with one ``SchemaSubject`` document per subject
holding a version (``reconciler.kinds.schema_subject.adopt``), and each schema as the registry holds it in a file
beside the manifests (``schemaFile:``), so the plan right after changes nothing."""

from __future__ import annotations

from reconciler.adopt.adoption_report import AdoptionReport
from reconciler.adopt.output import Document, ManifestFile
from reconciler.kinds.schema_subject import adopt
from reconciler.model import state
from reconciler.model.kinds import Kind, Manifest

FILE = "schema-subjects.yaml"


def add(files: list[ManifestFile], report: AdoptionReport, live: state.ClusterState) -> None:
    """Append ``schema-subjects.yaml`` and its schema files (when the registry was read and holds subjects)."""
    if live.schema_subjects is None:
        return
    found, notes = adopt.documents(live.schema_subjects)
    for subject, note in notes:
        report.note(Kind.SCHEMA_SUBJECT.address(subject), note)
    report.counts["schema subjects"] = len(found)
    if found:
        files.append(ManifestFile(FILE, [Document(Manifest.SCHEMA_SUBJECT.value, i.name, i.spec) for i in found]))
        report.texts.update({i.schema_file: i.schema for i in found})

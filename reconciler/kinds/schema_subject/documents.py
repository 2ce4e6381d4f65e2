"""``SchemaSubject`` documents into the desired state: the kind's manifest part (``MANIFEST``), which its declaration
names and the manifests import, where a kind's place keeps it by convention (``reconciler.kinds.places``), with the
first SchemaSubject document (or Ownership ``schemaSubjects`` rule), without reading the declaration.

Each document's subject is built by the kind's manifest model (``manifest.build``: the schema read from its file
beside the manifest, or inline, checked for its type; the subject's name by its naming strategy) into the desired
state's section of the kind (``DesiredState.sections``); a subject declared twice is an error at the second document,
naming the first. An Ownership document's ``schemaSubjects`` rules (``manifest.SubjectRuleSpec``) fill
``desired.Ownership.rules`` under the kind.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from reconciler.kinds.schema_subject import manifest
from reconciler.manifests import build, loader
from reconciler.manifests.parts import ManifestPart
from reconciler.model.kinds import Kind

SECTION = Kind.SCHEMA_SUBJECT  # the desired state's section of the subjects declared (``DesiredState.sections``)
RULES = "schema_subjects"  # the Ownership spec's field of the rules (``schemaSubjects``), filling ``Ownership.rules``


def add(builder: build.Builder, doc: loader.Document) -> None:
    """Build ``doc``'s subject into the desired state, reporting each problem at its place in ``doc``."""
    found = builder.section(SECTION)
    subject = manifest.build(
        doc.name,
        doc.spec,
        manifest_file=doc.raw.directory / Path(doc.raw.file).name,
        error=lambda path, message: builder.error(doc, path, message),
        source=build.source(doc),
    )
    if subject is None:
        return
    first = found.get(subject.subject)
    if first is not None:
        message = f"subject {subject.subject!r} is declared twice (first at {first.source})"
        builder.error(doc, ("metadata", "name"), message)
        return
    found[subject.subject] = subject


MANIFEST = ManifestPart(
    model=manifest.SchemaSubjectSpec,
    section=SECTION,
    noun="schema subject",
    build=add,
    delete_hover="Delete Schema Registry subjects matched by the schemaSubjects rules that are not declared "
    "(default false): a soft delete, unless the rule says permanent.",
    ownership={
        RULES: (
            list[manifest.SubjectRuleSpec],
            Field(
                default_factory=list,
                description="Schema Registry subjects managed by name: an undeclared one is shown as drift, or "
                "deleted with delete.schemaSubject (soft, unless the rule says permanent).",
            ),
        )
    },
)

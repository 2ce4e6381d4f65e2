"""The Schema Registry subject as the states hold it: a declared subject (``DesiredSubject``), a subject as the
registry answers it (``LiveSubject``, ``LiveSubjects``) and an Ownership ``schemaSubjects`` rule (``SubjectRule``),
with where each sits in the model's states: the kind's section of the live state (``live_subjects``,
``with_live_subjects``), of the desired state (``declared_subjects``, ``with_declared_subjects``) and its rules in
``Ownership`` (``subject_rules``, ``with_subject_rules``). The model holds them without naming them (its
``sections``/``rules`` by kind); the kind's other modules build, read, diff and write them. Kept light (no port, no
HTTP): validate reads the declared subjects through it."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from reconciler.model import desired, state
from reconciler.model.desired import NamePattern, Source
from reconciler.model.kinds import Kind
from reconciler.registry import canonical
from reconciler.registry.requests import Reference

if TYPE_CHECKING:  # annotations only: validate reads the declared subjects without the registry's port
    from reconciler.registry import port as registry_port


@dataclasses.dataclass(frozen=True, slots=True)
class DesiredSubject:
    """A declared subject: its schema (the text to register), references, and the level and mode it manages
    (``None``: not managed). ``topics`` are the topics whose records it describes (its ``topic:``, or the topic
    a TopicNameStrategy name is derived from), for the impact of an incompatible change. ``schema_origin`` names
    where the schema text came from (the schema file's path, or the manifest for an inline schema)."""

    subject: str
    schema: str
    schema_type: str = "AVRO"
    references: tuple[Reference, ...] = ()
    compatibility: str | None = None
    mode: str | None = None
    topics: tuple[str, ...] = ()
    schema_origin: str = ""
    source: Source | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class LiveSubject:
    """A subject as the registry answers it: its latest version (``None``: none left) and its own level and mode
    (``None``: none set on the subject, or ``/mode`` unsupported)."""

    subject: str
    latest: registry_port.SchemaVersion | None
    compatibility: str | None = None
    mode: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class LiveSubjects:
    """The subjects read for one plan, with what the registry supports and its global level (the level a subject
    with none of its own is checked under)."""

    subjects: Mapping[str, LiveSubject]
    features: registry_port.Features
    global_level: str | None = None
    requests: int = 0  # the registry requests the read took
    # The registry's own dry run of the plan (``reconciler.kinds.schema_subject.dryrun.Evidence``: its compatibility
    # answers and the referrers of the subjects deleted), read with the subjects; ``None``: not read (offline).
    evidence: object | None = dataclasses.field(default=None, compare=False)


@dataclasses.dataclass(frozen=True, slots=True)
class SubjectRule:
    """An Ownership ``schemaSubjects`` rule: the subjects it owns, and whether their deletes are permanent."""

    pattern: NamePattern
    permanent: bool = False


def subject_view(found: LiveSubject | None) -> Any:
    """A live subject as plain data (what a change's fingerprint covers): its latest version (number, id, type,
    references, the schema's canonical text) and its own level and mode; ``None`` when the registry holds none of
    them."""
    if found is None or (found.latest is None and found.compatibility is None and found.mode is None):
        return None
    latest = found.latest
    held = None
    if latest is not None:
        try:
            text = canonical.normalize(latest.schema, latest.schema_type)
        except ValueError:
            text = latest.schema
        held = [latest.version, latest.id, latest.schema_type, [r.as_json() for r in latest.references], text]
    return [held, found.compatibility, found.mode]


KIND = Kind.SCHEMA_SUBJECT
SCOPE_KEY = "schema_subjects"  # a saved plan's scope field of the Ownership rules (a plan-file format key)


def live_subjects(live: state.ClusterState) -> LiveSubjects | None:
    """The subjects ``live`` holds (``None``: not read)."""
    found: LiveSubjects | None = live.sections.get(KIND)
    return found


def with_live_subjects(live: state.ClusterState, subjects: LiveSubjects | None) -> state.ClusterState:
    """``live`` with ``subjects`` as its subjects (``None``: not read, the section left out)."""
    sections = {k: v for k, v in live.sections.items() if k is not KIND}
    if subjects is not None:
        sections[KIND] = subjects
    return dataclasses.replace(live, sections=sections)


def declared_subjects(wanted: desired.DesiredState) -> Mapping[str, DesiredSubject]:
    """The subjects ``wanted`` declares, by name."""
    found: Mapping[str, DesiredSubject] = wanted.sections.get(KIND, {})
    return found


def with_declared_subjects(
    wanted: desired.DesiredState, subjects: Mapping[str, DesiredSubject]
) -> desired.DesiredState:
    """``wanted`` declaring ``subjects`` (none: the section left out)."""
    sections = {k: v for k, v in wanted.sections.items() if k is not KIND}
    if subjects:
        sections[KIND] = subjects
    return dataclasses.replace(wanted, sections=sections)


def subject_rules(own: desired.Ownership) -> tuple[SubjectRule, ...]:
    """Ownership's ``schemaSubjects`` rules."""
    found: tuple[SubjectRule, ...] = own.rules.get(KIND, ())
    return found


def with_subject_rules(own: desired.Ownership, rules: tuple[SubjectRule, ...]) -> desired.Ownership:
    """``own`` with ``rules`` as its ``schemaSubjects`` rules (none: left out)."""
    kept = {k: v for k, v in own.rules.items() if k is not KIND}
    if rules:
        kept[KIND] = rules
    return dataclasses.replace(own, rules=kept)

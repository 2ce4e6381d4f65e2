"""The desired and live views of a Schema Registry subject: what a manifest declares (``DesiredSubject``) and
what the registry holds (``LiveSubject``, read through ``RegistryPort.read_subjects`` and ``features``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from reconciler.model import desired
from reconciler.registry import port as registry_port
from reconciler.registry.requests import Reference

LEVELS = (
    "NONE",
    "BACKWARD",
    "BACKWARD_TRANSITIVE",
    "FORWARD",
    "FORWARD_TRANSITIVE",
    "FULL",
    "FULL_TRANSITIVE",
)
MODES = ("READWRITE", "READONLY", "IMPORT")
SCHEMA_TYPES = ("AVRO", "JSON", "PROTOBUF")


def transitive(level: str | None) -> bool:
    """Whether ``level`` checks a new schema against every version (``*_TRANSITIVE``), not only the latest."""
    return level is not None and level.endswith("_TRANSITIVE")


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
    source: desired.Source | None = None


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


def read(
    registry: registry_port.RegistryPort,
    names: Iterable[str],
    *,
    modes: Iterable[str] = (),
    deadline: float,
    concurrency: int = registry_port.READ_CONCURRENCY,
) -> LiveSubjects:
    """The live view of ``names`` (the declared subjects and the owned undeclared ones): ``features``, the global
    level, then two requests a subject, ``concurrency`` subjects at a time; the mode of each subject of ``modes`` (those
    declaring one) where the server serves ``/mode``, one more request each. Nothing is sent when ``names`` is
    empty."""
    wanted = sorted(set(names))
    if not wanted:
        return LiveSubjects({}, registry_port.Features(mode=False, schema_types=()), None, 0)
    before = registry.request_count
    features = registry.features(deadline=deadline)
    global_level = registry.compatibility(deadline=deadline)
    states = registry.read_subjects(wanted, deadline=deadline, concurrency=concurrency)
    with_mode = set(modes) if features.mode else set()
    subjects: dict[str, LiveSubject] = {}
    for name, found in sorted(states.items()):
        mode = registry.mode(name, deadline=deadline) if name in with_mode and found.latest is not None else None
        subjects[name] = LiveSubject(name, found.latest, found.compatibility, mode)
    return LiveSubjects(subjects, features, global_level, registry.request_count - before)


def listed(registry: registry_port.RegistryPort, *, deadline: float) -> tuple[str, ...]:
    """Every subject the registry lists (soft-deleted ones hidden): what Ownership rules are matched against."""
    return registry.subjects(deadline=deadline)

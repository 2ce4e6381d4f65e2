"""The desired and live views of a Schema Registry subject: what a manifest declares (``DesiredSubject``) and
what the registry holds (``LiveSubject``, read through ``RegistryPort.read_subjects`` and ``features``). The
types are the kind's own (``state``: kept light, so validate reads the declared subjects without the port)."""

from __future__ import annotations

from collections.abc import Iterable

from reconciler.kinds.schema_subject.state import DesiredSubject as DesiredSubject
from reconciler.kinds.schema_subject.state import LiveSubject as LiveSubject
from reconciler.kinds.schema_subject.state import LiveSubjects as LiveSubjects
from reconciler.kinds.schema_subject.state import subject_view as subject_view
from reconciler.registry import port as registry_port
from reconciler.registry.requests import LEVELS as LEVELS
from reconciler.registry.requests import MODES as MODES
from reconciler.registry.requests import SCHEMA_TYPES as SCHEMA_TYPES


def transitive(level: str | None) -> bool:
    """Whether ``level`` checks a new schema against every version (``*_TRANSITIVE``), not only the latest."""
    return level is not None and level.endswith("_TRANSITIVE")


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

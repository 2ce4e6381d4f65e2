"""The subjects' section of a snapshot file: the live subjects as plain JSON data, and back, for a plan made
offline. What a registry answers is kept as read (the schema text as the registry holds it, a level or mode of
``None`` when none is set on the subject); decoding is strict, since a snapshot is input: a value of the wrong type
raises ``SnapshotError`` naming where it is, never a traceback. ``SNAPSHOT`` is the kind's ``snapshot`` part: the
snapshot file writes and reads the section through it, and ``diff A B`` compares its ``resources``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.base import errors
from reconciler.kinds.schema_subject import state as views
from reconciler.kinds.spec import SnapshotSection
from reconciler.model import state
from reconciler.model.kinds import Kind
from reconciler.registry import schema_diff
from reconciler.registry.port import Features, SchemaVersion
from reconciler.registry.requests import LEVELS, MODES, SCHEMA_TYPES, Reference

SECTION = "schema_subjects"


class SnapshotError(errors.SnapshotError):
    """The snapshot's subjects section is malformed; the message names the place."""


def to_dict(live: views.LiveSubjects) -> dict[str, Any]:
    """``live`` as JSON data (subjects by name; the request count, which belongs to one read, left out)."""
    subjects: dict[str, Any] = {}
    for name, s in sorted(live.subjects.items()):
        latest = None
        if s.latest is not None:
            latest = {
                "version": s.latest.version,
                "id": s.latest.id,
                "schemaType": s.latest.schema_type,
                "schema": s.latest.schema,
                "references": [r.as_json() for r in s.latest.references],
            }
        subjects[name] = {"latest": latest, "compatibility": s.compatibility, "mode": s.mode}
    return {
        "features": {"mode": live.features.mode, "schemaTypes": list(live.features.schema_types)},
        "globalLevel": live.global_level,
        "subjects": subjects,
    }


def _get(doc: Any, key: str, *, kind: type | tuple[type, ...], where: str, optional: bool = False) -> Any:
    if not isinstance(doc, Mapping):
        raise SnapshotError(f"{where}: not an object")
    value = doc.get(key)
    if value is None and optional:
        return None
    if (isinstance(value, bool) and kind is int) or not isinstance(value, kind):
        raise SnapshotError(f"{where}.{key}: expected {getattr(kind, '__name__', kind)}, found {value!r}"[:300])
    return value


def _level(doc: Any, key: str, *, allowed: tuple[str, ...], where: str) -> str | None:
    value = _get(doc, key, kind=str, where=where, optional=True)
    if value is not None and value not in allowed:
        raise SnapshotError(f"{where}.{key}: {value!r} is not one of {', '.join(allowed)}")
    return value  # type: ignore[no-any-return]


def _latest(doc: Any, subject: str, *, where: str) -> SchemaVersion | None:
    if doc is None:
        return None
    refs = []
    for i, r in enumerate(_get(doc, "references", kind=list, where=where)):
        at = f"{where}.references[{i}]"
        refs.append(
            Reference(
                _get(r, "name", kind=str, where=at),
                _get(r, "subject", kind=str, where=at),
                _get(r, "version", kind=int, where=at),
            )
        )
    schema_type = _get(doc, "schemaType", kind=str, where=where)
    if schema_type not in SCHEMA_TYPES:
        raise SnapshotError(f"{where}.schemaType: {schema_type!r} is not one of {', '.join(SCHEMA_TYPES)}")
    return SchemaVersion(
        subject=subject,
        version=_get(doc, "version", kind=int, where=where),
        id=_get(doc, "id", kind=int, where=where),
        schema=_get(doc, "schema", kind=str, where=where),
        schema_type=schema_type,
        references=tuple(refs),
    )


def from_dict(doc: Any, *, where: str = SECTION) -> views.LiveSubjects | None:
    """The section ``to_dict`` wrote (``None`` when absent: the subjects were not read)."""
    if doc is None:
        return None
    features = _get(doc, "features", kind=Mapping, where=where)
    types = _get(features, "schemaTypes", kind=list, where=f"{where}.features")
    if not all(isinstance(t, str) for t in types):
        raise SnapshotError(f"{where}.features.schemaTypes: expected a list of names")
    subjects: dict[str, views.LiveSubject] = {}
    for name, s in _get(doc, "subjects", kind=Mapping, where=where).items():
        at = f"{where}.subjects[{name!r}]"
        latest = _latest(_get(s, "latest", kind=Mapping, where=at, optional=True), str(name), where=f"{at}.latest")
        level = _level(s, "compatibility", allowed=LEVELS, where=at)
        subjects[str(name)] = views.LiveSubject(str(name), latest, level, _level(s, "mode", allowed=MODES, where=at))
    return views.LiveSubjects(
        subjects=subjects,
        features=Features(mode=_get(features, "mode", kind=bool, where=f"{where}.features"), schema_types=tuple(types)),
        global_level=_level(doc, "globalLevel", allowed=LEVELS, where=where),
    )


def resources(live: views.LiveSubjects | None) -> dict[str, Any]:
    """One entry per subject (``schema_subject/<name>``), plain nested data for ``kafka-reconciler diff A B``: the
    latest version's number and id, its type, references and schema as canonical pretty-printed lines (a
    reformatted schema is no difference, a changed one differs by the lines that changed), its own level and mode,
    and the registry's global level (``schema_registry``); nothing when the registry was not read."""
    if live is None:
        return {}
    out: dict[str, Any] = {"schema_registry": {"global_level": live.global_level}}
    for name, s in sorted(live.subjects.items()):
        entry: dict[str, Any] = {"compatibility": s.compatibility, "mode": s.mode}
        if s.latest is not None:
            entry |= {
                "version": s.latest.version,
                "id": s.latest.id,
                "schema_type": s.latest.schema_type,
                "references": [r.as_json() for r in s.latest.references],
                "schema": schema_diff.pretty(s.latest.schema, s.latest.schema_type).split("\n"),
            }
        out[Kind.SCHEMA_SUBJECT.address(name)] = entry
    return out


def _write(live: state.ClusterState) -> dict[str, Any]:
    found = views.live_subjects(live)
    return {} if found is None else {SECTION: to_dict(found)}


def _read(doc: Mapping[str, Any]) -> dict[str, Any]:
    found = from_dict(doc.get(SECTION))
    return {} if found is None else {"sections": {Kind.SCHEMA_SUBJECT: found}}


SNAPSHOT = SnapshotSection(
    order=100,
    write=_write,
    read=_read,
    resources=lambda live: resources(views.live_subjects(live)),  # and the registry's global level
)

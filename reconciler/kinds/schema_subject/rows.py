"""Schema Registry subjects in the fleet row model ``(kind, name, attribute, value)``: declared and live subjects as
rows, and back.

Rows of kind ``schema_subject`` are named by the subject. The compared attributes join equal exactly when the
kind's diff sees no change: ``schema`` is the canonical text (``canonical.normalize``: a reformatted schema joins
equal), ``schemaType``, ``references`` (canonical JSON), and ``compatibility`` and ``mode`` where declared (on the
live side: where set on the subject). The rest travels in ``@`` rows: the schema text as written or held
(``@schema``), the declaration's topics, schema origin and source, the live version and id. The registry's
features and global level are the live metadata (``meta``); ``None`` when the registry was not read. ``FLEET_ROWS`` is
the kind's ``FleetRows`` (its declaration's ``rows``), with the Ownership rules that name subjects.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from reconciler.kinds.schema_subject import state as subject_state
from reconciler.kinds.schema_subject import views
from reconciler.kinds.schema_subject.state import SubjectRule
from reconciler.kinds.spec import FleetRows
from reconciler.model import desired
from reconciler.registry import canonical
from reconciler.registry.port import Features, SchemaVersion
from reconciler.registry.requests import Reference

Row = tuple[str, str, str, str | None]
Section = Mapping[str, Mapping[str, str | None]]
KIND = "schema_subject"


def _j(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _normalized(text: str, schema_type: str) -> str:
    try:
        return canonical.normalize(text, schema_type)
    except ValueError:
        return text  # held as the registry has it: it then differs from any valid declaration


def _refs(refs: tuple[Reference, ...]) -> str:
    return _j([r.as_json() for r in refs])


def _unrefs(text: str | None) -> tuple[Reference, ...]:
    return tuple(Reference(str(r["name"]), str(r["subject"]), int(r["version"])) for r in json.loads(text or "[]"))


def desired_rows(wanted: Mapping[str, views.DesiredSubject]) -> Iterator[Row]:
    """The rows of every declared subject."""
    for name, s in wanted.items():
        yield (KIND, name, "schema", _normalized(s.schema, s.schema_type))
        yield (KIND, name, "schemaType", s.schema_type)
        yield (KIND, name, "references", _refs(s.references))
        if s.compatibility is not None:
            yield (KIND, name, "compatibility", s.compatibility)
        if s.mode is not None:
            yield (KIND, name, "mode", s.mode)
        yield (KIND, name, "@schema", s.schema)
        if s.topics:
            yield (KIND, name, "@topics", _j(list(s.topics)))
        if s.schema_origin:
            yield (KIND, name, "@origin", s.schema_origin)
        if s.source is not None:
            src = s.source
            yield (KIND, name, "@source", _j([src.file, src.line, src.column, src.origin]))


def rebuild_desired(section: Section) -> dict[str, views.DesiredSubject]:
    """The declared subjects ``desired_rows`` made ``section`` (name -> attribute -> value) from."""
    out = {}
    for name, e in section.items():
        source = json.loads(str(e["@source"])) if "@source" in e else None
        out[name] = views.DesiredSubject(
            subject=name,
            schema=str(e["@schema"]),
            schema_type=str(e["schemaType"]),
            references=_unrefs(e.get("references")),
            compatibility=e.get("compatibility"),
            mode=e.get("mode"),
            topics=tuple(json.loads(str(e["@topics"]))) if "@topics" in e else (),
            schema_origin=str(e.get("@origin") or ""),
            source=None if source is None else desired.Source(*source),
        )
    return out


def meta(live: views.LiveSubjects | None) -> dict[str, Any] | None:
    """The registry's metadata: its features and global level (``None``: the registry was not read)."""
    if live is None:
        return None
    features = {"mode": live.features.mode, "schemaTypes": list(live.features.schema_types)}
    return {"features": features, "globalLevel": live.global_level}


def live_rows(live: views.LiveSubjects | None) -> Iterator[Row]:
    """The rows of every live subject (one without a version: its level and mode only)."""
    for name, s in (live.subjects if live is not None else {}).items():
        latest = s.latest
        if latest is not None:
            yield (KIND, name, "schema", _normalized(latest.schema, latest.schema_type))
            yield (KIND, name, "schemaType", latest.schema_type)
            yield (KIND, name, "references", _refs(latest.references))
            yield (KIND, name, "@schema", latest.schema)
            yield (KIND, name, "@version", _j([latest.version, latest.id]))
        else:
            yield (KIND, name, "@version", None)
        if s.compatibility is not None:
            yield (KIND, name, "compatibility", s.compatibility)
        if s.mode is not None:
            yield (KIND, name, "mode", s.mode)


def rebuild_live(doc: Mapping[str, Any] | None, section: Section) -> views.LiveSubjects | None:
    """The live subjects of ``meta``'s ``doc`` and the live rows in ``section`` (``live_rows`` inverse)."""
    if doc is None:
        return None
    subjects = {}
    for name, e in section.items():
        latest = None
        if e.get("@version") is not None:
            version, schema_id = json.loads(str(e["@version"]))
            latest = SchemaVersion(
                subject=name,
                version=int(version),
                id=int(schema_id),
                schema=str(e["@schema"]),
                schema_type=str(e["schemaType"]),
                references=_unrefs(e.get("references")),
            )
        subjects[name] = views.LiveSubject(name, latest, e.get("compatibility"), e.get("mode"))
    features = doc["features"]
    return views.LiveSubjects(
        subjects=subjects,
        features=Features(mode=bool(features["mode"]), schema_types=tuple(features["schemaTypes"])),
        global_level=doc.get("globalLevel"),
    )


def _rules(own: desired.Ownership) -> dict[str, Any]:
    rules = subject_state.subject_rules(own)
    return {"schema_subjects": [[r.pattern.kind, r.pattern.value, r.permanent] for r in rules]} if rules else {}


def _rebuild_rules(own: desired.Ownership, doc: Mapping[str, Any]) -> desired.Ownership:
    found = doc.get("schema_subjects", [])
    return subject_state.with_subject_rules(
        own, tuple(SubjectRule(desired.NamePattern(k, v), bool(p)) for k, v, p in found)
    )


FLEET_ROWS = FleetRows(
    desired_rows=lambda wanted: desired_rows(subject_state.declared_subjects(wanted)),
    rebuild_desired=lambda wanted, section: subject_state.with_declared_subjects(wanted, rebuild_desired(section)),
    live_rows=lambda live: live_rows(subject_state.live_subjects(live)),
    rebuild_live=lambda live, section, doc: subject_state.with_live_subjects(live, rebuild_live(doc, section)),
    meta=("schema_subjects", lambda live: meta(subject_state.live_subjects(live))),
    rules=_rules,
    rebuild_rules=_rebuild_rules,
)

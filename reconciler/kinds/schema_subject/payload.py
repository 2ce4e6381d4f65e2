"""A subject change as plan data: the typed ``before``/``after`` payload (``SubjectPayload``, the type plan files
decode the kind's changes with: it registers for the kind when defined), the attributes a plan shows (derived from
the payloads, never stored apart: ``subject_attributes``, ``SubjectPayload.shown``), and the change apply carries
out, read back from the payloads alone.

``before`` is the subject as the registry holds it (its latest version's number, type, text and references, its own
level and mode; for a delete, ``permanent`` says whether the delete removes it for good); ``after`` is what the plan
leaves (``None`` for a delete). A new version is written when ``after``'s schema differs from ``before``'s after
canonicalisation, or its type or references do; a level or mode when ``after`` names one that differs. So what a
plan shows and what apply sends come from the same data: ``change_of(payloads_of(c)) == c`` for every change the
diff makes (but the topics and schema origin, which only the plan's notes use). ``SubjectPayload.from_dict``
checks every value as strictly as the manifest field it came from and raises ``PayloadError`` naming what does not
fit.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from reconciler.kinds.schema_subject import views
from reconciler.kinds.schema_subject.diff import SubjectChange
from reconciler.model import desired, plans
from reconciler.model.attributes import AttributeChange, Writing
from reconciler.model.kinds import Kind
from reconciler.model.payload_errors import PayloadError, fields
from reconciler.model.payload_types import of_kind
from reconciler.registry import canonical
from reconciler.registry.requests import LEVELS, MODES, SCHEMA_TYPES, Reference

_FIELDS = ("schema_type", "schema", "references", "compatibility", "mode", "version", "permanent")


@of_kind(Kind.SCHEMA_SUBJECT)
@dataclasses.dataclass(frozen=True, slots=True)
class SubjectPayload:
    """One side of a subject change (see the module docstring)."""

    schema_type: str | None = None  # None: no version (a subject with a level or mode only)
    schema: str | None = None
    references: tuple[Reference, ...] = ()
    compatibility: str | None = None
    mode: str | None = None
    version: int | None = None  # the registry's latest version (before only)
    permanent: bool = False  # a delete's before only

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.schema is not None:
            out["schema_type"] = self.schema_type
            out["schema"] = self.schema
            out["references"] = [r.as_json() for r in self.references]
        for key in ("compatibility", "mode", "version"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.permanent:
            out["permanent"] = True
        return out

    @classmethod
    def from_dict(cls, data: Any) -> SubjectPayload:
        d = fields(data, _FIELDS)
        schema, schema_type = d.get("schema"), d.get("schema_type")
        if (schema is None) != (schema_type is None):
            raise PayloadError("the subject's schema and schema_type come together")
        if schema is not None and not isinstance(schema, str):
            raise PayloadError("the subject's schema is not text")
        if schema_type is not None and schema_type not in SCHEMA_TYPES:
            raise PayloadError(f"the subject's schema_type {schema_type!r} is not one of AVRO, JSON, PROTOBUF")
        refs = d.get("references", [])
        if not isinstance(refs, list):
            raise PayloadError("the subject's references are not a list")
        references = tuple(_reference(r) for r in refs)
        level, mode, version = d.get("compatibility"), d.get("mode"), d.get("version")
        if level is not None and level not in LEVELS:
            raise PayloadError(f"the subject's compatibility {level!r} is not a level the registry knows")
        if mode is not None and mode not in MODES:
            raise PayloadError(f"the subject's mode {mode!r} is not READWRITE, READONLY or IMPORT")
        if version is not None and (isinstance(version, bool) or not isinstance(version, int) or version < 1):
            raise PayloadError(f"the subject's version {version!r} is not a whole number >= 1")
        permanent = d.get("permanent", False)
        if not isinstance(permanent, bool):
            raise PayloadError("the subject's permanent is not true or false")
        return cls(schema_type, schema, references, level, mode, version, permanent)

    @classmethod
    def shown(
        cls, before: SubjectPayload | None, after: SubjectPayload | None, writing: Writing
    ) -> tuple[AttributeChange, ...] | None:
        """What a subject change shows (``subject_attributes``)."""
        return subject_attributes(before, None if writing.deleting else after)


def _reference(r: Any) -> Reference:
    d = fields(r, ("name", "subject", "version"))
    name, subject, version = d.get("name"), d.get("subject"), d.get("version")
    if not isinstance(name, str) or not name or not isinstance(subject, str) or not subject:
        raise PayloadError("a reference is not {name, subject, version}")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise PayloadError(f"the reference {name!r} has no whole version >= 1")
    return Reference(name, subject, version)


def new_version(before: SubjectPayload | None, after: SubjectPayload) -> bool:
    """Whether ``after`` writes a new version over ``before``: its schema differs after canonicalisation, or its type
    or references do."""
    if after.schema is None or after.schema_type is None:
        return False
    if before is None or before.schema is None or before.schema_type != after.schema_type:
        return True
    if before.references != after.references:
        return True
    try:
        return not canonical.same_schema(after.schema, before.schema, after.schema_type)
    except ValueError:
        return True


def _schema_text(schema: str | None, schema_type: str | None) -> str | None:
    if schema is None or schema_type is None:
        return None
    try:
        return canonical.normalize(schema, schema_type)
    except ValueError:
        return schema


def subject_attributes(before: SubjectPayload | None, after: SubjectPayload | None) -> tuple[AttributeChange, ...]:
    """What a subject change shows, derived from its payloads: the schema (canonical text) when a new version is
    written, its type and references when they change, the level and mode written, and how a delete deletes."""
    if after is None:
        how = "permanent" if before is not None and before.permanent else "soft"
        return (AttributeChange("delete", None, how),)
    out: list[AttributeChange] = []
    if new_version(before, after):
        was = before if before is not None else SubjectPayload()
        out.append(
            AttributeChange(
                "schema", _schema_text(was.schema, was.schema_type), _schema_text(after.schema, after.schema_type)
            )
        )
        if was.schema_type != after.schema_type:
            out.append(AttributeChange("schemaType", was.schema_type, after.schema_type))
        if was.references != after.references:
            shown = [[f"{r.name} = {r.subject} v{r.version}" for r in p.references] for p in (was, after)]
            out.append(AttributeChange("references", shown[0], shown[1]))
    for key in ("compatibility", "mode"):
        held = None if before is None else getattr(before, key)
        wanted = getattr(after, key)
        if wanted is not None and wanted != held:
            out.append(AttributeChange(key, held, wanted))
    return tuple(out)


def payloads_of(change: SubjectChange, live: views.LiveSubjects) -> tuple[SubjectPayload | None, SubjectPayload | None]:
    """The ``before`` and ``after`` of ``change`` (``before`` ``None``: the registry holds no version of it)."""
    have = live.subjects.get(change.subject)
    latest = None if have is None else have.latest
    before = None
    if latest is not None:
        before = SubjectPayload(
            latest.schema_type,
            latest.schema,
            tuple(latest.references),
            None if have is None else have.compatibility,
            None if have is None else have.mode,
            latest.version,
            permanent=change.action is plans.Action.DELETE and change.permanent,
        )
    if change.action is plans.Action.DELETE:
        return before, None
    want = change.register
    after = SubjectPayload(
        want.schema_type if want is not None else None if before is None else before.schema_type,
        want.schema if want is not None else None if before is None else before.schema,
        want.references if want is not None else () if before is None else before.references,
        change.level[1] if change.level is not None else None if before is None else before.compatibility,
        change.mode[1] if change.mode is not None else None if before is None else before.mode,
    )
    return before, after


def change_of(
    subject: str,
    action: plans.Action,
    *,
    before: SubjectPayload | None,
    after: SubjectPayload | None,
    source: desired.Source | None = None,
) -> SubjectChange:
    """The change apply carries out, from the plan's payloads alone."""
    if action is plans.Action.DELETE:
        return SubjectChange(
            subject,
            action,
            before_schema=None if before is None else before.schema,
            before_version=None if before is None else before.version,
            permanent=before is not None and before.permanent,
            source=source,
        )
    assert after is not None
    register = None
    if new_version(before, after):
        assert after.schema is not None and after.schema_type is not None
        register = views.DesiredSubject(subject, after.schema, after.schema_type, after.references, source=source)
    held_level = None if before is None else before.compatibility
    held_mode = None if before is None else before.mode
    level = None if after.compatibility in (None, held_level) else (held_level, str(after.compatibility))
    mode = None if after.mode in (None, held_mode) else (held_mode, str(after.mode))
    return SubjectChange(
        subject,
        action,
        register=register,
        before_schema=None if before is None else before.schema,
        before_version=None if before is None else before.version,
        level=level,
        mode=mode,
        source=source,
    )


def attributes(before: SubjectPayload | None, after: SubjectPayload | None) -> tuple[AttributeChange, ...]:
    """What a subject change shows, derived from its payloads (``subject_attributes``)."""
    return subject_attributes(before, after)

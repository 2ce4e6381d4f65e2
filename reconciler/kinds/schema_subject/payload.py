"""A subject change as plan data: the typed ``before``/``after`` payload, the attributes a plan shows (derived from
the payloads, never stored apart), and the change apply carries out, read back from the payloads alone.

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

from reconciler.kinds.schema_subject import views
from reconciler.kinds.schema_subject.diff import SubjectChange
from reconciler.model import desired, plans
from reconciler.model.attributes import AttributeChange
from reconciler.model.schema_subject_payload import SubjectPayload as SubjectPayload
from reconciler.model.schema_subject_payload import new_version, subject_attributes


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

"""The diff of declared subjects against the registry's: what a plan does to each subject.

A declared subject the registry does not hold (or holds no version of) is created: its schema registered, its level
and mode set. A held one whose latest version differs from the declared schema after canonicalisation
(``canonical.same_schema``: whitespace, key order, Avro's full names), or in its type or references, gets a new
version; a change of its level or mode is an update. A subject the registry holds and no manifest declares is
deleted only when an Ownership ``schemaSubjects`` rule owns it and deletes of the kind are allowed; the rule says
whether the delete is ``permanent`` (a soft delete otherwise). A mode is planned only where the server serves
``/mode``, and a schema type only where the server serves it; otherwise the subject is blocked, saying so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from reconciler.kinds.schema_subject import views
from reconciler.kinds.schema_subject.state import SubjectRule as SubjectRule
from reconciler.model import desired, plans
from reconciler.registry import canonical


def owning_rule(rules: Iterable[SubjectRule], subject: str) -> SubjectRule | None:
    """The first rule owning ``subject`` (``None``: not owned)."""
    return next((r for r in rules if r.pattern.matches(subject)), None)


@dataclasses.dataclass(frozen=True, slots=True)
class SubjectChange:
    """What a plan does to one subject.

    ``register``: the declared subject whose schema is registered as a new version (``None``: no new version);
    ``before_schema``: the latest version's text it replaces; ``level`` and ``mode``: (before, after) when they
    change; ``permanent``: a delete that removes the subject for good; ``reasons``: why a blocked change is."""

    subject: str
    action: plans.Action
    register: views.DesiredSubject | None = None
    before_schema: str | None = None
    before_version: int | None = None
    level: tuple[str | None, str] | None = None
    mode: tuple[str | None, str] | None = None
    permanent: bool = False
    reasons: tuple[str, ...] = ()
    source: desired.Source | None = None

    @property
    def address(self) -> str:
        return f"schema_subject/{self.subject}"


def _new_version(want: views.DesiredSubject, have: views.LiveSubject) -> bool:
    latest = have.latest
    if latest is None:
        return True
    if latest.schema_type != want.schema_type or tuple(latest.references) != want.references:
        return True
    try:
        return not canonical.same_schema(want.schema, latest.schema, want.schema_type)
    except ValueError:
        return True  # the registry's text does not parse as its type: register the declared one


def _unsupported(want: views.DesiredSubject, live: views.LiveSubjects) -> tuple[str, ...]:
    reasons: list[str] = []
    if want.mode is not None and not live.features.mode:
        reasons.append(f"mode {want.mode} is declared, and the registry does not serve /mode")
    types = live.features.schema_types
    if types and want.schema_type not in types:
        reasons.append(f"the registry serves schema types {', '.join(types)}, not {want.schema_type}")
    return tuple(reasons)


def _declared(want: views.DesiredSubject, have: views.LiveSubject | None, *, live: views.LiveSubjects) -> SubjectChange:
    reasons = _unsupported(want, live)
    if reasons:
        return SubjectChange(want.subject, plans.Action.BLOCKED, reasons=reasons, source=want.source)
    exists = have is not None and have.latest is not None
    current = have if have is not None else views.LiveSubject(want.subject, None)
    register = want if _new_version(want, current) else None
    level = None
    if want.compatibility is not None and want.compatibility != current.compatibility:
        level = (current.compatibility, want.compatibility)
    mode = None
    if want.mode is not None and want.mode != current.mode:
        mode = (current.mode, want.mode)
    if not exists:
        action = plans.Action.CREATE
    elif register is None and level is None and mode is None:
        action = plans.Action.NOOP
    else:
        action = plans.Action.UPDATE
    latest = current.latest
    return SubjectChange(
        want.subject,
        action,
        register=register,
        before_schema=None if latest is None else latest.schema,
        before_version=None if latest is None else latest.version,
        level=level,
        mode=mode,
        source=want.source,
    )


def diff(
    wanted: Mapping[str, views.DesiredSubject],
    live: views.LiveSubjects,
    *,
    rules: Iterable[SubjectRule] = (),
    may_delete: bool = False,
) -> list[SubjectChange]:
    """Every subject's change, by subject name (no-ops included, as ``Action.NOOP``)."""
    rules = tuple(rules)
    changes = [_declared(want, live.subjects.get(name), live=live) for name, want in sorted(wanted.items())]
    for name, have in sorted(live.subjects.items()):
        if name in wanted or have.latest is None:
            continue
        rule = owning_rule(rules, name)
        if rule is None or not may_delete:
            continue
        latest = have.latest
        changes.append(
            SubjectChange(
                name,
                plans.Action.DELETE,
                before_schema=latest.schema,
                before_version=latest.version,
                permanent=rule.permanent,
            )
        )
    return sorted(changes, key=lambda c: c.subject)

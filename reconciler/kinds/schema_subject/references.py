"""Whether the versions a new schema references exist: checked in the plan, so a missing one is blocked at the
manifest instead of refused by the registry at apply (Confluent: 42201) or failing the compatibility check.

A reference names a subject and a version. It is there when the subject is read for the plan and its latest version
is at least that version, when the plan registers the referenced subject's next version and the reference names it
(a new subject's version 1, a held one's latest + 1: the apply registers it first), or when the registry lists that
version of a subject the plan did not read (``needed`` names those subjects; their versions are evidence read with
the compatibility checks, ``GET /subjects/{s}/versions`` each). A version soft-deleted on Confluent is not listed
there, so it is missing; on Apicurio it still is (docs/schema-registry.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reconciler.kinds.schema_subject import views
from reconciler.kinds.schema_subject.diff import SubjectChange


def _planned(changes: Sequence[SubjectChange], live: views.LiveSubjects) -> dict[str, int]:
    """The version each subject the plan registers will get (its latest + 1, or 1)."""
    out = {}
    for c in changes:
        if c.register is not None and c.action.value in ("create", "update"):
            have = live.subjects.get(c.subject)
            latest = None if have is None or have.latest is None else have.latest.version
            out[c.subject] = 1 if latest is None else latest + 1
    return out


def needed(changes: Sequence[SubjectChange], live: views.LiveSubjects) -> tuple[str, ...]:
    """The referenced subjects whose versions must be asked: neither read for the plan nor registered by it."""
    planned = _planned(changes, live)
    return tuple(
        sorted(
            {
                r.subject
                for c in changes
                if c.register is not None
                for r in c.register.references
                if r.subject not in live.subjects and r.subject not in planned
            }
        )
    )


def problems(
    change: SubjectChange,
    changes: Sequence[SubjectChange],
    live: views.LiveSubjects,
    *,
    versions: Mapping[str, tuple[int, ...]] | None,
) -> tuple[str, ...]:
    """Why ``change``'s new version cannot be registered for its references (empty: each is there, or not known:
    ``versions`` is ``None`` for a plan made without the registry)."""
    if change.register is None:
        return ()
    planned = _planned(changes, live)
    found: list[str] = []
    for r in change.register.references:
        have = live.subjects.get(r.subject)
        if r.subject in planned and r.version == planned[r.subject]:
            continue
        if have is not None:
            latest = None if have.latest is None else have.latest.version
            if latest is not None and r.version <= latest:
                continue
            held = "no version" if latest is None else f"versions up to {latest}"
        elif versions is None or r.subject not in versions:
            continue  # not read: the registry decides at apply
        elif r.version in versions[r.subject]:
            continue
        else:
            listed = versions[r.subject]
            held = f"versions {', '.join(map(str, listed))}" if listed else "no version"
        found.append(
            f"reference {r.name!r} names version {r.version} of subject {r.subject}, which holds {held}"
            + (f" (this plan registers its version {planned[r.subject]})" if r.subject in planned else "")
        )
    return tuple(found)


def waits_for(change: SubjectChange, changes: Sequence[SubjectChange], live: views.LiveSubjects) -> tuple[str, ...]:
    """The subjects whose version ``change``'s new schema references and the plan registers first: the registry
    cannot check it before they exist."""
    if change.register is None:
        return ()
    planned = _planned(changes, live)
    return tuple(sorted({r.subject for r in change.register.references if planned.get(r.subject) == r.version}))

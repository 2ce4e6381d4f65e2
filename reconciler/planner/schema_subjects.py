"""Schema Registry subject changes: the kind's diff (``reconciler.kinds.schema_subject.diff``) judged by the
registry's own compatibility check read with the live subjects (``dryrun.judge``), as plan changes.

A new version or a change of level or mode is an update in the ``SCHEMA_SUBJECT`` phase (a subject the registry
does not hold is a create); a delete of an undeclared owned subject is in ``SCHEMA_SUBJECT_DELETE``. An
incompatible new version, a delete of a referenced subject and a missing reference are blocked at the manifest with
the registry's messages; a plan made without the registry (a snapshot) leaves new versions undecided, saying so,
and blocks deletes (their referrers were not read)."""

from __future__ import annotations

import dataclasses

from reconciler.kinds.schema_subject import diff, dryrun, impact, payload
from reconciler.kinds.schema_subject.render import notes
from reconciler.model import plans, schema_subjects
from reconciler.model.kinds import Kind
from reconciler.planner import common, views

KIND = Kind.SCHEMA_SUBJECT


def plan_subjects(ctx: common.Context) -> None:
    """Add the subject changes and unmanaged subjects to ``ctx``."""
    live = ctx.live.schema_subjects
    if live is None:
        if ctx.desired.schema_subjects:
            ctx.unreadable(
                KIND,
                "the Schema Registry was not read (name it under schemaRegistry: in the Cluster profile, or set "
                "SCHEMA_REGISTRY_URL); subjects are not planned",
                code="schema-subjects-unreadable",
            )
        return
    own = ctx.desired.ownership
    rules = own.schema_subjects if ctx.manages_undeclared(KIND) else ()
    changes = diff.diff(ctx.desired.schema_subjects, live, rules=rules, may_delete=ctx.may_delete(KIND))
    evidence = live.evidence if isinstance(live.evidence, dryrun.Evidence) else dryrun.Evidence()
    judged, verdicts = dryrun.judge(changes, live, evidence=evidence)
    for planned, change in zip(changes, judged, strict=True):
        _add(ctx, change, live, verdicts.get(change.subject), deleting=planned.action is plans.Action.DELETE)
    for name, have in sorted(live.subjects.items()):
        if name in ctx.desired.schema_subjects or have.latest is None:
            continue
        if ctx.manages_undeclared(KIND) and diff.owning_rule(own.schema_subjects, name) and not ctx.may_delete(KIND):
            ctx.keep_unmanaged(kind=KIND, name=name, address=KIND.address(name))


def _add(
    ctx: common.Context,
    change: diff.SubjectChange,
    live: schema_subjects.LiveSubjects,
    verdict: dryrun.Verdict | None,
    *,
    deleting: bool,
) -> None:
    if change.action is plans.Action.NOOP:
        ctx.unchanged[KIND] += 1
        return
    blocked = change.action is plans.Action.BLOCKED
    shape = dataclasses.replace(change, action=plans.Action.DELETE) if deleting else change
    before, after = payload.payloads_of(shape, live)
    finding = impact.assess(change, verdict, usage=ctx.live.topic_usage)
    phase = plans.Phase.SCHEMA_SUBJECT_DELETE if deleting else plans.Phase.SCHEMA_SUBJECT
    said = notes(dataclasses.replace(change, reasons=()), verdict, finding)
    ctx.changes.append(
        plans.Change(
            address=KIND.address(change.subject),
            kind=KIND,
            name=change.subject,
            action=change.action,
            phase=phase,
            before=before,
            after=after,
            reasons=change.reasons if blocked else (),
            warnings=tuple(said),
            fingerprint=views.fingerprint_of(schema_subjects.subject_view(live.subjects.get(change.subject))),
            source=common.source_text(change.source),
        )
    )

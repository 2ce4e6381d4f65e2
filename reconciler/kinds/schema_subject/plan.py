"""The planner's parts of the ``SchemaSubject`` kind: its changes (``plan_subjects``: the kind's diff, ``diff``,
judged by the registry's own compatibility check read with the live subjects, ``dryrun.judge``, as plan changes) and
its part of a plan's live fingerprint (``fingerprint_rows``).

A new version or a change of level or mode is an update in the ``SCHEMA_SUBJECT`` phase (a subject the registry
does not hold is a create); a delete of an undeclared owned subject is in ``SCHEMA_SUBJECT_DELETE``. An
incompatible new version, a delete of a referenced subject and a missing reference are blocked at the manifest with
the registry's messages; a plan made without the registry (a snapshot) leaves new versions undecided, saying so,
and blocks deletes (their referrers were not read)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from reconciler.kinds import spec
from reconciler.kinds.schema_subject import diff, dryrun, impact, payload
from reconciler.kinds.schema_subject import state as schema_subjects
from reconciler.kinds.schema_subject.render import notes
from reconciler.model import plans, state
from reconciler.model.kinds import Kind
from reconciler.planner import common, views

KIND = Kind.SCHEMA_SUBJECT


def plan_subjects(ctx: common.Context) -> None:
    """Add the subject changes and unmanaged subjects to ``ctx``."""
    live = schema_subjects.live_subjects(ctx.live)
    declared = schema_subjects.declared_subjects(ctx.desired)
    if live is None:
        if declared:
            ctx.unreadable(
                KIND,
                "the Schema Registry was not read (name it under schemaRegistry: in the Cluster profile, or set "
                "SCHEMA_REGISTRY_URL); subjects are not planned",
                code="schema-subjects-unreadable",
            )
        return
    owned = schema_subjects.subject_rules(ctx.desired.ownership)
    rules = owned if ctx.manages_undeclared(KIND) else ()
    changes = diff.diff(declared, live, rules=rules, may_delete=ctx.may_delete(KIND))
    evidence = live.evidence if isinstance(live.evidence, dryrun.Evidence) else dryrun.Evidence()
    judged, verdicts = dryrun.judge(changes, live, evidence=evidence)
    for planned, change in zip(changes, judged, strict=True):
        _add(ctx, change, live, verdicts.get(change.subject), deleting=planned.action is plans.Action.DELETE)
    for name, have in sorted(live.subjects.items()):
        if name in declared or have.latest is None:
            continue
        if ctx.manages_undeclared(KIND) and diff.owning_rule(owned, name) and not ctx.may_delete(KIND):
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


def fingerprint_rows(live: state.ClusterState) -> Any:
    """The subjects' part of a live fingerprint (``reconciler.planner.views.live_fingerprint``): the global level and
    each subject's view; ``None`` when the registry was not read."""
    subjects = schema_subjects.live_subjects(live)
    if subjects is None:
        return None
    return [subjects.global_level, [(n, schema_subjects.subject_view(s)) for n, s in sorted(subjects.subjects.items())]]


def _keep_subjects(live: state.ClusterState, keep: Callable[[Any, Any], bool]) -> state.ClusterState:
    subjects = schema_subjects.live_subjects(live)
    if subjects is None:
        return live
    kept = {n: s for n, s in subjects.subjects.items() if keep(n, s)}
    return schema_subjects.with_live_subjects(live, dataclasses.replace(subjects, subjects=kept))


def _count(live: state.ClusterState) -> int | None:
    subjects = schema_subjects.live_subjects(live)
    if subjects is None:
        return None
    return sum(1 for s in subjects.subjects.values() if schema_subjects.subject_view(s) is not None)


# The subjects' part of a plan's scope (``reconciler.planner.scope``): the subjects the Ownership rules own by name.
SCOPE = spec.KindScope(
    rule_sets=(
        spec.RuleSet(
            schema_subjects.SCOPE_KEY, lambda own: tuple(r.pattern for r in schema_subjects.subject_rules(own))
        ),
    ),
    owns=lambda rules, name, _: any(p.matches(name) for p in rules.get(schema_subjects.SCOPE_KEY, ())),
    keep=_keep_subjects,
    count=_count,
)

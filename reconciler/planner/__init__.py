"""The planner: ``plan(desired, live, *, options) -> Plan``, a pure function.

No I/O, no printing, no clock, no process-wide switches (the commands pause the garbage collector around it:
``reconciler.base.collector``): the same inputs give a byte-identical plan. Each resource kind's planner is the
``plan`` part of its declaration, in the kind's own place (``reconciler/kinds/<kind>/plan.py``), run in ``Kind``
order; this package keeps what the kinds' planners share and what runs across kinds: ``common`` (the run's
``Context``, config diffs), ``entities`` (the planner the group configs and client-metrics subscriptions share),
``guards`` (internal topics, name collisions, blocking at errors). ``unsupported`` blocks the kinds the cluster's
version cannot manage; ``lint`` adds cluster warnings; ``blast`` refuses a plan that deletes more than the limit; an
error-level finding about one resource blocks that resource's changes only (a global one, with no
address, makes apply refuse the whole plan); ``views`` defines the live view of each resource that change
fingerprints (and apply's staleness check) use, and the live fingerprint over each kind's ``fingerprint_rows``
part; ``scope`` says which live resources the plan depends on (declared, or owned by the Ownership rules) and
fingerprints them, so apply refuses a saved plan when any of them changed.
Unchanged resources are counted in ``Plan.unchanged``, not materialised as no-op changes. Each kind's ``impact``
part (``impact_parts``: the topics' today) says what its changes will do, from the evidence in
``ClusterState.impact`` when it was read.
"""

from __future__ import annotations

import dataclasses

from reconciler.kinds import registry, spec
from reconciler.model import desired, plans, state
from reconciler.model import impact as im
from reconciler.model.kinds import Kind
from reconciler.planner import blast, common, guards, lint, scope, unsupported
from reconciler.planner.common import PlanOptions
from reconciler.planner.views import fingerprint_of, live_fingerprint, live_view

__all__ = [
    "PlanOptions",
    "fingerprint_of",
    "impact_parts",
    "live_fingerprint",
    "live_view",
    "plan",
    "planned_kinds",
    "with_impact",
]


def planned_kinds(wanted: desired.DesiredState) -> frozenset[Kind]:
    """The kinds a plan covers (and whose live sections ``Plan.live_fingerprint`` covers)."""
    return wanted.needs()


def plan(
    wanted: desired.DesiredState,
    live: state.ClusterState,
    *,
    options: PlanOptions | None = None,
    assess_impact: bool = True,
) -> plans.Plan:
    """Compare the desired state with the live cluster and return the plan that reconciles them.

    ``assess_impact=False`` leaves the impact out (a first plan whose changes only name the evidence to read;
    ``with_impact`` adds it afterwards, giving the same plan as planning again with the evidence).
    """
    opts = options or PlanOptions()
    ctx = common.Context(desired=wanted, live=live, options=opts)
    kinds = planned_kinds(wanted)
    _run_planners(ctx, kinds=kinds, rotate_scram_users=bool(opts.rotate_scram_users))
    fingerprint = live_fingerprint(live, kinds=kinds)
    covered = scope.of(wanted, kinds)
    scoped_fingerprint, scoped_counts = scope.fingerprint(live, covered)
    changes, found = plans.sort_changes(ctx.changes), None
    if assess_impact:
        changes, found = _assess(changes, wanted, live)
    return plans.Plan(
        cluster=plans.ClusterInfo(
            cluster_id=live.cluster_id,
            controller_id=live.controller_id,
            brokers=tuple(sorted(live.brokers, key=lambda b: b.id)),
        ),
        changes=changes,
        warnings=tuple(sorted(ctx.warnings, key=_warning_order)),
        unmanaged=tuple(sorted(ctx.unmanaged, key=lambda u: (u.kind, u.address))),
        live_fingerprint=fingerprint,
        options={**opts.to_dict(), "kinds": sorted(k.value for k in kinds)},
        unchanged=dict(sorted(ctx.unchanged.items())),
        impact=found,
        scope={**covered.to_dict(), "fingerprints": scoped_fingerprint, "counts": scoped_counts},
    )


def _run_planners(ctx: common.Context, *, kinds: frozenset[Kind], rotate_scram_users: bool) -> None:
    """Run each kind's planner into ``ctx``, then the lints, the blast-radius check and the blocking guards."""
    # A password rotation asked for plans SCRAM users even where the manifests declare none.
    wanted = kinds | ({Kind.SCRAM_USER} if rotate_scram_users else frozenset())
    # A kind the cluster's version cannot manage: its declared resources are blocked, its planner not run.
    blocked = unsupported.unsupported_kinds(ctx, wanted)
    for kind, reason in sorted(blocked.items()):
        unsupported.block_kind(ctx, kind, reason)
    for kind in registry.KINDS:  # in Kind order
        if kind in wanted and kind not in blocked:
            registry.spec(kind).plan.get()(ctx)
    lint.lint(ctx)
    blast.check(ctx)
    guards.block_at_errors(ctx.changes, ctx.warnings)


def with_impact(first: plans.Plan, wanted: desired.DesiredState, live: state.ClusterState) -> plans.Plan:
    """``first`` (planned with ``assess_impact=False`` against the same state without ``live.impact``) with the
    impact that ``live``'s evidence gives: the plan that ``plan(wanted, live)`` returns, without planning again."""
    changes, found = _assess(first.changes, wanted, live)
    return dataclasses.replace(first, changes=changes, impact=found)


def impact_parts() -> tuple[spec.KindImpact, ...]:
    """The ``impact`` parts the kinds declare (all but the default ``spec.DEFAULT_IMPACT``), in ``Kind`` order.

    At most one: the topics' today. Two kinds' findings would have to be combined into the one ``Plan.impact`` (in
    which order their entries stand, the evidence's notes said once) and their evidence requests into one read, which
    has no design yet; so a second kind declaring an impact raises ``ValueError`` here (the registry's unit tests call
    this) rather than one kind's findings silently replacing another's.
    """
    declaring = [kind for kind, declared in registry.KINDS.items() if declared.impact != spec.DEFAULT_IMPACT]
    if len(declaring) > 1:
        raise ValueError(
            f"{' and '.join(k.value for k in declaring)} each declare an impact, but a plan takes one kind's "
            "(reconciler.planner.impact_parts): combining several kinds' findings into Plan.impact needs a design"
        )
    return tuple(registry.spec(kind).impact.get() for kind in declaring)


def _assess(
    changes: tuple[plans.Change, ...], wanted: desired.DesiredState, live: state.ClusterState
) -> tuple[tuple[plans.Change, ...], im.PlanImpact | None]:
    """``changes`` with each declared impact's warnings added (in ``Kind`` order), and the one kind's findings."""
    found = None
    for declared in impact_parts():
        changes, found = declared.assess(changes, wanted, live)
    return changes, found


def _warning_order(w: plans.PlanWarning) -> tuple[int, str, str, str]:
    return (0 if w.severity == "error" else 1, w.address or "", w.code, w.message)

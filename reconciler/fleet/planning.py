"""One cluster's step of the fleet pipeline, shared by both engines: joined rows in, plan and drift out.

Both engines run the same functions per cluster; they differ only in where a cluster is planned: the local engine
in this process (``reconciler.fleet.local.run_local``), the Spark engine inside an executor task, which runs that
same loop over its share of the clusters (``reconciler.fleet.spark``). For each cluster the desired rows of its
manifest set and the live rows read from its cluster or snapshot are matched with an in-memory hash join on
``(kind, name, attribute)`` (``hash_join``); ``plan_joined`` rebuilds the desired and live state from the joined
rows (with the digests of the declared connector secrets, as an offline plan takes them) and calls the
single-cluster planner, so ownership, delete policy, internal topics, blocked changes, redaction,
lint and fingerprints follow one definition of the rules. The join itself says which resources differ attribute by
attribute (a declared connector secret by its digest, as the plan compares it); the drift records name those
attributes for the resources the plan acts on.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from typing import Any

from reconciler import planner
from reconciler.base import collector
from reconciler.fleet import rows
from reconciler.model import plans, state

# (kind, name, attribute, desired present, desired value, live present, live value)
Joined = tuple[str, str, str, bool, str | None, bool, str | None]

STATUS_PLANNED = "planned"
STATUS_UNREADABLE = "unreadable"
STATUS_FAILED = "failed"
STATUS_SKIPPED = "skipped"  # not read: the run's deadline had passed
ACTIONS = plans.SUMMARY_COUNTS
MAX_DRIFT_ATTRIBUTES = 20


@dataclasses.dataclass(frozen=True, slots=True)
class Drift:
    """One resource the plan acts on, with the attributes the join found different."""

    kind: str
    name: str
    action: str  # create, update, delete, blocked or unmanaged
    attributes: int  # how many attributes differ
    names: tuple[str, ...]  # the first MAX_DRIFT_ATTRIBUTES of them, sorted

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "names": list(self.names)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Drift:
        return cls(str(d["kind"]), str(d["name"]), str(d["action"]), int(d["attributes"]), tuple(d["names"]))


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterOutcome:
    """What the pipeline produced for one cluster: its plan (JSON text), or why there is none."""

    cluster: str
    status: str
    reason: str | None = None
    plan_json: str | None = None
    drift: tuple[Drift, ...] = ()
    rows: int = 0  # joined rows planned
    differing: int = 0  # resources the join found different (owned or not)
    digest: PlanDigest | None = None  # what the summary needs from the plan, so the driver never re-parses it
    planned_in: str | None = None  # the run that made the plan, when an earlier run did (fleet plan --retry-failed)

    def plan(self) -> plans.Plan | None:
        return None if self.plan_json is None else plans.Plan.from_json_dict(json.loads(self.plan_json))


@dataclasses.dataclass(frozen=True, slots=True)
class PlanDigest:
    """The numbers the fleet summary takes from one plan, computed where the plan is made."""

    cluster_id: str | None
    checksum: str  # the plan file's checksum: the plan's fingerprint
    counts: dict[str, int]  # action -> resources (the plan summary's rules)
    by_kind: dict[str, dict[str, int]]  # kind -> action -> resources
    warnings: int
    errors: int
    impact: dict[str, Any] | None = None  # the plan's impact figures (``PlanImpact.figures``), None: no impact

    @classmethod
    def of(cls, p: plans.Plan, checksum: str) -> PlanDigest:
        summary = p.summary()
        return cls(
            cluster_id=p.cluster.cluster_id,
            checksum=checksum,
            counts={a: int(getattr(summary, a)) for a in ACTIONS},
            by_kind={k.value: counts for k, counts in p.counts_by_kind().items()},
            warnings=len(p.warnings),
            errors=sum(1 for w in p.warnings if w.severity == "error"),
            impact=None if p.impact is None else p.impact.figures(),
        )

    @property
    def has_changes(self) -> bool:
        return any(self.counts[a] for a in ("create", "update", "delete"))


def hash_join(desired_rows: Iterable[rows.Row], live_rows: Iterable[rows.Row]) -> list[Joined]:
    """Full outer join of one cluster's two sides on ``(kind, name, attribute)``, built on the live side."""
    build: dict[tuple[str, str, str], str | None] = {(k, n, a): v for k, n, a, v in live_rows}
    out: list[Joined] = []
    append = out.append
    pop = build.pop
    missing = object()
    for kind, name, attribute, value in desired_rows:
        have: Any = pop((kind, name, attribute), missing)
        if have is missing:
            append((kind, name, attribute, True, value, False, None))
        else:
            append((kind, name, attribute, True, value, True, have))
    for (kind, name, attribute), value in build.items():
        append((kind, name, attribute, False, None, True, value))
    return out


def differing_attributes(joined: Iterable[Joined]) -> dict[tuple[str, str], list[str]]:
    """``(kind, name) -> attributes that differ`` for every resource whose two sides are not equal.

    A resource on one side only differs in every attribute it has. Meta rows and ``@`` attributes
    are not compared; an attribute a declaration may leave out (a topic's assignment) only differs
    when it is declared.
    """
    out: dict[tuple[str, str], list[str]] = {}
    optional = rows.optional_attributes()
    meta = rows.META_KINDS
    compared = [j for j in joined if j[0] not in meta and not j[2].startswith("@")]
    declared = {(j[0], j[1]) for j in compared if j[3]}
    for kind, name, attribute, d_has, d_value, l_has, l_value in compared:
        if d_has and l_has and d_value == l_value:
            continue
        if not d_has and (kind, attribute) in optional and (kind, name) in declared:
            continue
        out.setdefault((kind, name), []).append(attribute)
    return out


def _drift(plan: plans.Plan, differing: dict[tuple[str, str], list[str]]) -> tuple[Drift, ...]:
    strongest: dict[tuple[str, str], plans.Action] = {}
    for c in plan.changes:
        key = (c.kind, c.name)
        prev = strongest.get(key)
        if prev is None or c.action.rank > prev.rank:
            strongest[key] = c.action
    actions = {key: a.value for key, a in strongest.items()}
    for u in plan.unmanaged:
        actions.setdefault((u.kind, u.name), "unmanaged")
    out = []
    for (kind, name), action in sorted(actions.items()):
        names = sorted(differing.get((kind, name), ()))
        out.append(Drift(kind, name, action, len(names), tuple(names[:MAX_DRIFT_ATTRIBUTES])))
    return tuple(out)


def split(joined: Sequence[Joined]) -> tuple[list[rows.Row], list[rows.Row]]:
    """The desired rows and the live rows of a cluster's joined rows."""
    want = [(k, n, a, dv) for k, n, a, dh, dv, _lh, _lv in joined if dh]
    have = [(k, n, a, lv) for k, n, a, _dh, _dv, lh, lv in joined if lh]
    return want, have


def _with_resolved(
    joined: Sequence[Joined], want_rows: Sequence[rows.Row], live_rows: Sequence[rows.Row], live: state.ClusterState
) -> Sequence[Joined]:
    """``joined`` with the desired-side rows of what the kinds resolved where the cluster is planned (each declared
    connector secret as its digest: the desired rows hold only its reference), so the drift records compare as the
    plan does; an unresolvable secret differs."""
    extra = rows.resolved_rows(live)
    if not extra:
        return joined
    return hash_join([*want_rows, *extra], live_rows)


def plan_joined(cluster: str, joined: Sequence[Joined]) -> ClusterOutcome:
    """Rebuild both states from the joined rows, plan them with ``planner.plan``, and name the drift."""
    want_rows, live_rows = split(joined)
    for kind, _name, _attribute, value in live_rows:
        if kind == rows.ERROR:
            return ClusterOutcome(cluster=cluster, status=STATUS_UNREADABLE, reason=value or "unknown error")
    wanted = rows.rebuild_desired(want_rows)
    # What the rows never hold (a declared connector secret's digest) is resolved here, where the cluster is planned.
    live = rows.resolve(rows.rebuild_live(live_rows), wanted)
    with collector.paused():
        result = planner.plan(wanted, live)
    differing = differing_attributes(_with_resolved(joined, want_rows, live_rows, live))
    doc = result.to_json_dict()
    return ClusterOutcome(
        cluster=cluster,
        status=STATUS_PLANNED,
        plan_json=json.dumps(doc, indent=2) + "\n",  # exactly Plan.to_json()
        drift=_drift(result, differing),
        rows=len(joined),
        differing=len(differing),
        digest=PlanDigest.of(result, str(doc["checksum"])),
    )


def skipped(cluster: str) -> ClusterOutcome:
    return ClusterOutcome(
        cluster=cluster, status=STATUS_SKIPPED, reason="not read: the run's deadline (--deadline) had passed"
    )

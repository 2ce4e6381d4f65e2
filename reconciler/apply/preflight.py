"""Checks of the plan against the cluster, run before the first write: cluster identity, staleness (each change's
resource, and everything in the plan's scope).

Each check raises a ``ReconcilerError`` (exit code 1) with a message that names the resources
involved; when any of them fails, nothing has been written. The plan's own checks (its shape and findings, each
change decodable) are ``decoded``'s, before anything is read, with the refusals kept here: ``ImpossiblePlan``, and
``CannotDecode``, what decoding a change raises (``decoded`` and each phase's decoder). The secrets the writes need
are read by ``secrets_at_write``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from reconciler.base import errors
from reconciler.model import plans, state
from reconciler.model.kinds import Kind
from reconciler.planner import scope, views

MAX_LISTED = 10


class CannotDecode(ValueError):
    """A change lacks what is needed to carry it out (its data does not describe its resource)."""


class ImpossiblePlan(errors.PlanFileError):
    """The plan's phases hold changes that cannot be carried out as written."""


def name_list(items: Sequence[str]) -> str:
    shown = ", ".join(items[:MAX_LISTED])
    return shown + (f" and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else "")


def check_cluster(p: plans.Plan, live: state.ClusterState) -> None:
    """Refuse a plan made for another cluster."""
    want, have = p.cluster.cluster_id, live.cluster_id
    if want is not None and have is not None and want != have:
        raise errors.PlanFileError(
            f"the plan was made for cluster {want}, but the connection reaches cluster {have}; nothing was written"
        )


def check_fresh(changes: Iterable[plans.Change], live: state.ClusterState) -> None:
    """Refuse (``StalePlan``) when any affected resource differs from what the plan was computed from."""
    changed: dict[str, str] = {}
    seen: set[str] = set()
    for c in plans.sort_changes(changes):
        # The first change of a resource (in phase order) was computed from the live resource; a later
        # one may follow it (a re-create after a delete) and describe the state it leaves.
        if c.address in seen:
            continue
        seen.add(c.address)
        if c.kind in live.unavailable:
            raise errors.StalePlan(
                f"cannot verify that the plan is current: {c.kind} could not be read ({live.unavailable[c.kind]}); "
                "nothing was written"
            )
        unread = live.unread_entities.get(c.kind.value, {}).get(c.name)
        if unread is not None:
            raise errors.StalePlan(f"cannot verify that the plan is current: {unread}; nothing was written")
        now = views.fingerprint_of(views.live_view(live, kind=c.kind, name=c.name))
        if now == c.fingerprint:
            continue
        if c.fingerprint is None:
            changed[c.address] = "now exists"
        elif now is None:
            changed[c.address] = "no longer exists"
        else:
            changed[c.address] = "changed"
    if changed:
        listed = [f"{addr} ({why})" for addr, why in sorted(changed.items())]
        raise errors.StalePlan(
            f"the cluster changed since the plan was made: {name_list(listed)}. Nothing was written; run plan again."
        )


def check_scope(p: plans.Plan, read: Callable[[frozenset[Kind], Callable[[str], bool]], state.ClusterState]) -> None:
    """Refuse (``StalePlan``) when anything in the plan's scope changed since it was made: a resource the manifests
    declare, or one the Ownership rules own (``reconciler.planner.scope``). ``read(kinds, topic_filter)`` reads the
    live state again. A plan without a recorded scope (an older release's) is checked per change only."""
    if p.scope is None:
        return
    covered = scope.Scope.from_dict(p.scope)
    in_scope = covered.contains(Kind.TOPIC)
    moved = scope.changed(read(covered.kinds, lambda name: in_scope(name, None)), p.scope)
    if moved:
        raise errors.StalePlan(
            "the cluster changed since the plan was made, in the plan's scope (what the manifests declare or the "
            f"Ownership rules own): {'; '.join(moved)}. Nothing was written; run plan again."
        )

"""The library steps the commands share: load manifests, read live state, plan.

Each function does one step of the flow (manifests -> desired state; adapter -> ``ClusterState``;
planner -> ``Plan``) so the CLI, the fleet runner and tests call the same code. Connection options become
``ConnectionSettings`` in ``reconciler.connection.layers``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from reconciler import manifests, planner
from reconciler.base import errors
from reconciler.model import desired, plans, state
from reconciler.model.kinds import Kind
from reconciler.planner import impact as planner_impact


def load_manifests(
    paths: Sequence[Path], *, environment: str | None = None, env: Mapping[str, str] | None = None
) -> manifests.LoadResult:
    """Load and validate manifests; raises ``ValidationFailed`` with every diagnostic."""
    return manifests.load(list(paths), environment=environment, env=env)


def read_filters(
    wanted: desired.DesiredState,
) -> tuple[Callable[[str], bool], Callable[[str], bool]]:
    """Topic and principal filters so the read covers only what the manifests and ownership rules need."""
    declared_topics = frozenset(wanted.topics)
    # Live topics whose names collide with a declared one ('.' and '_' alike) are read too: the planner blocks
    # such a create instead of letting the broker refuse it at apply.
    collision_keys = frozenset(desired.topic_collision_key(n) for n in declared_topics)
    ownership = wanted.ownership
    principals = {b.principal for b in wanted.acls}
    principals |= {f"User:{name}" for name in wanted.scram_users}
    for entity in wanted.quotas:
        principals |= {f"User:{n}" for t, n in entity.parts if t == "user" and n is not None}

    def topic_filter(name: str) -> bool:
        return (
            name in declared_topics or ownership.owns_topic(name) or desired.topic_collision_key(name) in collision_keys
        )

    if ownership.quota_entities:
        # Quota entities owned by name may name any user: read every principal (the planner applies ownership).
        return topic_filter, lambda _principal: True

    def principal_filter(principal: str) -> bool:
        return principal in principals or ownership.owns_principal(principal)

    return topic_filter, principal_filter


def read_live(adapter: Any, wanted: desired.DesiredState) -> state.ClusterState:
    """Read what ``wanted`` needs from the cluster; a kind the cluster's version cannot manage is left unread (the
    plan blocks its changes, naming what the cluster lacks)."""
    kinds = planner.planned_kinds(wanted)
    topic_filter, principal_filter = read_filters(wanted)
    live: state.ClusterState = adapter.read_state(
        kinds=kinds, topic_filter=topic_filter, principal_filter=principal_filter
    )
    return live


def make_plan(
    wanted: desired.DesiredState,
    live: state.ClusterState,
    *,
    rotate_passwords: Sequence[str] = (),
    target: str | None = None,
    adapter: Any = None,
    allow_delete_in_use: bool = False,
    in_use_window_ms: int | None = None,
    max_deletes: int | None = None,
) -> plans.Plan:
    """Run the pure planner with the command-line options; ``target`` (how the cluster was reached) goes into
    the plan's header.

    With an ``adapter``, the usage and impact evidence of the topics the plan changes is read first
    (``with_evidence``), so each delete shows what it would destroy (one of a topic in use is blocked unless
    ``allow_delete_in_use``) and each change what it will do (``reconciler.planner.impact``).
    """
    unknown = sorted(set(rotate_passwords) - set(wanted.scram_users))
    if unknown:
        raise errors.ConfigError(
            f"--rotate-password names SCRAM user(s) not declared in the manifests: {', '.join(unknown)}"
        )
    options = planner.PlanOptions(
        rotate_scram_users=frozenset(rotate_passwords),
        allow_delete_in_use=allow_delete_in_use,
        max_deletes=max_deletes,
        **({} if in_use_window_ms is None else {"in_use_window_ms": in_use_window_ms}),
    )
    if adapter is not None and (live.topic_usage is None or live.impact is None):
        # The first plan names the topics whose evidence is read; when only impact evidence was added (no usage,
        # which can block deletes), the impact is attached to it instead of planning everything again.
        first = planner.plan(wanted, live, options=options, assess_impact=False)
        read = with_evidence(adapter, wanted, live, first=first)
        if read.topic_usage is live.topic_usage:
            result = planner.with_impact(first, wanted, read)
        else:
            result = planner.plan(wanted, read, options=options)
    else:
        result = planner.plan(wanted, live, options=options)
    if target is None:
        return result
    return dataclasses.replace(result, cluster=dataclasses.replace(result.cluster, target=target))


def with_evidence(
    adapter: Any, wanted: desired.DesiredState, live: state.ClusterState, *, first: plans.Plan | None = None
) -> state.ClusterState:
    """``live`` with the usage evidence of the topics a plan deletes or adds partitions to, and the impact evidence
    of the topics it changes (``live`` unchanged when it changes none, or already carries the evidence).

    The topics come from a first plan (``first``, else planned here); the evidence is read for exactly those, in
    batched requests.
    """
    if live.topic_usage is not None and live.impact is not None:
        return live
    if first is None:
        first = planner.plan(wanted, live, assess_impact=False)
    topic_changes = [c for c in first.changes if c.kind == Kind.TOPIC]
    if live.topic_usage is None:
        used = sorted({c.name for c in topic_changes if c.phase in _USAGE_PHASES and c.action is not plans.Action.NOOP})
        if used:
            live = dataclasses.replace(live, topic_usage=adapter.read_topic_usage(used))
    if live.impact is None:
        request = planner_impact.needs(topic_changes, wanted, live)
        if request:
            live = dataclasses.replace(live, impact=adapter.read_impact_evidence(request))
    return live


_USAGE_PHASES = (plans.Phase.TOPIC_DELETE, plans.Phase.PARTITIONS)

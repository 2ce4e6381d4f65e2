"""The blast-radius limit: a plan that deletes more resources than allowed is refused as a whole.

A mass delete is most often a mistake (a directory left out of the paths, an ownership rule wider than meant),
and a deleted topic takes its data with it. The limit is ``PlanOptions.max_deletes`` when a run raises it
(``--max-deletes N``), else the Ownership document's ``maxDeletes``, else ``defaults.MAX_DELETES`` (10). Every
resource the plan deletes counts (topics, ACL bindings, quotas, SCRAM users, broker configs, group configs,
client-metrics subscriptions), once per address;
deletes the plan already blocks (a topic in use) do not. Over the limit, the plan carries one error-level finding
(``too-many-deletes``) that names the count, the limit and where it came from, and how to raise it for one run:
apply then refuses the whole plan before any write, and the deletes stay listed so a reviewer sees what they are.
"""

from __future__ import annotations

from collections import Counter

from reconciler.base.terminal import count
from reconciler.model import defaults, plans
from reconciler.model.kinds import Kind
from reconciler.planner import common

DEFAULT_MAX_DELETES = defaults.MAX_DELETES
CODE = "too-many-deletes"


def limit(ctx: common.Context) -> tuple[int, str]:
    """The limit that applies to this run, and where it comes from (for the message)."""
    if ctx.options.max_deletes is not None:
        return ctx.options.max_deletes, "--max-deletes"
    ownership = ctx.desired.ownership
    if ownership.max_deletes is not None:
        where = f" at {ownership.source}" if ownership.source is not None else ""
        return ownership.max_deletes, f"the Ownership document's maxDeletes{where}"
    return DEFAULT_MAX_DELETES, "the default limit"


def deleted(changes: list[plans.Change]) -> dict[str, plans.Change]:
    """Address -> a delete change of it, for every address the plan deletes."""
    return {c.address: c for c in changes if c.action is plans.Action.DELETE}


def check(ctx: common.Context) -> None:
    """Add the ``too-many-deletes`` error to ``ctx`` when its changes delete more resources than the limit."""
    doomed = deleted(ctx.changes)
    allowed, origin = limit(ctx)
    if len(doomed) <= allowed:
        return
    kinds = Counter(c.kind for c in doomed.values())
    parts = ", ".join(f"{kind.heading}: {kinds[kind]}" for kind in Kind if kinds[kind])
    ctx.warn(
        f"this plan deletes {count(len(doomed), 'resource')} ({parts}), more than the limit of {allowed} set by "
        f"{origin}; apply refuses the whole plan and writes nothing. Check the deletions: if every one is meant, "
        f"allow them for this run with --max-deletes {len(doomed)} (plan and apply), or for every run with "
        f"maxDeletes: {len(doomed)} in the Ownership document's spec",
        code=CODE,
        severity="error",
    )

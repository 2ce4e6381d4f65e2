"""Resolve the items whose answer was lost by reading the cluster, before anything is reported about them.

A write whose connection reset or stalled while its answer was on the way, or which timed out, may or may not have
been carried out (KIP-4: the controller goes on with a request whose client stopped waiting). Reporting it as failed
would be a guess. So after each phase, the items left failed for such a reason are read back (the read-back's own
check, ``verify``), waiting briefly for brokers that learn of a change late:

- the cluster shows the change: **applied** (the note says the answer was lost);
- it does not: **failed**, with what the cluster shows instead;
- the read fails too (the connection is still down, the deadline is spent): **unknown**, and only then.

Dependants of an item resolved as applied go ahead in later phases, as they would after an answer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from reconciler.apply import decoded, verify
from reconciler.apply.apply_report import ItemOutcome, Outcome
from reconciler.apply.batch import CONNECTION_ERROR, ApplyContext
from reconciler.base import errors
from reconciler.model import state

# Errors after which a write's outcome is not known from its answer.
IN_DOUBT = frozenset({CONNECTION_ERROR, "REQUEST_TIMED_OUT", "NETWORK_EXCEPTION"})
SETTLE_S = 5.0  # how long a resolving read waits for brokers to show a change the controller accepted
POLL_S = 0.5

Read = Callable[[Sequence[decoded.Operation]], state.ClusterState]


def in_doubt(item: ItemOutcome) -> bool:
    """Whether ``item`` failed in a way that leaves its write's outcome unknown."""
    return item.outcome is Outcome.FAILED and item.error_name in IN_DOUBT


def resolve(
    ctx: ApplyContext, ops: Sequence[decoded.Operation], done: list[ItemOutcome], *, read: Read
) -> list[ItemOutcome]:
    """``done`` with every in-doubt item of ``ops`` resolved by reading the cluster (see the module docstring)."""
    doubtful_at = {o.address for o in done if in_doubt(o)}
    doubtful = [op for op in ops if op.address in doubtful_at]
    if ctx.dry_run or not doubtful:
        return done
    try:
        left = ctx.settle(lambda: verify.not_converged(doubtful, read(doubtful)), settle_s=SETTLE_S, poll_s=POLL_S)
    except errors.ReconcilerError as exc:
        why = f"its answer was lost, and reading the cluster to learn whether it was applied failed too: {exc}"
        return [_unknown(o, why) if o.address in doubtful_at else o for o in done]
    differs = {m.address: m.detail for m in left}
    resolved = [_judged(o, differs.get(o.address)) if o.address in doubtful_at else o for o in done]
    applied = len(doubtful) - len(differs)
    ctx.notes.append(
        f"{len(doubtful)} answer(s) lost on the way; read from the cluster: {applied} applied, "
        f"{len(differs)} not applied"
    )
    return resolved


def _judged(item: ItemOutcome, differs: str | None) -> ItemOutcome:
    lost = f"the answer was lost ({item.error_name}: {item.message})" if item.message else "the answer was lost"
    if differs is None:
        return dataclasses.replace(
            item,
            outcome=Outcome.APPLIED,
            error_code=None,
            error_name=None,
            message=f"{lost}; the cluster, read afterwards, shows it applied",
        )
    return dataclasses.replace(item, message=f"{lost}; not applied: the cluster, read afterwards, differs ({differs})")


def _unknown(item: ItemOutcome, why: str) -> ItemOutcome:
    message = f"{item.message}; {why}" if item.message else why
    return dataclasses.replace(item, outcome=Outcome.UNKNOWN, message=message)

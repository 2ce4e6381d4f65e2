"""How an apply shares its deadline between writing and reading back, and what it says of a change never sent.

A write whose answer does not come (a connection that stalls part-way through the answer) would otherwise be waited
for until the deadline, leaving no time to read whether the broker carried it out: every such item would end
``unknown``, or worse, ``failed`` without anyone having looked. So the last part of the deadline (``reserve_s``: a
quarter, at least 1 s, at most 30 s) is kept for reads: no write is sent or waited for in it (``ApplyContext.
writes_left``, the wire's ``limit_waits(reserve_s=...)``), and what was sent is resolved by reading (``lost``).

A change the time limit kept from being sent is **not sent** (``Outcome.NOT_SENT``): never ``failed`` (the broker
said nothing of it) nor ``unknown`` (nothing is in doubt), and its message names the time limit, not a lost answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from reconciler.apply import decoded, outcomes
from reconciler.apply.apply_report import ItemOutcome
from reconciler.apply.batch import CONNECTION_ERROR, ApplyContext
from reconciler.base import errors
from reconciler.model import plans

RESERVE_SHARE, RESERVE_MIN_S, RESERVE_MAX_S = 0.25, 1.0, 30.0
SPENT_S = 0.25  # a deadline with less left than this was reached: no request could be sent and answered in it


def reserve_s(total_s: float) -> float:
    """The part of an apply's deadline of ``total_s`` kept for reading back (no write is sent or waited for in it)."""
    return min(RESERVE_MAX_S, max(RESERVE_MIN_S, RESERVE_SHARE * total_s), total_s / 2)


def no_time(ctx: ApplyContext, phase: plans.Phase) -> str:
    """Why the changes of ``phase`` were not sent: the time limit came before the phase could begin."""
    kept = "the rest is kept for reading back what was sent" if ctx.deadline.remaining() > SPENT_S else "it is spent"
    return f"not sent: the apply's time limit came before the {phase.label} phase could begin ({kept})"


def run_phase(
    ctx: ApplyContext,
    phase: plans.Phase,
    send: Sequence[decoded.Operation],
    run: Callable[[], list[ItemOutcome]],
) -> list[ItemOutcome]:
    """``run()`` for the phase's changes ``send`` (with its progress events), unless the time for writes is spent
    (each then not sent). The time limit reached inside the phase (``DeadlineReached``) before it sent anything
    leaves each change not sent; after it sent some, in doubt (``CONNECTION_ERROR``: ``lost`` reads what happened)."""
    if ctx.writes_left() <= SPENT_S:
        return [outcomes.not_sent(op.change, no_time(ctx, phase)) for op in send]
    before = ctx.adapter.request_count
    try:  # progress advances as each write request is answered, not only at the phase's end
        return ctx.answering(phase, len(send), run)
    except errors.DeadlineReached as exc:
        if ctx.adapter.request_count == before:
            return [outcomes.not_sent(op.change, str(exc)) for op in send]
        return [outcomes.failed(op.change, error_name=CONNECTION_ERROR, message=str(exc)) for op in send]

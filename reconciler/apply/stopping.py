"""What stops an apply short, and what it then says: its deadline, Ctrl-C, and the apply lock it takes first.

- the deadline, shared between writing and reading back. A write whose answer does not come (a connection that
  stalls part-way through the answer) would otherwise be waited for until the deadline, leaving no time to read
  whether the broker carried it out: every such item would end ``unknown``, or worse, ``failed`` without anyone
  having looked. So the last part of the deadline (``reserve_s``: a quarter, at least 1 s, at most 30 s) is kept for
  reads: no write is sent or waited for in it (``ApplyContext.writes_left``, the wire's
  ``limit_waits(reserve_s=...)``), and what was sent is resolved by reading (``lost``). A change the time limit kept
  from being sent is **not sent** (``Outcome.NOT_SENT``): never ``failed`` (the broker said nothing of it) nor
  ``unknown`` (nothing is in doubt), and its message names the time limit, not a lost answer (``run_phase``). The
  deadline reached: a note naming the ``--timeout`` given and how far the apply got;
- Ctrl-C (``reconciler.base.interrupt``): each change not sent is ``not sent`` with the error ``INTERRUPTED`` (not
  started), and a note says what was applied, what was not started, and to run plan;
- the cluster's apply lock (``reconciler.apply.lock``): taken before the first read; when the principal lacks the
  right to take it, that refusal comes after the other checks, named together with every other missing right.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from reconciler.apply import access, decoded, outcomes, retry
from reconciler.apply import lock as apply_lock
from reconciler.apply.apply_report import ItemOutcome, Outcome
from reconciler.apply.batch import CONNECTION_ERROR, NOT_SENT, ApplyContext
from reconciler.base import errors, interrupt
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
        why = no_time(ctx, phase)
        return [outcomes.not_sent(op.change, why) for op in send]
    before = ctx.adapter.request_count
    try:  # progress advances as each write request is answered, not only at the phase's end
        return ctx.answering(phase, len(send), run)
    except errors.DeadlineReached as exc:
        if ctx.adapter.request_count == before:
            return [outcomes.not_sent(op.change, str(exc)) for op in send]
        return [outcomes.failed(op.change, error_name=CONNECTION_ERROR, message=str(exc)) for op in send]


def deadline_note(deadline: retry.Deadline, items: Sequence[ItemOutcome], *, given_s: float | None) -> str:
    """The note of an apply that reached its time limit: the --timeout given (and what planning left of it for the
    apply), how far it got, and what to do next."""
    done, left = sum(1 for i in items if i.outcome is Outcome.APPLIED), round(deadline.total_s, 1)
    limit = f"the apply's time limit of {left:g}s (--timeout)"
    if given_s is not None and round(given_s, 1) != left:
        given = round(given_s, 1)
        limit = f"the time limit of {given:g}s (--timeout, planning included: {left:g}s of it were left for the apply)"
    return (
        f"{limit} was reached: {done} of {len(items)} change(s) "
        "known applied; every other item says what is known of it. Run plan to see what is left, then apply again "
        "(with a longer --timeout on a slow network)"
    )


def interrupted_note(items: Sequence[ItemOutcome]) -> str:
    """The note of an apply stopped by Ctrl-C: what was applied, what was not started, and what to do next."""
    applied = sum(1 for i in items if i.outcome is Outcome.APPLIED)
    not_started = sum(1 for i in items if i.error_name == interrupt.INTERRUPTED)
    other = len(items) - applied - not_started
    rest = f", {other} with another outcome (each item says)" if other else ""
    return (
        f"interrupted (Ctrl-C): {applied} of {len(items)} change(s) applied, {not_started} not started{rest}; "
        "nothing new was sent after the interrupt, the answers in flight were awaited and lost ones read. The "
        "applied changes were not read back: run plan to see what is left, then apply again"
    )


def notes(items: Sequence[ItemOutcome], *, deadline: retry.Deadline, given_s: float | None, stopped: bool) -> list[str]:
    """The notes of an apply that stopped short: interrupted (Ctrl-C), or its time limit reached: spent (the waits
    cut at the deadline end a moment before it: timer granularity), or its time for writes spent before a change
    could be sent (the apply then ends early, with the part kept for reading back unused: nothing sent to read)."""
    found = [interrupted_note(items)] if stopped else []
    kept_out = any(i.outcome is Outcome.NOT_SENT and i.error_name == NOT_SENT for i in items)
    if deadline.remaining() <= SPENT_S or kept_out:
        found.append(deadline_note(deadline, items, given_s=given_s))
    return found


def lock_notes(held: apply_lock.HeldLock | None, *, unlocked: bool) -> list[str]:
    """The apply lock's notes: lost while held, or not taken (``--no-lock``)."""
    lost = held.lost() if held is not None else None
    return [n for n in (lost, apply_lock.NO_LOCK_NOTE if unlocked else None) if n is not None]


def not_started(change: plans.Change) -> ItemOutcome:
    """A change the apply did not send because it was interrupted (Ctrl-C) first: ``not sent``, ``INTERRUPTED``."""
    item = outcomes.not_sent(change, "not started: the apply was interrupted (Ctrl-C) before this change was sent")
    return dataclasses.replace(item, error_name=interrupt.INTERRUPTED)


CONNECTOR_UNSENT = "not sent: the apply was interrupted (Ctrl-C) before this connector's first request"


def unsent(done: Sequence[ItemOutcome], changes: Sequence[plans.Change]) -> list[ItemOutcome]:
    """``done`` (a phase's outcomes) with each item a request did not carry because of Ctrl-C as not started."""
    sent = {c.address: c for c in changes}
    return [
        not_started(sent[o.address]) if o.error_name == interrupt.INTERRUPTED and o.address in sent else o for o in done
    ]


def take_lock(
    lock: apply_lock.Lock | None, left_s: float
) -> tuple[apply_lock.HeldLock | None, errors.GrantMissing | None]:
    """The cluster's apply lock, held (``None`` without one); or, when the principal lacks the right to take it,
    that refusal, to be raised after the other checks (``refuse_with``)."""
    if lock is None:
        return None, None
    try:
        return lock.take(left_s), None
    except errors.GrantMissing as exc:
        return None, exc


def with_lock_grant(missing: access.MissingAccess, refused: errors.GrantMissing) -> access.MissingAccess:
    """The refusal naming the missing rights, with the apply lock's grant and its ``kafka-acls`` line after them."""
    return access.MissingAccess(
        f"{missing}\nAnd for the cluster's apply lock (or apply with --no-lock):\n  {refused.grant}\n"
        f"  {refused.command}"
    )

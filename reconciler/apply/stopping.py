"""What an apply says when it stops short, and the apply lock it takes before its first read.

- the deadline reached: a note naming the ``--timeout`` given and how far the apply got;
- Ctrl-C (``reconciler.base.interrupt``): each change not sent is ``not sent`` with the error ``INTERRUPTED`` (not
  started), and a note says what was applied, what was not started, and to run plan;
- the cluster's apply lock (``reconciler.apply.lock``): taken before the first read; when the principal lacks the
  right to take it, that refusal comes after the other checks, named together with every other missing right.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from reconciler.apply import access, budget, outcomes, retry
from reconciler.apply import lock as apply_lock
from reconciler.apply.apply_report import ItemOutcome, NotConverged, Outcome
from reconciler.base import errors, interrupt
from reconciler.model import plans


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


def not_read() -> tuple[bool | None, list[NotConverged], tuple[str, ...]]:
    """The read-back of an interrupted apply: not run, so whether the cluster converged is not known."""
    return None, [], ()


def notes(items: Sequence[ItemOutcome], *, deadline: retry.Deadline, given_s: float | None, stopped: bool) -> list[str]:
    """The notes of an apply that stopped short: interrupted (Ctrl-C), or its time limit reached (the waits cut at
    the deadline end a moment before it: timer granularity)."""
    found = [interrupted_note(items)] if stopped else []
    if deadline.remaining() <= budget.SPENT_S:
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

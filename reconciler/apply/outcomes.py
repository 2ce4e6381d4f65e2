"""Build per-resource outcomes: from a change and the final result of its request, or without a request (skipped,
not sent, blocked, unknown).

A change is skipped when something it relies on failed earlier (``DEPENDS_ON``): Kafka's admin requests are not
transactional (KIP-4), so independent items go ahead after a failure; only the dependants of a failed item are
skipped, each with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.apply.apply_report import CheckedBy, ItemOutcome, Outcome
from reconciler.apply.batch import NOT_SENT, Result
from reconciler.model import plans

# What each phase needs from the authorizer, to name it when the broker says authorization failed.
REQUIRED_ACCESS: dict[plans.Phase, str] = {
    plans.Phase.ACL_DELETE: "ALTER on CLUSTER kafka-cluster",
    plans.Phase.TOPIC_DELETE: "DELETE on TOPIC {name}",
    plans.Phase.TOPIC_CREATE: "CREATE on TOPIC {name} (or CREATE on CLUSTER kafka-cluster)",
    plans.Phase.PARTITIONS: "ALTER on TOPIC {name}",
    plans.Phase.TOPIC_CONFIG: "ALTER_CONFIGS on TOPIC {name}",
    plans.Phase.REASSIGN: "ALTER on CLUSTER kafka-cluster",
    plans.Phase.QUOTA: "ALTER_CONFIGS on CLUSTER kafka-cluster",
    plans.Phase.SCRAM: "ALTER on CLUSTER kafka-cluster",
    plans.Phase.BROKER_CONFIG: "ALTER_CONFIGS on CLUSTER kafka-cluster",
    plans.Phase.GROUP_CONFIG: "ALTER_CONFIGS on GROUP {name}",
    plans.Phase.CLIENT_METRICS: "ALTER_CONFIGS on CLUSTER kafka-cluster",
    plans.Phase.ACL_CREATE: "ALTER on CLUSTER kafka-cluster",
}

# For a change in the key phase, the phases whose failure on the same address makes it pointless.
DEPENDS_ON: dict[plans.Phase, tuple[plans.Phase, ...]] = {
    plans.Phase.TOPIC_CREATE: (plans.Phase.TOPIC_DELETE,),
    plans.Phase.PARTITIONS: (plans.Phase.TOPIC_DELETE, plans.Phase.TOPIC_CREATE),
    plans.Phase.TOPIC_CONFIG: (plans.Phase.TOPIC_DELETE, plans.Phase.TOPIC_CREATE),
    plans.Phase.REASSIGN: (
        plans.Phase.TOPIC_DELETE,
        plans.Phase.TOPIC_CREATE,
        plans.Phase.PARTITIONS,
    ),
}

_WHAT = {
    plans.Phase.TOPIC_DELETE: "deletion",
    plans.Phase.TOPIC_CREATE: "creation",
    plans.Phase.PARTITIONS: "partition increase",
}


def access_hint(change: plans.Change) -> str:
    """``the principal needs CREATE on TOPIC orders ...`` for an authorization failure of ``change``."""
    return "the connecting principal needs " + REQUIRED_ACCESS[change.phase].format(name=change.name)


def from_result(
    change: plans.Change,
    result: Result,
    *,
    dry_run: bool,
    checked_by: CheckedBy | None = None,
    details: dict[str, Any] | None = None,
) -> ItemOutcome:
    """Applied/failed (or dry-run accepted/rejected) with the broker's error code, name and message."""
    if dry_run:
        outcome = Outcome.DRY_RUN_ACCEPTED if result.ok else Outcome.DRY_RUN_REJECTED
        checked_by = checked_by or CheckedBy.BROKER
    else:
        outcome = Outcome.APPLIED if result.ok else Outcome.FAILED
    if not result.ok and result.error_name == NOT_SENT:  # the time limit came before it was sent: nothing to judge
        outcome = Outcome.NOT_SENT
    message = result.message
    if not result.ok and (result.error_name or "").endswith("AUTHORIZATION_FAILED"):
        message = _append(message, access_hint(change))
    unknown = result.error_name or ""
    if not result.ok and unknown.startswith("ERROR_"):
        hint = (
            f"the broker answered with error code {unknown.removeprefix('ERROR_')}, which this client "
            "does not know (a newer Kafka?); look it up in the Kafka protocol guide's error codes"
        )
        message = _append(message, hint)
    if result.note:
        message = _append(message, result.note)
    return _outcome(
        change,
        outcome,
        error_code=None if result.ok else result.error_code,
        error_name=None if result.ok else result.error_name,
        message=message,
        checked_by=checked_by if dry_run else None,
        attempts=result.attempts,
        details=details or {},
    )


def skip_reason(change: plans.Change, failures: Mapping[tuple[plans.Phase, str], str]) -> str | None:
    """Why ``change`` must not be sent, given ``(phase, address) -> what went wrong`` so far; ``None`` to send it."""
    for earlier in DEPENDS_ON.get(change.phase, ()):
        why = failures.get((earlier, change.address))
        if why is not None:
            return f"skipped because the {_WHAT[earlier]} of {change.address} failed ({why})"
    return None


def skipped(change: plans.Change, failures: Mapping[tuple[plans.Phase, str], str]) -> ItemOutcome | None:
    """``change`` skipped because something it relies on failed (``skip_reason``); ``None`` when it is to be sent."""
    why = skip_reason(change, failures)
    return None if why is None else _outcome(change, Outcome.SKIPPED, message=why)


def not_sent(change: plans.Change, reason: str) -> ItemOutcome:
    """A change never sent: the time limit came first (what was left of it was kept for reading back)."""
    return _outcome(change, Outcome.NOT_SENT, error_name=NOT_SENT, message=reason)


def unknown(change: plans.Change, *, error_name: str, message: str) -> ItemOutcome:
    """A change sent whose outcome nobody can tell: its answer lost, or the cluster unreadable since."""
    return _outcome(change, Outcome.UNKNOWN, error_name=error_name, message=message)


def blocked(change: plans.Change) -> ItemOutcome:
    """A blocked change of the plan: not sent; its reasons say why and what to do instead."""
    return _outcome(change, Outcome.BLOCKED, message="; ".join(change.reasons) or "blocked in the plan")


def _outcome(change: plans.Change, outcome: Outcome, **fields: Any) -> ItemOutcome:
    """``outcome`` for ``change``, identified by its address, kind, name, phase and action."""
    return ItemOutcome(
        address=change.address,
        kind=change.kind,
        name=change.name,
        phase=change.phase,
        action=change.action,
        outcome=outcome,
        **fields,
    )


def _append(message: str | None, note: str) -> str:
    """``message; note``, or ``note`` alone when there is no message yet."""
    return f"{message}; {note}" if message else note


def failed(change: plans.Change, *, error_name: str, message: str, dry_run: bool = False) -> ItemOutcome:
    """A failure found without a broker answer (a wait or a whole-request failure outside the retry loop)."""
    return from_result(change, Result(ok=False, error_name=error_name, message=message, attempts=0), dry_run=dry_run)


def client_check(change: plans.Change, problem: str | None) -> ItemOutcome:
    """A dry-run outcome judged by the tool itself (no validateOnly request exists for this kind)."""
    error_name = None if problem is None else "CLIENT_CHECK"
    result = Result(ok=problem is None, error_name=error_name, message=problem, attempts=0)
    return from_result(change, result, dry_run=True, checked_by=CheckedBy.CLIENT)

"""The result of an apply: one outcome per resource and phase, per-phase timing, convergence, exit code.

Exit codes: 0 when every change was applied (or accepted in a dry run) and the read-back shows the
cluster converged; 130 when Ctrl-C stopped it (``reconciler.base.interrupt``: the report still says what
was applied and what was not sent); 3 when anything failed, is unknown (answer lost, cluster unreadable), was
skipped, was not sent (the time limit came first), was rejected in a dry run, was blocked in the plan (never sent,
so the cluster still differs from the manifests), or did not converge. Errors raised before any write (stale plan,
self-lockout risk, missing secret, error-level findings) are ``ReconcilerError``s with exit code 1 and produce no
report.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections import Counter
from typing import Any

from reconciler.model import plans

EXIT_OK = 0
EXIT_PARTIAL = 3
EXIT_INTERRUPTED = 130  # Ctrl-C: the apply stopped sending; the report says what was applied and what not


class Outcome(str, enum.Enum):
    """What happened to one change."""

    APPLIED = "applied"
    FAILED = "failed"
    SKIPPED = "skipped"
    UNCHANGED = "unchanged"
    DRY_RUN_ACCEPTED = "dry-run accepted"
    DRY_RUN_REJECTED = "dry-run rejected"
    BLOCKED = "blocked"  # a blocked change of the plan: never sent, so the cluster still differs
    UNKNOWN = "unknown"  # sent, its answer lost, and the cluster could not be read to tell (``apply.lost``)
    NOT_SENT = "not sent"  # never sent: the time limit came first (what was left of it was kept for reading back)

    @property
    def is_problem(self) -> bool:
        return self in (
            Outcome.FAILED,
            Outcome.SKIPPED,
            Outcome.DRY_RUN_REJECTED,
            Outcome.BLOCKED,
            Outcome.UNKNOWN,
            Outcome.NOT_SENT,
        )


class CheckedBy(str, enum.Enum):
    """Who judged a dry-run item: the broker (validateOnly request) or the tool itself."""

    BROKER = "broker"
    CLIENT = "client-side check"


@dataclasses.dataclass(frozen=True, slots=True)
class ItemOutcome:
    """The outcome of one change. ``details`` holds extra facts (e.g. the configs the broker resolved)."""

    address: str
    kind: str
    name: str
    phase: plans.Phase
    action: plans.Action
    outcome: Outcome
    error_code: int | None = None
    error_name: str | None = None
    message: str | None = None
    checked_by: CheckedBy | None = None
    attempts: int = 0
    details: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "kind": self.kind,
            "name": self.name,
            "phase": self.phase.name,
            "action": self.action.value,
            "outcome": self.outcome.value,
            "error_code": self.error_code,
            "error_name": self.error_name,
            "message": self.message,
            "checked_by": None if self.checked_by is None else self.checked_by.value,
            "attempts": self.attempts,
            "details": self.details,
        }


@dataclasses.dataclass(frozen=True, slots=True)
class PhaseReport:
    """Timing and request count of one phase."""

    phase: plans.Phase
    duration_s: float
    requests: int
    items: int
    requests_by_api: dict[str, int] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "phase": self.phase.name,
            "duration_s": round(self.duration_s, 3),
            "requests": self.requests,
            "requests_by_api": dict(sorted(self.requests_by_api.items())),
            "items": self.items,
        }


@dataclasses.dataclass(frozen=True, slots=True)
class NotConverged:
    """A resource whose read-back still differs from the plan, with what the planner still wants."""

    address: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"address": self.address, "detail": self.detail}


@dataclasses.dataclass(frozen=True, slots=True)
class ApplyReport:
    """Everything an apply did, ready to render or to serialise."""

    cluster_id: str | None
    dry_run: bool
    items: tuple[ItemOutcome, ...]
    phases: tuple[PhaseReport, ...]
    converged: bool | None  # None: not verified (dry run, or nothing was written)
    not_converged: tuple[NotConverged, ...] = ()
    still_moving: tuple[str, ...] = ()  # "topic-partition" still being reassigned at the deadline
    requests: int = 0
    duration_s: float = 0.0
    notes: tuple[str, ...] = ()
    requests_by_api: dict[str, int] = dataclasses.field(default_factory=dict)
    # The rights the read-back was refused (``grant OP on RESOURCE to PRINCIPAL``): applied, not verified.
    unverified: tuple[str, ...] = ()
    interrupted: bool = False  # Ctrl-C: nothing new was sent after it (``reconciler.base.interrupt``)

    def counts(self) -> dict[str, int]:
        """Number of items per outcome (every outcome present, zero included)."""
        found = Counter(i.outcome for i in self.items)
        return {o.value: found[o] for o in Outcome}

    @property
    def ok(self) -> bool:
        if any(i.outcome.is_problem for i in self.items):
            return False
        if self.still_moving or self.unverified:
            return False
        return self.dry_run or self.converged is not False

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return EXIT_INTERRUPTED
        return EXIT_OK if self.ok else EXIT_PARTIAL

    def failed(self) -> tuple[ItemOutcome, ...]:
        return tuple(i for i in self.items if i.outcome.is_problem)

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "format": "kafka-reconciler/apply-report",
            "format_version": 1,
            "cluster_id": self.cluster_id,
            "dry_run": self.dry_run,
            "exit_code": self.exit_code,
            "interrupted": self.interrupted,
            "counts": self.counts(),
            "converged": self.converged,
            "not_converged": [n.to_dict() for n in self.not_converged],
            "not_verified": list(self.unverified),
            "still_moving": list(self.still_moving),
            "requests": self.requests,
            "requests_by_api": dict(sorted(self.requests_by_api.items())),
            "duration_s": round(self.duration_s, 3),
            "phases": [p.to_dict() for p in self.phases],
            "items": [i.to_dict() for i in self.items],
            "notes": list(self.notes),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_json_dict(), indent=2, default=str) + "\n"

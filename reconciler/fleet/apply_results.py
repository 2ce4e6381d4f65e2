"""What a fleet apply reports: each cluster's status (``ClusterApply``) and the run's (``FleetApplyResult``).

A cluster is ``applied`` (every change applied and read back), ``validated`` (a dry run the brokers accepted),
``no-changes``, ``partial`` (the apply ran; something failed, was blocked or did not converge), ``refused`` or
``unreachable`` (stopped before any write), ``not-applied`` (no plan of this run), ``skipped`` (not started: the
run's deadline passed, or Ctrl-C) or ``failed`` (an unexpected error). ``reconciler.fleet.applying`` produces them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reconciler.base import interrupt
from reconciler.fleet import outputs

APPLY_REPORT = outputs.APPLY_REPORT

APPLIED = "applied"  # every change applied and read back
VALIDATED = "validated"  # --dry-run: the brokers accepted every change (validateOnly), nothing written
NO_CHANGES = "no-changes"  # the plan had nothing to do
PARTIAL = "partial"  # the apply ran; some change failed, was blocked or did not converge
REFUSED = "refused"  # stopped before any write: stale plan, another cluster, missing rights, unresolved secret
UNREACHABLE = "unreachable"  # stopped before any write: the cluster could not be reached (down, no route, timeout)
NOT_APPLIED = "not-applied"  # no plan of this run: missing, from another run, unreadable at plan time
SKIPPED = "skipped"  # not started before the run's deadline
FAILED = "failed"  # an unexpected error; the message says what
OK_STATUSES = frozenset({APPLIED, VALIDATED, NO_CHANGES})
STATUSES = (APPLIED, VALIDATED, NO_CHANGES, PARTIAL, REFUSED, UNREACHABLE, NOT_APPLIED, SKIPPED, FAILED)


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterApply:
    """One cluster's line of a fleet apply."""

    name: str
    status: str
    reason: str | None = None
    exit_code: int = 0  # the single-cluster apply's exit code (0, 1 before any write, 3 partial)
    counts: Mapping[str, int] = dataclasses.field(default_factory=dict)  # the apply report's outcome counts
    report_path: Path | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "reason": self.reason,
            "exit_code": self.exit_code,
            "counts": dict(self.counts),
            "report": None if self.report_path is None else f"{self.name}/{APPLY_REPORT}",
            "seconds": round(self.seconds, 3),
        }


@dataclasses.dataclass(frozen=True, slots=True)
class FleetApplyResult:
    """What a fleet apply did; ``exit_code`` 0 when every cluster was applied or had nothing to do, else 3."""

    run_id: str  # the fleet plan run whose plans were applied
    clusters: tuple[ClusterApply, ...]
    summary: Mapping[str, Any]
    seconds: float
    dry_run: bool
    # Ctrl-C came during the run (read when the result is made): no cluster started after it, the running ones
    # sent nothing new (exit 130)
    interrupted: bool = dataclasses.field(default_factory=interrupt.requested)

    @property
    def partial(self) -> bool:
        return any(c.status not in OK_STATUSES for c in self.clusters)

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return interrupt.EXIT_INTERRUPTED
        return 3 if self.partial else 0

"""Progress events emitted while an apply runs, for progress bars on a terminal and plain lines in CI."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable

from reconciler.apply.apply_report import Outcome
from reconciler.model import plans


class EventKind(str, enum.Enum):
    PHASE_STARTED = "phase started"
    ITEM_DONE = "item done"
    PHASE_FINISHED = "phase finished"
    RETRY = "retry"
    WAITING = "waiting"
    VERIFYING = "verifying"  # the read-back after the writes: ``done`` of ``total`` applied changes converged
    ANSWERED = "answered"  # the phase's write requests so far answered for ``done`` of the ``total`` items it sends


@dataclasses.dataclass(frozen=True, slots=True)
class ApplyEvent:
    """One progress step. ``total`` is the item count of the phase on ``PHASE_STARTED``;
    ``done``/``total`` give the progress of a ``WAITING`` step (e.g. partitions reassigned) and of the read-back
    (``VERIFYING``, no phase: changes converged of those applied; ``message`` is the status line)."""

    kind: EventKind
    phase: plans.Phase | None = None
    address: str | None = None
    outcome: Outcome | None = None
    total: int = 0
    done: int = 0
    message: str | None = None
    duration_s: float | None = None


EventSink = Callable[[ApplyEvent], None]


def discard(_event: ApplyEvent) -> None:
    """The sink used when the caller wants no progress."""

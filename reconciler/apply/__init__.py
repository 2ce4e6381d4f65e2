"""Apply a plan to a cluster: ``apply_plan(plan, adapter, *, options, events) -> ApplyReport``.

See ``reconciler.apply.engine`` for the flow and docs/apply.md for the user-facing behaviour.
"""

from reconciler.apply.apply_report import ApplyReport, ItemOutcome, Outcome
from reconciler.apply.engine import ApplyOptions, apply_plan
from reconciler.apply.events import ApplyEvent, EventKind

__all__ = ["ApplyEvent", "ApplyOptions", "ApplyReport", "EventKind", "ItemOutcome", "Outcome", "apply_plan"]

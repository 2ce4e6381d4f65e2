"""What a topic deletion would destroy: the usage evidence shown on a planned delete, and whether it blocks it.

A topic is *in use* when a consumer group holds committed offsets on it, or when its latest record is newer than
the in-use window (``PlanOptions.in_use_window_ms``, 7 days unless set; 0 turns that test off). Deleting a topic
in use is blocked unless ``PlanOptions.allow_delete_in_use`` is set; either way the evidence is in the change
(``before.usage``, reasons and warnings), so the text, markdown and JSON plans all show it. Pure: the age of
the latest record is measured from when the evidence was read (``TopicUsage.read_at_ms``), not from a clock.
"""

from __future__ import annotations

from reconciler.model import deletion, state

age_text = deletion.age_text  # the model's (a topic deletion's evidence lines are made and checked there)


def evidence(usage: state.TopicUsage) -> list[str]:
    """One line per fact: groups with committed offsets, end offsets, the latest record and its age."""
    return deletion.evidence_lines(usage.evidence(), read_at_ms=usage.read_at_ms)


def in_use(usage: state.TopicUsage, *, window_ms: int) -> list[str]:
    """Why the topic counts as in use (empty when it does not)."""
    why = []
    if usage.groups:
        why.append(f"consumer group(s) {', '.join(usage.groups)} have committed offsets on it")
    ts = usage.latest_timestamp_ms
    if window_ms > 0 and ts is not None and usage.read_at_ms - ts <= window_ms:
        why.append(
            f"its latest record is {age_text(usage.read_at_ms - ts)} old, within the in-use window of "
            f"{age_text(window_ms)}"
        )
    return why

"""What a topic deletion would destroy: the usage evidence shown on a planned delete, and whether it blocks it.

A topic is *in use* when a consumer group holds committed offsets on it, or when its latest record is newer than
the in-use window (``PlanOptions.in_use_window_ms``, 7 days unless set; 0 turns that test off). Deleting a topic
in use is blocked unless ``PlanOptions.allow_delete_in_use`` is set; either way the evidence is in the change
(``before.usage``, reasons and warnings), so the text, markdown and JSON plans all show it. Pure: the age of
the latest record is measured from when the evidence was read (``TopicUsage.read_at_ms``), not from a clock.
"""

from __future__ import annotations

import datetime

from reconciler.model import state

_UNITS = (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000))


def age_text(ms: int) -> str:
    """``2d 3h`` for a duration in milliseconds (two largest units; ``0s`` for less than a second)."""
    parts = []
    rest = max(ms, 0)
    for name, size in _UNITS:
        if rest >= size:
            parts.append(f"{rest // size}{name}")
            rest %= size
    return " ".join(parts[:2]) or "0s"


def _when(ms: int) -> str:
    moment = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def evidence(usage: state.TopicUsage) -> list[str]:
    """One line per fact: groups with committed offsets, end offsets, the latest record."""
    groups = (
        f"consumer group(s) with committed offsets on it: {', '.join(usage.groups)}"
        if usage.groups
        else "no consumer group has committed offsets on it"
    )
    known = [o for o in usage.end_offsets if o >= 0]
    offsets = f"end offsets {', '.join(map(str, usage.end_offsets))} (sum {sum(known)})"
    if usage.latest_timestamp_ms is None:
        latest = "no record to date it (empty, or a broker older than Kafka 3.0)"
    else:
        age = age_text(usage.read_at_ms - usage.latest_timestamp_ms)
        latest = f"latest record written {_when(usage.latest_timestamp_ms)}, {age} before the plan"
    return [groups, offsets, latest]


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

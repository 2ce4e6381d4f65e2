"""What a topic deletion says about the data it destroys, made from the change's own ``before`` and checked against it.

The planner writes these lines into a ``TOPIC_DELETE`` change (``destroys`` and ``evidence_lines``: the partition
count, the consumer groups with committed offsets, the end offsets, the latest record); ``problem`` finds a line of
that form in a change's reasons or warnings that its ``before`` does not say, so a plan file edited and resealed to
show "deletes its 1 partition(s)" or "no consumer group has committed offsets on it" over data that says otherwise
is refused on load instead of shown. Pure; the age of the latest record is measured from when the evidence was read.
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Mapping, Sequence
from typing import Any

_UNITS = (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000))
DESTROYS = "deleting the topic deletes its "
EVIDENCE = "evidence: "


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
    try:
        moment = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc)
    except (OverflowError, OSError, ValueError):  # beyond the calendar: said as it is
        return f"at {ms} ms since the epoch"
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def destroys(partitions: int | None) -> str:
    """The warning naming what the deletion destroys."""
    return f"{DESTROYS}{partitions} partition(s) and all their data"


def evidence_lines(evidence: Mapping[str, Any], *, read_at_ms: int | None) -> list[str]:
    """One line per fact of a ``before.usage`` (``TopicUsage.evidence()``): groups with committed offsets, end
    offsets, the latest record (with its age when ``read_at_ms`` is given). ``ValueError`` for evidence of another
    shape."""
    groups, offsets, ts = evidence["groups"], evidence["end_offsets"], evidence["latest_timestamp_ms"]
    if not all(isinstance(g, str) for g in groups) or not all(type(o) is int for o in offsets):
        raise ValueError("usage evidence of another shape")
    if ts is not None and type(ts) is not int:
        raise ValueError("usage evidence of another shape")
    lines = [
        f"consumer group(s) with committed offsets on it: {', '.join(groups)}"
        if groups
        else "no consumer group has committed offsets on it",
        f"end offsets {', '.join(map(str, offsets))} (sum {sum(o for o in offsets if o >= 0)})",
    ]
    if ts is None:
        lines.append("no record to date it (empty, or a broker older than Kafka 3.0)")
    else:
        age = "" if read_at_ms is None else f", {age_text(read_at_ms - ts)} before the plan"
        lines.append(f"latest record written {_when(ts)}{age}")
    return lines


def problem(partitions: int | None, usage: Any, lines: Sequence[str]) -> str | None:
    """The first reason or warning of a topic deletion stating a fact its ``before`` (``partitions``, ``usage``) does
    not hold, as "shows ..., its data says ..."; ``None`` when every such line is the data's own."""
    facts: list[str] = []  # no readable evidence: no evidence line may be shown
    with contextlib.suppress(TypeError, KeyError, ValueError):
        facts = [f"{EVIDENCE}{line}" for line in evidence_lines(usage, read_at_ms=None)]
    dated = facts[-1] + ", " if facts and facts[-1].startswith(f"{EVIDENCE}latest record written ") else None
    for line in lines:
        if line.startswith(DESTROYS) and line != destroys(partitions):
            return f"shows {line!r}, its data says {partitions} partition(s)"
        aged = dated is not None and line.startswith(dated) and line.endswith(" before the plan")
        if line.startswith(EVIDENCE) and line not in facts and not aged:
            return f"shows {line!r}, which its usage evidence does not say"
    return None

"""Repeated findings stated once: one mistake copied into 2,000 topics is one entry, not 2,000 near-identical ones.

Shared by the text and markdown renders (the JSON plan keeps every item). ``collapse`` replaces the resources whose
changes are all blocked for the same reasons, in the same phases, by one ``SameBlock`` (at the place of the first)
when there are at least ``GROUP_AT`` of them; with ``alike=True`` it also folds the resources changed alike (one
create or update each, in the same phase, showing the same attributes, reasons and warnings: 600 topics created
with the same configs) into one ``SameChange``. ``warning_groups`` does the same for plan warnings with the same
severity, code and message on different resources. Each group names its first ``NAMES_SHOWN`` resources and how
many more there are. Deletes are never folded: each deleted resource stays named.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from reconciler.model import plans
from reconciler.model.kinds import Kind
from reconciler.render import values

GROUP_AT = 5  # this many repeats or more are stated once
NAMES_SHOWN = 5
Group = tuple[str, list[plans.Change]]


def noun(kind: Kind, n: int) -> str:
    """``2,000 topics``, ``12 ACLs``, ``1 SCRAM user``: the kind's heading, lower-cased unless an acronym."""
    heading = kind.heading
    if heading[1:2].islower():
        heading = heading[:1].lower() + heading[1:]
    if n == 1:
        heading = heading[:-1] if heading.endswith("s") else heading
    return f"{n:,} {heading}"


def names_text(names: Sequence[str], *, quote: str = "") -> str:
    """``a, b, c, d, e, ... and 1,995 more`` (each name between ``quote`` marks)."""
    shown = ", ".join(f"{quote}{n}{quote}" for n in names[:NAMES_SHOWN])
    more = len(names) - NAMES_SHOWN
    return shown + (f", ... and {more:,} more" if more > 0 else "")


@dataclasses.dataclass(frozen=True, slots=True)
class SameBlock:
    """Resources of one kind whose changes are all blocked, in the same phases, for the same reasons."""

    kind: Kind
    phases: tuple[plans.Phase, ...]
    reasons: tuple[str, ...]
    names: tuple[str, ...]

    def head(self) -> str:
        """``2,000 topics blocked (topic create): <first reason>``."""
        phases = ", ".join(p.label for p in self.phases)
        first = self.reasons[0] if self.reasons else "blocked"
        return f"{noun(self.kind, len(self.names))} blocked ({phases}): {first}"


@dataclasses.dataclass(frozen=True, slots=True)
class SameChange:
    """Resources of one kind changed alike: one create or update each, in one phase, with the same shown attributes
    (``(symbol, text)`` lines), reasons and warnings; ``change`` is the first of them."""

    change: plans.Change
    lines: tuple[tuple[str, str], ...]
    names: tuple[str, ...]

    def head(self) -> str:
        """``600 topics (topic create), each:``."""
        return f"{noun(self.change.kind, len(self.names))} ({self.change.phase.label}), each:"


def shown_attributes(change: plans.Change) -> tuple[tuple[str, str], ...]:
    """``(symbol, text)`` of each attribute as the renders show it (a create's are all ``+``)."""
    lines = (values.attribute_line(a) for a in change.attributes)
    return tuple(("+", text) if change.action is plans.Action.CREATE else (symbol, text) for symbol, text in lines)


def _alike_key(changes: list[plans.Change]) -> tuple[object, ...] | None:
    """What alike changes share; ``None`` for a resource that is never folded: several changes, a delete or blocked
    change, or nothing shown but its name (an ACL: its name is all it has)."""
    if len(changes) != 1 or changes[0].action not in (plans.Action.CREATE, plans.Action.UPDATE):
        return None
    c = changes[0]
    lines = shown_attributes(c)
    return (c.kind, c.action, c.phase, lines, c.reasons, c.warnings) if lines else None


def _block_key(changes: list[plans.Change]) -> tuple[object, ...] | None:
    if not all(c.action is plans.Action.BLOCKED for c in changes) or any(c.warnings for c in changes):
        return None
    reasons = changes[0].reasons
    if any(c.reasons != reasons for c in changes):
        return None
    return (changes[0].kind, tuple(c.phase for c in changes), reasons)


def collapse(groups: Sequence[Group], *, alike: bool = False) -> list[Group | SameBlock | SameChange]:
    """``groups`` (per address, in plan order) with each set of ``GROUP_AT`` or more alike blocked resources as
    one ``SameBlock`` where its first member was; ``alike``: each set of ``GROUP_AT`` or more resources changed
    alike as one ``SameChange`` too."""
    members: dict[tuple[object, ...], list[str]] = {}
    keys: list[tuple[object, ...] | None] = []
    for _, changes in groups:
        key: tuple[object, ...] | None = None
        block = _block_key(changes)
        if block is not None:
            key = ("blocked", *block)
        elif alike and (same := _alike_key(changes)) is not None:
            key = ("alike", *same)
        keys.append(key)
        if key is not None:
            members.setdefault(key, []).append(changes[0].name)
    out: list[Group | SameBlock | SameChange] = []
    placed: set[tuple[object, ...]] = set()
    for group, key in zip(groups, keys, strict=True):
        if key is None or len(members[key]) < GROUP_AT:
            out.append(group)
        elif key not in placed:
            placed.add(key)
            names = tuple(members[key])
            if key[0] == "blocked":
                _, kind, phases, reasons = key
                out.append(SameBlock(kind, phases, reasons, names))  # type: ignore[arg-type]
            else:
                change = group[1][0]
                out.append(SameChange(change, shown_attributes(change), names))
    return out


def warning_groups(warnings: Sequence[plans.PlanWarning]) -> list[tuple[plans.PlanWarning, tuple[str, ...]]]:
    """Each warning with ``()``; ``GROUP_AT`` or more with the same severity, code and message on different
    resources as the first of them with every address, in the order of the first."""
    by_key: dict[tuple[str, str, str], list[plans.PlanWarning]] = {}
    for w in warnings:
        if w.address is not None:
            by_key.setdefault((w.severity, w.code, w.message), []).append(w)
    out: list[tuple[plans.PlanWarning, tuple[str, ...]]] = []
    placed: set[tuple[str, str, str]] = set()
    for w in warnings:
        key = (w.severity, w.code, w.message)
        same = by_key.get(key, []) if w.address is not None else []
        if len(same) < GROUP_AT:
            out.append((w, ()))
        elif key not in placed:
            placed.add(key)
            out.append((w, tuple(s.address or "" for s in same)))
    return out

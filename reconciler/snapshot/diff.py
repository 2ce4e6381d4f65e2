"""What changed on a cluster between two snapshots (``kafka-reconciler diff A B``), for audits and incident reviews.

Unlike a plan, nothing here is desired: both sides are live states written by ``snapshot --out``. Each snapshot is
flattened to one entry per resource (``topic/orders``, ``acl/...``, ``broker/1``, ``cluster``) holding plain nested
data, and DeepDiff compares the two trees: it reports every added, removed or changed leaf with its path, however
deep (a config, one partition's replica list, a broker's rack), which is the nested comparison it is made for. The
planner never uses it; a snapshot diff is an occasional, human-sized job where exact paths matter more than speed.
Sections one snapshot did not read (``acls: null``), group configs it could not read (``unread_entities``) and a
Kafka Connect cluster it could not reach are not compared, and say so. Each kind's entries come from its
declaration's ``snapshot`` part (``SnapshotSection.resources``), for every kind of the registry. Sensitive values are
never in a snapshot, so never in a diff.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from deepdiff import DeepDiff

from reconciler.base import terminal
from reconciler.kinds import registry
from reconciler.kinds.spec import KindSpec
from reconciler.model import configs, payloads, state


@dataclasses.dataclass(frozen=True, slots=True)
class Difference:
    """One changed leaf: ``path`` inside the resource (``configs.retention.ms``; empty for the whole resource)."""

    address: str
    change: str  # added | removed | changed
    path: str
    before: Any = None
    after: Any = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True)
class SnapshotDiff:
    """All differences, sorted by address then path, and the sections that could not be compared."""

    differences: tuple[Difference, ...]
    not_compared: tuple[str, ...]
    cluster_ids: tuple[str | None, str | None]

    @property
    def addresses(self) -> list[str]:
        return sorted({d.address for d in self.differences})


def _frame(live: state.ClusterState) -> dict[str, Any]:
    """The cluster and its brokers: in every snapshot."""
    out: dict[str, Any] = {"cluster": {"cluster_id": live.cluster_id, "controller_id": live.controller_id}}
    out["cluster"]["configs"] = dict(live.cluster_configs)
    for b in live.brokers:
        out[f"broker/{b.id}"] = {"host": b.host, "port": b.port, "rack": b.rack}
    return out


def compare(before: state.ClusterState, after: state.ClusterState) -> SnapshotDiff:
    """The differences from ``before`` to ``after``."""
    left, right = _frame(before), _frame(after)
    skipped: set[str] = set()
    partly: list[tuple[str, str]] = []  # (the start of its addresses, what it says) of a part read on one side only
    for declared in registry.KINDS.values():
        section = declared.snapshot.get()
        # a part one side could not read (one Kafka Connect cluster of several): its resources are not known there
        parts = {**section.unread_parts(before), **section.unread_parts(after)}
        partly.extend(parts[name] for name in sorted(parts))
        if declared.live_section(before) is None or declared.live_section(after) is None:
            # read on one side only: comparing would report every resource as added or removed
            skipped.add(declared.snapshot_section)
            continue
        left |= section.resources(before)
        right |= section.resources(after)
    # an entity whose configs one side could not read (no right to describe it) is not known there either
    unread = {k.address(n) for live in (before, after) for k in registry.KINDS
              for n in live.unread_entities.get(k.value, {})}  # fmt: skip
    for side in (left, right):
        for address in [a for a in side if a in unread or any(a.startswith(start) for start, _ in partly)]:
            del side[address]
    # threshold_to_diff_deeper=0: compare down to each leaf however few keys two objects share (by default DeepDiff
    # reports an object sharing under a third of its keys as one changed value, and the whole tree as a root change)
    tree = DeepDiff(left, right, view="tree", ignore_order=False, verbose_level=2, threshold_to_diff_deeper=0)
    found: list[Difference] = []
    for kind, levels in tree.items():
        change = "added" if "added" in kind else "removed" if "removed" in kind else "changed"
        for level in levels:
            address, *inner = [str(p) for p in level.path(output_format="list")]
            before_value = None if change == "added" else _plain(level.t1)
            after_value = None if change == "removed" else _plain(level.t2)
            found.append(Difference(address, change, ".".join(inner), before_value, after_value))
    found.sort(key=lambda d: (d.address, d.path))
    not_compared = (
        *sorted(skipped),
        *(f"{a} (configs not read)" for a in sorted(unread)),
        *(says for _, says in partly),
    )
    return SnapshotDiff(tuple(found), not_compared, (before.cluster_id, after.cluster_id))


def _plain(value: Any) -> Any:
    return None if type(value).__name__ == "NotPresent" else value


def _show(path: str, value: Any) -> str:
    if value is None:
        return "(unset)"
    if path.startswith(payloads.CONFIG_ATTRIBUTE_PREFIX) and isinstance(value, str):
        return configs.humanize(path.removeprefix(payloads.CONFIG_ATTRIBUTE_PREFIX), value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_show('', v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_show("", v) for v in value) + "]"
    return str(value)


def _kind_of(address: str) -> KindSpec | None:
    """The declaration of the kind whose resource ``address`` is (``None``: the cluster, a broker)."""
    return next((d for d in registry.KINDS.values() if address.startswith(d.kind.prefix)), None)


def _summary(address: str, value: Any) -> str:
    """What an added or removed resource was, briefly (as its kind's section says it, or its data)."""
    if not value:
        return ""
    declared = _kind_of(address)
    summary = None if declared is None else declared.snapshot.get().summary
    brief = _show("", value) if summary is None else summary(value)
    return f"  {brief}" if brief else ""


def text_lines(diff: SnapshotDiff) -> Iterable[str]:
    """Per resource: ``+`` added, ``-`` removed, ``~`` changed, then one line per changed leaf."""
    a, b = diff.cluster_ids
    if a != b:
        yield f"note: the snapshots are of different clusters ({a} and {b})"
    by_address: dict[str, list[Difference]] = {}
    for d in diff.differences:
        by_address.setdefault(d.address, []).append(d)
    for address, items in by_address.items():
        whole = [d for d in items if not d.path]
        if whole:
            symbol = "+" if whole[0].change == "added" else "-"
            value = whole[0].after if symbol == "+" else whole[0].before
            yield f"{symbol} {address}" + _summary(address, value)
            continue
        yield f"~ {address}"
        for d in items:
            if d.change == "added":
                yield f"    + {d.path}: {_show(d.path, d.after)}"
            elif d.change == "removed":
                yield f"    - {d.path}: {_show(d.path, d.before)}"
            else:
                yield f"    ~ {d.path}: {_show(d.path, d.before)} -> {_show(d.path, d.after)}"
    for section in diff.not_compared:
        yield f"not compared: {section} (not read in both snapshots)"
    n = len(by_address)
    yield "No differences." if not n else f"{terminal.count(n, 'resource')} {'differs' if n == 1 else 'differ'}."

"""What changed on a cluster between two snapshots (``kafka-reconciler diff A B``), for audits and incident reviews.

Unlike a plan, nothing here is desired: both sides are live states written by ``snapshot --out``. Each snapshot is
flattened to one entry per resource (``topic/orders``, ``acl/...``, ``broker/1``, ``cluster``) holding plain nested
data, and DeepDiff compares the two trees: it reports every added, removed or changed leaf with its path, however
deep (a config, one partition's replica list, a broker's rack), which is the nested comparison it is made for. The
planner never uses it; a snapshot diff is an occasional, human-sized job where exact paths matter more than speed.
Sections one snapshot did not read (``acls: null``), and group configs it could not read (``unread_entities``), are
not compared, and say so. Sensitive values are never in a
snapshot, so never in a diff.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from deepdiff import DeepDiff

from reconciler.model import configs, entities, payloads, schema_subject_snapshot, state
from reconciler.model.kinds import Kind

REGISTRY = "schema_registry"  # the entry of the registry's global level
_SECTIONS = (
    "brokers",
    "topics",
    "acls",
    "quotas",
    "scram_users",
    "broker_configs",
    "group_configs",
    "client_metrics",
    "connect",
    "schema_subjects",
)


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


def resources(live: state.ClusterState) -> dict[str, Any]:
    """One entry per resource address, plain nested data; a section that was not read is left out."""
    out: dict[str, Any] = {"cluster": {"cluster_id": live.cluster_id, "controller_id": live.controller_id}}
    out["cluster"]["configs"] = dict(live.cluster_configs)
    for b in live.brokers:
        out[f"broker/{b.id}"] = {"host": b.host, "port": b.port, "rack": b.rack}
    for name, t in (live.topics or {}).items():
        out[Kind.TOPIC.address(name)] = {
            "partitions": t.partitions,
            "replication_factor": t.replication_factor,
            "assignment": {str(p): list(r) for p, r in enumerate(t.assignment)},
            "configs": dict(t.configs),
            "internal": t.internal,
        }
    for acl in live.acls or ():
        out[acl.address] = acl.to_dict()
    for entity, quota in (live.quotas or {}).items():
        out[entity.address] = dict(quota)
    for user, creds in (live.scram_users or {}).items():
        out[Kind.SCRAM_USER.address(user)] = {c.mechanism: {"iterations": c.iterations} for c in creds}
    for broker, values in (live.broker_configs or {}).items():
        out[Kind.BROKER_CONFIG.address(broker)] = dict(values)
    for kind in entities.ENTITY_KINDS:
        for name, found in (entities.live_section(live, kind) or {}).items():
            out[kind.address(name)] = dict(found)
    for name, c in ({} if live.connect is None else live.connect.connectors).items():
        # the config as read (a secret only as its digest: shown changed, never shown) and the target state
        out[Kind.CONNECTOR.address(name)] = {"config": dict(c.config), "state": c.state}
    out |= schema_subject_snapshot.resources(live.schema_subjects)  # and the registry's global level
    return out


def _unread(live: state.ClusterState) -> set[str]:
    return {s for s in _SECTIONS if s != "brokers" and getattr(live, s) is None}


def _prefix(section: str) -> str:
    return {
        "topics": Kind.TOPIC,
        "acls": Kind.ACL,
        "quotas": Kind.QUOTA,
        "scram_users": Kind.SCRAM_USER,
        "broker_configs": Kind.BROKER_CONFIG,
        "group_configs": Kind.GROUP_CONFIG,
        "client_metrics": Kind.CLIENT_METRICS,
        "connect": Kind.CONNECTOR,
        "schema_subjects": Kind.SCHEMA_SUBJECT,
    }[section].prefix


def _of_section(address: str, section: str) -> bool:
    """Whether ``address`` is of ``section`` (the registry's global level is of the subjects' section)."""
    return address.startswith(_prefix(section)) or (section == "schema_subjects" and address == REGISTRY)


def compare(before: state.ClusterState, after: state.ClusterState) -> SnapshotDiff:
    """The differences from ``before`` to ``after``."""
    skipped = _unread(before) | _unread(after)
    left, right = resources(before), resources(after)
    for section in skipped:  # read on one side only: comparing would report every resource as added or removed
        for side in (left, right):
            for address in [a for a in side if _of_section(a, section)]:
                del side[address]
    # an entity whose configs one side could not read (no right to describe it) is not known there either
    unread = {k.address(n) for live in (before, after) for k in entities.ENTITY_KINDS
              for n in live.unread_entities.get(k.value, {})}  # fmt: skip
    for side in (left, right):
        for address in unread:
            side.pop(address, None)
    # a Kafka Connect cluster one side could not read (one of several): its connectors are not known there
    down = sorted({c for live in (before, after) if live.connect is not None for c in live.connect.unreachable})
    for side in (left, right):
        for address in [a for a in side for c in down if a.startswith(f"{Kind.CONNECTOR.prefix}{c}/")]:
            del side[address]
    tree = DeepDiff(left, right, view="tree", ignore_order=False, verbose_level=2)
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
        *(f"{Kind.CONNECTOR.prefix}{c}/* (Kafka Connect cluster {c} not read)" for c in down),
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


def _summary(address: str, value: Any) -> str:
    """What an added or removed resource was, briefly: the address already says everything for an ACL."""
    if address.startswith(Kind.ACL.prefix) or not value:
        return ""
    if address.startswith(Kind.TOPIC.prefix):
        return f"  ({value['partitions']} partitions, replication factor {value['replication_factor']})"
    return f"  {_show('', value)}"


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
    yield "No differences." if not n else f"{n} resource{'' if n == 1 else 's'} differ."

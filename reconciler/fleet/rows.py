"""The fleet row model: desired and live state flattened to ``(kind, name, attribute, value)`` rows, and back.

Both fleet engines move state as rows of four strings (the engine adds the cluster name as a fifth
column): ``kind`` is a resource kind (``topic``, ``acl``, ...) or a meta kind (``_desired``,
``_cluster``, ``_error``), ``name`` is the resource's ``Change.name``, ``attribute`` names one part of
it (``partitions``, ``configs.retention.ms``) and ``value`` is its text (config values as Kafka's
strings, everything else as JSON; ``None`` is a null value, e.g. a sensitive config Kafka hides).

Attributes whose name starts with ``@`` carry what the planner needs but is not compared when the
rows of the two sides are joined (declaration sources, topic defaults, password references).
``desired_rows``/``live_rows`` and ``rebuild_desired``/``rebuild_live`` are exact inverses: the state
rebuilt from the rows plans exactly like the original, which the fleet tests check. Each kind's rows are its
declaration's ``rows`` part (``reconciler.kinds.spec.FleetRows``), run in ``Kind`` order; this module holds the
metadata rows and the values every kind's rows are written with (``row_fields``: more that the Kafka kinds' rows
share). A sensitive declared config value is the one thing rows do not carry (``plan.REDACTED`` in its place): the
planner never reads it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from reconciler.fleet import ownership_rows
from reconciler.kinds import registry
from reconciler.kinds.spec import FleetRows
from reconciler.kinds.spec import Row as Row  # the fleet engines' row type, named here
from reconciler.model import desired, impact, payloads, plans, snapshotfile, state
from reconciler.model.kinds import Kind
from reconciler.planner import common

META_DESIRED = "_desired"
META_LIVE = "_cluster"
ERROR = "_error"
META_KINDS = frozenset({META_DESIRED, META_LIVE, ERROR})
CONFIG_PREFIX = payloads.CONFIG_ATTRIBUTE_PREFIX


def as_json(value: Any) -> str:
    """``value`` as a row's JSON text (keys sorted, no spaces)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def source_text(source: desired.Source | None) -> str | None:
    """A declaration's source as an ``@source`` row's value."""
    return None if source is None else json.dumps([source.file, source.line, source.column, source.origin])


def source_of(text: str | None) -> desired.Source | None:
    """The source ``source_text`` wrote."""
    if text is None:
        return None
    file, line, column, origin = json.loads(text)
    return desired.Source(file, line, column, origin)


def declared_config(key: str, value: str) -> str:
    """A declared config value as a row carries it: a sensitive one (a ``${VAR}`` secret) as ``plan.REDACTED``, which
    the planner never reads (the cluster hides it; apply reads it from the manifests): rows never hold a secret."""
    return plans.REDACTED if common.is_sensitive(key) else value


def prefixed(entry: Mapping[str, str | None], prefix: str) -> dict[str, str | None]:
    """The attributes of ``entry`` that start with ``prefix``, without it."""
    cut = len(prefix)
    return {k[cut:]: v for k, v in entry.items() if k.startswith(prefix)}


def text(value: str | None) -> str:
    """A row value that may not be null."""
    if value is None:
        raise ValueError("a required row value is null")
    return value


def _kinds() -> Iterator[FleetRows]:
    return (d.rows.get() for d in registry.KINDS.values())


def optional_attributes() -> frozenset[tuple[str, str]]:
    """``(kind, attribute)`` of the attributes a desired resource may leave out without that being a difference."""
    return frozenset((d.kind.value, a) for d in registry.KINDS.values() for a in d.rows.get().optional)


# ------------------------------------------------------------------------------------ desired side
def desired_rows(wanted: desired.DesiredState) -> Iterator[Row]:
    """Every row of a desired state, ownership rules included."""
    yield (META_DESIRED, "", "ownership", as_json(ownership_rows.ownership_doc(wanted.ownership)))
    for kind in _kinds():
        yield from kind.desired_rows(wanted)


def _group(rows: Iterable[Row], kinds: frozenset[str]) -> dict[str, dict[str, dict[str, str | None]]]:
    """kind -> name -> attribute -> value (the planner's results do not depend on the order rows arrive in)."""
    out: dict[str, dict[str, dict[str, str | None]]] = {k: {} for k in kinds}
    for kind, name, attribute, value in rows:
        section = out.get(kind)
        if section is None:
            continue
        entry = section.get(name)
        if entry is None:
            entry = section[name] = {}
        entry[attribute] = value
    return out


def rebuild_desired(rows: Iterable[Row]) -> desired.DesiredState:
    """The desired state the rows were made from (``desired_rows`` inverse)."""
    grouped = _group(rows, frozenset({META_DESIRED, *Kind}))
    meta = grouped[META_DESIRED].get("", {})
    ownership = ownership_rows.ownership(json.loads(text(meta["ownership"])) if "ownership" in meta else {})
    wanted = desired.DesiredState(ownership=ownership)
    for declared in registry.KINDS.values():
        wanted = declared.rows.get().rebuild_desired(wanted, grouped[declared.kind])
    return wanted


# --------------------------------------------------------------------------------------- live side
def _optional_meta(live: state.ClusterState) -> Iterator[Row]:
    """The metadata rows a live state has only sometimes."""
    if live.unread_entities:  # group configs the principal may not describe: a fleet plan blocks them too
        unread = {k: dict(sorted(v.items())) for k, v in sorted(live.unread_entities.items())}
        yield (META_LIVE, "", "unread_entities", as_json(unread))
    if live.entity_defaults:  # what a reset of a group key returns to: the fleet plan shows the same
        yield (
            META_LIVE,
            "",
            "entity_defaults",
            as_json({k: dict(v) for k, v in sorted(live.entity_defaults.items())}),
        )
    # The usage and impact evidence a snapshot carries: the fleet plan shows the same evidence and figures.
    if live.topic_usage is not None:
        usage = {n: {**u.evidence(), "read_at_ms": u.read_at_ms} for n, u in live.topic_usage.items()}
        yield (META_LIVE, "", "topic_usage", as_json(usage))
    if live.impact is not None:
        yield (META_LIVE, "", "impact", as_json(live.impact.to_dict()))


def live_rows(live: state.ClusterState) -> Iterator[Row]:
    """Every row of a live state: the cluster's metadata, then one row per resource attribute."""
    kinds = list(registry.KINDS.values())
    meta: list[tuple[str, Any]] = [
        ("cluster_id", live.cluster_id),
        ("controller_id", live.controller_id),
        ("brokers", [dataclasses.asdict(b) for b in live.brokers]),
        ("broker_config_sensitive", sorted(live.broker_config_sensitive)),
        ("cluster_configs", dict(sorted(live.cluster_configs.items()))),
        ("reassignments", [dataclasses.asdict(r) for r in live.reassignments]),
        ("capabilities", dict(sorted(live.capabilities.items()))),
        ("unavailable", dict(sorted(live.unavailable.items()))),
        # whether each kind without metadata of its own was read, by the name of its snapshot section
        (
            "sections",
            {d.snapshot_section: d.live_section(live) is not None for d in kinds if d.rows.get().meta is None},
        ),
    ]
    meta += [(own[0], own[1](live)) for d in kinds if (own := d.rows.get().meta) is not None]
    for attribute, value in meta:
        yield (META_LIVE, "", attribute, as_json(value))
    yield from _optional_meta(live)
    for kind in _kinds():
        yield from kind.live_rows(live)


def rebuild_live(rows: Iterable[Row]) -> state.ClusterState:
    """The live state the rows were made from (``live_rows`` inverse)."""
    grouped = _group(rows, frozenset({META_LIVE, *Kind}))
    meta = {k: json.loads(text(v)) for k, v in grouped[META_LIVE].get("", {}).items()}
    if "sections" not in meta:
        raise ValueError("the live rows have no cluster metadata")
    live = state.ClusterState(
        cluster_id=meta["cluster_id"],
        controller_id=meta["controller_id"],
        brokers=tuple(state.Broker(**b) for b in meta["brokers"]),
        broker_config_sensitive=frozenset(meta["broker_config_sensitive"]),
        cluster_configs=meta["cluster_configs"],
        reassignments=tuple(snapshotfile.reassignment(r) for r in meta["reassignments"]),
        capabilities={str(k): int(v) for k, v in meta["capabilities"].items()},
        unavailable={str(k): str(v) for k, v in meta["unavailable"].items()},
        unread_entities=snapshotfile.unread_entities(meta.get("unread_entities")),
        entity_defaults=dict(meta.get("entity_defaults") or {}),
        topic_usage=None
        if meta.get("topic_usage") is None
        else {str(n): state.TopicUsage.from_dict(u) for n, u in meta["topic_usage"].items()},
        impact=None if meta.get("impact") is None else impact.ImpactEvidence.from_dict(meta["impact"]),
    )
    for declared in registry.KINDS.values():
        kind = declared.rows.get()
        own = None if kind.meta is None else meta.get(kind.meta[0])
        read = meta["sections"].get(declared.snapshot_section, False) if kind.meta is None else own is not None
        if read:
            live = kind.rebuild_live(live, grouped[declared.kind], own)
    return live


def resolve(live: state.ClusterState, wanted: desired.DesiredState) -> state.ClusterState:
    """``live`` rebuilt from rows with what each kind resolves where the cluster is planned (``FleetRows.resolve``)."""
    for kind in _kinds():
        live = kind.resolve(live, wanted)
    return live


def resolved_rows(live: state.ClusterState) -> list[Row]:
    """The desired-side rows of what ``resolve`` added to ``live`` (``FleetRows.resolved_rows``)."""
    return [row for kind in _kinds() for row in kind.resolved_rows(live)]


def error_rows(reason: str) -> list[Row]:
    """The single row that stands for a cluster whose live state could not be read."""
    return [(ERROR, "", "reason", reason)]

"""The frame of a snapshot document: its format and version, the sections that belong to no resource kind (the
cluster and its brokers, partition reassignments, the capabilities read, what could not be read, the evidence of a
plan's impact), and the JSON hook that shares repeated values as a file is parsed.

Each kind writes and reads its own section (its declaration's ``snapshot`` part); ``reconciler.snapshot.files``
assembles a document from the frame and the kinds' sections and reads and writes the files. Each ``*_fields``
function here gives the ``state.ClusterState`` fields its keys hold; a malformed value raises ``KeyError``,
``TypeError`` or ``ValueError``, which the reader turns into a plain ``SnapshotError``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from reconciler.model import impact as impact_mod
from reconciler.model import state

SNAPSHOT_FORMAT = "kafka-reconciler/snapshot"
SNAPSHOT_VERSION = 1


def head(live: state.ClusterState) -> dict[str, Any]:
    """The document's first keys: its format and version, the cluster and its brokers."""
    return {
        "format": SNAPSHOT_FORMAT,
        "version": SNAPSHOT_VERSION,
        "cluster_id": live.cluster_id,
        "controller_id": live.controller_id,
        "brokers": [dataclasses.asdict(b) for b in live.brokers],
    }


def head_fields(doc: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "cluster_id": doc.get("cluster_id"),
        "controller_id": doc.get("controller_id"),
        "brokers": tuple(state.Broker(**b) for b in doc.get("brokers", [])),
    }


def cluster(live: state.ClusterState) -> dict[str, Any]:
    """The brokers' effective settings the planner lints."""
    return {"cluster_configs": dict(sorted(live.cluster_configs.items()))}


def cluster_fields(doc: Mapping[str, Any]) -> dict[str, Any]:
    return {"cluster_configs": dict(doc.get("cluster_configs", {}))}


def record(live: state.ClusterState) -> dict[str, Any]:
    """What the read found besides the resources: reassignments in progress, the API versions the cluster supports,
    why a section could not be read, the usage and impact evidence of the topics a plan changes."""
    return {
        "reassignments": [dataclasses.asdict(r) for r in live.reassignments],
        "capabilities": dict(sorted(live.capabilities.items())),
        "unavailable": dict(sorted(live.unavailable.items())),
        "topic_usage": None
        if live.topic_usage is None
        else {name: {**u.evidence(), "read_at_ms": u.read_at_ms} for name, u in sorted(live.topic_usage.items())},
        **({} if live.impact is None else {"impact": live.impact.to_dict()}),
    }


def record_fields(doc: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "reassignments": tuple(reassignment(r) for r in doc.get("reassignments", [])),
        "capabilities": {str(k): int(v) for k, v in doc.get("capabilities", {}).items()},
        "unavailable": {str(k): str(v) for k, v in doc.get("unavailable", {}).items()},
        "topic_usage": None
        if doc.get("topic_usage") is None
        else {str(name): state.TopicUsage.from_dict(u) for name, u in doc["topic_usage"].items()},
        "impact": None if doc.get("impact") is None else impact_mod.ImpactEvidence.from_dict(doc["impact"]),
    }


def unread(live: state.ClusterState) -> dict[str, Any]:
    """The entities whose configs could not be read, and the values their unset keys fall back to (each key only
    when there is one)."""
    return {
        **({} if not live.unread_entities else {"unread_entities": _unread_doc(live.unread_entities)}),
        **({} if not live.entity_defaults else {"entity_defaults": _unread_doc(live.entity_defaults)}),
    }


def unread_fields(doc: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "unread_entities": unread_entities(doc.get("unread_entities")),
        "entity_defaults": entity_configs(doc.get("entity_defaults")) or {},
    }


def _unread_doc(unread: Mapping[str, Mapping[str, str | None]]) -> dict[str, dict[str, str | None]]:
    return {kind: dict(sorted(names.items())) for kind, names in sorted(unread.items()) if names}


def unread_entities(section: Any) -> dict[str, dict[str, str]]:
    """An ``unread_entities`` section (kind -> entity name -> why its configs were not read) of a document."""
    out: dict[str, dict[str, str]] = {}
    for kind, names in dict(section or {}).items():
        if not all(isinstance(v, str) for v in dict(names).values()):
            raise ValueError(f"the unread {kind} reasons are not text")
        out[str(kind)] = {str(n): str(why) for n, why in dict(names).items()}
    return out


def entity_configs(section: Any) -> dict[str, dict[str, str | None]] | None:
    """A section of names each mapped to the configs set on it (text values): group configs, client-metrics
    subscriptions, entity defaults; ``None`` when absent."""
    if section is None:
        return None
    out: dict[str, dict[str, str | None]] = {}
    for name, found in dict(section).items():
        if not all(isinstance(v, str) or v is None for v in dict(found).values()):
            raise ValueError(f"the configs of {name!r} are not text values")
        out[str(name)] = {str(k): v for k, v in dict(found).items()}
    return out


def reassignment(r: Mapping[str, Any]) -> state.Reassignment:
    """One partition reassignment read back from its saved JSON form."""
    return state.Reassignment(
        topic=r["topic"],
        partition=int(r["partition"]),
        replicas=tuple(r["replicas"]),
        adding=tuple(r["adding"]),
        removing=tuple(r["removing"]),
    )


def sharing_hook() -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A ``json`` object hook that makes equal string values, and equal ``assignment`` lists, one object each.

    An ``assignment`` becomes a tuple of int tuples only when it is a list of lists of integers (anything else is
    left for the topics' section to refuse as before); the object is otherwise the same plain data.
    """
    shared: dict[Any, Any] = {}

    def hook(obj: dict[str, Any]) -> dict[str, Any]:
        for key, value in obj.items():
            if type(value) is str:
                obj[key] = shared.setdefault(value, value)
            elif key == "assignment" and type(value) is list and all(_int_list(r) for r in value):
                layout = tuple(shared.setdefault(t, t) for t in (tuple(r) for r in value))
                obj[key] = shared.setdefault(layout, layout)
        return obj

    return hook


def _int_list(value: Any) -> bool:
    return type(value) is list and all(type(x) is int for x in value)

"""Snapshot documents and files: the versioned JSON form of a ``state.ClusterState`` and its file I/O.

``write_snapshot`` stores what ``kafka-reconciler snapshot`` read; ``read_snapshot`` loads it back for an offline
plan (``--live-state``), a snapshot diff or a fleet run. A malformed or foreign document is refused with
``SnapshotError`` naming the file and what is wrong, never a traceback. Sensitive values are already ``None`` in
the state, so a snapshot never holds one.

A no-change plan from a snapshot holds the desired state while it reads the snapshot, so what reading holds at
once adds to the plan's peak memory: ``read_snapshot`` parses with ``sharing_hook`` (one string per distinct
value, one tuple per distinct replica list and assignment, as each JSON object is built) and drops the file's
text once parsed, and ``from_json_dict`` empties the ``topics`` and ``acls`` sections as it builds each topic and
binding, so the parsed form is freed while the state is built instead of both being held at once.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from reconciler.base import errors, fileio
from reconciler.model import connect_snapshot, schema_subject_snapshot, state
from reconciler.model import impact as impact_mod

SNAPSHOT_FORMAT = "kafka-reconciler/snapshot"
SNAPSHOT_VERSION = 1
_NO_KEYS: frozenset[str] = frozenset()


def to_json_dict(live: state.ClusterState) -> dict[str, Any]:
    """The versioned snapshot document of ``live`` (sensitive values are already ``None`` there)."""
    return {
        "format": SNAPSHOT_FORMAT,
        "version": SNAPSHOT_VERSION,
        "cluster_id": live.cluster_id,
        "controller_id": live.controller_id,
        "brokers": [dataclasses.asdict(b) for b in live.brokers],
        "topics": None
        if live.topics is None
        else {
            name: {
                "assignment": [list(r) for r in t.assignment],
                "internal": t.internal,
                "configs": dict(sorted(t.configs.items())),
                "defaults": dict(sorted(t.defaults.items())),
                "sensitive": sorted(t.sensitive),
                "topic_id": t.topic_id,
            }
            for name, t in sorted(live.topics.items())
        },
        "broker_configs": None
        if live.broker_configs is None
        else {k: dict(sorted(v.items())) for k, v in sorted(live.broker_configs.items())},
        "broker_config_sensitive": sorted(live.broker_config_sensitive),
        "cluster_configs": dict(sorted(live.cluster_configs.items())),
        "acls": None if live.acls is None else [a.to_dict() for a in sorted(live.acls)],
        "quotas": None
        if live.quotas is None
        else [
            {"entity": e.to_list(), "values": dict(sorted(v.items()))}
            for e, v in sorted(live.quotas.items(), key=lambda item: item[0].address)
        ],
        "scram_users": None
        if live.scram_users is None
        else {
            u: [dataclasses.asdict(c) for c in sorted(creds, key=lambda c: c.mechanism)]
            for u, creds in sorted(live.scram_users.items())
        },
        "reassignments": [dataclasses.asdict(r) for r in live.reassignments],
        "capabilities": dict(sorted(live.capabilities.items())),
        "unavailable": dict(sorted(live.unavailable.items())),
        "topic_usage": None
        if live.topic_usage is None
        else {name: {**u.evidence(), "read_at_ms": u.read_at_ms} for name, u in sorted(live.topic_usage.items())},
        **({} if live.impact is None else {"impact": live.impact.to_dict()}),
        **{
            section: {n: dict(sorted(c.items())) for n, c in sorted(found.items())}
            for section, found in (("group_configs", live.group_configs), ("client_metrics", live.client_metrics))
            if found is not None
        },
        **({} if live.connect is None else {"connect": connect_snapshot.to_dict(live.connect)}),
        **(
            {}
            if live.schema_subjects is None
            else {schema_subject_snapshot.SECTION: schema_subject_snapshot.to_dict(live.schema_subjects)}
        ),
        **({} if not live.unread_entities else {"unread_entities": _unread_doc(live.unread_entities)}),
        **({} if not live.entity_defaults else {"entity_defaults": _unread_doc(live.entity_defaults)}),
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


def from_json_dict(doc: Mapping[str, Any]) -> state.ClusterState:
    """Parse a snapshot document; raises ``SnapshotError`` with a plain message when it is malformed.

    The ``topics`` and ``acls`` sections of ``doc`` are emptied as they are read.
    """
    if not isinstance(doc, Mapping) or doc.get("format") != SNAPSHOT_FORMAT:
        raise errors.SnapshotError(f"not a kafka-reconciler snapshot (expected format {SNAPSHOT_FORMAT!r})")
    if doc.get("version") != SNAPSHOT_VERSION:
        raise errors.SnapshotError(
            f"unsupported snapshot version {doc.get('version')!r}; this tool reads version {SNAPSHOT_VERSION}"
        )
    try:
        return _cluster_state(doc)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise errors.SnapshotError(f"malformed snapshot: {type(exc).__name__}: {exc}") from None


def _cluster_state(doc: Mapping[str, Any]) -> state.ClusterState:
    """The state a well-formed document holds; ``KeyError``/``TypeError``/``ValueError`` when a section is not."""
    acls_doc = doc.get("acls")
    bc_doc = doc.get("broker_configs")
    return state.ClusterState(
        cluster_id=doc.get("cluster_id"),
        controller_id=doc.get("controller_id"),
        brokers=tuple(state.Broker(**b) for b in doc.get("brokers", [])),
        topics=_topics(doc.get("topics")),
        broker_configs=None if bc_doc is None else {str(k): dict(v) for k, v in bc_doc.items()},
        broker_config_sensitive=frozenset(doc.get("broker_config_sensitive", [])),
        cluster_configs=dict(doc.get("cluster_configs", {})),
        acls=None if acls_doc is None else frozenset(_acls(acls_doc)),
        quotas=_quotas(doc.get("quotas")),
        scram_users=_scram_users(doc.get("scram_users")),
        reassignments=tuple(reassignment(r) for r in doc.get("reassignments", [])),
        capabilities={str(k): int(v) for k, v in doc.get("capabilities", {}).items()},
        unavailable={str(k): str(v) for k, v in doc.get("unavailable", {}).items()},
        topic_usage=None
        if doc.get("topic_usage") is None
        else {str(name): state.TopicUsage.from_dict(u) for name, u in doc["topic_usage"].items()},
        impact=None if doc.get("impact") is None else impact_mod.ImpactEvidence.from_dict(doc["impact"]),
        group_configs=_entities(doc.get("group_configs")),
        client_metrics=_entities(doc.get("client_metrics")),
        connect=connect_snapshot.from_dict(doc.get("connect")),
        schema_subjects=schema_subject_snapshot.from_dict(doc.get(schema_subject_snapshot.SECTION)),
        unread_entities=unread_entities(doc.get("unread_entities")),
        entity_defaults=_entities(doc.get("entity_defaults")) or {},
    )


def _entities(section: Any) -> dict[str, dict[str, str | None]] | None:
    """Group configs or client-metrics subscriptions: name -> configs set on it (text values)."""
    if section is None:
        return None
    out: dict[str, dict[str, str | None]] = {}
    for name, found in dict(section).items():
        if not all(isinstance(v, str) or v is None for v in dict(found).values()):
            raise ValueError(f"the configs of {name!r} are not text values")
        out[str(name)] = {str(k): v for k, v in dict(found).items()}
    return out


def _topics(section: Any) -> dict[str, state.TopicState] | None:
    """The topics of a ``topics`` section, which is emptied topic by topic as each is built.

    Replica lists are kept once per distinct list (``sharing_hook`` has already done so for a file), and topics
    without sensitive keys share one empty set.
    """
    if section is None:
        return None
    rows: dict[tuple[int, ...], tuple[int, ...]] = {}
    topics: dict[str, state.TopicState] = {}
    for name in list(section):
        t = section.pop(name)
        layout = t["assignment"]
        if type(layout) is not tuple:  # not shared by the hook: a plain document, or not a list of int lists
            layout = tuple(rows.setdefault(r, r) for r in (tuple(int(x) for x in rs) for rs in layout))
        sensitive = t.get("sensitive", [])
        topics[name] = state.TopicState(
            name=name,
            assignment=layout,
            internal=bool(t.get("internal", False)),
            configs=dict(t.get("configs", {})),
            defaults=dict(t.get("defaults", {})),
            sensitive=frozenset(sensitive) if sensitive else _NO_KEYS,
            topic_id=t.get("topic_id"),
        )
    return topics


def _acls(section: Any) -> Iterator[state.AclBinding]:
    """The bindings of an ``acls`` list, which is emptied (from its end) as each is built."""
    while section:
        yield state.AclBinding.from_dict(section.pop())


def _quotas(quotas_doc: list[Any] | None) -> dict[state.QuotaEntity, dict[str, float]] | None:
    if quotas_doc is None:
        return None
    return {state.QuotaEntity.from_list(q["entity"]): {k: float(v) for k, v in q["values"].items()} for q in quotas_doc}


def _scram_users(scram_doc: Mapping[str, Any] | None) -> dict[str, tuple[state.ScramCredential, ...]] | None:
    if scram_doc is None:
        return None
    return {
        u: tuple(state.ScramCredential(str(c["mechanism"]), int(c["iterations"])) for c in creds)
        for u, creds in scram_doc.items()
    }


def reassignment(r: Mapping[str, Any]) -> state.Reassignment:
    """One partition reassignment read back from its saved JSON form."""
    return state.Reassignment(
        topic=r["topic"],
        partition=int(r["partition"]),
        replicas=tuple(r["replicas"]),
        adding=tuple(r["adding"]),
        removing=tuple(r["removing"]),
    )


def write_snapshot(live: state.ClusterState, path: Path) -> None:
    """Write a snapshot file (user-only permissions, no symlink following)."""
    fileio.write_private_file(path, json.dumps(to_json_dict(live), indent=2, sort_keys=False) + "\n")


def read_snapshot(path: Path) -> state.ClusterState:
    """Read a snapshot file written by ``write_snapshot`` (or by hand, or by a generator)."""
    text = fileio.read_text(path, what="snapshot", error=errors.SnapshotError)
    try:
        doc = fileio.parse_json(text, object_hook=sharing_hook())
    except json.JSONDecodeError as exc:
        raise errors.SnapshotError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except fileio.JsonLimitError as exc:
        raise errors.SnapshotError(f"{path}: refused: the snapshot {exc}") from None
    del text  # not needed once parsed: freed before the state is built
    try:
        return from_json_dict(doc)
    except errors.SnapshotError as exc:
        raise errors.SnapshotError(f"{path}: {exc}") from None


def sharing_hook() -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A ``json`` object hook that makes equal string values, and equal ``assignment`` lists, one object each.

    An ``assignment`` becomes a tuple of int tuples only when it is a list of lists of integers (anything else is
    left for ``from_json_dict`` to refuse as before); the object is otherwise the same plain data.
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

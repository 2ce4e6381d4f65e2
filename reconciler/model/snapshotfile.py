"""Snapshot documents and files: the versioned JSON form of a ``state.ClusterState`` and its file I/O.

``write_snapshot`` stores what ``kafka-reconciler snapshot`` read; ``read_snapshot`` loads it back for an offline
plan (``--live-state``), a snapshot diff or a fleet run. A malformed or foreign document is refused with
``SnapshotError`` naming the file and what is wrong, never a traceback. Sensitive values are already ``None`` in
the state, so a snapshot never holds one.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reconciler.base import errors, fileio
from reconciler.model import impact as impact_mod
from reconciler.model import state

SNAPSHOT_FORMAT = "kafka-reconciler/snapshot"
SNAPSHOT_VERSION = 1


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
    }


def from_json_dict(doc: Mapping[str, Any]) -> state.ClusterState:
    """Parse a snapshot document; raises ``SnapshotError`` with a plain message when it is malformed."""
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
        acls=None if acls_doc is None else frozenset(state.AclBinding.from_dict(a) for a in acls_doc),
        quotas=_quotas(doc.get("quotas")),
        scram_users=_scram_users(doc.get("scram_users")),
        reassignments=tuple(_reassignment(r) for r in doc.get("reassignments", [])),
        capabilities={str(k): int(v) for k, v in doc.get("capabilities", {}).items()},
        unavailable={str(k): str(v) for k, v in doc.get("unavailable", {}).items()},
        topic_usage=None
        if doc.get("topic_usage") is None
        else {str(name): state.TopicUsage.from_dict(u) for name, u in doc["topic_usage"].items()},
        impact=None if doc.get("impact") is None else impact_mod.ImpactEvidence.from_dict(doc["impact"]),
    )


def _topics(topics_doc: Mapping[str, Any] | None) -> dict[str, state.TopicState] | None:
    if topics_doc is None:
        return None
    rows: dict[tuple[int, ...], tuple[int, ...]] = {}  # one tuple per distinct replica list: most repeat

    def row(replicas: Any) -> tuple[int, ...]:
        found = tuple(int(x) for x in replicas)
        return rows.setdefault(found, found)

    return {
        name: state.TopicState(
            name=name,
            assignment=tuple(row(r) for r in t["assignment"]),
            internal=bool(t.get("internal", False)),
            configs=dict(t.get("configs", {})),
            defaults=dict(t.get("defaults", {})),
            sensitive=frozenset(t.get("sensitive", [])),
            topic_id=t.get("topic_id"),
        )
        for name, t in topics_doc.items()
    }


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


def _reassignment(r: Mapping[str, Any]) -> state.Reassignment:
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
        doc = fileio.parse_json(text)
    except json.JSONDecodeError as exc:
        raise errors.SnapshotError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except fileio.JsonLimitError as exc:
        raise errors.SnapshotError(f"{path}: refused: the snapshot {exc}") from None
    del text  # the file's text is not needed once parsed: freed before the state is built beside the parsed form
    try:
        return from_json_dict(doc)
    except errors.SnapshotError as exc:
        raise errors.SnapshotError(f"{path}: {exc}") from None

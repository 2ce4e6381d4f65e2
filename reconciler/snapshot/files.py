"""Snapshot documents and files: the versioned JSON form of a ``state.ClusterState`` and its file I/O.

``write_snapshot`` stores what ``kafka-reconciler snapshot`` read; ``read_snapshot`` loads it back for an offline
plan (``--live-state``), a snapshot diff or a fleet run. A document is the frame (``reconciler.model.snapshotfile``:
format, version, cluster, brokers, what was not read) and each kind's section, written and read by the kind's
``snapshot`` part (``reconciler.kinds.spec.SnapshotSection``) for every kind of the registry; the sections stand in
the order of their ``order``, which keeps the files byte for byte as they always were. A malformed or foreign
document is refused with ``SnapshotError`` naming the file and what is wrong, never a traceback. Sensitive values
are already ``None`` in the state, so a snapshot never holds one.

A no-change plan from a snapshot holds the desired state while it reads the snapshot, so what reading holds at
once adds to the plan's peak memory: ``read_snapshot`` parses with ``sharing_hook`` (one string per distinct
value, one tuple per distinct replica list and assignment, as each JSON object is built) and drops the file's
text once parsed, and ``from_json_dict`` empties the ``topics`` and ``acls`` sections as it builds each topic and
binding, so the parsed form is freed while the state is built instead of both being held at once.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from reconciler.base import errors, fileio
from reconciler.kinds import registry
from reconciler.model import snapshotfile as frame
from reconciler.model import state

SNAPSHOT_FORMAT = frame.SNAPSHOT_FORMAT
SNAPSHOT_VERSION = frame.SNAPSHOT_VERSION

Write = Callable[[state.ClusterState], Mapping[str, Any]]
Read = Callable[[Mapping[str, Any]], Mapping[str, Any]]
# The frame's parts, (order, write, read), placed among the kinds' sections (``SnapshotSection.order``) where
# snapshot files have always had them: the head first, the cluster's settings after the broker configs, the read's
# record after the SCRAM users, what was not read last.
_FRAME: tuple[tuple[int, Write, Read], ...] = (
    (0, frame.head, frame.head_fields),
    (25, frame.cluster, frame.cluster_fields),
    (60, frame.record, frame.record_fields),
    (1000, frame.unread, frame.unread_fields),
)


@functools.cache
def _sections() -> tuple[tuple[Write, Read], ...]:
    """(write, read) of the frame's parts and of every kind's section, in document order."""
    kinds = ((s.order, s.write, s.read) for s in (d.snapshot.get() for d in registry.KINDS.values()))
    return tuple((write, read) for _, write, read in sorted((*_FRAME, *kinds), key=lambda part: part[0]))


def to_json_dict(live: state.ClusterState) -> dict[str, Any]:
    """The versioned snapshot document of ``live`` (sensitive values are already ``None`` there)."""
    doc: dict[str, Any] = {}
    for write, _ in _sections():
        doc.update(write(live))
    return doc


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
        fields: dict[str, Any] = {}
        sections: dict[Any, Any] = {}  # the kinds' own sections (``ClusterState.sections``), merged
        for _, read in _sections():
            found = dict(read(doc))
            sections.update(found.pop("sections", {}))
            fields.update(found)
        return state.ClusterState(**fields, sections=sections)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise errors.SnapshotError(f"malformed snapshot: {type(exc).__name__}: {exc}") from None


def write_snapshot(live: state.ClusterState, path: Path) -> None:
    """Write a snapshot file (user-only permissions, no symlink following)."""
    fileio.write_private_file(path, json.dumps(to_json_dict(live), indent=2, sort_keys=False) + "\n")


def read_snapshot(path: Path) -> state.ClusterState:
    """Read a snapshot file written by ``write_snapshot`` (or by hand, or by a generator)."""
    text = fileio.read_text(path, what="snapshot", error=errors.SnapshotError)
    try:
        doc = fileio.parse_json(text, object_hook=frame.sharing_hook())
    except json.JSONDecodeError as exc:
        raise errors.SnapshotError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except fileio.JsonLimitError as exc:
        raise errors.SnapshotError(f"{path}: refused: the snapshot {exc}") from None
    del text  # not needed once parsed: freed before the state is built
    try:
        return from_json_dict(doc)
    except errors.SnapshotError as exc:
        raise errors.SnapshotError(f"{path}: {exc}") from None

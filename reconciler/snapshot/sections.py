"""Snapshot sections several kinds share the shape of: ``entity_section`` builds the section of an entity kind
(``reconciler.model.entities``: group configs, client-metrics subscriptions), name -> the configs set on it, left out
of a document when not read, as snapshot files have always had it. Each kind's own place names its section as its
declaration's ``snapshot`` part (``kinds/<kind>/snapshot.py``)."""

from __future__ import annotations

from typing import Any

from reconciler.kinds.spec import SnapshotSection
from reconciler.model import entities, snapshotfile, state
from reconciler.model.kinds import Kind


def entity_section(kind: Kind, *, order: int) -> SnapshotSection:
    """The section of an entity kind (``model.entities``): name -> the configs set on it, left out when not read."""
    key = entities.SECTIONS[kind]

    def write(live: state.ClusterState) -> dict[str, Any]:
        found = entities.live_section(live, kind)
        return {} if found is None else {key: {n: dict(sorted(c.items())) for n, c in sorted(found.items())}}

    def resources(live: state.ClusterState) -> dict[str, Any]:
        return {kind.address(name): dict(found) for name, found in (entities.live_section(live, kind) or {}).items()}

    return SnapshotSection(
        order=order,
        write=write,
        read=lambda doc: {key: snapshotfile.entity_configs(doc.get(key))},
        resources=resources,
    )

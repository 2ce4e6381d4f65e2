"""The client quotas' section of a snapshot document (``SNAPSHOT``, the kind's ``snapshot`` part): each entity and
the quota values set on it (``null`` when not read), and each entity's values as ``diff A B`` compares them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.kinds.spec import SnapshotSection
from reconciler.model import state


def _write_quotas(live: state.ClusterState) -> dict[str, Any]:
    return {
        "quotas": None
        if live.quotas is None
        else [
            {"entity": e.to_list(), "values": dict(sorted(v.items()))}
            for e, v in sorted(live.quotas.items(), key=lambda item: item[0].address)
        ]
    }


def _read_quotas(doc: Mapping[str, Any]) -> dict[str, Any]:
    found = doc.get("quotas")
    if found is None:
        return {"quotas": None}
    return {
        "quotas": {
            state.QuotaEntity.from_list(q["entity"]): {k: float(v) for k, v in q["values"].items()} for q in found
        }
    }


SNAPSHOT = SnapshotSection(
    order=40,
    write=_write_quotas,
    read=_read_quotas,
    resources=lambda live: {entity.address: dict(quota) for entity, quota in (live.quotas or {}).items()},
)

"""The dynamic broker configs' section of a snapshot document (``SNAPSHOT``, the kind's ``snapshot`` part): the
configs set on the cluster default and on each broker (``null`` when not read) and the keys the brokers report
sensitive, and each broker's configs as ``diff A B`` compares them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.kinds.spec import SnapshotSection
from reconciler.model import state
from reconciler.model.kinds import Kind


def _write_broker_configs(live: state.ClusterState) -> dict[str, Any]:
    return {
        "broker_configs": None
        if live.broker_configs is None
        else {k: dict(sorted(v.items())) for k, v in sorted(live.broker_configs.items())},
        "broker_config_sensitive": sorted(live.broker_config_sensitive),
    }


def _read_broker_configs(doc: Mapping[str, Any]) -> dict[str, Any]:
    found = doc.get("broker_configs")
    return {
        "broker_configs": None if found is None else {str(k): dict(v) for k, v in found.items()},
        "broker_config_sensitive": frozenset(doc.get("broker_config_sensitive", [])),
    }


SNAPSHOT = SnapshotSection(
    order=20,
    write=_write_broker_configs,
    read=_read_broker_configs,
    resources=lambda live: {Kind.BROKER_CONFIG.address(b): dict(v) for b, v in (live.broker_configs or {}).items()},
)

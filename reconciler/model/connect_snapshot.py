"""The ``connect`` section of a snapshot file: the Connect cluster's connectors as plain JSON data, and back.

Configs are stored as the port read them: a secret's value is already a digest there, never the value. The
validate answers and secret digests of one plan are not stored (they belong to that plan's manifests): a plan
made offline from a snapshot does not run Connect's validate endpoint.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.model import state


def to_dict(connect: state.ConnectState) -> dict[str, Any]:
    return {
        "url": connect.url,
        "plugins": None if connect.plugins is None else list(connect.plugins),
        **(
            {"plugin_versions": {c: list(v) for c, v in connect.plugin_versions.items()}}
            if connect.plugin_versions
            else {}
        ),
        "connectors": {
            name: {
                "config": dict(sorted(c.config.items())),
                "state": c.state,
                "type": c.type,
                "trace": c.trace,
                "tasks": [{"id": t.id, "state": t.state, "worker": t.worker, "trace": t.trace} for t in c.tasks],
            }
            for name, c in sorted(connect.connectors.items())
        },
    }


def from_dict(doc: Any) -> state.ConnectState | None:
    """The section ``to_dict`` wrote (``None`` when absent); ``KeyError``, ``TypeError``, ``ValueError``: malformed."""
    if doc is None:
        return None
    if not isinstance(doc, Mapping):
        raise TypeError("the connect section is not an object")
    connectors = {}
    for name, c in dict(doc["connectors"]).items():
        config = {str(k): str(v) for k, v in dict(c["config"]).items()}
        tasks = tuple(
            state.ConnectorTask(int(t["id"]), str(t["state"]), t.get("worker"), t.get("trace"))
            for t in c.get("tasks", [])
        )
        connectors[str(name)] = state.ConnectorState(
            str(name), config, str(c["state"]), tasks, c.get("type"), c.get("trace")
        )
    plugins = doc.get("plugins")
    versions = {str(c): tuple(str(v) for v in found) for c, found in dict(doc.get("plugin_versions") or {}).items()}
    return state.ConnectState(
        url=str(doc["url"]),
        connectors=connectors,
        plugins=None if plugins is None else tuple(str(p) for p in plugins),
        plugin_versions=versions,
    )

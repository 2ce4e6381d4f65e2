"""The ``connect`` section of a snapshot file: the Connect clusters' connectors as plain JSON data, and back (a section
per Connect cluster under ``clusters`` when the profile has several).

Configs are stored as the port read them: a secret's value is already a digest there, never the value. The
validate answers and secret digests of one plan are not stored (they belong to that plan's manifests): a plan
made offline from a snapshot does not run Connect's validate endpoint.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.model import connect_clusters as clusters
from reconciler.model import state


def to_dict(connect: state.ConnectState) -> dict[str, Any]:
    """The section of ``connect``: one Connect cluster's, or ``{"clusters": {name: section}}`` for several (each
    section as one cluster's, its connectors by their Connect names; ``unreachable`` those that were not read)."""
    if not connect.clusters:
        return _one(connect.url, connect.plugins, connect.plugin_versions, connect.connectors)
    out: dict[str, Any] = {
        "url": connect.url,
        "clusters": {
            name: _one(
                one.url,
                one.plugins,
                one.plugin_versions,
                {k.partition("/")[2]: c for k, c in connect.connectors.items() if k.partition("/")[0] == name},
            )
            for name, one in sorted(connect.clusters.items())
        },
    }
    if connect.unreachable:
        out["unreachable"] = dict(sorted(connect.unreachable.items()))
    return out


def _one(
    url: str,
    plugins: tuple[str, ...] | None,
    versions: Mapping[str, tuple[str, ...]],
    connectors: Mapping[str, state.ConnectorState],
) -> dict[str, Any]:
    return {
        "url": url,
        "plugins": None if plugins is None else list(plugins),
        **({"plugin_versions": {c: list(v) for c, v in versions.items()}} if versions else {}),
        "connectors": {
            name: {
                "config": dict(sorted(c.config.items())),
                "state": c.state,
                "type": c.type,
                "trace": c.trace,
                "tasks": [{"id": t.id, "state": t.state, "worker": t.worker, "trace": t.trace} for t in c.tasks],
            }
            for name, c in sorted(connectors.items())
        },
    }


def from_dict(doc: Any) -> state.ConnectState | None:
    """The section ``to_dict`` wrote (``None`` when absent); ``KeyError``, ``TypeError``, ``ValueError``: malformed.
    A section of one Connect cluster (as every snapshot before several were supported) is the only cluster's."""
    if doc is None:
        return None
    if not isinstance(doc, Mapping):
        raise TypeError("the connect section is not an object")
    if "clusters" not in doc:
        return _read_one(doc, None)
    found = {str(name): _read_one(one, str(name)) for name, one in dict(doc["clusters"]).items()}
    unreachable = {str(k): str(v) for k, v in dict(doc.get("unreachable") or {}).items()}
    names = [*found, *unreachable]
    if len(set(names)) != len(names) or len(names) < 2 or any(not clusters.NAME.match(n) for n in names):
        raise ValueError(
            "the connect section's clusters and unreachable must name at least two Connect clusters, each once"
        )
    return state.ConnectState(
        url=str(doc.get("url") or ", ".join(f"{name}={one.url}" for name, one in found.items())),
        connectors=dict(sorted((k, c) for one in found.values() for k, c in one.connectors.items())),
        plugins=tuple(sorted({p for one in found.values() for p in one.plugins or ()})),
        clusters={
            name: state.ConnectCluster(url=one.url, plugins=one.plugins, plugin_versions=one.plugin_versions)
            for name, one in found.items()
        },
        unreachable=unreachable,
    )


def _read_one(doc: Any, cluster: str | None) -> state.ConnectState:
    if not isinstance(doc, Mapping):
        raise TypeError("a Connect cluster's section is not an object")
    connectors = {}
    for name, c in dict(doc["connectors"]).items():
        config = {str(k): str(v) for k, v in dict(c["config"]).items()}
        tasks = tuple(
            state.ConnectorTask(int(t["id"]), str(t["state"]), t.get("worker"), t.get("trace"))
            for t in c.get("tasks", [])
        )
        key = clusters.key(cluster, str(name))
        connectors[key] = state.ConnectorState(key, config, str(c["state"]), tasks, c.get("type"), c.get("trace"))
    plugins = doc.get("plugins")
    versions = {str(c): tuple(str(v) for v in found) for c, found in dict(doc.get("plugin_versions") or {}).items()}
    return state.ConnectState(
        url=str(doc["url"]),
        connectors=connectors,
        plugins=None if plugins is None else tuple(str(p) for p in plugins),
        plugin_versions=versions,
    )

"""Kafka Connect connectors in the fleet row model: declared connectors and a snapshot's connectors as rows, and back.

Rows of kind ``connector`` are named by the connector. Both sides carry ``state`` (the declared state, or Connect's
state in lower case, so a running connector joins equal) and one ``configs.<key>`` row per config key. The live
side's configs are as the snapshot holds them: a secret is its digest, never its value; the desired side names its
secrets only by reference (``@secrets``: an environment variable or a file). The Connect cluster's address and
plugin list travel in the live metadata row ``connect``, with the field errors Connect's validate endpoint reported
and the offsets Connect keeps for the connectors a plan deletes, when the cluster was read live (a snapshot holds
neither). The digests of the declared secrets are not rows: they are
resolved where the cluster is planned, as a single-cluster offline plan resolves them
(``evidence.offline``). ``ROWS`` is the kind's ``FleetRows`` (its declaration's ``rows``), with the
Ownership rules that name connectors, that resolution, and the digests as the desired-side rows the drift compares.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from typing import Any

from reconciler.fleet.ownership_rows import patterns, unpatterns
from reconciler.kinds.connector import evidence
from reconciler.kinds.spec import FleetRows
from reconciler.model import desired, state
from reconciler.model.kinds import Kind
from reconciler.model.payloads import CONFIG_ATTRIBUTE_PREFIX

Row = tuple[str, str, str, str | None]
Section = Mapping[str, Mapping[str, str | None]]
KIND = Kind.CONNECTOR.value
CONFIG_PREFIX = CONFIG_ATTRIBUTE_PREFIX


def _j(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _source(source: desired.Source | None) -> list[Any] | None:
    return None if source is None else [source.file, source.line, source.column, source.origin]


def _unsource(doc: Any) -> desired.Source | None:
    return None if doc is None else desired.Source(*doc)


def _configs(entry: Mapping[str, str | None]) -> dict[str, str]:
    cut = len(CONFIG_PREFIX)
    return {k[cut:]: str(v) for k, v in entry.items() if k.startswith(CONFIG_PREFIX)}


def desired_rows(wanted: desired.DesiredState) -> Iterator[Row]:
    """The rows of every declared connector (secrets as references only)."""
    for name, c in wanted.connectors.items():
        yield (KIND, name, "state", c.state)
        for key, value in c.config.items():
            yield (KIND, name, CONFIG_PREFIX + key, value)
        if c.secrets:
            yield (KIND, name, "@secrets", _j({k: dataclasses.asdict(r) for k, r in c.secrets.items()}))
        if c.reset_offsets:
            yield (KIND, name, "@reset_offsets", "true")
        if c.offsets:
            yield (KIND, name, "@offsets", _j([list(pair) for pair in c.offsets]))
        if c.source is not None:
            yield (KIND, name, "@source", _j(_source(c.source)))
        if c.positions:
            yield (KIND, name, "@positions", _j({k: _source(p) for k, p in c.positions.items()}))


def rebuild_desired(section: Section) -> dict[str, desired.DesiredConnector]:
    """The declared connectors ``desired_rows`` made ``section`` (name -> attribute -> value) from."""
    out = {}
    for name, e in section.items():
        secrets = json.loads(str(e["@secrets"])) if "@secrets" in e else {}
        positions = json.loads(str(e["@positions"])) if "@positions" in e else {}
        out[name] = desired.DesiredConnector(
            name=name,
            config=_configs(e),
            state=str(e["state"]),
            secrets={k: desired.SecretRef(**r) for k, r in secrets.items()},
            reset_offsets="@reset_offsets" in e,
            offsets=tuple((str(p), str(o)) for p, o in json.loads(str(e["@offsets"]))) if "@offsets" in e else (),
            source=_unsource(json.loads(str(e["@source"]))) if "@source" in e else None,
            positions={k: desired.Source(*p) for k, p in positions.items()},
        )
    return out


def meta(connect: state.ConnectState | None) -> dict[str, Any] | None:
    """The live metadata of a Connect cluster: its address, plugins, the field errors its validate endpoint reported
    for declared connectors and the offsets it keeps for the connectors the manifests delete (those two from a live
    read only; ``None``: Connect was not read)."""
    if connect is None:
        return None
    doc: dict[str, Any] = {"url": connect.url, "plugins": None if connect.plugins is None else list(connect.plugins)}
    if connect.validation:
        doc["validation"] = {name: [list(e) for e in found] for name, found in sorted(connect.validation.items())}
    if connect.plugin_versions:
        doc["plugin_versions"] = {c: list(v) for c, v in connect.plugin_versions.items()}
    if connect.current_offsets:
        doc["current_offsets"] = {n: [list(p) for p in found] for n, found in sorted(connect.current_offsets.items())}
    if connect.kept_offsets:
        doc["kept_offsets"] = {name: list(found) for name, found in sorted(connect.kept_offsets.items())}
    if connect.clusters:  # several Connect clusters: each one's address and plugins, and those not read
        doc["clusters"] = {
            name: {
                "url": c.url,
                "plugins": None if c.plugins is None else list(c.plugins),
                "plugin_versions": {k: list(v) for k, v in c.plugin_versions.items()},
            }
            for name, c in sorted(connect.clusters.items())
        }
        doc["unreachable"] = dict(sorted(connect.unreachable.items()))
    return doc


def live_rows(connect: state.ConnectState | None) -> Iterator[Row]:
    """The rows of every live connector: configs as read (secrets as digests) and status."""
    for name, c in (connect.connectors if connect is not None else {}).items():
        yield (KIND, name, "state", c.state.lower())
        yield (KIND, name, "@state", c.state)
        for key, value in c.config.items():
            yield (KIND, name, CONFIG_PREFIX + key, value)
        if c.tasks:
            yield (KIND, name, "@tasks", _j([dataclasses.asdict(t) for t in c.tasks]))
        if c.type is not None:
            yield (KIND, name, "@type", c.type)
        if c.trace is not None:
            yield (KIND, name, "@trace", c.trace)


def rebuild_live(doc: Mapping[str, Any] | None, section: Section) -> state.ConnectState | None:
    """The ``ConnectState`` of ``meta``'s ``doc`` and the live rows in ``section`` (``live_rows`` inverse)."""
    if doc is None:
        return None
    connectors = {
        name: state.ConnectorState(
            name=name,
            config=_configs(e),
            state=str(e["@state"]),
            tasks=tuple(state.ConnectorTask(**t) for t in json.loads(str(e["@tasks"]))) if "@tasks" in e else (),
            type=e.get("@type"),
            trace=e.get("@trace"),
        )
        for name, e in section.items()
    }
    plugins = doc.get("plugins")
    validation = {name: tuple((str(k), str(m)) for k, m in found) for name, found in doc.get("validation", {}).items()}
    return state.ConnectState(
        url=str(doc["url"]),
        connectors=connectors,
        plugins=None if plugins is None else tuple(plugins),
        validation=validation,
        kept_offsets={name: tuple(found) for name, found in doc.get("kept_offsets", {}).items()},
        plugin_versions={c: tuple(found) for c, found in doc.get("plugin_versions", {}).items()},
        current_offsets={
            n: tuple((str(p), str(o)) for p, o in found) for n, found in doc.get("current_offsets", {}).items()
        },
        clusters={
            str(name): state.ConnectCluster(
                url=str(c["url"]),
                plugins=None if c.get("plugins") is None else tuple(c["plugins"]),
                plugin_versions={k: tuple(v) for k, v in c.get("plugin_versions", {}).items()},
            )
            for name, c in doc.get("clusters", {}).items()
        },
        unreachable={str(k): str(v) for k, v in doc.get("unreachable", {}).items()},
    )


def _digest_rows(live: state.ClusterState) -> Iterator[Row]:
    """Each declared secret's digest, resolved where the cluster is planned, as a desired-side config row."""
    for name, found in (live.connect.secret_digests if live.connect is not None else {}).items():
        for key, value in found.items():
            yield (KIND, name, CONFIG_PREFIX + key, value)


ROWS = FleetRows(
    desired_rows=desired_rows,
    rebuild_desired=lambda wanted, section: dataclasses.replace(wanted, connectors=rebuild_desired(section)),
    live_rows=lambda live: live_rows(live.connect),
    rebuild_live=lambda live, section, doc: dataclasses.replace(live, connect=rebuild_live(doc, section)),
    meta=("connect", lambda live: meta(live.connect)),
    rules=lambda own: {"connectors": patterns(own.connectors)} if own.connectors else {},
    rebuild_rules=lambda own, doc: dataclasses.replace(own, connectors=unpatterns(doc.get("connectors", []))),
    resolve=lambda live, wanted: evidence.offline(live, wanted),
    resolved_rows=_digest_rows,
)

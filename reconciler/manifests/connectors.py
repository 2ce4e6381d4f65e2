"""``Connector`` documents -> ``desired.DesiredConnector``: Connect's config strings, secrets by reference, positions.

A config value is written as a YAML scalar and held as the string Connect stores (``true``, ``3``, ``1.5``). A name
Kafka Connect cannot address in its REST paths (``/``, ``%``, ...: ``name_problem``) is an error at
``metadata.name``. ``connector.class`` and ``tasks.max`` come from ``class`` and ``tasksMax``; writing them (or
``name``) under ``config`` is an error, as is a key both in ``config`` and in ``secrets``, and an inline value for a
key that names a secret (``*password*``, ``*secret*``, ...) unless it is a config-provider placeholder
(``${file:...}``), which is passed to Connect untouched. Each config key's position is kept, so a field error
Connect's validate endpoint reports is shown at the manifest's line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from reconciler.manifests import connector_spec, loader, profiles, topics
from reconciler.model import connector_offsets, desired
from reconciler.model.connect_clusters import name_problem as name_problem  # the rule lives with the keys

RESERVED = {
    "connector.class": "class",
    "tasks.max": "tasksMax",
    "name": "metadata.name",
    "connector.plugin.version": "version",
    connector_offsets.RECORD_KEY: "offsets",
}
VERSION = "connector.plugin.version"  # KIP-891
SECRET_KEY = re.compile(r"(password|secret|token|credential|jaas\.config|api\.key|apikey|private\.key)", re.I)
PLACEHOLDER = re.compile(r"^\$\{[A-Za-z0-9_.-]+:.*\}$", re.S)

Error = Callable[..., None]


def text(value: Any) -> str:
    """A YAML scalar as Connect's string: booleans lower-case, numbers as written."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def looks_secret(key: str) -> bool:
    """Whether a config key names a secret by its name (its value is never shown or held in clear)."""
    return SECRET_KEY.search(key) is not None


def connect_name(doc: loader.Document) -> str:
    """The name Kafka Connect knows a Connector document's connector by (its ``metadata.name``)."""
    return str(doc.model.metadata.name)


def build(doc: loader.Document, error: Error) -> desired.DesiredConnector | None:
    """The connector ``doc`` declares; ``None`` (after reporting through ``error``) when a key is misplaced."""
    spec: connector_spec.ConnectorSpec = doc.spec
    ok = True
    unaddressable = name_problem(connect_name(doc))
    if unaddressable is not None:
        error(doc, ("metadata", "name"), unaddressable)
        ok = False
    config = {"connector.class": spec.class_name, "tasks.max": str(spec.tasks_max)}
    positions = {
        "connector.class": _at(doc, ("spec", "class")),
        "tasks.max": _at(doc, ("spec", "tasksMax")),
    }
    offsets = _declared_offsets_and_version(doc, spec, config, positions)
    for key, value in spec.config.items():
        path = ("spec", "config", key)
        if key in RESERVED:
            error(doc, path, f"{key} is set by {RESERVED[key]}, not under config", key=True)
            ok = False
            continue
        if key in spec.secrets:
            error(doc, path, f"{key} is both in config and in secrets; keep it in one of them", key=True)
            ok = False
            continue
        value_text = text(value)
        if looks_secret(key) and not PLACEHOLDER.match(value_text):
            error(
                doc,
                path,
                f"{key} looks like a secret: its value would be written into plans and logs",
                key=True,
                hint="move it to secrets: {" + key + ": {env: NAME}} or use a ${file:/path:key} placeholder",
            )
            ok = False
            continue
        config[key] = value_text
        positions[key] = _at(doc, path)
    secrets: dict[str, desired.SecretRef] = {}
    for key, ref in spec.secrets.items():
        if key in RESERVED:
            error(doc, ("spec", "secrets", key), f"{key} cannot be a secret", key=True)
            ok = False
            continue
        secrets[key] = profiles.secret_ref(ref, doc, ("spec", "secrets", key, "file"))
        positions[key] = _at(doc, ("spec", "secrets", key))
    if not ok:
        return None
    return desired.DesiredConnector(
        name=doc.name,  # its key: cluster/name when connectCluster is written (connect.clusters.place keys it)
        cluster=spec.connect_cluster,
        cluster_source=None if spec.connect_cluster is None else _at(doc, ("spec", "connectCluster")),
        config=config,
        state=spec.state,
        secrets=secrets,
        reset_offsets=spec.reset_offsets_on_create,
        offsets=offsets,
        source=topics.source(doc),
        positions=positions,
    )


def _declared_offsets_and_version(
    doc: loader.Document,
    spec: connector_spec.ConnectorSpec,
    config: dict[str, str],
    positions: dict[str, desired.Source],
) -> tuple[tuple[str, str], ...]:
    """Add ``version`` (``connector.plugin.version``) and the record of the declared ``offsets`` to ``config``;
    the declared offsets."""
    offsets: tuple[tuple[str, str], ...] = ()
    if spec.offsets is not None:
        offsets = connector_offsets.declared((o.partition, o.offset) for o in spec.offsets)
        config[connector_offsets.RECORD_KEY] = connector_offsets.digest(offsets)
        positions[connector_offsets.RECORD_KEY] = _at(doc, ("spec", "offsets"))
    if spec.version is not None:
        config[VERSION] = spec.version
        positions[VERSION] = _at(doc, ("spec", "version"))
    return offsets


def _at(doc: loader.Document, path: tuple[str | int, ...]) -> desired.Source:
    file, line, column = doc.raw.position(path)
    return desired.Source(file=file, line=line, column=column)

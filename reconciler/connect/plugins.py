"""Kafka Connect's connector plugins as the workers list them, the class names Connect accepts for one, and the
plugin versions they have (KIP-891)."""

from __future__ import annotations

from reconciler.manifests.connectors import VERSION as VERSION  # connector.plugin.version
from reconciler.model import desired, state


def known_class(name: str, plugins: tuple[str, ...]) -> bool:
    """Whether the workers have ``name``: a full class name, its simple name, or the simple name without
    ``Connector`` (the aliases Connect accepts)."""
    return plugin_class(name, plugins) is not None


def plugin_class(name: str, plugins: tuple[str, ...]) -> str | None:
    """The installed class ``name`` names (itself, or the class of an alias ``known_class`` accepts)."""
    for plugin in plugins:
        simple = plugin.rsplit(".", 1)[-1]
        if name in (plugin, simple, simple.removesuffix("Connector")):
            return plugin
    return None


def missing_version(want: desired.DesiredConnector, live: state.ConnectState) -> str | None:
    """Why the plugin version ``want`` declares (``version:``) cannot run, from the plugin list the plan read: the
    versions the workers have of its class; ``None`` when they have it, when none is declared, when it is a version
    range (``[1.0,2.0)``: left to Connect) or when the workers report no version (older than Kafka Connect 4.1)."""
    version = want.config.get(VERSION)
    if version is None or version[:1] in ("[", "(") or live.plugins is None:
        return None
    cls = plugin_class(want.class_name, live.plugins)
    have = live.plugin_versions.get(cls or "", ())
    if cls is None or not have or version in have:
        return None
    cluster = want.name.partition("/")[0] if live.clusters else None
    workers = "the workers" if cluster is None else f"the workers of Kafka Connect cluster {cluster}"
    return f"version {version} of connector class {cls} is not installed on {workers} (they have: {', '.join(have)})"

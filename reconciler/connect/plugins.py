"""Kafka Connect's connector plugins as the workers list them, and the class names Connect accepts for one."""

from __future__ import annotations


def known_class(name: str, plugins: tuple[str, ...]) -> bool:
    """Whether the workers have ``name``: a full class name, its simple name, or the simple name without
    ``Connector`` (the aliases Connect accepts)."""
    for plugin in plugins:
        simple = plugin.rsplit(".", 1)[-1]
        if name in (plugin, simple, simple.removesuffix("Connector")):
            return True
    return False

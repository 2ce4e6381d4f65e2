"""What Kafka Connect runs for a connector config key left out: configs are compared as Connect runs them.

Connect stores a config exactly as submitted, without defaults, but runs a connector created without ``tasks.max``
with one task (``ConnectorConfig``'s default). A manifest always names ``tasks.max`` (``tasksMax``, default 1), so
a connector created elsewhere without it would otherwise differ from its own import for ever, and applying that
"difference" would PUT the config and restart the connector for nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

DEFAULTS = {"tasks.max": "1"}  # ConnectorConfig.TASKS_MAX_CONFIG's default


def as_run(config: Mapping[str, str]) -> dict[str, str]:
    """``config`` with Connect's default for each key in ``DEFAULTS`` it leaves out."""
    return {**DEFAULTS, **config}


def value(config: Mapping[str, str], key: str) -> str | None:
    """The value Connect runs for ``key``: the one held, else its default, else ``None``."""
    return config.get(key, DEFAULTS.get(key))

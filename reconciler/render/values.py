"""How values look in rendered plans: readable units, redaction, and per-attribute symbols.

Shared by the text and markdown renders. Config values go through ``configs.humanize``
(``604800000 (7d)``); sensitive values always render as ``plan.REDACTED``, whether the attribute is
flagged sensitive or its config key is known to be sensitive, so a hand-made plan cannot leak one.
"""

from __future__ import annotations

import json
from typing import Any

from reconciler.model import configs, payloads, plans

CONFIG_PREFIX = payloads.CONFIG_ATTRIBUTE_PREFIX


def config_key(attribute: str) -> str | None:
    """``retention.ms`` for ``configs.retention.ms``; ``None`` for attributes that are not configs."""
    return attribute[len(CONFIG_PREFIX) :] if attribute.startswith(CONFIG_PREFIX) else None


def is_secret(attr: plans.AttributeChange) -> bool:
    key = config_key(attr.name)
    return attr.sensitive or (key is not None and configs.is_sensitive(key))


def show(attr: plans.AttributeChange, value: Any) -> str:
    """One side of an attribute change, ready to print."""
    if value is None:
        return "(unset)"
    if is_secret(attr):
        return plans.REDACTED
    key = config_key(attr.name)
    if key is not None and isinstance(value, str):
        return configs.humanize(key, value)
    return plain(value)


def plain(value: Any) -> str:
    """A JSON-ish compact rendering: ``[1, 2, 3]``, ``{iterations: 8192}``, strings as they are."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {plain(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(plain(v) for v in value) + "]"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value)


def attribute_line(attr: plans.AttributeChange) -> tuple[str, str]:
    """``(symbol, text)`` of one attribute: ``+`` set, ``-`` reset or removed, ``~`` changed."""
    if attr.after is None and attr.before is not None:
        if config_key(attr.name) is not None:
            default = "(default)" if attr.default is None else f"(default: {show(attr, attr.default)})"
            return "-", f"{attr.name}: {show(attr, attr.before)} -> {default}"
        return "-", f"{attr.name}: {show(attr, attr.before)} -> (removed)"
    if attr.before is None:
        return "+", f"{attr.name}: {show(attr, attr.after)}"
    return "~", f"{attr.name}: {show(attr, attr.before)} -> {show(attr, attr.after)}"


def strongest(changes: list[plans.Change]) -> plans.Action:
    """The action shown for an address with several changes: blocked > delete > create > update."""
    return max((c.action for c in changes), key=lambda a: a.rank)


def grouped(changes: tuple[plans.Change, ...]) -> list[tuple[str, list[plans.Change]]]:
    """Changes grouped per address, groups in the order their first change runs."""
    groups: dict[str, list[plans.Change]] = {}
    for change in changes:
        groups.setdefault(change.address, []).append(change)
    return list(groups.items())

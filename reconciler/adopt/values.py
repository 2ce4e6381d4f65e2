"""Readable manifest values for Kafka's config strings, kept only when they normalise back to the same string.

``604800000`` for ``retention.ms`` is written ``7d``, ``1073741824`` for ``retention.bytes`` ``1GiB``,
numbers as YAML numbers, booleans as booleans and multi-item lists as flow lists. Each candidate is run
through ``configs.canonical`` and kept only when the result equals the canonical form of Kafka's own
string, so a plan right after an import or conversion never sees a difference; otherwise the exact
string is written.
"""

from __future__ import annotations

import contextlib
import re

from reconciler.adopt.output import Flow
from reconciler.model import configs

_INTEGER = re.compile(r"^-?\d+$")
_DURATIONS = (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000))
_SIZES = (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024))


def _with_unit(number: int, units: tuple[tuple[str, int], ...]) -> str | None:
    if number <= 0 or number >= configs.LONG_MAX:
        return None
    for name, size in units:
        if number % size == 0:
            return f"{number // size}{name}"
    return None


def _candidates(key: str, text: str) -> list[object]:
    spec = configs.spec_for(key)
    if spec is None:
        return []
    found: list[object] = []
    if spec.type in ("int", "long", "short") and _INTEGER.match(text):
        number = int(text)
        if spec.unit == "ms":
            found.append(_with_unit(number, _DURATIONS))
        elif spec.unit == "bytes":
            found.append(_with_unit(number, _SIZES))
        found.append(number)
    elif spec.type == "double":
        with contextlib.suppress(ValueError):
            found.append(float(text))
    elif spec.type == "boolean" and text.lower() in ("true", "false"):
        found.append(text.lower() == "true")
    elif spec.type == "list" and "," in text:
        found.append(Flow(item.strip() for item in text.split(",") if item.strip()))
    return [c for c in found if c is not None]


def config_value(key: str, text: str) -> object:
    """The most readable value for config ``key`` whose canonical form equals that of Kafka's ``text``."""
    try:
        want = configs.canonical(key, text)
    except ValueError:
        return text
    for candidate in _candidates(key, text):
        try:
            if configs.canonical(key, candidate) == want:
                return candidate
        except ValueError:
            continue
    return text


def quota_value(key: str, value: float) -> object:
    """A quota value as written: byte rates in KiB/MiB/GiB when exact, whole numbers as integers."""
    if value.is_integer():
        number = int(value)
        if key in ("producer_byte_rate", "consumer_byte_rate"):
            human = _with_unit(number, _SIZES)
            if human is not None and configs.quota_value(key, human) == value:
                return human
        return number
    return value

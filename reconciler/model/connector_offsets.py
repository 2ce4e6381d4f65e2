"""Declared connector offsets (KIP-875): their canonical form, the record that says which were last applied, and
how a plan shows them.

A Connector's ``offsets:`` sets positions once: it is applied when the declaration changes, not whenever the
connector has moved on since (it moves on as soon as it runs). So the connector's config holds the digest of the
declared offsets last applied under ``RECORD_KEY`` (written with the config): a plan alters the offsets only when the
declaration's digest differs from that record (or there is none), and a config change alone never alters them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

RECORD_KEY = "kafka-reconciler.offsets"  # the digest of the declared offsets last applied
NONE_SHOWN = "(none)"


def canonical(value: Any) -> str:
    """``value`` as compact JSON with sorted keys: how partitions and offsets are compared, hashed and shown."""
    return json.dumps(value, sort_keys=True, separators=(", ", ": "))


def declared(entries: Iterable[tuple[Mapping[str, Any], Mapping[str, Any] | None]]) -> tuple[tuple[str, str], ...]:
    """Declared ``(partition, offset)`` objects as canonical text pairs, in a stable order."""
    return tuple(sorted((canonical(dict(p)), canonical(None if o is None else dict(o))) for p, o in entries))


def digest(offsets: Sequence[tuple[str, str]]) -> str:
    """The record of ``offsets`` (``RECORD_KEY``'s value)."""
    return "sha256:" + hashlib.sha256(canonical([list(pair) for pair in offsets]).encode()).hexdigest()[:24]


def shown(offsets: Sequence[str] | Sequence[tuple[str, str]]) -> str:
    """Offsets as a plan line shows them: ``partition -> offset; ...`` (``(none)`` when empty)."""
    texts = [item if isinstance(item, str) else f"{item[0]} -> {item[1]}" for item in offsets]
    return "; ".join(texts) or NONE_SHOWN


def body(offsets: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The body of ``PATCH /connectors/{name}/offsets``."""
    return {"offsets": [{"partition": json.loads(p), "offset": json.loads(o)} for p, o in offsets]}

"""The Ownership rules in the fleet row model: the desired rows' ``ownership`` metadata, and back.

The rules every kind shares (deletes, managed kinds, the most deletes, where the document is) are written here; the
rules that name the undeclared resources of a kind are its declaration's (``FleetRows.rules``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from reconciler.kinds import registry
from reconciler.model import desired
from reconciler.model.kinds import Kind


def patterns(found: Iterable[desired.NamePattern]) -> list[list[str]]:
    """Ownership name patterns as JSON."""
    return [[p.kind, p.value] for p in found]


def unpatterns(doc: Iterable[Iterable[str]]) -> tuple[desired.NamePattern, ...]:
    """The name patterns ``patterns`` wrote."""
    return tuple(desired.NamePattern(k, v) for k, v in doc)


def ownership_doc(own: desired.Ownership) -> dict[str, Any]:
    """The Ownership rules as the desired rows' ``ownership`` metadata (plain JSON data)."""
    doc: dict[str, Any] = {
        "delete": {k.value: v for k, v in sorted(own.delete.items())},
        "managed_kinds": sorted(k.value for k in own.managed_kinds),
        "source": None if own.source is None else dataclasses.asdict(own.source),
    }
    for declared in registry.KINDS.values():
        doc.update(declared.rows.get().rules(own))
    if own.max_deletes is not None:
        doc["max_deletes"] = own.max_deletes
    return doc


def ownership(own_doc: Mapping[str, Any]) -> desired.Ownership:
    """The Ownership rules ``ownership_doc`` wrote."""
    own = desired.Ownership(
        delete={Kind.parse(k): bool(v) for k, v in own_doc.get("delete", {}).items()},
        managed_kinds=frozenset(Kind.parse(k) for k in own_doc.get("managed_kinds", tuple(Kind))),
        source=None if own_doc.get("source") is None else desired.Source(**own_doc["source"]),
        max_deletes=own_doc.get("max_deletes"),
    )
    for declared in registry.KINDS.values():
        own = declared.rows.get().rebuild_rules(own, own_doc)
    return own

"""The Ownership rules in the fleet row model: the desired rows' ``ownership`` metadata, and back."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from reconciler.model import desired
from reconciler.model.kinds import Kind
from reconciler.model.schema_subjects import SubjectRule


def _patterns(patterns: Iterable[desired.NamePattern]) -> list[list[str]]:
    return [[p.kind, p.value] for p in patterns]


def ownership_doc(own: desired.Ownership) -> dict[str, Any]:
    """The Ownership rules as the desired rows' ``ownership`` metadata (plain JSON data)."""
    return {
        "topics": _patterns(own.topics),
        "principals": _patterns(own.principals),
        "delete": {k.value: v for k, v in sorted(own.delete.items())},
        "managed_kinds": sorted(k.value for k in own.managed_kinds),
        "internal_topics": _patterns(own.internal_topics),
        "quota_entities": _patterns(own.quota_entities),
        "source": None if own.source is None else dataclasses.asdict(own.source),
        **({"groups": _patterns(own.groups)} if own.groups else {}),
        **({"client_metrics": _patterns(own.client_metrics)} if own.client_metrics else {}),
        **({"connectors": _patterns(own.connectors)} if own.connectors else {}),
        **(
            {"schema_subjects": [[r.pattern.kind, r.pattern.value, r.permanent] for r in own.schema_subjects]}
            if own.schema_subjects
            else {}
        ),
        **({"max_deletes": own.max_deletes} if own.max_deletes is not None else {}),
    }


def ownership(own_doc: Mapping[str, Any]) -> desired.Ownership:
    """The Ownership rules ``ownership_doc`` wrote."""
    return desired.Ownership(
        topics=tuple(desired.NamePattern(k, v) for k, v in own_doc.get("topics", [])),
        principals=tuple(desired.NamePattern(k, v) for k, v in own_doc.get("principals", [])),
        delete={Kind.parse(k): bool(v) for k, v in own_doc.get("delete", {}).items()},
        managed_kinds=frozenset(Kind.parse(k) for k in own_doc.get("managed_kinds", tuple(Kind))),
        source=None if own_doc.get("source") is None else desired.Source(**own_doc["source"]),
        internal_topics=tuple(desired.NamePattern(k, v) for k, v in own_doc.get("internal_topics", [])),
        quota_entities=tuple(desired.NamePattern(k, v) for k, v in own_doc.get("quota_entities", [])),
        groups=tuple(desired.NamePattern(k, v) for k, v in own_doc.get("groups", [])),
        client_metrics=tuple(desired.NamePattern(k, v) for k, v in own_doc.get("client_metrics", [])),
        connectors=tuple(desired.NamePattern(k, v) for k, v in own_doc.get("connectors", [])),
        schema_subjects=tuple(
            SubjectRule(desired.NamePattern(k, v), bool(p)) for k, v, p in own_doc.get("schema_subjects", [])
        ),
        max_deletes=own_doc.get("max_deletes"),
    )

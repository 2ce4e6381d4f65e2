"""Plain-data views of live resources, and the fingerprints a plan records for staleness checks.

``live_view(live, kind=..., name=...)`` is the ONE definition of "the live resource" per kind: the
planner fingerprints it when it builds a change, and apply calls the same function on a fresh read
to find out whether the resource moved since the plan was made. ``name`` is ``Change.name``.
``live_fingerprint(live, kinds=...)`` covers whole sections (every resource of the kinds read), so
any change in those sections, owned or not, makes a saved plan stale by that check.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Iterable, Mapping
from typing import Any

from reconciler.kinds import registry
from reconciler.model import entities, schema_subjects, state
from reconciler.model import views as model_views
from reconciler.model.kinds import Kind


def address(kind: Kind, name: str) -> str:
    """The plan address of a resource: ``topic/orders``, ``scram_user/alice``, ``broker_config/<default>``."""
    return kind.address(name)


def live_view(live: state.ClusterState, *, kind: Kind, name: str) -> Any:
    """The live resource ``kind``/``name`` as plain JSON data, or ``None`` when it does not exist."""
    declared = registry.KINDS.get(kind)
    if declared is None:
        raise ValueError(f"unknown resource kind {kind!r}")
    section = declared.live_section(live)
    return declared.live_view({} if section is None else section, name)


def fingerprint_of(view: Any) -> str | None:
    """``state.fingerprint`` of a view, ``None`` for an absent resource."""
    return None if view is None else state.fingerprint(view)


class _Table:
    """Numbers distinct values in order of first use, so repeated values are stored once."""

    def __init__(self) -> None:
        self.index: dict[Any, int] = {}

    def __call__(self, value: Any) -> int:
        found = self.index.get(value)
        if found is None:
            found = self.index[value] = len(self.index)
        return found

    def values(self) -> list[Any]:
        return list(self.index)


def _topic_rows(topics: Mapping[str, state.TopicState]) -> list[Any]:
    """One row per topic in name order; assignments, config key sets and value lists are numbered.

    A row is ``(name, internal, assignment no., key-set no., values no.)``; the numbers count
    distinct values in order of first use, so equal states give equal rows and tables.
    """
    key_sets, value_lists, assignments = _Table(), _Table(), _Table()
    getters: dict[tuple[str, ...], tuple[int, Any]] = {}
    rows: list[Any] = []
    append = rows.append
    for name in sorted(topics):
        topic = topics[name]
        cfg = topic.configs
        keys = tuple(cfg)
        entry = getters.get(keys)
        if entry is None:
            ordered = tuple(sorted(keys))
            getter: Any = _values_of(ordered)
            if len(ordered) > 1:
                getter = operator.itemgetter(*ordered)
            entry = getters[keys] = (key_sets(ordered), getter)
        append((name, topic.internal, assignments(topic.assignment), entry[0], value_lists(entry[1](cfg))))
    return [rows, key_sets.values(), value_lists.values(), assignments.values()]


def _values_of(ordered: tuple[str, ...]) -> Any:
    return lambda cfg: tuple(cfg[k] for k in ordered)


def _connector_rows(connect: state.ConnectState | None) -> list[Any] | None:
    if connect is None:
        return None
    return [
        (n, sorted(c.config.items()), model_views.connector_target_state(c.state))
        for n, c in sorted(connect.connectors.items())
    ]


def live_fingerprint(live: state.ClusterState, *, kinds: Iterable[Kind]) -> str:
    """Fingerprint of every section of ``live`` that a plan over ``kinds`` depends on, plus the cluster id.

    Written for size: 100,000 topics take a fraction of a second. The sections are turned into
    lists of plain values (strings, numbers, booleans, ``None``) in a fixed order and encoded as canonical
    JSON (``state.canonical_json``), so equal states give equal bytes whatever objects they are made of and
    whichever Python computes it; the fingerprint is the first 16 hex digits of the SHA-256 of those bytes.
    """
    wanted = set(kinds)
    doc: list[Any] = ["kafka-reconciler/live/2", live.cluster_id]
    if Kind.TOPIC in wanted:
        topics = live.topics
        if topics is None:
            doc.append(None)
        else:
            doc.append(_topic_rows(topics))
    if Kind.ACL in wanted:
        doc.append(
            None
            if live.acls is None
            else sorted(
                (b.resource_type, b.pattern_type, b.resource_name, b.principal, b.host, b.operation, b.permission)
                for b in live.acls
            )
        )
    if Kind.QUOTA in wanted:
        doc.append(
            None
            if live.quotas is None
            else [
                (e.parts, sorted(v.items())) for e, v in sorted(live.quotas.items(), key=lambda ev: ev[0].address) if v
            ]
        )
    if Kind.SCRAM_USER in wanted:
        doc.append(
            None
            if live.scram_users is None
            else [
                (u, sorted((c.mechanism, c.iterations) for c in creds))
                for u, creds in sorted(live.scram_users.items())
                if creds
            ]
        )
    if Kind.BROKER_CONFIG in wanted:
        doc.append(
            None
            if live.broker_configs is None
            else [(b, sorted(c.items())) for b, c in sorted(live.broker_configs.items()) if c]
        )
    for kind in entities.ENTITY_KINDS:
        if kind in wanted:
            section = entities.live_section(live, kind)
            doc.append(None if section is None else [(n, sorted(c.items())) for n, c in sorted(section.items()) if c])
    if Kind.CONNECTOR in wanted:
        doc.append(_connector_rows(live.connect))
    if Kind.SCHEMA_SUBJECT in wanted:
        doc.append(_subject_rows(live.schema_subjects))
    return hashlib.sha256(state.canonical_json(doc)).hexdigest()[:16]


def _subject_rows(subjects: schema_subjects.LiveSubjects | None) -> Any:
    """The subjects' part of ``live_fingerprint``: the global level and each subject's view."""
    if subjects is None:
        return None
    return [subjects.global_level, [(n, schema_subjects.subject_view(s)) for n, s in sorted(subjects.subjects.items())]]

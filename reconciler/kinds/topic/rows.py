"""Topics in the fleet row model (``reconciler.fleet.rows``): declared and live topics as rows, and back.

Rows of kind ``topic`` are named by the topic: ``partitions``, ``replication_factor``, ``assignment`` (JSON; optional
on the desired side, the cluster always has one) and one ``configs.<key>`` row per config, as Kafka's strings (a
declared sensitive one as ``plan.REDACTED``). The rest travels in ``@`` rows: the declaration's source and
``allow_internal``; the live topic's internal flag, defaults, sensitive keys and id. ``TOPICS`` is the kind's
``FleetRows`` (its declaration's ``rows``), with the Ownership rules that name topics (and those treated as internal).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

from reconciler.fleet.ownership_rows import patterns, unpatterns
from reconciler.fleet.row_fields import configs
from reconciler.fleet.rows import CONFIG_PREFIX, Row, as_json, declared_config, prefixed, source_of, source_text, text
from reconciler.kinds.spec import FleetRows, RowSection
from reconciler.model import desired, state
from reconciler.model.kinds import Kind


def _desired_topics(wanted: desired.DesiredState) -> Iterator[Row]:
    kind = Kind.TOPIC
    for name, topic in wanted.topics.items():
        yield (kind, name, "partitions", str(topic.partitions))
        yield (kind, name, "replication_factor", str(topic.replication_factor))
        if topic.assignment is not None:
            yield (kind, name, "assignment", as_json([list(r) for r in topic.assignment]))
        for key, value in topic.configs.items():
            yield (kind, name, CONFIG_PREFIX + key, declared_config(key, value))
        if topic.source is not None:
            yield (kind, name, "@source", source_text(topic.source))
        if topic.allow_internal:
            yield (kind, name, "@allow_internal", "true")


def _rebuild_desired_topics(wanted: desired.DesiredState, section: RowSection) -> desired.DesiredState:
    topics = {
        name: desired.DesiredTopic(
            name=name,
            partitions=int(text(e["partitions"])),
            replication_factor=int(text(e["replication_factor"])),
            configs=configs(e),
            assignment=None
            if "assignment" not in e
            else tuple(tuple(int(b) for b in r) for r in json.loads(text(e["assignment"]))),
            source=source_of(e.get("@source")),
            allow_internal="@allow_internal" in e,
        )
        for name, e in section.items()
    }
    return dataclasses.replace(wanted, topics=topics)


def _replication(assignment: tuple[tuple[int, ...], ...]) -> str:
    lengths = sorted({len(r) for r in assignment})
    return str(lengths[0]) if len(lengths) == 1 else as_json(lengths)


def _live_topics(live: state.ClusterState) -> Iterator[Row]:
    kind = Kind.TOPIC
    for name, topic in (live.topics or {}).items():
        assignment = topic.assignment
        yield (kind, name, "partitions", str(len(assignment)))
        yield (kind, name, "replication_factor", _replication(assignment))
        yield (kind, name, "assignment", as_json([list(r) for r in assignment]))
        for key, value in topic.configs.items():
            yield (kind, name, CONFIG_PREFIX + key, value)
        if topic.internal:
            yield (kind, name, "@internal", "true")
        if topic.defaults:
            yield (kind, name, "@defaults", as_json(dict(topic.defaults)))
        if topic.sensitive:
            yield (kind, name, "@sensitive", as_json(sorted(topic.sensitive)))
        if topic.topic_id is not None:
            yield (kind, name, "@topic_id", topic.topic_id)


def _rebuild_live_topics(live: state.ClusterState, section: RowSection, meta: Any) -> state.ClusterState:
    topics = {
        name: state.TopicState(
            name=name,
            assignment=tuple(tuple(int(b) for b in r) for r in json.loads(text(e["assignment"]))),
            internal="@internal" in e,
            configs=prefixed(e, CONFIG_PREFIX),
            defaults=json.loads(text(e["@defaults"])) if "@defaults" in e else {},
            sensitive=frozenset(json.loads(text(e["@sensitive"]))) if "@sensitive" in e else frozenset(),
            topic_id=e.get("@topic_id"),
        )
        for name, e in section.items()
    }
    return dataclasses.replace(live, topics=topics)


TOPICS = FleetRows(
    desired_rows=_desired_topics,
    rebuild_desired=_rebuild_desired_topics,
    live_rows=_live_topics,
    rebuild_live=_rebuild_live_topics,
    optional=frozenset({"assignment"}),  # the cluster always has one
    rules=lambda own: {"topics": patterns(own.topics), "internal_topics": patterns(own.internal_topics)},
    rebuild_rules=lambda own, doc: dataclasses.replace(
        own, topics=unpatterns(doc.get("topics", [])), internal_topics=unpatterns(doc.get("internal_topics", []))
    ),
)

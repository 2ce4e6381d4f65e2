"""The topics' section of a snapshot document (``SNAPSHOT``, the kind's ``snapshot`` part): each topic's layout,
configs, defaults, sensitive keys and id, written as ``null`` when the topics were not read, and the topics as
``diff A B`` compares them.

Reading empties the parsed ``topics`` section as each topic is built, so a snapshot's parsed form is freed while its
state is built instead of both being held at once (see ``reconciler.snapshot.files``).
"""

from __future__ import annotations

from typing import Any

from reconciler.base import terminal
from reconciler.kinds.spec import SnapshotSection
from reconciler.model import state
from reconciler.model.kinds import Kind

_NO_KEYS: frozenset[str] = frozenset()


def _write_topics(live: state.ClusterState) -> dict[str, Any]:
    return {
        "topics": None
        if live.topics is None
        else {
            name: {
                "assignment": [list(r) for r in t.assignment],
                "internal": t.internal,
                "configs": dict(sorted(t.configs.items())),
                "defaults": dict(sorted(t.defaults.items())),
                "sensitive": sorted(t.sensitive),
                "topic_id": t.topic_id,
            }
            for name, t in sorted(live.topics.items())
        }
    }


def _topics(section: Any) -> dict[str, state.TopicState] | None:
    """The topics of a ``topics`` section, which is emptied topic by topic as each is built.

    Replica lists are kept once per distinct list (``sharing_hook`` has already done so for a file), and topics
    without sensitive keys share one empty set.
    """
    if section is None:
        return None
    rows: dict[tuple[int, ...], tuple[int, ...]] = {}
    topics: dict[str, state.TopicState] = {}
    for name in list(section):
        t = section.pop(name)
        layout = t["assignment"]
        if type(layout) is not tuple:  # not shared by the hook: a plain document, or not a list of int lists
            layout = tuple(rows.setdefault(r, r) for r in (tuple(int(x) for x in rs) for rs in layout))
        sensitive = t.get("sensitive", [])
        topics[name] = state.TopicState(
            name=name,
            assignment=layout,
            internal=bool(t.get("internal", False)),
            configs=dict(t.get("configs", {})),
            defaults=dict(t.get("defaults", {})),
            sensitive=frozenset(sensitive) if sensitive else _NO_KEYS,
            topic_id=t.get("topic_id"),
        )
    return topics


def _topic_resources(live: state.ClusterState) -> dict[str, Any]:
    return {
        Kind.TOPIC.address(name): {
            "partitions": t.partitions,
            "replication_factor": t.replication_factor,
            "assignment": {str(p): list(r) for p, r in enumerate(t.assignment)},
            "configs": dict(t.configs),
            "internal": t.internal,
        }
        for name, t in (live.topics or {}).items()
    }


SNAPSHOT = SnapshotSection(
    order=10,
    write=_write_topics,
    read=lambda doc: {"topics": _topics(doc.get("topics"))},
    resources=_topic_resources,
    summary=lambda topic: (
        f"({terminal.count(topic['partitions'], 'partition')}, replication factor {topic['replication_factor']})"
    ),
)

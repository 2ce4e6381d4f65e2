"""The snapshot sections of the Kafka kinds and of the connectors (each kind's declaration names its own as its
``snapshot`` part): how each is written into a snapshot document and read back, and its resources as ``diff A B``
compares them. A section that was not read is written as ``null`` (topics, ACLs, quotas, SCRAM users, broker configs)
or left out (group configs, client-metrics subscriptions, connectors), as snapshot files have always had it.

Reading the topics and ACLs empties their parsed sections as each topic and binding is built, so a snapshot's parsed
form is freed while its state is built instead of both being held at once (see ``reconciler.snapshot.files``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any

from reconciler.base import terminal
from reconciler.kinds.spec import SnapshotSection
from reconciler.model import connect_snapshot, entities, snapshotfile, state
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


TOPICS = SnapshotSection(
    order=10,
    write=_write_topics,
    read=lambda doc: {"topics": _topics(doc.get("topics"))},
    resources=_topic_resources,
    summary=lambda topic: (
        f"({terminal.count(topic['partitions'], 'partition')}, replication factor {topic['replication_factor']})"
    ),
)


def _write_broker_configs(live: state.ClusterState) -> dict[str, Any]:
    return {
        "broker_configs": None
        if live.broker_configs is None
        else {k: dict(sorted(v.items())) for k, v in sorted(live.broker_configs.items())},
        "broker_config_sensitive": sorted(live.broker_config_sensitive),
    }


def _read_broker_configs(doc: Mapping[str, Any]) -> dict[str, Any]:
    found = doc.get("broker_configs")
    return {
        "broker_configs": None if found is None else {str(k): dict(v) for k, v in found.items()},
        "broker_config_sensitive": frozenset(doc.get("broker_config_sensitive", [])),
    }


BROKER_CONFIGS = SnapshotSection(
    order=20,
    write=_write_broker_configs,
    read=_read_broker_configs,
    resources=lambda live: {Kind.BROKER_CONFIG.address(b): dict(v) for b, v in (live.broker_configs or {}).items()},
)


def _acls(section: Any) -> Iterator[state.AclBinding]:
    """The bindings of an ``acls`` list, which is emptied (from its end) as each is built."""
    while section:
        yield state.AclBinding.from_dict(section.pop())


def _read_acls(doc: Mapping[str, Any]) -> dict[str, Any]:
    found = doc.get("acls")
    return {"acls": None if found is None else frozenset(_acls(found))}


ACLS = SnapshotSection(
    order=30,
    write=lambda live: {"acls": None if live.acls is None else [a.to_dict() for a in sorted(live.acls)]},
    read=_read_acls,
    resources=lambda live: {acl.address: acl.to_dict() for acl in live.acls or ()},
    summary=lambda acl: "",  # its address already says everything
)


def _write_quotas(live: state.ClusterState) -> dict[str, Any]:
    return {
        "quotas": None
        if live.quotas is None
        else [
            {"entity": e.to_list(), "values": dict(sorted(v.items()))}
            for e, v in sorted(live.quotas.items(), key=lambda item: item[0].address)
        ]
    }


def _read_quotas(doc: Mapping[str, Any]) -> dict[str, Any]:
    found = doc.get("quotas")
    if found is None:
        return {"quotas": None}
    return {
        "quotas": {
            state.QuotaEntity.from_list(q["entity"]): {k: float(v) for k, v in q["values"].items()} for q in found
        }
    }


QUOTAS = SnapshotSection(
    order=40,
    write=_write_quotas,
    read=_read_quotas,
    resources=lambda live: {entity.address: dict(quota) for entity, quota in (live.quotas or {}).items()},
)


def _write_scram_users(live: state.ClusterState) -> dict[str, Any]:
    return {
        "scram_users": None
        if live.scram_users is None
        else {
            u: [dataclasses.asdict(c) for c in sorted(creds, key=lambda c: c.mechanism)]
            for u, creds in sorted(live.scram_users.items())
        }
    }


def _read_scram_users(doc: Mapping[str, Any]) -> dict[str, Any]:
    found = doc.get("scram_users")
    if found is None:
        return {"scram_users": None}
    return {
        "scram_users": {
            u: tuple(state.ScramCredential(str(c["mechanism"]), int(c["iterations"])) for c in creds)
            for u, creds in found.items()
        }
    }


SCRAM_USERS = SnapshotSection(
    order=50,
    write=_write_scram_users,
    read=_read_scram_users,
    resources=lambda live: {
        Kind.SCRAM_USER.address(user): {c.mechanism: {"iterations": c.iterations} for c in creds}
        for user, creds in (live.scram_users or {}).items()
    },
)


def _entity_section(kind: Kind, *, order: int) -> SnapshotSection:
    """The section of an entity kind (``model.entities``): name -> the configs set on it, left out when not read."""
    key = entities.SECTIONS[kind]

    def write(live: state.ClusterState) -> dict[str, Any]:
        found = entities.live_section(live, kind)
        return {} if found is None else {key: {n: dict(sorted(c.items())) for n, c in sorted(found.items())}}

    def resources(live: state.ClusterState) -> dict[str, Any]:
        return {kind.address(name): dict(found) for name, found in (entities.live_section(live, kind) or {}).items()}

    return SnapshotSection(
        order=order,
        write=write,
        read=lambda doc: {key: snapshotfile.entity_configs(doc.get(key))},
        resources=resources,
    )


GROUP_CONFIGS = _entity_section(Kind.GROUP_CONFIG, order=70)
CLIENT_METRICS = _entity_section(Kind.CLIENT_METRICS, order=80)


def _unreachable(live: state.ClusterState) -> dict[str, tuple[str, str]]:
    """The Kafka Connect clusters of several that could not be read: their connectors are not known."""
    down = {} if live.connect is None else live.connect.unreachable
    return {
        c: (f"{Kind.CONNECTOR.prefix}{c}/", f"{Kind.CONNECTOR.prefix}{c}/* (Kafka Connect cluster {c} not read)")
        for c in down
    }


CONNECT = SnapshotSection(
    order=90,
    write=lambda live: {} if live.connect is None else {"connect": connect_snapshot.to_dict(live.connect)},
    read=lambda doc: {"connect": connect_snapshot.from_dict(doc.get("connect"))},
    # the config as read (a secret only as its digest: shown changed, never shown) and the target state
    resources=lambda live: {
        Kind.CONNECTOR.address(name): {"config": dict(c.config), "state": c.state}
        for name, c in ({} if live.connect is None else live.connect.connectors).items()
    },
    unread_parts=_unreachable,
)

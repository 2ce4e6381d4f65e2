"""Evidence that topics are in use, read only for the topics a plan would delete.

For the named topics: which consumer groups hold committed offsets on them, their end offsets, and the
timestamp of their latest record. Requests, each batched: one Metadata for the named topics (partition
leaders, topic ids); one ListGroups per broker (a broker lists the groups it coordinates); one OffsetFetch per
broker coordinating any group, naming all its groups (KIP-709, OffsetFetch v8+, Kafka 3.0+; an older broker is
asked once per group); per partition leader one ListOffsets for LATEST and one for MAX_TIMESTAMP (KIP-734,
ListOffsets v7+, Kafka 3.0+; an older broker is not asked and the evidence has no timestamp). What the cluster
speaks is read from its ApiVersions answer: an older broker would read MAX_TIMESTAMP (-3) as a point in time
and answer with the first record, and OffsetFetch v7 has no list of groups.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kafka.protocol.admin import ListGroupsRequest
from kafka.protocol.consumer import ListOffsetsRequest, OffsetFetchRequest
from kafka.protocol.metadata import MetadataRequest

from reconciler.kafka import wire as wire_mod
from reconciler.model import state

LATEST = -1
MAX_TIMESTAMP = -3
MAX_TIMESTAMP_SINCE = 7  # ListOffsets version that knows MAX_TIMESTAMP (KIP-734)
GROUPS_BATCH_SINCE = 8  # OffsetFetch version that takes many groups (KIP-709)
_NO_OFFSET = -1


def read_usage(
    wire: wire_mod.Wire, topics: Iterable[str], *, clock: Callable[[], float] = time.time
) -> dict[str, state.TopicUsage]:
    """Usage evidence per existing topic of ``topics`` (see the module docstring for the requests)."""
    names = sorted(set(topics))
    if not names:
        return {}
    read_at_ms = int(clock() * 1000)
    metadata = wire.send(
        MetadataRequest(
            topics=[MetadataRequest.MetadataRequestTopic(name=n) for n in names], allow_auto_topic_creation=False
        )
    )
    leaders: dict[int, list[tuple[str, int]]] = defaultdict(list)
    partitions: dict[str, int] = {}
    by_id: dict[str, str] = {}
    for topic in metadata.topics:
        if topic.error_code or not topic.partitions:
            continue
        name = str(topic.name)
        partitions[name] = len(topic.partitions)
        topic_id = getattr(topic, "topic_id", None)
        if topic_id is not None:
            by_id[str(topic_id)] = name
        for p in topic.partitions:
            leaders[int(p.leader_id)].append((name, int(p.partition_index)))
    end_offsets: dict[str, dict[int, int]] = defaultdict(dict)
    latest: dict[str, int] = {}
    dates = wire.capabilities().get("ListOffsets", 0) >= MAX_TIMESTAMP_SINCE
    for leader, owned in sorted(leaders.items()):
        if leader < 0:
            continue
        for p_name, p_index, offset, _ts in _list_offsets(wire, leader, owned, LATEST):
            end_offsets[p_name][p_index] = offset
        if not dates:
            continue
        for p_name, _p, _offset, ts in _list_offsets(wire, leader, owned, MAX_TIMESTAMP):
            if ts >= 0:
                latest[p_name] = max(latest.get(p_name, ts), ts)
    groups = _committed_groups(wire, set(partitions), by_id)
    return {
        name: state.TopicUsage(
            end_offsets=tuple(end_offsets[name].get(p, _NO_OFFSET) for p in range(count)),
            latest_timestamp_ms=latest.get(name),
            groups=tuple(sorted(groups.get(name, ()))),
            read_at_ms=read_at_ms,
        )
        for name, count in sorted(partitions.items())
    }


def list_offsets_request(
    owned: Iterable[tuple[str, int]], *, timestamp_of: Callable[[str], int], timeout_ms: int
) -> Any:
    """One ListOffsets request for the ``(topic, partition)`` pairs a leader owns, asking each topic's partitions
    for the offset at ``timestamp_of(topic)`` (-1 latest, -2 earliest, or a time); shared by the usage and impact
    evidence reads."""
    per_topic: dict[str, list[int]] = defaultdict(list)
    for name, index in owned:
        per_topic[name].append(index)
    topic_cls = ListOffsetsRequest.ListOffsetsTopic
    part_cls = topic_cls.ListOffsetsPartition
    return ListOffsetsRequest(
        replica_id=-1,
        isolation_level=0,
        topics=[
            topic_cls(
                name=name,
                partitions=[
                    part_cls(partition_index=i, current_leader_epoch=-1, timestamp=timestamp_of(name)) for i in idx
                ],
            )
            for name, idx in sorted(per_topic.items())
        ],
        timeout_ms=timeout_ms,
    )


def _list_offsets(
    wire: wire_mod.Wire, leader: int, owned: list[tuple[str, int]], timestamp: int
) -> list[tuple[str, int, int, int]]:
    """(topic, partition, offset, timestamp) for each partition ``leader`` leads; partitions that fail are left out."""
    request = list_offsets_request(
        owned, timestamp_of=lambda _name: timestamp, timeout_ms=wire.settings.request_timeout_ms
    )
    response = wire.send(request, node=leader)
    out = []
    for topic in response.topics:
        for p in topic.partitions:
            if not p.error_code:
                out.append((str(topic.name), int(p.partition_index), int(p.offset), int(p.timestamp)))
    return out


def _committed_groups(wire: wire_mod.Wire, topics: set[str], by_id: dict[str, str]) -> dict[str, set[str]]:
    """Topic -> consumer groups holding a committed offset on it (only for ``topics``)."""
    found: dict[str, set[str]] = defaultdict(set)
    batched = wire.capabilities().get("OffsetFetch", 0) >= GROUPS_BATCH_SINCE
    for broker in wire.broker_ids():
        listed = wire.send(ListGroupsRequest(states_filter=[], types_filter=[]), node=broker)
        wire.check_top_level(listed, api="ListGroups")
        group_ids = sorted(str(g.group_id) for g in listed.groups)
        if not group_ids:
            continue
        for group_id, offsets in _group_offsets(wire, broker, group_ids, batched=batched):
            for topic in offsets:
                name = _topic_name(topic, by_id)
                if name in topics and any(p.committed_offset >= 0 for p in topic.partitions):
                    found[name].add(group_id)
    return found


def _group_offsets(
    wire: wire_mod.Wire, broker: int, group_ids: list[str], *, batched: bool
) -> Iterator[tuple[str, list[Any]]]:
    """``(group, its committed offsets per topic)`` for each group ``broker`` coordinates (groups that fail are left
    out): one request naming every group, or one per group on a broker older than OffsetFetch v8."""
    if batched:
        group_cls = OffsetFetchRequest.OffsetFetchRequestGroup
        request = OffsetFetchRequest(
            groups=[group_cls(group_id=g, member_id=None, member_epoch=-1, topics=None) for g in group_ids],
            require_stable=False,
        )
        for group in wire.send(request, node=broker).groups:
            if not group.error_code:
                yield str(group.group_id), list(group.topics)
        return
    for group_id in group_ids:
        response = wire.send(OffsetFetchRequest(group_id=group_id, topics=None, require_stable=False), node=broker)
        if not response.error_code:
            yield group_id, list(response.topics)


def _topic_name(topic: Any, by_id: dict[str, str]) -> str:
    name = getattr(topic, "name", None)
    if name:
        return str(name)
    return by_id.get(str(getattr(topic, "topic_id", "")), "")

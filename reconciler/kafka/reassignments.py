"""Reads the ongoing partition reassignments (one ListPartitionReassignments), all of them or of named partitions."""

from __future__ import annotations

from collections.abc import Callable

from kafka.protocol.admin import ListPartitionReassignmentsRequest

from reconciler.kafka import wire as wire_mod
from reconciler.kafka.results import ConnectionLost
from reconciler.model import state

_NOT_CONTROLLER = 41


def read_reassignments(
    wire: wire_mod.Wire, *, topic_filter: Callable[[str], bool] | None = None, partitions: dict[str, int] | None = None
) -> tuple[state.Reassignment, ...]:
    """Ongoing partition reassignments (one ListPartitionReassignments to the controller).

    ``partitions`` (topic -> partition count) asks about those partitions only, instead of every one.
    """
    topic_cls = ListPartitionReassignmentsRequest.ListPartitionReassignmentsTopics
    asked = (
        None
        if partitions is None
        else [topic_cls(name=n, partition_indexes=list(range(c))) for n, c in sorted(partitions.items())]
    )
    request = ListPartitionReassignmentsRequest(timeout_ms=wire.settings.request_timeout_ms, topics=asked)
    try:
        response = wire.send_to_controller(request, not_controller=lambda r: r.error_code == _NOT_CONTROLLER)
    except ConnectionLost:
        # A read is safe to repeat. A dead broker stays in Metadata until it is fenced, so ask whichever
        # broker the client is connected to (brokers forward this request to the active controller).
        response = wire.send(request)
    wire.check_top_level(response, api="ListPartitionReassignments")
    found = [
        state.Reassignment(
            topic=str(topic.name),
            partition=int(p.partition_index),
            replicas=tuple(int(r) for r in p.replicas),
            adding=tuple(int(r) for r in p.adding_replicas),
            removing=tuple(int(r) for r in p.removing_replicas),
        )
        for topic in response.topics
        if topic_filter is None or topic_filter(str(topic.name))
        for p in topic.partitions
    ]
    return tuple(sorted(found, key=lambda r: (r.topic, r.partition)))

"""Reads the ongoing partition reassignments (one ListPartitionReassignments), all of them or of named partitions.

The request goes to the controller; through a controller change (ZooKeeper mode answers ``NOT_CONTROLLER`` until a
new controller is elected) it is re-sent to the controller Metadata names next, within the request timeout.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from kafka.protocol.admin import ListPartitionReassignmentsRequest

from reconciler.kafka import wire as wire_mod
from reconciler.kafka.results import ConnectionLost, RequestFailed
from reconciler.model import state

_NOT_CONTROLLER = 41
FIRST_RETRY_S = 0.2
MAX_RETRY_S = 2.0


def _ask_controller(
    wire: wire_mod.Wire, request: Any, *, clock: Callable[[], float], sleep: Callable[[float], None]
) -> Any:
    """Send ``request`` to the controller until one answers, within the request timeout.

    A read is safe to repeat. A dead broker stays in Metadata until it is fenced, so after a lost connection the
    request goes to whichever broker the client is connected to (KRaft brokers forward it to the active controller).
    In ZooKeeper mode only the controller answers; while a new one is being elected every broker says
    ``NOT_CONTROLLER`` and Metadata may still name the dead one, or none: the controller is looked up again and the
    request re-sent, waiting 0.2 s, then twice as long each time up to 2 s, until the request timeout has passed.
    """
    bound_s = wire.settings.request_timeout_ms / 1000
    give_up = clock() + bound_s
    delay = FIRST_RETRY_S
    last = "no answer"
    while True:
        response = None
        try:
            response = wire.send_to_controller(request, not_controller=_is_not_controller)
        except ConnectionLost as exc:
            last = str(exc)
            try:
                response = wire.send(request)
            except ConnectionLost as again:
                last = str(again)
        except RequestFailed as exc:
            if not exc.retriable:
                raise
            last = str(exc)  # the cluster reports no controller: an election is under way
        if response is not None and not _is_not_controller(response):
            return response
        if response is not None:
            last = "NOT_CONTROLLER: a controller election is under way"
        if clock() + delay > give_up:
            raise RequestFailed(
                f"ListPartitionReassignments: no controller answered within {bound_s:g} s ({last})",
                api="ListPartitionReassignments",
                error_code=_NOT_CONTROLLER,
                error_name="NOT_CONTROLLER",
                retriable=True,
            )
        sleep(delay)
        delay = min(MAX_RETRY_S, delay * 2)
        wire.controller_id = None  # look it up again before the next attempt


def _is_not_controller(response: Any) -> bool:
    return int(getattr(response, "error_code", 0) or 0) == _NOT_CONTROLLER


def read_reassignments(
    wire: wire_mod.Wire,
    *,
    topic_filter: Callable[[str], bool] | None = None,
    partitions: dict[str, int] | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
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
    response = _ask_controller(wire, request, clock=clock, sleep=sleep)
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

"""How much one write request may carry, counted the way the KRaft controller counts it, and how to split.

The controller turns each admin write into metadata records and refuses an operation that would write more
than ``MAX_RECORDS_PER_REQUEST`` of them: ``QuorumController.MAX_RECORDS_PER_USER_OP`` (10,000 in Kafka 3.9.x
and every 4.x release read so far, up to 4.4). The records are collected in a ``BoundedList``; what happens when
it overflows depends on the API (``ReplicationControlManager``, ``ConfigurationControlManager``,
``AclControlManager``, ``ClientQuotaControlManager``):

================================  ==========================================  =================================
request                           records                                     when there are too many
================================  ==========================================  =================================
CreateTopics                      per topic: 1 TopicRecord + 1 ConfigRecord   every topic POLICY_VIOLATION
                                  per config + 1 PartitionRecord per          "Unable to perform excessively
                                  partition (not per replica)                 large batch operation."
CreatePartitions                  1 PartitionRecord per new partition         UNKNOWN_SERVER_ERROR for the
                                                                              topics past the limit
DeleteTopics                      1 RemoveTopicRecord per topic               UNKNOWN_SERVER_ERROR for the
                                                                              topics past the limit
IncrementalAlterConfigs           1 ConfigRecord per key (changed values;     every resource POLICY_VIOLATION
                                  every key of a broker resource)
CreateAcls                        1 AccessControlEntryRecord per binding      every binding POLICY_VIOLATION
DeleteAcls                        1 RemoveAccessControlEntryRecord per        3.9: UNKNOWN_SERVER_ERROR past the
                                  binding a filter matches                    limit; 4.x: INVALID_REQUEST
                                                                              "Cannot remove more than ..."
AlterClientQuotas                 1 ClientQuotaRecord per key                 every entity POLICY_VIOLATION
AlterPartitionReassignments       1 PartitionChangeRecord per partition       UNKNOWN_SERVER_ERROR past the limit
================================  ==========================================  =================================

So every write is cut into requests of at most ``MAX_RECORDS_PER_REQUEST`` records (each entity counted from
what it asks for, an upper bound where the broker may skip a record) and ``MAX_ENTITIES_PER_REQUEST`` entities,
packed in order, each request as full as it can be: for items kept in order that is the fewest requests the limits
allow. Should the broker still refuse a request as too large (a cluster with a lower limit, an estimate that was
short), ``send_within_limit`` halves the request size, sends what was refused again and carries on with the rest
under that smaller size. An entity refused on its own is reported with the reason. A write whose later requests
cannot be sent in time fails as a whole with ``ConnectionFailed`` (what was sent is then read back), only a write
of which nothing was sent with ``DeadlineReached``.

Within those limits a request is sized by what it costs, for apply's progress, which advances as each request is
answered: the first request of a write carries at most ``FIRST_REQUEST_RECORDS`` records, and each later one the
records the controller committed in ``ANSWER_EVERY_S`` at the rate it answered the previous request (at most
``GROWTH`` times as many, at least ``MIN_REQUEST_RECORDS``); a rest that weighs little more than the next request
goes with it. A write the controller commits quickly goes in one or two requests (1,000 deletes, 500 config
changes); a slow one (a loaded broker creating thousands of partitions) still answers every second or two. An
answer's time is the ``clock``'s (monotonic) between sending and answer.

Reads adapt too (``split_on_timeout``): a read the broker does not answer within the request timeout, or
answers by failing every entity with UNKNOWN_SERVER_ERROR (a broker short of memory), is halved and each half
read the same way, down to a floor; a request of that size still unanswered fails with the cause named.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from reconciler.base import answers as progress
from reconciler.base import errors, interrupt
from reconciler.kafka.results import ConnectionLost, ItemResult

T = TypeVar("T")

# QuorumController.MAX_RECORDS_PER_USER_OP (= MAX_RECORDS_PER_BATCH), Kafka 3.9.x and 4.x.
MAX_RECORDS_PER_REQUEST = 10_000
# Entities per request whatever their records: keeps requests and answers (a CreateTopics answer lists every
# topic's resolved configs, KIP-525) a few MB at most, far below socket.request.max.bytes (100 MiB).
MAX_ENTITIES_PER_REQUEST = 5_000
# Apply's progress advances as each write request is answered, so requests are sized by what they cost: the first
# of a write carries at most FIRST_REQUEST_RECORDS records (the controller commits that many in well under a second
# unless it is overloaded), each later one what the controller committed in ANSWER_EVERY_S at the rate it answered
# the one before. What that costs against one request is measured in docs/benchmarks.md ("Write request size").
FIRST_REQUEST_RECORDS = 1_000
ANSWER_EVERY_S = 1.5
GROWTH = 4  # a request is at most this many times the records of the one before
MIN_REQUEST_RECORDS = 100
TAIL = 1.25  # a rest of at most this many times the next request's records goes with it


def next_request_records(records: int, elapsed_s: float, *, current: int) -> int:
    """The records the next request may carry, after one of ``records`` records (``current`` the budget it was
    sent under) was answered in ``elapsed_s``: what is answered in ``ANSWER_EVERY_S`` at that rate, at most
    ``GROWTH`` times ``current``, at least ``MIN_REQUEST_RECORDS``."""
    if records <= 0:
        return current
    at_rate = records * ANSWER_EVERY_S / max(elapsed_s, 1e-3)
    return int(max(MIN_REQUEST_RECORDS, min(at_rate, current * GROWTH)))


_POLICY_VIOLATION = 44
_INVALID_REQUEST = 42
_UNKNOWN_SERVER_ERROR = -1

Weight = Callable[[T], int]
Send = Callable[[Sequence[T]], Sequence[ItemResult]]


def too_large(result: ItemResult, *, overflow_per_item: bool = False) -> bool:
    """True when the broker refused ``result``'s entity because its request carried too many records.

    ``overflow_per_item`` is for the APIs whose controller code fails only the entities past the limit with a
    bare ``UNKNOWN_SERVER_ERROR`` (CreatePartitions, DeleteTopics, DeleteAcls on 3.9, reassignments).
    """
    message = result.message or ""
    if result.error_code == _POLICY_VIOLATION and "excessively large" in message:
        return True
    if result.error_code == _INVALID_REQUEST and "Cannot remove more than" in message:
        return True
    return overflow_per_item and result.error_code == _UNKNOWN_SERVER_ERROR and not message


def pack(
    items: Sequence[T],
    weight: Weight[T],
    *,
    max_records: int | None = None,
    max_entities: int | None = None,
) -> list[list[T]]:
    """``items`` in order, cut into runs of at most ``max_records`` records and ``max_entities`` items (by
    default the controller's limits).

    Each run takes items until the next would not fit (an item heavier than the limit goes alone), which
    gives the fewest runs any cut that keeps the order can give.
    """
    runs: list[list[T]] = []
    start = 0
    while start < len(items):
        run = _first_run(items[start:], weight, max_records=max_records, max_entities=max_entities)
        runs.append(run)
        start += len(run)
    return runs


def _first_run(items: Sequence[T], weight: Weight[T], *, max_records: int | None, max_entities: int | None) -> list[T]:
    records_cap = MAX_RECORDS_PER_REQUEST if max_records is None else max_records
    entities_cap = MAX_ENTITIES_PER_REQUEST if max_entities is None else max_entities
    run: list[T] = []
    load = 0
    for item in items:
        w = max(0, weight(item))
        if run and (load + w > records_cap or len(run) >= entities_cap):
            break
        run.append(item)
        load += w
    return run


def send_within_limit(
    items: Sequence[T],
    *,
    weight: Weight[T],
    send: Send[T],
    refused: Callable[[ItemResult], bool] = too_large,
    max_records: int | None = None,
    max_entities: int | None = None,
    clock: Callable[[], float] = time.monotonic,
    key: Callable[[T], str] | None = None,
) -> list[ItemResult]:
    """Send ``items`` in packed requests through ``send``; one ``ItemResult`` per item, in input order.

    ``send(run)`` sends one request and returns one result per item of ``run``, in order. Each request is sized by
    what it costs (the module's docstring; ``clock`` times the answers). When items of a request of several are
    ``refused`` as too large, the size is halved (at most half the records of the refused request) and they are
    sent again, first, with everything after them packed to the new size. An item refused on its own keeps the
    broker's answer, with the reason. With ``key`` (a result's key), Ctrl-C stops it between two requests (``_stop``).
    """
    limit = MAX_RECORDS_PER_REQUEST if max_records is None else max_records
    entities = MAX_ENTITIES_PER_REQUEST if max_entities is None else max_entities
    budget = FIRST_REQUEST_RECORDS
    results: dict[int, ItemResult] = {}
    rest = list(range(len(items)))  # indices of the items still to send, in order
    while rest and not _stop(key, sent=bool(results)):
        cap = budget
        if sum(max(0, weight(items[i])) for i in rest) <= budget * TAIL:
            cap = int(budget * TAIL)  # what is left goes now rather than as a small last request
        run = _first_run(rest, lambda i: weight(items[i]), max_records=min(limit, cap), max_entities=entities)
        rest = rest[len(run) :]
        started = clock()
        try:
            answers = send([items[i] for i in run])
        except errors.DeadlineReached as exc:
            if not results:
                raise  # nothing of the write was sent
            # Some requests were answered, the rest not sent; which is which is lost with this error: read to tell.
            raise errors.ConnectionFailed(
                f"{exc} (after {len(results)} of {len(items)} were sent and answered)"
            ) from None
        records = sum(max(0, weight(items[i])) for i in run)
        budget = next_request_records(records, clock() - started, current=max(budget, records))
        progress.answered(len(run))
        for i, r in zip(run, answers, strict=True):
            results[i] = r
        again = [i for i in run if refused(results[i])]
        if not again:
            continue
        if len(run) == 1:
            (i,) = again
            if too_large(results[i]) or weight(items[i]) > MAX_RECORDS_PER_REQUEST:
                results[i] = _alone(results[i], weight(items[i]))
            continue
        # The controller takes fewer records than this run had: halve the size and send the refused first.
        limit = max(1, sum(weight(items[i]) for i in run) // 2)
        rest = again + rest
    results.update((i, _not_sent(key(items[i]))) for i in rest if key is not None)  # stopped by Ctrl-C
    return [results[i] for i in range(len(items))]


def _stop(key: Callable[[Any], str] | None, *, sent: bool) -> bool:
    """Whether a write stops before its next request: Ctrl-C came (``reconciler.base.interrupt``) after one was
    sent, and the items left can be named (``key``); each of them then gets an ``INTERRUPTED`` result (not started)."""
    return key is not None and sent and interrupt.requested()


def _not_sent(item_key: str) -> ItemResult:
    return ItemResult(
        key=item_key,
        error_code=-1,
        error_name=interrupt.INTERRUPTED,
        message="not sent: the apply was interrupted (Ctrl-C) before this request",
    )


def _alone(result: ItemResult, records: int) -> ItemResult:
    reason = (
        f"refused as too large on its own: it needs {records} metadata record(s) and the controller accepts at "
        f"most {MAX_RECORDS_PER_REQUEST} per request"
    )
    return ItemResult(
        key=result.key,
        error_code=result.error_code,
        error_name=result.error_name,
        message=f"{result.message}; {reason}" if result.message else reason,
        extra=result.extra,
        retriable=False,
    )


def split_on_timeout(items: list[T], send: Callable[[list[T]], list[Any]], *, what: str, min_items: int) -> list[Any]:
    """``send(items)``; when that request gets no answer in time, or every entity fails with
    UNKNOWN_SERVER_ERROR (a broker out of memory answers so), the items are halved and each half sent the same
    way, down to ``min_items`` items. A request of that size still unanswered raises ``ConnectionLost`` naming
    the cause."""
    try:
        results = send(items)
    except ConnectionLost as exc:
        if not exc.timed_out or exc.deadline:  # the command's time limit ran out: splitting cannot help
            raise
        if len(items) <= min_items:
            raise ConnectionLost(
                f"{what} of {len(items)} resource(s) got no answer within the request timeout, also when split "
                f"into requests of at most {min_items}: the broker may be overloaded (a long garbage collection, "
                f"too little heap); retry later, or raise request.timeout.ms ({exc})",
                api=exc.api,
                node=exc.node,
                timed_out=True,
            ) from None
        results = None
    if results is not None and not (
        len(items) > min_items and results and all(r.error_code == _UNKNOWN_SERVER_ERROR for r in results)
    ):
        return results
    half = len(items) // 2
    return [
        *split_on_timeout(items[:half], send, what=what, min_items=min_items),
        *split_on_timeout(items[half:], send, what=what, min_items=min_items),
    ]

"""Batched writes: each call sends as few requests as the controller's limits allow (see ``limits``).

The writes are the methods of ``Writes``, a mixin of ``KafkaAdapter`` over its wire. Each returns one
``ItemResult`` per entity, in input order, and raises only when a whole request fails. Controller-bound APIs
(CreateTopics, DeleteTopics, CreatePartitions, AlterPartitionReassignments) go to the controller; per-broker
config changes go to that broker; everything else to the least-loaded broker.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from kafka.admin import (
    ConfigResourceType,
    ConfigSourceType,
)

from reconciler.base import scrubbing
from reconciler.connection.settings import Secret
from reconciler.kafka import codes, encoders, limits
from reconciler.kafka import wire as wire_mod
from reconciler.kafka.results import ItemResult, TopicSpec
from reconciler.model import state
from reconciler.model.payloads import ConfigOp

_NOT_CONTROLLER = 41
T = TypeVar("T")


def one_record(_: object) -> int:
    """The weight of an entity that is one metadata record (a topic to delete, an ACL binding)."""
    return 1


def topic_records(spec: TopicSpec) -> int:
    """Records a CreateTopics writes for ``spec``: the topic, one per config, one per partition.

    A spec that leaves the partition count to the broker's default counts as one partition (the default is not
    known here); should the request then be refused as too large, it is split further.
    """
    partitions = len(spec.assignment) if spec.assignment else spec.partitions or 1
    return 1 + len(spec.configs) + partitions


def item(key: str, code: int, message: str | None, *, throttle_ms: int = 0, **extra: Any) -> ItemResult:
    """An ``ItemResult`` with Kafka's error name and retriable flag filled in."""
    if throttle_ms:
        extra["throttle_time_ms"] = throttle_ms
    return ItemResult(
        key=key,
        error_code=int(code),
        error_name=codes.error_name(int(code)),
        message=message or None,
        extra=extra,
        retriable=codes.is_retriable(int(code)),
    )


def _all_not_controller(codes: Callable[[Any], Sequence[int]]) -> Callable[[Any], bool]:
    def check(response: Any) -> bool:
        found = codes(response)
        return bool(found) and all(c == _NOT_CONTROLLER for c in found)

    return check


def _timeout(wire: wire_mod.Wire, timeout_ms: int | None) -> tuple[int, int]:
    """(broker-side timeout, client-side timeout): the client waits a little longer than the broker."""
    broker = timeout_ms or wire.settings.request_timeout_ms
    return broker, broker + 5_000


def _per_topic_batches(
    wire: wire_mod.Wire,
    items: Sequence[T],
    *,
    key: Callable[[T], str],
    request: Callable[[Sequence[T]], Any],
    entries: Callable[[Any], Sequence[Any]],
    result: Callable[[Any, int], ItemResult],
    timeout_ms: int,
    weight: Callable[[T], int],
    overflow_per_item: bool,
) -> list[ItemResult]:
    """Send ``request(chunk)`` to the controller per packed chunk of ``items``; one result per item, in order.

    ``entries`` picks the per-topic answers (each with ``name`` and ``error_code``) out of a response and
    ``result`` turns one of them, with the response's throttle time, into an ``ItemResult``. ``weight`` counts
    an item's metadata records; ``overflow_per_item`` says how the controller refuses too many (``limits``).
    """

    def send(chunk: Sequence[T]) -> list[ItemResult]:
        response = wire.send_to_controller(
            request(chunk),
            not_controller=_all_not_controller(lambda r: [t.error_code for t in entries(r)]),
            timeout_ms=timeout_ms,
        )
        throttle = codes.throttle_of(response)
        found = {str(t.name): result(t, throttle) for t in entries(response)}
        return [found.get(key(i)) or item(key(i), -1, "no result for this topic in the response") for i in chunk]

    return limits.send_within_limit(
        items,
        weight=weight,
        send=send,
        refused=lambda r: limits.too_large(r, overflow_per_item=overflow_per_item),
        key=key,
    )


# ----------------------------------------------------------------------------------------- topics
def config_key(resource_type: str, name: str) -> str:
    """``topic:orders``, ``broker:1``, ``broker:<default>``: the key of a config resource's result."""
    shown = state.CLUSTER_DEFAULT if resource_type == "BROKER" and name in ("", state.CLUSTER_DEFAULT) else name
    return f"{resource_type.lower()}:{shown}"


def _scrub(message: str | None, secrets: Sequence[str]) -> str | None:
    return scrubbing.scrub(message, secrets) if message else message


# ---------------------------------------------------------------------------------- reassignments


class Writes:
    """The batched topic, partition, config and reassignment writes of ``KafkaAdapter`` (a mixin over its wire)."""

    _wire: wire_mod.Wire

    def create_topics(
        self, specs: Sequence[TopicSpec], *, validate_only: bool = False, timeout_ms: int | None = None
    ) -> list[ItemResult]:
        """CreateTopics; ``extra`` holds what the broker resolved (KIP-525): partitions, RF, topic id, configs."""
        wire = self._wire
        broker_timeout, client_timeout = _timeout(wire, timeout_ms)

        def request(chunk: Sequence[TopicSpec]) -> Any:
            return encoders.create_topics(chunk, timeout_ms=broker_timeout, validate_only=validate_only)

        def result(t: Any, throttle: int) -> ItemResult:
            extra: dict[str, Any] = {}
            if getattr(t, "num_partitions", -1) not in (None, -1):
                extra["partitions"] = int(t.num_partitions)
                extra["replication_factor"] = int(t.replication_factor)
            topic_id = getattr(t, "topic_id", None)
            if topic_id is not None and topic_id.int != 0:
                extra["topic_id"] = str(topic_id)
            if getattr(t, "configs", None):
                extra["configs"] = {str(c.name): None if c.is_sensitive else c.value for c in t.configs}
                extra["dynamic_configs"] = sorted(
                    str(c.name) for c in t.configs if c.config_source == ConfigSourceType.DYNAMIC_TOPIC_CONFIG
                )
            return item(str(t.name), t.error_code, t.error_message, throttle_ms=throttle, **extra)

        return _per_topic_batches(
            wire,
            specs,
            key=lambda spec: spec.name,
            request=request,
            entries=lambda r: r.topics,
            result=result,
            timeout_ms=client_timeout,
            weight=topic_records,
            overflow_per_item=False,
        )

    def delete_topics(self, names: Sequence[str], *, timeout_ms: int | None = None) -> list[ItemResult]:
        """DeleteTopics. Deletion completes asynchronously: follow with ``wait_topics_absent``."""
        wire = self._wire
        broker_timeout, client_timeout = _timeout(wire, timeout_ms)
        return _per_topic_batches(
            wire,
            names,
            key=str,
            request=lambda chunk: encoders.delete_topics(chunk, timeout_ms=broker_timeout),
            entries=lambda r: r.responses,
            result=lambda t, throttle: item(
                str(t.name), t.error_code, getattr(t, "error_message", None), throttle_ms=throttle
            ),
            timeout_ms=client_timeout,
            weight=one_record,
            overflow_per_item=True,
        )

    def create_partitions(
        self,
        counts: Mapping[str, int],
        *,
        assignments: Mapping[str, Sequence[Sequence[int]]] | None = None,
        current: Mapping[str, int] | None = None,
        validate_only: bool = False,
        timeout_ms: int | None = None,
    ) -> list[ItemResult]:
        """CreatePartitions: ``counts`` maps a topic to its new TOTAL partition count.

        ``current`` (a topic's partition count now) lets requests be packed by the partitions they add; without
        it a topic counts with its new total, which can only over-count.
        """
        wire = self._wire

        def added(name: str) -> int:
            placed = (assignments or {}).get(name)
            if placed is not None:
                return len(placed)
            return int(counts[name]) - int((current or {}).get(name, 0))

        broker_timeout, client_timeout = _timeout(wire, timeout_ms)

        def request(chunk: Sequence[str]) -> Any:
            return encoders.create_partitions(
                chunk, counts, assignments, timeout_ms=broker_timeout, validate_only=validate_only
            )

        return _per_topic_batches(
            wire,
            list(counts),
            key=str,
            request=request,
            entries=lambda r: r.results,
            result=lambda t, throttle: item(str(t.name), t.error_code, t.error_message, throttle_ms=throttle),
            timeout_ms=client_timeout,
            weight=added,
            overflow_per_item=True,
        )

    # ---------------------------------------------------------------------------------------- configs

    def incremental_alter_configs(
        self,
        changes: Mapping[tuple[str, str], Sequence[ConfigOp]],
        *,
        validate_only: bool = False,
    ) -> list[ItemResult]:
        """IncrementalAlterConfigs for ``(resource_type, name)`` -> ops; type ``TOPIC``, ``BROKER``, ``GROUP`` or
        ``CLIENT_METRICS``.

        A broker name of ``""`` or ``CLUSTER_DEFAULT`` is the cluster-wide default. Changes to one broker's own
        configs go to that broker (the protocol requires it); all the rest go in one request.
        """
        wire = self._wire
        # A broker may quote a rejected value in its message: sensitive values are masked in what is returned.
        secrets = [op.value.reveal() for ops in changes.values() for op in ops if isinstance(op.value, Secret)]
        groups: dict[int | None, list[tuple[str, str]]] = {}
        for rtype, name in changes:
            if rtype not in ("TOPIC", "BROKER", "BROKER_LOGGER", "GROUP", "CLIENT_METRICS"):
                raise ValueError(f"unsupported config resource type {rtype!r}")
            wire_name = "" if rtype == "BROKER" and name == state.CLUSTER_DEFAULT else name
            node = int(wire_name) if rtype in ("BROKER", "BROKER_LOGGER") and wire_name else None
            groups.setdefault(node, []).append((rtype, name))
        results: dict[str, ItemResult] = {}

        def send(node: int | None, chunk: Sequence[tuple[str, str]]) -> list[ItemResult]:
            request = encoders.incremental_alter_configs(changes, chunk, validate_only=validate_only)
            response = wire.send(request, node=node)
            throttle = codes.throttle_of(response)
            found: dict[str, ItemResult] = {}
            for r in response.responses:
                key = config_key(ConfigResourceType(r.resource_type).name, str(r.resource_name))
                found[key] = item(key, r.error_code, _scrub(r.error_message, secrets), throttle_ms=throttle)
            return [
                found.get(k) or item(k, -1, "no result for this resource in the response")
                for k in (config_key(rtype, name) for rtype, name in chunk)
            ]

        for node, keys in groups.items():
            answers = limits.send_within_limit(
                keys,
                weight=lambda k: len(changes[k]),
                send=functools.partial(send, node),
                key=lambda k: config_key(*k),
            )
            results.update((r.key, r) for r in answers)
        return [dataclasses.replace(results[config_key(rtype, name)], target=(rtype, name)) for rtype, name in changes]

    def alter_partition_reassignments(
        self, changes: Mapping[tuple[str, int], Sequence[int] | None], *, timeout_ms: int | None = None
    ) -> list[ItemResult]:
        """AlterPartitionReassignments: ``(topic, partition) -> replicas``, or ``None`` to cancel one in progress."""
        wire = self._wire
        broker_timeout, client_timeout = _timeout(wire, timeout_ms)

        def send(chunk: Sequence[tuple[str, int]]) -> list[ItemResult]:
            request = encoders.alter_partition_reassignments(changes, chunk, timeout_ms=broker_timeout)
            response = wire.send_to_controller(
                request, not_controller=lambda r: r.error_code == _NOT_CONTROLLER, timeout_ms=client_timeout
            )
            wire.check_top_level(response, api="AlterPartitionReassignments")
            throttle = codes.throttle_of(response)
            found: dict[str, ItemResult] = {}
            for t in response.responses:
                for p in t.partitions:
                    key = f"{t.name}:{p.partition_index}"
                    found[key] = item(key, p.error_code, p.error_message, throttle_ms=throttle)
            keys = [f"{t}:{p}" for t, p in chunk]
            return [found.get(k) or item(k, -1, "no result for this partition in the response") for k in keys]

        # One PartitionChangeRecord per partition at most.
        return limits.send_within_limit(
            list(changes),
            weight=one_record,
            send=send,
            refused=lambda r: limits.too_large(r, overflow_per_item=True),
            key=lambda tp: f"{tp[0]}:{tp[1]}",
        )

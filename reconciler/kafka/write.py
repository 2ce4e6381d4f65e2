"""Batched writes: each call sends ONE request for all its entities (split only beyond ``MAX_BATCH``).

Every function returns one ``ItemResult`` per entity, in input order, and raises only when the whole request
fails. Controller-bound APIs (CreateTopics, DeleteTopics, CreatePartitions, AlterPartitionReassignments) go to
the controller; per-broker config changes go to that broker; everything else to the least-loaded broker.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from kafka.admin import (
    ConfigResourceType,
    ConfigSourceType,
)
from kafka.protocol.admin import (
    AlterPartitionReassignmentsRequest,
    CreatePartitionsRequest,
    CreateTopicsRequest,
    DeleteTopicsRequest,
    IncrementalAlterConfigsRequest,
)

from reconciler import state
from reconciler.connection import Secret
from reconciler.kafka import wire as wire_mod
from reconciler.kafka.results import ConfigOp, ItemResult, TopicSpec

# Entities per request: keeps one request well below the broker's socket.request.max.bytes (100 MiB).
MAX_BATCH = 2_000
_NOT_CONTROLLER = 41
_CONFIG_OPS = {"SET": 0, "DELETE": 1, "APPEND": 2, "SUBTRACT": 3}
T = TypeVar("T")


def batches(items: Sequence[T]) -> list[Sequence[T]]:
    return [items[i : i + MAX_BATCH] for i in range(0, len(items), MAX_BATCH)]


def item(key: str, code: int, message: str | None, *, throttle_ms: int = 0, **extra: Any) -> ItemResult:
    """An ``ItemResult`` with Kafka's error name and retriable flag filled in."""
    if throttle_ms:
        extra["throttle_time_ms"] = throttle_ms
    return ItemResult(
        key=key,
        error_code=int(code),
        error_name=wire_mod.error_name(int(code)),
        message=message or None,
        extra=extra,
        retriable=wire_mod.is_retriable(int(code)),
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
) -> list[ItemResult]:
    """Send ``request(chunk)`` to the controller per batch of ``items``; one result per item, in input order.

    ``entries`` picks the per-topic answers (each with ``name`` and ``error_code``) out of a response and
    ``result`` turns one of them, with the response's throttle time, into an ``ItemResult``.
    """
    results: dict[str, ItemResult] = {}
    for chunk in batches(items):
        response = wire.send_to_controller(
            request(chunk),
            not_controller=_all_not_controller(lambda r: [t.error_code for t in entries(r)]),
            timeout_ms=timeout_ms,
        )
        throttle = wire_mod.throttle_of(response)
        for t in entries(response):
            results[str(t.name)] = result(t, throttle)
    return [results.get(key(i)) or item(key(i), -1, "no result for this topic in the response") for i in items]


# ----------------------------------------------------------------------------------------- topics
def create_topics(
    wire: wire_mod.Wire, specs: Sequence[TopicSpec], *, validate_only: bool = False, timeout_ms: int | None = None
) -> list[ItemResult]:
    """CreateTopics; ``extra`` holds what the broker resolved (KIP-525): partitions, RF, topic id, configs."""
    topic_cls = CreateTopicsRequest.CreatableTopic
    broker_timeout, client_timeout = _timeout(wire, timeout_ms)

    def request(chunk: Sequence[TopicSpec]) -> Any:
        return CreateTopicsRequest(
            topics=[
                topic_cls(
                    name=spec.name,
                    num_partitions=-1 if spec.assignment or spec.partitions is None else spec.partitions,
                    replication_factor=-1
                    if spec.assignment or spec.replication_factor is None
                    else spec.replication_factor,
                    assignments=[
                        topic_cls.CreatableReplicaAssignment(partition_index=i, broker_ids=list(replicas))
                        for i, replicas in enumerate(spec.assignment or ())
                    ],
                    configs=[topic_cls.CreatableTopicConfig(name=k, value=v) for k, v in spec.configs.items()],
                )
                for spec in chunk
            ],
            timeout_ms=broker_timeout,
            validate_only=validate_only,
        )

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
    )


def delete_topics(wire: wire_mod.Wire, names: Sequence[str], *, timeout_ms: int | None = None) -> list[ItemResult]:
    """DeleteTopics. Deletion completes asynchronously: follow with ``wait_topics_absent``."""
    state_cls = DeleteTopicsRequest.DeleteTopicState
    broker_timeout, client_timeout = _timeout(wire, timeout_ms)
    return _per_topic_batches(
        wire,
        names,
        key=str,
        request=lambda chunk: DeleteTopicsRequest(
            topics=[state_cls(name=n) for n in chunk], topic_names=list(chunk), timeout_ms=broker_timeout
        ),
        entries=lambda r: r.responses,
        result=lambda t, throttle: item(
            str(t.name), t.error_code, getattr(t, "error_message", None), throttle_ms=throttle
        ),
        timeout_ms=client_timeout,
    )


def create_partitions(
    wire: wire_mod.Wire,
    counts: Mapping[str, int],
    *,
    assignments: Mapping[str, Sequence[Sequence[int]]] | None = None,
    validate_only: bool = False,
    timeout_ms: int | None = None,
) -> list[ItemResult]:
    """CreatePartitions: ``counts`` maps a topic to its new TOTAL partition count."""
    topic_cls = CreatePartitionsRequest.CreatePartitionsTopic
    broker_timeout, client_timeout = _timeout(wire, timeout_ms)

    def request(chunk: Sequence[str]) -> Any:
        topics = []
        for name in chunk:
            new = (assignments or {}).get(name)
            topics.append(
                topic_cls(
                    name=name,
                    count=int(counts[name]),
                    assignments=None
                    if new is None
                    else [topic_cls.CreatePartitionsAssignment(broker_ids=list(r)) for r in new],
                )
            )
        return CreatePartitionsRequest(topics=topics, timeout_ms=broker_timeout, validate_only=validate_only)

    return _per_topic_batches(
        wire,
        list(counts),
        key=str,
        request=request,
        entries=lambda r: r.results,
        result=lambda t, throttle: item(str(t.name), t.error_code, t.error_message, throttle_ms=throttle),
        timeout_ms=client_timeout,
    )


# ---------------------------------------------------------------------------------------- configs
def config_key(resource_type: str, name: str) -> str:
    """``topic:orders``, ``broker:1``, ``broker:<default>``: the key of a config resource's result."""
    shown = state.CLUSTER_DEFAULT if resource_type == "BROKER" and name in ("", state.CLUSTER_DEFAULT) else name
    return f"{resource_type.lower()}:{shown}"


def incremental_alter_configs(
    wire: wire_mod.Wire,
    changes: Mapping[tuple[str, str], Sequence[ConfigOp]],
    *,
    validate_only: bool = False,
) -> list[ItemResult]:
    """IncrementalAlterConfigs for ``(resource_type, name)`` -> ops; type ``TOPIC`` or ``BROKER``.

    A broker name of ``""`` or ``CLUSTER_DEFAULT`` is the cluster-wide default. Changes to one broker's own
    configs go to that broker (the protocol requires it); all the rest go in one request.
    """
    resource_cls = IncrementalAlterConfigsRequest.AlterConfigsResource
    # A broker may quote a rejected value in its message: sensitive values are masked in what is returned.
    secrets = [op.value.reveal() for ops in changes.values() for op in ops if isinstance(op.value, Secret)]
    groups: dict[int | None, list[tuple[str, str]]] = {}
    for rtype, name in changes:
        if rtype not in ("TOPIC", "BROKER", "BROKER_LOGGER"):
            raise ValueError(f"unsupported config resource type {rtype!r}")
        wire_name = "" if rtype == "BROKER" and name == state.CLUSTER_DEFAULT else name
        node = int(wire_name) if rtype in ("BROKER", "BROKER_LOGGER") and wire_name else None
        groups.setdefault(node, []).append((rtype, name))
    results: dict[str, ItemResult] = {}
    for node, keys in groups.items():
        for chunk in batches(keys):
            resources = [
                resource_cls(
                    resource_type=int(ConfigResourceType[rtype]),
                    resource_name="" if name == state.CLUSTER_DEFAULT else name,
                    configs=[
                        resource_cls.AlterableConfig(
                            name=op.key, config_operation=_CONFIG_OPS[op.op], value=_reveal(op.value)
                        )
                        for op in changes[(rtype, name)]
                    ],
                )
                for rtype, name in chunk
            ]
            request = IncrementalAlterConfigsRequest(resources=resources, validate_only=validate_only)
            response = wire.send(request, node=node)
            throttle = wire_mod.throttle_of(response)
            for r in response.responses:
                key = config_key(ConfigResourceType(r.resource_type).name, str(r.resource_name))
                results[key] = item(key, r.error_code, _scrub(r.error_message, secrets), throttle_ms=throttle)
    ordered = [config_key(rtype, name) for rtype, name in changes]
    return [results.get(k) or item(k, -1, "no result for this resource in the response") for k in ordered]


def _reveal(value: str | Secret | None) -> str | None:
    return value.reveal() if isinstance(value, Secret) else value


def _scrub(message: str | None, secrets: Sequence[str]) -> str | None:
    for secret in secrets:
        if message and secret:
            message = message.replace(secret, "***")
    return message


# ---------------------------------------------------------------------------------- reassignments
def alter_partition_reassignments(
    wire: wire_mod.Wire, changes: Mapping[tuple[str, int], Sequence[int] | None], *, timeout_ms: int | None = None
) -> list[ItemResult]:
    """AlterPartitionReassignments: ``(topic, partition) -> replicas``, or ``None`` to cancel one in progress."""
    topic_cls = AlterPartitionReassignmentsRequest.ReassignableTopic
    by_topic: dict[str, list[Any]] = {}
    for (topic, partition), replicas in changes.items():
        by_topic.setdefault(topic, []).append(
            topic_cls.ReassignablePartition(
                partition_index=int(partition), replicas=None if replicas is None else [int(r) for r in replicas]
            )
        )
    if not by_topic:
        return []
    broker_timeout, client_timeout = _timeout(wire, timeout_ms)
    request = AlterPartitionReassignmentsRequest(
        timeout_ms=broker_timeout, topics=[topic_cls(name=t, partitions=ps) for t, ps in by_topic.items()]
    )
    response = wire.send_to_controller(
        request, not_controller=lambda r: r.error_code == _NOT_CONTROLLER, timeout_ms=client_timeout
    )
    wire.check_top_level(response, api="AlterPartitionReassignments")
    throttle = wire_mod.throttle_of(response)
    results: dict[str, ItemResult] = {}
    for t in response.responses:
        for p in t.partitions:
            key = f"{t.name}:{p.partition_index}"
            results[key] = item(key, p.error_code, p.error_message, throttle_ms=throttle)
    keys = [f"{t}:{p}" for t, p in changes]
    return [results.get(k) or item(k, -1, "no result for this partition in the response") for k in keys]

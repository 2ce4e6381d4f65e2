"""Batched writes: each call sends ONE request for all its entities (split only beyond ``MAX_BATCH``).

Every function returns one ``ItemResult`` per entity, in input order, and raises only when the whole request
fails. Controller-bound APIs (CreateTopics, DeleteTopics, CreatePartitions, AlterPartitionReassignments) go to
the controller; per-broker config changes go to that broker; everything else to the least-loaded broker.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from kafka.admin import (
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ConfigResourceType,
    ConfigSourceType,
    ResourceType,
    UserScramCredentialUpsertion,
)
from kafka.protocol.admin import (
    AlterClientQuotasRequest,
    AlterPartitionReassignmentsRequest,
    AlterUserScramCredentialsRequest,
    CreateAclsRequest,
    CreatePartitionsRequest,
    CreateTopicsRequest,
    DeleteAclsRequest,
    DeleteTopicsRequest,
    IncrementalAlterConfigsRequest,
)

from reconciler import state
from reconciler.connection import Secret
from reconciler.kafka import wire as wire_mod
from reconciler.kafka.results import ConfigOp, ItemResult, ScramDeletion, ScramUpsert, TopicSpec

# Entities per request: keeps one request well below the broker's socket.request.max.bytes (100 MiB).
MAX_BATCH = 2_000
_NOT_CONTROLLER = 41
_CONFIG_OPS = {"SET": 0, "DELETE": 1, "APPEND": 2, "SUBTRACT": 3}
_SCRAM_MECHANISM_CODES = {"SCRAM-SHA-256": 1, "SCRAM-SHA-512": 2}
T = TypeVar("T")


def _chunks(items: Sequence[T]) -> list[Sequence[T]]:
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


# ----------------------------------------------------------------------------------------- topics
def create_topics(
    wire: wire_mod.Wire, specs: Sequence[TopicSpec], *, validate_only: bool = False, timeout_ms: int | None = None
) -> list[ItemResult]:
    """CreateTopics; ``extra`` holds what the broker resolved (KIP-525): partitions, RF, topic id, configs."""
    topic_cls = CreateTopicsRequest.CreatableTopic
    broker_timeout, client_timeout = _timeout(wire, timeout_ms)
    results: dict[str, ItemResult] = {}
    for chunk in _chunks(specs):
        request = CreateTopicsRequest(
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
        response = wire.send_to_controller(
            request,
            not_controller=_all_not_controller(lambda r: [t.error_code for t in r.topics]),
            timeout_ms=client_timeout,
        )
        throttle = wire_mod.throttle_of(response)
        for t in response.topics:
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
            results[str(t.name)] = item(str(t.name), t.error_code, t.error_message, throttle_ms=throttle, **extra)
    return [results.get(s.name) or item(s.name, -1, "no result for this topic in the response") for s in specs]


def delete_topics(wire: wire_mod.Wire, names: Sequence[str], *, timeout_ms: int | None = None) -> list[ItemResult]:
    """DeleteTopics. Deletion completes asynchronously: follow with ``wait_topics_absent``."""
    state_cls = DeleteTopicsRequest.DeleteTopicState
    broker_timeout, client_timeout = _timeout(wire, timeout_ms)
    results: dict[str, ItemResult] = {}
    for chunk in _chunks(names):
        request = DeleteTopicsRequest(
            topics=[state_cls(name=n) for n in chunk], topic_names=list(chunk), timeout_ms=broker_timeout
        )
        response = wire.send_to_controller(
            request,
            not_controller=_all_not_controller(lambda r: [t.error_code for t in r.responses]),
            timeout_ms=client_timeout,
        )
        throttle = wire_mod.throttle_of(response)
        for t in response.responses:
            message = getattr(t, "error_message", None)
            results[str(t.name)] = item(str(t.name), t.error_code, message, throttle_ms=throttle)
    return [results.get(n) or item(n, -1, "no result for this topic in the response") for n in names]


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
    names = list(counts)
    results: dict[str, ItemResult] = {}
    for chunk in _chunks(names):
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
        request = CreatePartitionsRequest(topics=topics, timeout_ms=broker_timeout, validate_only=validate_only)
        response = wire.send_to_controller(
            request,
            not_controller=_all_not_controller(lambda r: [t.error_code for t in r.results]),
            timeout_ms=client_timeout,
        )
        throttle = wire_mod.throttle_of(response)
        for t in response.results:
            results[str(t.name)] = item(str(t.name), t.error_code, t.error_message, throttle_ms=throttle)
    return [results.get(n) or item(n, -1, "no result for this topic in the response") for n in names]


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
    groups: dict[int | None, list[tuple[str, str]]] = {}
    for rtype, name in changes:
        if rtype not in ("TOPIC", "BROKER", "BROKER_LOGGER"):
            raise ValueError(f"unsupported config resource type {rtype!r}")
        wire_name = "" if rtype == "BROKER" and name == state.CLUSTER_DEFAULT else name
        node = int(wire_name) if rtype in ("BROKER", "BROKER_LOGGER") and wire_name else None
        groups.setdefault(node, []).append((rtype, name))
    results: dict[str, ItemResult] = {}
    for node, keys in groups.items():
        for chunk in _chunks(keys):
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
                results[key] = item(key, r.error_code, r.error_message, throttle_ms=throttle)
    ordered = [config_key(rtype, name) for rtype, name in changes]
    return [results.get(k) or item(k, -1, "no result for this resource in the response") for k in ordered]


def _reveal(value: str | Secret | None) -> str | None:
    return value.reveal() if isinstance(value, Secret) else value


# ------------------------------------------------------------------------------------------- ACLs
def _acl_codes(binding: state.AclBinding) -> dict[str, int]:
    """Wire codes of an exact binding; ANY/MATCH/UNKNOWN are refused (they would act as wildcards)."""
    try:
        codes = {
            "resource_type": ResourceType[binding.resource_type],
            "pattern_type": ACLResourcePatternType[binding.pattern_type],
            "operation": ACLOperation[binding.operation],
            "permission": ACLPermissionType[binding.permission],
        }
    except KeyError as exc:
        raise ValueError(f"{binding.address}: unknown ACL value {exc}") from None
    wildcards = [k for k, v in codes.items() if v.name in ("ANY", "MATCH", "UNKNOWN")]
    if wildcards or not binding.principal or not binding.host:
        raise ValueError(f"{binding.address}: not an exact ACL binding ({', '.join(wildcards) or 'empty field'})")
    return {k: int(v) for k, v in codes.items()}


def create_acls(wire: wire_mod.Wire, bindings: Sequence[state.AclBinding]) -> list[ItemResult]:
    """CreateAcls; the response lists results in request order."""
    creation_cls = CreateAclsRequest.AclCreation
    out: list[ItemResult] = []
    for chunk in _chunks(bindings):
        creations = []
        for b in chunk:
            codes = _acl_codes(b)
            creations.append(
                creation_cls(
                    resource_type=codes["resource_type"],
                    resource_name=b.resource_name,
                    resource_pattern_type=codes["pattern_type"],
                    principal=b.principal,
                    host=b.host,
                    operation=codes["operation"],
                    permission_type=codes["permission"],
                )
            )
        response = wire.send(CreateAclsRequest(creations=creations))
        throttle = wire_mod.throttle_of(response)
        for b, r in zip(chunk, response.results, strict=True):
            out.append(item(b.address, r.error_code, r.error_message, throttle_ms=throttle))
    return out


def delete_acls(wire: wire_mod.Wire, bindings: Sequence[state.AclBinding]) -> list[ItemResult]:
    """DeleteAcls with one EXACT-match filter per binding; ``extra["deleted"]`` counts what it removed."""
    filter_cls = DeleteAclsRequest.DeleteAclsFilter
    out: list[ItemResult] = []
    for chunk in _chunks(bindings):
        filters = []
        for b in chunk:
            codes = _acl_codes(b)
            filters.append(
                filter_cls(
                    resource_type_filter=codes["resource_type"],
                    resource_name_filter=b.resource_name,
                    pattern_type_filter=codes["pattern_type"],
                    principal_filter=b.principal,
                    host_filter=b.host,
                    operation=codes["operation"],
                    permission_type=codes["permission"],
                )
            )
        response = wire.send(DeleteAclsRequest(filters=filters))
        throttle = wire_mod.throttle_of(response)
        for b, r in zip(chunk, response.filter_results, strict=True):
            code, message = int(r.error_code), r.error_message
            failed = next((m for m in r.matching_acls if m.error_code), None)
            if not code and failed is not None:
                code, message = int(failed.error_code), failed.error_message
            out.append(item(b.address, code, message, throttle_ms=throttle, deleted=len(r.matching_acls)))
    return out


# ------------------------------------------------------------------------------ quotas and SCRAM
def alter_client_quotas(
    wire: wire_mod.Wire,
    changes: Mapping[state.QuotaEntity, Mapping[str, float | None]],
    *,
    validate_only: bool = False,
) -> list[ItemResult]:
    """AlterClientQuotas: per entity, ``key -> value`` sets and ``key -> None`` removes."""
    entry_cls = AlterClientQuotasRequest.EntryData
    entities = list(changes)
    results: dict[state.QuotaEntity, ItemResult] = {}
    for chunk in _chunks(entities):
        entries = [
            entry_cls(
                entity=[entry_cls.EntityData(entity_type=t, entity_name=n) for t, n in entity.parts],
                ops=[
                    entry_cls.OpData(key=k, value=0.0 if v is None else float(v), remove=v is None)
                    for k, v in changes[entity].items()
                ],
            )
            for entity in chunk
        ]
        response = wire.send(AlterClientQuotasRequest(entries=entries, validate_only=validate_only))
        throttle = wire_mod.throttle_of(response)
        for r in response.entries:
            entity = state.QuotaEntity(tuple(sorted((str(e.entity_type), e.entity_name) for e in r.entity)))
            results[entity] = item(entity.address, r.error_code, r.error_message, throttle_ms=throttle)
    return [results.get(e) or item(e.address, -1, "no result for this entity in the response") for e in entities]


def alter_scram_credentials(
    wire: wire_mod.Wire, *, upserts: Sequence[ScramUpsert] = (), deletions: Sequence[ScramDeletion] = ()
) -> list[ItemResult]:
    """AlterUserScramCredentials; passwords are salted here (PBKDF2 via kafka-python), never sent in clear.

    Kafka answers once per user and refuses a user named twice in one request ("cannot be altered twice"),
    so alterations go out in rounds: round n holds the n-th alteration of every user (upserts before
    deletions, so a user keeps a working credential while switching mechanisms). That is one request
    unless a user changes several mechanisms at once. Results are one per distinct user, in first-seen
    order; a user whose alteration fails is not altered further.
    """
    upsert_cls = AlterUserScramCredentialsRequest.ScramCredentialUpsertion
    delete_cls = AlterUserScramCredentialsRequest.ScramCredentialDeletion
    per_user: dict[str, list[Any]] = {}
    for u in upserts:
        code = _scram_code(u.user, u.mechanism)
        cred = UserScramCredentialUpsertion(u.user, code, u.password.reveal(), iterations=u.iterations)
        per_user.setdefault(u.user, []).append(
            upsert_cls(
                name=u.user,
                mechanism=code,
                iterations=int(cred.iterations),
                salt=cred.salt,
                salted_password=cred.salted_password,
            )
        )
    for d in deletions:
        per_user.setdefault(d.user, []).append(delete_cls(name=d.user, mechanism=_scram_code(d.user, d.mechanism)))
    results: dict[str, ItemResult] = {}
    rounds = max((len(v) for v in per_user.values()), default=0)
    for n in range(rounds):
        batch = [alts[n] for user, alts in per_user.items() if n < len(alts) and results.get(user, _OK).ok]
        if not batch:
            break
        request = AlterUserScramCredentialsRequest(
            deletions=[a for a in batch if isinstance(a, delete_cls)],
            upsertions=[a for a in batch if isinstance(a, upsert_cls)],
        )
        response = wire.send(request)
        throttle = wire_mod.throttle_of(response)
        for r in response.results:
            results[str(r.user)] = item(str(r.user), r.error_code, r.error_message, throttle_ms=throttle)
    return [results.get(u) or item(u, -1, "no result for this user in the response") for u in per_user]


_OK = ItemResult(key="", error_code=0, error_name=None, message=None)


def _scram_code(user: str, mechanism: str) -> int:
    if mechanism not in _SCRAM_MECHANISM_CODES:
        raise ValueError(f"unknown SCRAM mechanism {mechanism!r} for user {user}")
    return _SCRAM_MECHANISM_CODES[mechanism]


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

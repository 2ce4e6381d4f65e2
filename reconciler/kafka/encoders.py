"""The requests of the batched writes, built from the typed write specs: the one place a write becomes a Kafka request.

``KafkaAdapter``'s writes (``write``, ``security``) send what these functions build; the unit tests' in-memory
adapter builds and encodes the same requests (``wire_bytes``), so a value the wire cannot carry (a partition count
beyond INT32, an ACL field of an unknown code) fails there exactly as it would against a broker. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kafka.admin import ConfigResourceType, UserScramCredentialUpsertion
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

from reconciler.connection.settings import Secret
from reconciler.kafka.results import ScramDeletion, ScramUpsert, TopicSpec
from reconciler.model import payloads, state

CONFIG_OPS = {payloads.ConfigAction.SET: 0, payloads.ConfigAction.DELETE: 1}  # IncrementalAlterConfigs codes
SCRAM_MECHANISMS = {1: "SCRAM-SHA-256", 2: "SCRAM-SHA-512"}  # AlterUserScramCredentials mechanism codes
_SCRAM_MECHANISM_CODES = {name: code for code, name in SCRAM_MECHANISMS.items()}


def wire_bytes(request: Any) -> bytes:
    """``request`` encoded at the highest version kafka-python knows (``struct.error`` for a value out of range)."""
    return bytes(request.encode(version=type(request).max_version))


def delete_topics(chunk: Sequence[str], *, timeout_ms: int) -> Any:
    """DeleteTopics of the named topics (by name in both the old and the new field, as each version reads one)."""
    state_cls = DeleteTopicsRequest.DeleteTopicState
    return DeleteTopicsRequest(
        topics=[state_cls(name=n) for n in chunk], topic_names=list(chunk), timeout_ms=timeout_ms
    )


def create_topics(chunk: Sequence[TopicSpec], *, timeout_ms: int, validate_only: bool) -> Any:
    topic_cls = CreateTopicsRequest.CreatableTopic
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
        timeout_ms=timeout_ms,
        validate_only=validate_only,
    )


def create_partitions(
    chunk: Sequence[str],
    counts: Mapping[str, int],
    assignments: Mapping[str, Sequence[Sequence[int]]] | None,
    *,
    timeout_ms: int,
    validate_only: bool,
) -> Any:
    topic_cls = CreatePartitionsRequest.CreatePartitionsTopic
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
    return CreatePartitionsRequest(topics=topics, timeout_ms=timeout_ms, validate_only=validate_only)


def _reveal(value: str | Secret | None) -> str | None:
    return value.reveal() if isinstance(value, Secret) else value


def incremental_alter_configs(
    changes: Mapping[tuple[str, str], Sequence[payloads.ConfigOp]],
    chunk: Sequence[tuple[str, str]],
    *,
    validate_only: bool,
) -> Any:
    """``(resource_type, name)`` -> exactly those config operations; a broker named ``CLUSTER_DEFAULT`` is ``""``."""
    resource_cls = IncrementalAlterConfigsRequest.AlterConfigsResource
    resources = [
        resource_cls(
            resource_type=int(ConfigResourceType[rtype]),
            resource_name="" if name == state.CLUSTER_DEFAULT else name,
            configs=[
                resource_cls.AlterableConfig(
                    name=op.key, config_operation=CONFIG_OPS[op.action], value=_reveal(op.value)
                )
                for op in changes[(rtype, name)]
            ],
        )
        for rtype, name in chunk
    ]
    return IncrementalAlterConfigsRequest(resources=resources, validate_only=validate_only)


def acl_codes(binding: state.AclBinding) -> dict[str, int]:
    """Wire codes of an exact binding, each its typed member's ``code``; ``UNKNOWN`` (a code a broker reported that
    this release does not know) and an empty principal or host are refused: they are not one exact binding."""
    members = {
        "resource_type": binding.resource_type,
        "pattern_type": binding.pattern_type,
        "operation": binding.operation,
        "permission": binding.permission,
    }
    unknown = [k for k, m in members.items() if m.name == "UNKNOWN"]
    if unknown or not binding.principal or not binding.host:
        raise ValueError(f"{binding.address}: not an exact ACL binding ({', '.join(unknown) or 'empty field'})")
    return {k: m.code for k, m in members.items()}


# CreateAcls and DeleteAcls name the same seven binding fields differently, in this order:
# resource type, resource name, pattern type, principal, host, operation, permission.
_CREATION_FIELDS = (
    "resource_type",
    "resource_name",
    "resource_pattern_type",
    "principal",
    "host",
    "operation",
    "permission_type",
)
_FILTER_FIELDS = (
    "resource_type_filter",
    "resource_name_filter",
    "pattern_type_filter",
    "principal_filter",
    "host_filter",
    "operation",
    "permission_type",
)


def _acl_fields(binding: state.AclBinding, names: tuple[str, ...]) -> dict[str, Any]:
    codes = acl_codes(binding)
    values = (
        codes["resource_type"],
        binding.resource_name,
        codes["pattern_type"],
        binding.principal,
        binding.host,
        codes["operation"],
        codes["permission"],
    )
    return dict(zip(names, values, strict=True))


def create_acls(chunk: Sequence[state.AclBinding]) -> Any:
    creation_cls = CreateAclsRequest.AclCreation
    return CreateAclsRequest(creations=[creation_cls(**_acl_fields(b, _CREATION_FIELDS)) for b in chunk])


def delete_acls(chunk: Sequence[state.AclBinding]) -> Any:
    """One EXACT-match filter per binding."""
    filter_cls = DeleteAclsRequest.DeleteAclsFilter
    return DeleteAclsRequest(filters=[filter_cls(**_acl_fields(b, _FILTER_FIELDS)) for b in chunk])


def alter_client_quotas(
    changes: Mapping[state.QuotaEntity, Mapping[str, float | None]],
    chunk: Sequence[state.QuotaEntity],
    *,
    validate_only: bool,
) -> Any:
    """Per entity (its typed parts, never its address), ``key -> value`` sets and ``key -> None`` removes."""
    entry_cls = AlterClientQuotasRequest.EntryData
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
    return AlterClientQuotasRequest(entries=entries, validate_only=validate_only)


def alter_partition_reassignments(
    changes: Mapping[tuple[str, int], Sequence[int] | None], chunk: Sequence[tuple[str, int]], *, timeout_ms: int
) -> Any:
    """``(topic, partition) -> replicas`` (``None`` cancels one in progress), grouped by topic in ``chunk``'s order."""
    topic_cls = AlterPartitionReassignmentsRequest.ReassignableTopic
    by_topic: dict[str, list[Any]] = {}
    for topic, partition in chunk:
        replicas = changes[(topic, partition)]
        by_topic.setdefault(topic, []).append(
            topic_cls.ReassignablePartition(
                partition_index=int(partition), replicas=None if replicas is None else [int(r) for r in replicas]
            )
        )
    return AlterPartitionReassignmentsRequest(
        timeout_ms=timeout_ms, topics=[topic_cls(name=t, partitions=ps) for t, ps in by_topic.items()]
    )


def scram_code(user: str, mechanism: str) -> int:
    if mechanism not in _SCRAM_MECHANISM_CODES:
        raise ValueError(f"unknown SCRAM mechanism {mechanism!r} for user {user}")
    return _SCRAM_MECHANISM_CODES[mechanism]


def scram_alterations(upserts: Sequence[ScramUpsert], deletions: Sequence[ScramDeletion]) -> dict[str, list[Any]]:
    """Per user, in first-seen order, its alterations: upserts (the password salted here with PBKDF2, never sent in
    clear) before deletions. ``alter_user_scram_credentials`` sends one alteration per user per request."""
    upsert_cls = AlterUserScramCredentialsRequest.ScramCredentialUpsertion
    delete_cls = AlterUserScramCredentialsRequest.ScramCredentialDeletion
    per_user: dict[str, list[Any]] = {}
    for u in upserts:
        code = scram_code(u.user, u.mechanism)
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
        per_user.setdefault(d.user, []).append(delete_cls(name=d.user, mechanism=scram_code(d.user, d.mechanism)))
    return per_user


def alter_user_scram_credentials(batch: Sequence[Any]) -> Any:
    """One request of alterations made by ``scram_alterations`` (at most one per user)."""
    delete_cls = AlterUserScramCredentialsRequest.ScramCredentialDeletion
    return AlterUserScramCredentialsRequest(
        deletions=[a for a in batch if isinstance(a, delete_cls)],
        upsertions=[a for a in batch if not isinstance(a, delete_cls)],
    )

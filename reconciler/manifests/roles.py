"""Expansion of role grants (Producer, Consumer, StreamsApp, ConnectWorker) into exact ACL bindings.

The expansions are listed in docs/manifests.md; keep the two in step. Every binding is ALLOW for the
grant's principal and host. ``DESCRIBE`` is listed explicitly next to ``READ``/``WRITE`` as the Kafka
CLI's ``--producer``/``--consumer`` shortcuts do, so plans show the rights a client is known to use.
"""

from __future__ import annotations

from collections.abc import Iterable

from reconciler.manifests import fields, models
from reconciler.model.acl_names import AclOperation, AclPatternType, AclPermission, AclResourceType
from reconciler.model.identities import AclBinding

LITERAL, PREFIXED, ALLOW = AclPatternType.LITERAL, AclPatternType.PREFIXED, AclPermission.ALLOW
TOPIC, GROUP, TRANSACTIONAL_ID = AclResourceType.TOPIC, AclResourceType.GROUP, AclResourceType.TRANSACTIONAL_ID
READ, WRITE, DESCRIBE = AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE
IDEMPOTENT_WRITE = AclOperation.IDEMPOTENT_WRITE


def resource(ref: str | models.ResourceRef) -> tuple[AclPatternType, str]:
    """(pattern_type, name) of a reference; a plain string is a literal name."""
    if isinstance(ref, str):
        return (LITERAL, ref)
    if ref.prefix is not None:
        return (PREFIXED, ref.prefix)
    return (LITERAL, str(ref.name))


def bindings(
    grant: models.GrantBase,
    resource_type: AclResourceType,
    refs: Iterable[str | models.ResourceRef],
    operations: Iterable[AclOperation],
) -> list[AclBinding]:
    ops = tuple(operations)
    out: list[AclBinding] = []
    for ref in refs:
        pattern, name = resource(ref)
        out.extend(AclBinding(resource_type, pattern, name, grant.principal, grant.host, op, ALLOW) for op in ops)
    return out


def _cluster(grant: models.GrantBase, operation: AclOperation) -> AclBinding:
    return AclBinding(AclResourceType.CLUSTER, LITERAL, "kafka-cluster", grant.principal, grant.host, operation, ALLOW)


def expand(spec: fields.Strict) -> list[AclBinding]:
    """The exact bindings a grant stands for, in a stable order."""
    if isinstance(spec, models.ProducerSpec):
        out = bindings(spec, TOPIC, spec.topics, (WRITE, DESCRIBE))
        if spec.transactional_id is not None:
            out += bindings(spec, TRANSACTIONAL_ID, [spec.transactional_id], (WRITE, DESCRIBE))
        if spec.idempotent:
            out.append(_cluster(spec, IDEMPOTENT_WRITE))
        return out
    if isinstance(spec, models.ConsumerSpec):
        return bindings(spec, TOPIC, spec.topics, (READ, DESCRIBE)) + bindings(spec, GROUP, spec.groups, (READ,))
    if isinstance(spec, models.StreamsAppSpec):
        app = spec.application_id
        out = bindings(spec, TOPIC, spec.input_topics, (READ, DESCRIBE))
        out += bindings(spec, TOPIC, spec.output_topics, (WRITE, DESCRIBE))
        out += bindings(spec, TOPIC, [models.ResourceRef(prefix=f"{app}-")], (AclOperation.ALL,))
        out += bindings(spec, GROUP, [app], (READ, DESCRIBE))
        if spec.exactly_once:
            out += bindings(spec, TRANSACTIONAL_ID, [models.ResourceRef(prefix=f"{app}-")], (WRITE, DESCRIBE))
            out.append(_cluster(spec, IDEMPOTENT_WRITE))
        return out
    if isinstance(spec, models.ConnectWorkerSpec):
        storage = [spec.config_storage_topic, spec.offset_storage_topic, spec.status_storage_topic]
        out = bindings(spec, GROUP, [spec.group_id], (READ,))
        out += bindings(spec, TOPIC, storage, (READ, WRITE, DESCRIBE, AclOperation.DESCRIBE_CONFIGS))
        out += bindings(spec, TOPIC, spec.source_topics, (WRITE, DESCRIBE))
        out += bindings(spec, TOPIC, spec.sink_topics, (READ, DESCRIBE))
        if spec.sink_topics:
            out += bindings(spec, GROUP, [models.ResourceRef(prefix=spec.sink_group_prefix)], (READ,))
        return out
    raise TypeError(f"not a grant: {type(spec).__name__}")


def literal_topics(spec: fields.Strict) -> list[tuple[tuple[str | int, ...], str]]:
    """(path inside the document, topic name) of every literally named topic a grant refers to."""
    fields: list[tuple[str, object]] = []
    if isinstance(spec, (models.ProducerSpec, models.ConsumerSpec)):
        fields = [("topics", spec.topics)]
    elif isinstance(spec, models.StreamsAppSpec):
        fields = [("inputTopics", spec.input_topics), ("outputTopics", spec.output_topics)]
    elif isinstance(spec, models.ConnectWorkerSpec):
        fields = [
            ("configStorageTopic", spec.config_storage_topic),
            ("offsetStorageTopic", spec.offset_storage_topic),
            ("statusStorageTopic", spec.status_storage_topic),
            ("sourceTopics", spec.source_topics),
            ("sinkTopics", spec.sink_topics),
        ]
    found: list[tuple[tuple[str | int, ...], str]] = []
    for field, value in fields:
        if isinstance(value, str):
            found.append((("spec", field), value))
            continue
        assert isinstance(value, list)
        for index, ref in enumerate(value):
            pattern, name = resource(ref)
            if pattern is LITERAL and name != "*":
                found.append((("spec", field, index), name))
    return found

"""Reads the live state of a cluster into a ``ClusterState`` in a constant number of requests.

A full read is: one Metadata (brokers, racks, cluster id, controller, every topic with its replicas), one
DescribeConfigs per broker whose own configs are needed (the topic configs and the cluster-wide default ride
along in the first one; topics are split over several requests only beyond ``MAX_CONFIG_RESOURCES``), one
DescribeAcls with an ANY filter, one DescribeClientQuotas matching everything, one
DescribeUserScramCredentials for all users and one ListPartitionReassignments. Sections that were not asked
for stay ``None``; a section that could not be read says why in ``ClusterState.unavailable``.

A targeted read (``state.ReadScope``) asks only for named resources: Metadata and DescribeConfigs for the named
topics, ListPartitionReassignments for their partitions, DescribeConfigs for the named brokers, and (up to
``security.MAX_TARGETED`` each) one DescribeAcls per principal and one DescribeClientQuotas per entity, one
DescribeUserScramCredentials for the named users. Its DescribeConfigs leave out the synonyms: a topic's own
configs, its assignment and every default it does not override are read as a full read reads them, but not the
value an overridden key would fall back to (``TopicState.defaults`` lacks those keys; only the plan's text of a
reset shows them, and apply never does), which halves the bytes per topic. With ``ReadScope.topic_config_keys``
(apply's read-back) the topics are asked only for those keys, and not at all when there are none.

Either way the broker whose own configs are not asked for is asked only for ``LINT_KEYS`` (a few hundred bytes
instead of every broker setting).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from kafka.protocol.admin import DescribeConfigsRequest
from kafka.protocol.metadata import MetadataRequest

from reconciler.kafka import config_results, entities, limits, security
from reconciler.kafka import wire as wire_mod
from reconciler.kafka.reassignments import read_reassignments as read_reassignments
from reconciler.kafka.results import ConnectionLost
from reconciler.model import capabilities, state
from reconciler.model import entities as model_entities
from reconciler.model.kinds import Kind

NameFilter = Callable[[str], bool]
T = TypeVar("T")

LINT_KEYS = config_results.LINT_KEYS  # broker settings the planner lints, whatever their source
# Topic resources per DescribeConfigs request. Measured on one Kafka 4.4 broker with a 384 MiB heap, with
# synonyms: 2 000 topics answer in ~2 s (~4.6 MB of config data), 5 000 in ~3.5 s, 10 000 in ~23 s (~23 MB), and
# a 10 000-topic request sent while the broker was busy failed every resource with UNKNOWN_SERVER_ERROR, and a
# 5 000-topic one got no answer within 30 s from a broker in long garbage collection. So a request holds at most
# 5 000 topics, and a batch that fails as a whole that way, or times out, is halved and sent again.
MAX_CONFIG_RESOURCES = 5_000
MIN_SPLIT = 250

_TOPIC_RESOURCE = 2
_BROKER_RESOURCE = 4
_UNKNOWN_SERVER_ERROR = -1


def read_state(
    wire: wire_mod.Wire,
    *,
    kinds: frozenset[Kind],
    topic_filter: NameFilter | None = None,
    principal_filter: NameFilter | None = None,
    scope: state.ReadScope | None = None,
    entity_filters: Mapping[Kind, state.EntityFilter] | None = None,
) -> state.ClusterState:
    """Read what ``kinds`` need (``Kind`` members); see the module docstring for the requests sent.

    ``entity_filters`` limits group configs and client-metrics subscriptions (``reconciler.kafka.entities``);
    without it, every one the cluster lists is read."""
    unknown = set(kinds) - set(Kind)
    if unknown:
        raise ValueError(f"unknown kinds: {sorted(unknown)}")
    scope = scope or state.ReadScope()
    # A kind the cluster's version cannot manage is not read; the planner blocks its changes with this reason.
    caps = wire.capabilities()
    unavailable: dict[str, str] = {
        kind: reason for kind in sorted(kinds) if (reason := capabilities.kind_unsupported(kind, caps)) is not None
    }
    kinds = frozenset(kinds - unavailable.keys())
    need_topics = Kind.TOPIC in kinds
    need_brokers = Kind.BROKER_CONFIG in kinds
    named = scope.topics
    if named is not None:
        topic_filter = _within(named, topic_filter)

    if not need_topics:
        wanted: list[Any] | None = []
    elif named is None:
        wanted = None
    else:
        wanted = [MetadataRequest.MetadataRequestTopic(name=n) for n in sorted(named)]
    metadata = wire.send(MetadataRequest(topics=wanted, allow_auto_topic_creation=False))
    wire.check_top_level(metadata, api="Metadata")
    wire.note_metadata(metadata)
    brokers = _brokers(metadata)
    topics = parse_topics(metadata.topics, topic_filter) if need_topics else None
    entity_kinds = frozenset(k for k in model_entities.ENTITY_KINDS if k in kinds)
    extra = _entity_resources(wire, kinds=entity_kinds, scope=scope, filters=entity_filters)

    configs = _read_configs(
        wire,
        topics=topics,
        broker_ids=[b.id for b in brokers],
        all_brokers=need_brokers,
        named_brokers=scope.brokers,
        synonyms=named is None,
        topic_keys=None if named is None else scope.topic_config_keys,
        extra=extra,
    )
    if topics is not None:
        topics = configs.apply_to(topics)

    reassignments: tuple[state.Reassignment, ...] = ()
    if need_topics and wire.unsupported("ListPartitionReassignments") is None and (named is None or topics):
        partitions = None if named is None else {n: t.partitions for n, t in (topics or {}).items()}
        reassignments = read_reassignments(wire, topic_filter=topic_filter, partitions=partitions)

    acls, quotas, scram = _security(wire, kinds=kinds, principals=principal_filter, scope=scope, unread=unavailable)

    return state.ClusterState(
        cluster_id=metadata.cluster_id,
        controller_id=wire.controller_id,
        brokers=brokers,
        topics=topics,
        broker_configs=configs.broker_configs if need_brokers else None,
        broker_config_sensitive=frozenset(configs.broker_sensitive),
        cluster_configs=configs.cluster_configs,
        acls=acls,
        quotas=quotas,
        scram_users=scram,
        reassignments=reassignments,
        capabilities=caps,
        unavailable=unavailable,
        **_entity_sections(configs, entity_kinds, scope),
    )


def _entity_sections(configs: config_results.Configs, kinds: frozenset[Kind], scope: state.ReadScope) -> dict[str, Any]:
    """The group-config and client-metrics sections (``None`` for a kind not read) and the entities not read.

    A read of named entities (apply's read-back and stale-plan check) still raises the first refusal: there the
    missing right is the answer (``apply.readback.missing_right``), not a section to plan around."""
    unread = {k.value: {n: str(e) for n, e in sorted(v.items())} for k, v in sorted(configs.unread_entities.items())}
    if unread and (scope.group_configs is not None or scope.client_metrics is not None):
        raise next(e for found in configs.unread_entities.values() for e in found.values())
    sections = {
        model_entities.SECTIONS[k]: configs.entities.get(k, {}) if k in kinds else None
        for k in model_entities.ENTITY_KINDS
    }
    defaults = {k.value: dict(sorted(v.items())) for k, v in sorted(configs.entity_defaults.items()) if k in kinds}
    return {**sections, "unread_entities": unread, "entity_defaults": defaults}


def _security(
    wire: wire_mod.Wire,
    *,
    kinds: frozenset[Kind],
    principals: NameFilter | None,
    scope: state.ReadScope,
    unread: dict[str, str],
) -> tuple[Any, Any, Any]:
    """ACLs, quotas and SCRAM users, each ``None`` when not asked for; an ACL section that cannot be read (no
    authorizer) is ``None`` with its reason in ``unread``."""
    acls = quotas = scram = None
    if Kind.ACL in kinds:
        acls, reason = security.read_acls(wire, principal_filter=principals, principals=scope.principals)
        if reason:
            unread[Kind.ACL] = reason
    if Kind.QUOTA in kinds:
        quotas = security.read_quotas(wire, principal_filter=principals, entities=scope.quota_entities)
    if Kind.SCRAM_USER in kinds:
        scram = security.read_scram(wire, principal_filter=principals, users=scope.scram_users)
    return acls, quotas, scram


def _brokers(metadata: Any) -> tuple[state.Broker, ...]:
    found = (state.Broker(id=int(b.node_id), host=str(b.host), port=int(b.port), rack=b.rack) for b in metadata.brokers)
    return tuple(sorted(found, key=lambda b: b.id))


def _entity_resources(
    wire: wire_mod.Wire,
    *,
    kinds: frozenset[Kind],
    scope: state.ReadScope,
    filters: Mapping[Kind, state.EntityFilter] | None,
) -> list[entities.Resource]:
    """The group and client-metrics resources to describe (listing them first when rules own undeclared ones)."""
    if filters is None:  # no manifests to go by: every one the cluster lists
        filters = {k: state.EntityFilter(owns=_all) for k in kinds}
    return entities.resources(
        wire,
        kinds=kinds,
        declared={k: f.declared for k, f in filters.items()},
        owned={k: f.owns for k, f in filters.items() if f.owns is not None},
        named={Kind.GROUP_CONFIG: scope.group_configs, Kind.CLIENT_METRICS: scope.client_metrics},
    )


def _all(_name: str) -> bool:
    return True


def _within(names: frozenset[str], outer: NameFilter | None) -> NameFilter:
    return lambda n: n in names and (outer is None or outer(n))


# ----------------------------------------------------------------------------------------- topics
def parse_topics(raw_topics: Iterable[Any], topic_filter: NameFilter | None) -> dict[str, state.TopicState]:
    """Topics of a Metadata response (those with partitions), without configs yet."""
    topics: dict[str, state.TopicState] = {}
    for topic in raw_topics:
        name = str(topic.name)
        if topic_filter is not None and not topic_filter(name):
            continue
        partitions = sorted(topic.partitions, key=lambda p: int(p.partition_index))
        if not partitions:
            continue  # still being created or being deleted: no replica assignment to report
        topic_id = getattr(topic, "topic_id", None)
        topics[name] = state.TopicState(
            name=name,
            assignment=tuple(tuple(int(r) for r in p.replica_nodes) for p in partitions),
            internal=bool(topic.is_internal),
            topic_id=None if topic_id in (None, uuid.UUID(int=0)) else str(topic_id),
        )
    return topics


def _read_configs(
    wire: wire_mod.Wire,
    *,
    topics: dict[str, state.TopicState] | None,
    broker_ids: list[int],
    all_brokers: bool,
    named_brokers: frozenset[str] | None = None,
    synonyms: bool = True,
    topic_keys: frozenset[str] | None = None,
    extra: list[_Resource] | None = None,
) -> config_results.Configs:
    if not broker_ids:
        return config_results.Configs()
    # A broker that has just died stays in Metadata until the controller fences it: when the broker chosen
    # to carry the topics does not answer, ask the next one rather than failing the whole read.
    preferred = wire.home if wire.home in broker_ids else broker_ids[0]
    candidates = [preferred, *(b for b in broker_ids if b != preferred)]
    for index, first in enumerate(candidates):
        try:
            return _read_configs_via(
                wire,
                first=first,
                topics=topics,
                broker_ids=broker_ids,
                all_brokers=all_brokers,
                named_brokers=named_brokers,
                synonyms=synonyms,
                topic_keys=topic_keys,
                extra=extra or [],
            )
        except ConnectionLost as exc:
            if exc.node != first or index == len(candidates) - 1:
                raise
    raise AssertionError("unreachable")


def _read_configs_via(
    wire: wire_mod.Wire,
    *,
    first: int,
    topics: dict[str, state.TopicState] | None,
    broker_ids: list[int],
    all_brokers: bool,
    named_brokers: frozenset[str] | None,
    synonyms: bool,
    topic_keys: frozenset[str] | None = None,
    extra: list[_Resource],
) -> config_results.Configs:
    result = config_results.Configs()

    def wanted(broker: str) -> bool:
        return all_brokers and (named_brokers is None or broker in named_brokers)

    # The request to the first broker carries the topics, the cluster default and that broker's configs: all of
    # them when they are wanted, else only the lint keys. Every other broker is asked only for its own configs.
    per_node: list[tuple[int | None, list[_Resource]]] = []
    # Only some keys of each topic (a read-back) or none of them: fewer bytes to build, send and parse.
    keys = None if topic_keys is None else tuple(sorted(topic_keys))
    topic_names = sorted(topics) if topics is not None and keys != () else []
    chunks = [topic_names[i : i + MAX_CONFIG_RESOURCES] for i in range(0, len(topic_names), MAX_CONFIG_RESOURCES)]
    head: list[_Resource] = [(_TOPIC_RESOURCE, n, keys) for n in (chunks[0] if chunks else [])]
    if wanted(state.CLUSTER_DEFAULT):
        head.append((_BROKER_RESOURCE, "", None))
    if topics is not None or all_brokers:
        head.append((_BROKER_RESOURCE, str(first), None if wanted(str(first)) else LINT_KEYS))
        per_node.append((first, [*head, *extra]))
    elif extra:  # group configs or client-metrics subscriptions only: any broker answers them
        per_node.append((None, extra))
    for chunk in chunks[1:]:
        per_node.append((None, [(_TOPIC_RESOURCE, n, keys) for n in chunk]))
    per_node.extend((b, [(_BROKER_RESOURCE, str(b), None)]) for b in broker_ids if b != first and wanted(str(b)))

    for node, resources in per_node:
        for res in _describe_configs(wire, node=node, resources=resources, synonyms=synonyms):
            if entities.is_entity(int(res.resource_type)):
                entities.file_result(
                    res, result.entities, wire=wire, unread=result.unread_entities, fallbacks=result.entity_defaults
                )
                continue
            config_results.sort_result(
                res,
                result,
                lint_broker=str(first),
                own=wanted(str(res.resource_name) or state.CLUSTER_DEFAULT),
                wire=wire,
            )
    return result


# (resource type, name, the config keys asked for: None for all of them)
_Resource = tuple[int, str, tuple[str, ...] | None]


def _describe_configs(
    wire: wire_mod.Wire, *, node: int | None, resources: list[_Resource], synonyms: bool = True
) -> list[Any]:
    """DescribeConfigs of ``resources``, split in halves while the broker times out or fails them all."""
    resource_cls = DescribeConfigsRequest.DescribeConfigsResource

    def send(part: list[_Resource]) -> list[Any]:
        request = DescribeConfigsRequest(
            resources=[
                resource_cls(resource_type=t, resource_name=n, configuration_keys=None if k is None else list(k))
                for t, n, k in part
            ],
            include_synonyms=synonyms,
            include_documentation=False,
        )
        return list(wire.send(request, node=node).results)

    return limits.split_on_timeout(resources, send, what="DescribeConfigs", min_items=MIN_SPLIT)

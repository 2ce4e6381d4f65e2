"""The kinds written on the Kafka wire in the fleet row model (``reconciler.fleet.rows``): topics, ACLs, quotas, SCRAM
users, broker configs, group configs and client-metrics subscriptions, each a ``FleetRows`` its declaration names.

Config values are Kafka's strings (a declared sensitive one as ``plan.REDACTED``), everything else JSON. Whether
each section was read travels in the ``sections`` metadata row. The Ownership rules that name undeclared resources
of a kind travel with it: topics (and the names treated as internal) with topics, principals with ACLs, quota
entities with quotas, group ids and subscription names with their entity kinds.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from typing import Any

from reconciler.fleet.ownership_rows import patterns, unpatterns
from reconciler.fleet.rows import CONFIG_PREFIX, Row, as_json, declared_config, prefixed, source_of, source_text, text
from reconciler.kinds.spec import FleetRows, RowSection
from reconciler.model import desired, entities, state
from reconciler.model import views as model_views
from reconciler.model.kinds import Kind

VALUE_PREFIX = "values."
CREDENTIAL_PREFIX = "credentials."


def _configs(entry: Mapping[str, str | None]) -> dict[str, str]:
    return {k: text(v) for k, v in prefixed(entry, CONFIG_PREFIX).items()}


# ------------------------------------------------------------------------------------------ topics
def _desired_topics(wanted: desired.DesiredState) -> Iterator[Row]:
    kind = Kind.TOPIC
    for name, topic in wanted.topics.items():
        yield (kind, name, "partitions", str(topic.partitions))
        yield (kind, name, "replication_factor", str(topic.replication_factor))
        if topic.assignment is not None:
            yield (kind, name, "assignment", as_json([list(r) for r in topic.assignment]))
        for key, value in topic.configs.items():
            yield (kind, name, CONFIG_PREFIX + key, declared_config(key, value))
        if topic.source is not None:
            yield (kind, name, "@source", source_text(topic.source))
        if topic.allow_internal:
            yield (kind, name, "@allow_internal", "true")


def _rebuild_desired_topics(wanted: desired.DesiredState, section: RowSection) -> desired.DesiredState:
    topics = {
        name: desired.DesiredTopic(
            name=name,
            partitions=int(text(e["partitions"])),
            replication_factor=int(text(e["replication_factor"])),
            configs=_configs(e),
            assignment=None
            if "assignment" not in e
            else tuple(tuple(int(b) for b in r) for r in json.loads(text(e["assignment"]))),
            source=source_of(e.get("@source")),
            allow_internal="@allow_internal" in e,
        )
        for name, e in section.items()
    }
    return dataclasses.replace(wanted, topics=topics)


def _replication(assignment: tuple[tuple[int, ...], ...]) -> str:
    lengths = sorted({len(r) for r in assignment})
    return str(lengths[0]) if len(lengths) == 1 else as_json(lengths)


def _live_topics(live: state.ClusterState) -> Iterator[Row]:
    kind = Kind.TOPIC
    for name, topic in (live.topics or {}).items():
        assignment = topic.assignment
        yield (kind, name, "partitions", str(len(assignment)))
        yield (kind, name, "replication_factor", _replication(assignment))
        yield (kind, name, "assignment", as_json([list(r) for r in assignment]))
        for key, value in topic.configs.items():
            yield (kind, name, CONFIG_PREFIX + key, value)
        if topic.internal:
            yield (kind, name, "@internal", "true")
        if topic.defaults:
            yield (kind, name, "@defaults", as_json(dict(topic.defaults)))
        if topic.sensitive:
            yield (kind, name, "@sensitive", as_json(sorted(topic.sensitive)))
        if topic.topic_id is not None:
            yield (kind, name, "@topic_id", topic.topic_id)


def _rebuild_live_topics(live: state.ClusterState, section: RowSection, meta: Any) -> state.ClusterState:
    topics = {
        name: state.TopicState(
            name=name,
            assignment=tuple(tuple(int(b) for b in r) for r in json.loads(text(e["assignment"]))),
            internal="@internal" in e,
            configs=prefixed(e, CONFIG_PREFIX),
            defaults=json.loads(text(e["@defaults"])) if "@defaults" in e else {},
            sensitive=frozenset(json.loads(text(e["@sensitive"]))) if "@sensitive" in e else frozenset(),
            topic_id=e.get("@topic_id"),
        )
        for name, e in section.items()
    }
    return dataclasses.replace(live, topics=topics)


TOPICS = FleetRows(
    desired_rows=_desired_topics,
    rebuild_desired=_rebuild_desired_topics,
    live_rows=_live_topics,
    rebuild_live=_rebuild_live_topics,
    optional=frozenset({"assignment"}),  # the cluster always has one
    rules=lambda own: {"topics": patterns(own.topics), "internal_topics": patterns(own.internal_topics)},
    rebuild_rules=lambda own, doc: dataclasses.replace(
        own, topics=unpatterns(doc.get("topics", [])), internal_topics=unpatterns(doc.get("internal_topics", []))
    ),
)


# -------------------------------------------------------------------------------------------- ACLs
def _desired_acls(wanted: desired.DesiredState) -> Iterator[Row]:
    for binding, source in wanted.acls.items():
        name = model_views.acl_name(binding)
        yield (Kind.ACL, name, "binding", as_json(binding.to_dict()))
        if source is not None:
            yield (Kind.ACL, name, "@source", source_text(source))


def _live_acls(live: state.ClusterState) -> Iterator[Row]:
    for binding in live.acls or ():
        yield (Kind.ACL, model_views.acl_name(binding), "binding", as_json(binding.to_dict()))


def _binding(entry: Mapping[str, str | None]) -> state.AclBinding:
    return state.AclBinding.from_dict(json.loads(text(entry["binding"])))


ACLS = FleetRows(
    desired_rows=_desired_acls,
    rebuild_desired=lambda wanted, section: dataclasses.replace(
        wanted, acls={_binding(e): source_of(e.get("@source")) for e in section.values()}
    ),
    live_rows=_live_acls,
    rebuild_live=lambda live, section, meta: dataclasses.replace(
        live, acls=frozenset(_binding(e) for e in section.values())
    ),
    rules=lambda own: {"principals": patterns(own.principals)},
    rebuild_rules=lambda own, doc: dataclasses.replace(own, principals=unpatterns(doc.get("principals", []))),
)


# ------------------------------------------------------------------------------------------ quotas
def _desired_quotas(wanted: desired.DesiredState) -> Iterator[Row]:
    for entity, quota in wanted.quotas.items():
        name = model_views.quota_name(entity)
        yield (Kind.QUOTA, name, "@entity", as_json(entity.to_list()))
        for key, number in quota.values.items():
            yield (Kind.QUOTA, name, VALUE_PREFIX + key, as_json(number))
        if quota.source is not None:
            yield (Kind.QUOTA, name, "@source", source_text(quota.source))


def _entity(entry: Mapping[str, str | None]) -> state.QuotaEntity:
    return state.QuotaEntity.from_list(json.loads(text(entry["@entity"])))


def _values(entry: Mapping[str, str | None]) -> dict[str, float]:
    return {k: json.loads(text(v)) for k, v in prefixed(entry, VALUE_PREFIX).items()}


def _rebuild_desired_quotas(wanted: desired.DesiredState, section: RowSection) -> desired.DesiredState:
    quotas = {}
    for e in section.values():
        entity = _entity(e)
        quotas[entity] = desired.DesiredQuota(entity=entity, values=_values(e), source=source_of(e.get("@source")))
    return dataclasses.replace(wanted, quotas=quotas)


def _live_quotas(live: state.ClusterState) -> Iterator[Row]:
    for entity, values in (live.quotas or {}).items():
        name = model_views.quota_name(entity)
        yield (Kind.QUOTA, name, "@entity", as_json(entity.to_list()))
        for key, number in values.items():
            yield (Kind.QUOTA, name, VALUE_PREFIX + key, as_json(number))


QUOTAS = FleetRows(
    desired_rows=_desired_quotas,
    rebuild_desired=_rebuild_desired_quotas,
    live_rows=_live_quotas,
    rebuild_live=lambda live, section, meta: dataclasses.replace(
        live, quotas={_entity(e): _values(e) for e in section.values()}
    ),
    rules=lambda own: {"quota_entities": patterns(own.quota_entities)},
    rebuild_rules=lambda own, doc: dataclasses.replace(own, quota_entities=unpatterns(doc.get("quota_entities", []))),
)


# ------------------------------------------------------------------------------------- SCRAM users
def _desired_scram(wanted: desired.DesiredState) -> Iterator[Row]:
    kind = Kind.SCRAM_USER
    for name, user in wanted.scram_users.items():
        yield (kind, name, CREDENTIAL_PREFIX + user.mechanism, str(user.iterations))
        yield (kind, name, "@password", as_json(dataclasses.asdict(user.password)))
        if user.rotation is not None:
            yield (kind, name, "@rotation", user.rotation)
        if user.source is not None:
            yield (kind, name, "@source", source_text(user.source))


def _rebuild_desired_scram(wanted: desired.DesiredState, section: RowSection) -> desired.DesiredState:
    scram = {}
    for name, e in section.items():
        ((mechanism, iterations),) = prefixed(e, CREDENTIAL_PREFIX).items()
        scram[name] = desired.DesiredScramUser(
            name=name,
            mechanism=mechanism,
            iterations=int(text(iterations)),
            password=desired.SecretRef(**json.loads(text(e["@password"]))),
            rotation=e.get("@rotation"),
            source=source_of(e.get("@source")),
        )
    return dataclasses.replace(wanted, scram_users=scram)


def _live_scram(live: state.ClusterState) -> Iterator[Row]:
    for user, creds in (live.scram_users or {}).items():
        yield (Kind.SCRAM_USER, user, "@credentials", as_json([[c.mechanism, c.iterations] for c in creds]))
        for cred in creds:
            yield (Kind.SCRAM_USER, user, CREDENTIAL_PREFIX + cred.mechanism, str(cred.iterations))


def _rebuild_live_scram(live: state.ClusterState, section: RowSection, meta: Any) -> state.ClusterState:
    scram = {
        user: tuple(state.ScramCredential(str(m), int(i)) for m, i in json.loads(text(e["@credentials"])))
        for user, e in section.items()
    }
    return dataclasses.replace(live, scram_users=scram)


SCRAM_USERS = FleetRows(  # the principals rules that name SCRAM users travel with the ACLs
    desired_rows=_desired_scram,
    rebuild_desired=_rebuild_desired_scram,
    live_rows=_live_scram,
    rebuild_live=_rebuild_live_scram,
)


# ---------------------------------------------------------------------------------- broker configs
def _desired_brokers(wanted: desired.DesiredState) -> Iterator[Row]:
    kind = Kind.BROKER_CONFIG
    for broker, entry in wanted.broker_configs.items():
        yield (kind, broker, "@exists", None)
        for key, value in entry.configs.items():
            yield (kind, broker, CONFIG_PREFIX + key, declared_config(key, value))
        if entry.source is not None:
            yield (kind, broker, "@source", source_text(entry.source))


def _live_brokers(live: state.ClusterState) -> Iterator[Row]:
    for broker, configs in (live.broker_configs or {}).items():
        yield (Kind.BROKER_CONFIG, broker, "@exists", None)
        for key, value in configs.items():
            yield (Kind.BROKER_CONFIG, broker, CONFIG_PREFIX + key, value)


BROKER_CONFIGS = FleetRows(  # no Ownership rule names broker configs
    desired_rows=_desired_brokers,
    rebuild_desired=lambda wanted, section: dataclasses.replace(
        wanted,
        broker_configs={
            broker: desired.DesiredBrokerConfig(broker=broker, configs=_configs(e), source=source_of(e.get("@source")))
            for broker, e in section.items()
        },
    ),
    live_rows=_live_brokers,
    rebuild_live=lambda live, section, meta: dataclasses.replace(
        live, broker_configs={broker: prefixed(e, CONFIG_PREFIX) for broker, e in section.items()}
    ),
)


# ------------------------------------------------------------------ group configs, client metrics
def _desired_entities(kind: Kind, found: Mapping[str, desired.DesiredEntityConfig]) -> Iterator[Row]:
    for name, entry in found.items():
        yield (kind, name, "@exists", None)
        for key, value in entry.configs.items():
            yield (kind, name, CONFIG_PREFIX + key, declared_config(key, value))
        if entry.source is not None:
            yield (kind, name, "@source", source_text(entry.source))


def _declared_entities(section: RowSection) -> dict[str, desired.DesiredEntityConfig]:
    return {
        name: desired.DesiredEntityConfig(name=name, configs=_configs(e), source=source_of(e.get("@source")))
        for name, e in section.items()
    }


def _live_entities(kind: Kind, found: entities.Section | None) -> Iterator[Row]:
    for name, configs in (found or {}).items():
        yield (kind, name, "@exists", None)
        for key, value in configs.items():
            yield (kind, name, CONFIG_PREFIX + key, value)


def _entity_configs(section: RowSection) -> dict[str, dict[str, str | None]]:
    return {name: prefixed(e, CONFIG_PREFIX) for name, e in section.items()}


GROUP_CONFIGS = FleetRows(
    desired_rows=lambda wanted: _desired_entities(Kind.GROUP_CONFIG, wanted.group_configs),
    rebuild_desired=lambda wanted, section: dataclasses.replace(wanted, group_configs=_declared_entities(section)),
    live_rows=lambda live: _live_entities(Kind.GROUP_CONFIG, live.group_configs),
    rebuild_live=lambda live, section, meta: dataclasses.replace(live, group_configs=_entity_configs(section)),
    rules=lambda own: {"groups": patterns(own.groups)} if own.groups else {},
    rebuild_rules=lambda own, doc: dataclasses.replace(own, groups=unpatterns(doc.get("groups", []))),
)
CLIENT_METRICS = FleetRows(
    desired_rows=lambda wanted: _desired_entities(Kind.CLIENT_METRICS, wanted.client_metrics),
    rebuild_desired=lambda wanted, section: dataclasses.replace(wanted, client_metrics=_declared_entities(section)),
    live_rows=lambda live: _live_entities(Kind.CLIENT_METRICS, live.client_metrics),
    rebuild_live=lambda live, section, meta: dataclasses.replace(live, client_metrics=_entity_configs(section)),
    rules=lambda own: {"client_metrics": patterns(own.client_metrics)} if own.client_metrics else {},
    rebuild_rules=lambda own, doc: dataclasses.replace(own, client_metrics=unpatterns(doc.get("client_metrics", []))),
)

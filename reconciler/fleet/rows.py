"""The fleet row model: desired and live state flattened to ``(kind, name, attribute, value)`` rows, and back.

Both fleet engines move state as rows of four strings (the engine adds the cluster name as a fifth
column): ``kind`` is a resource kind (``topic``, ``acl``, ...) or a meta kind (``_desired``,
``_cluster``, ``_error``), ``name`` is the resource's ``Change.name``, ``attribute`` names one part of
it (``partitions``, ``configs.retention.ms``) and ``value`` is its text (config values as Kafka's
strings, everything else as JSON; ``None`` is a null value, e.g. a sensitive config Kafka hides).

Attributes whose name starts with ``@`` carry what the planner needs but is not compared when the
rows of the two sides are joined (declaration sources, topic defaults, password references).
``desired_rows``/``live_rows`` and ``rebuild_desired``/``rebuild_live`` are exact inverses: the state
rebuilt from the rows plans exactly like the original, which the fleet tests check. A sensitive declared config
value is the one thing rows do not carry (``plan.REDACTED`` in its place): the planner never reads it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from reconciler.fleet import connector_rows, ownership_rows
from reconciler.kinds.schema_subject import rows as subject_rows
from reconciler.model import desired, entities, impact, payloads, plans, snapshotfile, state
from reconciler.model import views as model_views
from reconciler.model.kinds import Kind
from reconciler.planner import common

Row = tuple[str, str, str, str | None]

META_DESIRED = "_desired"
META_LIVE = "_cluster"
ERROR = "_error"
META_KINDS = frozenset({META_DESIRED, META_LIVE, ERROR})
CONFIG_PREFIX = payloads.CONFIG_ATTRIBUTE_PREFIX
VALUE_PREFIX = "values."
CREDENTIAL_PREFIX = "credentials."
# Attributes a desired resource may leave out without that being a difference (the cluster always has one).
DESIRED_OPTIONAL = frozenset({(Kind.TOPIC, "assignment")})
LIVE_SECTIONS = ("topics", "broker_configs", "acls", "quotas", "scram_users", "group_configs", "client_metrics")


def _j(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _source(source: desired.Source | None) -> str | None:
    return None if source is None else json.dumps([source.file, source.line, source.column, source.origin])


def _unsource(text: str | None) -> desired.Source | None:
    if text is None:
        return None
    file, line, column, origin = json.loads(text)
    return desired.Source(file, line, column, origin)


# ------------------------------------------------------------------------------------ desired side
def desired_rows(wanted: desired.DesiredState) -> Iterator[Row]:
    """Every row of a desired state, ownership rules included."""
    own = wanted.ownership
    yield (META_DESIRED, "", "ownership", _j(ownership_rows.ownership_doc(own)))
    kind = Kind.TOPIC
    for name, topic in wanted.topics.items():
        yield (kind, name, "partitions", str(topic.partitions))
        yield (kind, name, "replication_factor", str(topic.replication_factor))
        if topic.assignment is not None:
            yield (kind, name, "assignment", _j([list(r) for r in topic.assignment]))
        for key, value in topic.configs.items():
            yield (kind, name, CONFIG_PREFIX + key, _declared(key, value))
        if topic.source is not None:
            yield (kind, name, "@source", _source(topic.source))
        if topic.allow_internal:
            yield (kind, name, "@allow_internal", "true")
    for binding, source in wanted.acls.items():
        name = model_views.acl_name(binding)
        yield (Kind.ACL, name, "binding", _j(binding.to_dict()))
        if source is not None:
            yield (Kind.ACL, name, "@source", _source(source))
    for entity, quota in wanted.quotas.items():
        name = model_views.quota_name(entity)
        yield (Kind.QUOTA, name, "@entity", _j(entity.to_list()))
        for key, number in quota.values.items():
            yield (Kind.QUOTA, name, VALUE_PREFIX + key, _j(number))
        if quota.source is not None:
            yield (Kind.QUOTA, name, "@source", _source(quota.source))
    for name, user in wanted.scram_users.items():
        kind = Kind.SCRAM_USER
        yield (kind, name, CREDENTIAL_PREFIX + user.mechanism, str(user.iterations))
        yield (kind, name, "@password", _j(dataclasses.asdict(user.password)))
        if user.rotation is not None:
            yield (kind, name, "@rotation", user.rotation)
        if user.source is not None:
            yield (kind, name, "@source", _source(user.source))
    for broker, entry in wanted.broker_configs.items():
        kind = Kind.BROKER_CONFIG
        yield (kind, broker, "@exists", None)
        for key, value in entry.configs.items():
            yield (kind, broker, CONFIG_PREFIX + key, _declared(key, value))
        if entry.source is not None:
            yield (kind, broker, "@source", _source(entry.source))
    yield from _desired_entity_rows(wanted)
    yield from connector_rows.desired_rows(wanted)
    yield from subject_rows.desired_rows(wanted.schema_subjects)


def _declared(key: str, value: str) -> str:
    """A declared config value as a row carries it: a sensitive one (a ``${VAR}`` secret) as ``plan.REDACTED``, which
    the planner never reads (the cluster hides it; apply reads it from the manifests): rows never hold a secret."""
    return plans.REDACTED if common.is_sensitive(key) else value


def _desired_entity_rows(wanted: desired.DesiredState) -> Iterator[Row]:
    for kind in entities.ENTITY_KINDS:
        for name, found in entities.desired_section(wanted, kind).items():
            yield (kind, name, "@exists", None)
            for key, value in found.configs.items():
                yield (kind, name, CONFIG_PREFIX + key, _declared(key, value))
            if found.source is not None:
                yield (kind, name, "@source", _source(found.source))


def _group(rows: Iterable[Row], kinds: frozenset[str]) -> dict[str, dict[str, dict[str, str | None]]]:
    """kind -> name -> attribute -> value (the planner's results do not depend on the order rows arrive in)."""
    out: dict[str, dict[str, dict[str, str | None]]] = {k: {} for k in kinds}
    for kind, name, attribute, value in rows:
        section = out.get(kind)
        if section is None:
            continue
        entry = section.get(name)
        if entry is None:
            entry = section[name] = {}
        entry[attribute] = value
    return out


def _prefixed(entry: Mapping[str, str | None], prefix: str) -> dict[str, str | None]:
    cut = len(prefix)
    return {k[cut:]: v for k, v in entry.items() if k.startswith(prefix)}


def _text(value: str | None) -> str:
    if value is None:
        raise ValueError("a required row value is null")
    return value


def rebuild_desired(rows: Iterable[Row]) -> desired.DesiredState:
    """The desired state the rows were made from (``desired_rows`` inverse)."""
    grouped = _group(rows, frozenset({META_DESIRED, *Kind}))
    meta = grouped[META_DESIRED].get("", {})
    ownership = ownership_rows.ownership(json.loads(_text(meta["ownership"])) if "ownership" in meta else {})
    topics = {
        name: desired.DesiredTopic(
            name=name,
            partitions=int(_text(e["partitions"])),
            replication_factor=int(_text(e["replication_factor"])),
            configs={k: _text(v) for k, v in _prefixed(e, CONFIG_PREFIX).items()},
            assignment=None
            if "assignment" not in e
            else tuple(tuple(int(b) for b in r) for r in json.loads(_text(e["assignment"]))),
            source=_unsource(e.get("@source")),
            allow_internal="@allow_internal" in e,
        )
        for name, e in grouped[Kind.TOPIC].items()
    }
    acls = {
        state.AclBinding.from_dict(json.loads(_text(e["binding"]))): _unsource(e.get("@source"))
        for e in grouped[Kind.ACL].values()
    }
    quotas = {}
    for e in grouped[Kind.QUOTA].values():
        entity = state.QuotaEntity.from_list(json.loads(_text(e["@entity"])))
        values = {k: json.loads(_text(v)) for k, v in _prefixed(e, VALUE_PREFIX).items()}
        quotas[entity] = desired.DesiredQuota(entity=entity, values=values, source=_unsource(e.get("@source")))
    scram = {}
    for name, e in grouped[Kind.SCRAM_USER].items():
        ((mechanism, iterations),) = _prefixed(e, CREDENTIAL_PREFIX).items()
        scram[name] = desired.DesiredScramUser(
            name=name,
            mechanism=mechanism,
            iterations=int(_text(iterations)),
            password=desired.SecretRef(**json.loads(_text(e["@password"]))),
            rotation=e.get("@rotation"),
            source=_unsource(e.get("@source")),
        )
    brokers = {
        broker: desired.DesiredBrokerConfig(
            broker=broker,
            configs={k: _text(v) for k, v in _prefixed(e, CONFIG_PREFIX).items()},
            source=_unsource(e.get("@source")),
        )
        for broker, e in grouped[Kind.BROKER_CONFIG].items()
    }
    found = {kind: _desired_entities(grouped[kind]) for kind in entities.ENTITY_KINDS}
    return desired.DesiredState(
        topics=topics,
        acls=acls,
        quotas=quotas,
        scram_users=scram,
        broker_configs=brokers,
        group_configs=found[Kind.GROUP_CONFIG],
        client_metrics=found[Kind.CLIENT_METRICS],
        ownership=ownership,
        connectors=connector_rows.rebuild_desired(grouped[Kind.CONNECTOR]),
        schema_subjects=subject_rows.rebuild_desired(grouped[Kind.SCHEMA_SUBJECT]),
    )


# --------------------------------------------------------------------------------------- live side
def _replication(assignment: tuple[tuple[int, ...], ...]) -> str:
    lengths = sorted({len(r) for r in assignment})
    return str(lengths[0]) if len(lengths) == 1 else _j(lengths)


def _optional_meta(live: state.ClusterState) -> Iterator[Row]:
    """The metadata rows a live state has only sometimes."""
    if live.unread_entities:  # group configs the principal may not describe: a fleet plan blocks them too
        unread = {k: dict(sorted(v.items())) for k, v in sorted(live.unread_entities.items())}
        yield (META_LIVE, "", "unread_entities", _j(unread))
    if live.entity_defaults:  # what a reset of a group key returns to: the fleet plan shows the same
        yield (META_LIVE, "", "entity_defaults", _j({k: dict(v) for k, v in sorted(live.entity_defaults.items())}))
    # The usage and impact evidence a snapshot carries: the fleet plan shows the same evidence and figures.
    if live.topic_usage is not None:
        usage = {n: {**u.evidence(), "read_at_ms": u.read_at_ms} for n, u in live.topic_usage.items()}
        yield (META_LIVE, "", "topic_usage", _j(usage))
    if live.impact is not None:
        yield (META_LIVE, "", "impact", _j(live.impact.to_dict()))


def live_rows(live: state.ClusterState) -> Iterator[Row]:
    """Every row of a live state: the cluster's metadata, then one row per resource attribute."""
    meta = (
        ("cluster_id", live.cluster_id),
        ("controller_id", live.controller_id),
        ("brokers", [dataclasses.asdict(b) for b in live.brokers]),
        ("broker_config_sensitive", sorted(live.broker_config_sensitive)),
        ("cluster_configs", dict(sorted(live.cluster_configs.items()))),
        ("reassignments", [dataclasses.asdict(r) for r in live.reassignments]),
        ("capabilities", dict(sorted(live.capabilities.items()))),
        ("unavailable", dict(sorted(live.unavailable.items()))),
        ("sections", {s: getattr(live, s) is not None for s in LIVE_SECTIONS}),
        ("connect", connector_rows.meta(live.connect)),
        ("schema_subjects", subject_rows.meta(live.schema_subjects)),
    )
    for attribute, value in meta:
        yield (META_LIVE, "", attribute, _j(value))
    yield from _optional_meta(live)
    kind = Kind.TOPIC
    for name, topic in (live.topics or {}).items():
        assignment = topic.assignment
        yield (kind, name, "partitions", str(len(assignment)))
        yield (kind, name, "replication_factor", _replication(assignment))
        yield (kind, name, "assignment", _j([list(r) for r in assignment]))
        for key, value in topic.configs.items():
            yield (kind, name, CONFIG_PREFIX + key, value)
        if topic.internal:
            yield (kind, name, "@internal", "true")
        if topic.defaults:
            yield (kind, name, "@defaults", _j(dict(topic.defaults)))
        if topic.sensitive:
            yield (kind, name, "@sensitive", _j(sorted(topic.sensitive)))
        if topic.topic_id is not None:
            yield (kind, name, "@topic_id", topic.topic_id)
    for binding in live.acls or ():
        yield (Kind.ACL, model_views.acl_name(binding), "binding", _j(binding.to_dict()))
    for entity, values in (live.quotas or {}).items():
        name = model_views.quota_name(entity)
        yield (Kind.QUOTA, name, "@entity", _j(entity.to_list()))
        for key, number in values.items():
            yield (Kind.QUOTA, name, VALUE_PREFIX + key, _j(number))
    for user, creds in (live.scram_users or {}).items():
        yield (Kind.SCRAM_USER, user, "@credentials", _j([[c.mechanism, c.iterations] for c in creds]))
        for cred in creds:
            yield (Kind.SCRAM_USER, user, CREDENTIAL_PREFIX + cred.mechanism, str(cred.iterations))
    for broker, configs in (live.broker_configs or {}).items():
        yield (Kind.BROKER_CONFIG, broker, "@exists", None)
        for key, value in configs.items():
            yield (Kind.BROKER_CONFIG, broker, CONFIG_PREFIX + key, value)
    for kind in entities.ENTITY_KINDS:
        for name, found in (entities.live_section(live, kind) or {}).items():
            yield (kind, name, "@exists", None)
            for key, value in found.items():
                yield (kind, name, CONFIG_PREFIX + key, value)
    yield from connector_rows.live_rows(live.connect)
    yield from subject_rows.live_rows(live.schema_subjects)


def rebuild_live(rows: Iterable[Row]) -> state.ClusterState:
    """The live state the rows were made from (``live_rows`` inverse)."""
    grouped = _group(rows, frozenset({META_LIVE, *Kind}))
    meta = {k: json.loads(_text(v)) for k, v in grouped[META_LIVE].get("", {}).items()}
    if "sections" not in meta:
        raise ValueError("the live rows have no cluster metadata")
    read = meta["sections"]
    topics = {
        name: state.TopicState(
            name=name,
            assignment=tuple(tuple(int(b) for b in r) for r in json.loads(_text(e["assignment"]))),
            internal="@internal" in e,
            configs=_prefixed(e, CONFIG_PREFIX),
            defaults=json.loads(_text(e["@defaults"])) if "@defaults" in e else {},
            sensitive=frozenset(json.loads(_text(e["@sensitive"]))) if "@sensitive" in e else frozenset(),
            topic_id=e.get("@topic_id"),
        )
        for name, e in grouped[Kind.TOPIC].items()
    }
    acls = frozenset(state.AclBinding.from_dict(json.loads(_text(e["binding"]))) for e in grouped[Kind.ACL].values())
    quotas = {
        state.QuotaEntity.from_list(json.loads(_text(e["@entity"]))): {
            k: json.loads(_text(v)) for k, v in _prefixed(e, VALUE_PREFIX).items()
        }
        for e in grouped[Kind.QUOTA].values()
    }
    scram = {
        user: tuple(state.ScramCredential(str(m), int(i)) for m, i in json.loads(_text(e["@credentials"])))
        for user, e in grouped[Kind.SCRAM_USER].items()
    }
    broker_configs = {broker: _prefixed(e, CONFIG_PREFIX) for broker, e in grouped[Kind.BROKER_CONFIG].items()}
    return state.ClusterState(
        cluster_id=meta["cluster_id"],
        controller_id=meta["controller_id"],
        brokers=tuple(state.Broker(**b) for b in meta["brokers"]),
        topics=topics if read["topics"] else None,
        broker_configs=broker_configs if read["broker_configs"] else None,
        broker_config_sensitive=frozenset(meta["broker_config_sensitive"]),
        cluster_configs=meta["cluster_configs"],
        acls=acls if read["acls"] else None,
        quotas=quotas if read["quotas"] else None,
        scram_users=scram if read["scram_users"] else None,
        group_configs=_entity_section(grouped, read, Kind.GROUP_CONFIG),
        client_metrics=_entity_section(grouped, read, Kind.CLIENT_METRICS),
        reassignments=tuple(snapshotfile.reassignment(r) for r in meta["reassignments"]),
        capabilities={str(k): int(v) for k, v in meta["capabilities"].items()},
        unavailable={str(k): str(v) for k, v in meta["unavailable"].items()},
        unread_entities=snapshotfile.unread_entities(meta.get("unread_entities")),
        entity_defaults=dict(meta.get("entity_defaults") or {}),
        topic_usage=None
        if meta.get("topic_usage") is None
        else {str(n): state.TopicUsage.from_dict(u) for n, u in meta["topic_usage"].items()},
        impact=None if meta.get("impact") is None else impact.ImpactEvidence.from_dict(meta["impact"]),
        connect=connector_rows.rebuild_live(meta.get("connect"), grouped[Kind.CONNECTOR]),
        schema_subjects=subject_rows.rebuild_live(meta.get("schema_subjects"), grouped[Kind.SCHEMA_SUBJECT]),
    )


def error_rows(reason: str) -> list[Row]:
    """The single row that stands for a cluster whose live state could not be read."""
    return [(ERROR, "", "reason", reason)]


def _desired_entities(section: Mapping[str, Mapping[str, str | None]]) -> dict[str, desired.DesiredEntityConfig]:
    return {
        name: desired.DesiredEntityConfig(
            name=name,
            configs={k: _text(v) for k, v in _prefixed(e, CONFIG_PREFIX).items()},
            source=_unsource(e.get("@source")),
        )
        for name, e in section.items()
    }


def _entity_section(
    grouped: Mapping[str, Mapping[str, Mapping[str, str | None]]], read: Mapping[str, bool], kind: Kind
) -> dict[str, dict[str, str | None]] | None:
    if not read.get(entities.SECTIONS[kind], False):
        return None
    return {name: _prefixed(e, CONFIG_PREFIX) for name, e in grouped[kind].items()}

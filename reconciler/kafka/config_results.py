"""Files the results of the DescribeConfigs requests of a live read into topic, broker and lint sections.

``reconciler.kafka.read`` sends the requests; each result lands here: a topic's own configs and the defaults it
falls back to, a broker's (or the cluster default's) dynamic configs, the broker settings the planner lints, and a
refused result as the error to raise, naming the grant to ask for when a right is missing.
"""

from __future__ import annotations

from typing import Any

from kafka.admin import ConfigSourceType

from reconciler.kafka import codes, rights
from reconciler.kafka.results import RequestFailed
from reconciler.model import state
from reconciler.model.kinds import Kind

# Broker settings the planner lints, copied into ClusterState.cluster_configs whatever their source.
LINT_KEYS = (
    "auto.create.topics.enable",
    "min.insync.replicas",
    "default.replication.factor",
    "num.partitions",
    "delete.topic.enable",
)
_TOPIC_RESOURCE = 2
_UNKNOWN_TOPIC = 3
_DYNAMIC_TOPIC_CONFIG = int(ConfigSourceType.DYNAMIC_TOPIC_CONFIG)


class Configs:
    """What the DescribeConfigs requests returned, sorted into topic, broker and lint sections."""

    def __init__(self) -> None:
        self.topic_configs: dict[str, dict[str, str | None]] = {}
        self.topic_defaults: dict[str, dict[str, str | None]] = {}
        self.topic_sensitive: dict[str, set[str]] = {}
        self.missing_topics: set[str] = set()
        self.broker_configs: dict[str, dict[str, str | None]] = {}
        self.broker_sensitive: set[str] = set()
        self.cluster_configs: dict[str, str | None] = {}
        # key -> the value a topic without an override shows (the same for every topic of the cluster)
        self.cluster_topic_defaults: dict[str, str | None] = {}
        self.entities: dict[Kind, dict[str, dict[str, str | None]]] = {}  # group configs, client-metrics
        self.unread_entities: dict[Kind, dict[str, RequestFailed]] = {}  # those the principal may not describe
        self.entity_defaults: dict[Kind, dict[str, str | None]] = {}  # key -> what a key not set falls back to

    def apply_to(self, topics: dict[str, state.TopicState]) -> dict[str, state.TopicState]:
        return {
            name: state.TopicState(
                name=name,
                assignment=t.assignment,
                internal=t.internal,
                configs=self.topic_configs.get(name, {}),
                defaults={**self.cluster_topic_defaults, **self.topic_defaults.get(name, {})},
                sensitive=frozenset(self.topic_sensitive.get(name, set())),
                topic_id=t.topic_id,
            )
            for name, t in sorted(topics.items())
            if name not in self.missing_topics
        }


def sort_result(res: Any, result: Configs, *, lint_broker: str, own: bool = True, wire: Any = None) -> None:
    """File one DescribeConfigs result; a broker's own configs only when ``own`` (else it was asked for the lint)."""
    name = str(res.resource_name)
    kind = "topic" if res.resource_type == _TOPIC_RESOURCE else "broker"
    if res.error_code:
        if kind == "topic" and res.error_code == _UNKNOWN_TOPIC:
            result.missing_topics.add(name)  # deleted since the Metadata answer
            return
        raise _config_error(res, name=name, kind=kind, wire=wire)
    if kind == "topic":
        configs: dict[str, str | None] = {}
        defaults: dict[str, str | None] = {}
        inherited: dict[str, str | None] = {}
        sensitive: set[str] = set()
        for entry in res.configs:  # about 35 per topic: the loop is kept plain
            key = entry.name
            if entry.is_sensitive:
                sensitive.add(key)
                value = None
            else:
                value = entry.value
            if entry.config_source == _DYNAMIC_TOPIC_CONFIG:
                configs[key] = value
                fallback = next((s for s in entry.synonyms if _same_unit_fallback(s)), None)
                if fallback is not None:
                    defaults[key] = None if key in sensitive else fallback.value
            else:
                defaults[key] = inherited[key] = value
        known = result.cluster_topic_defaults
        if inherited.keys() - known.keys():  # the first topic fills it; the others rarely add a key
            for key, value in inherited.items():
                known.setdefault(key, value)
        result.topic_configs[name] = configs
        result.topic_defaults[name] = defaults
        result.topic_sensitive[name] = sensitive
        return
    wanted = ConfigSourceType.DYNAMIC_DEFAULT_BROKER_CONFIG if name == "" else ConfigSourceType.DYNAMIC_BROKER_CONFIG
    section: dict[str, str | None] = {}
    for entry in res.configs:
        key, secret = str(entry.name), bool(entry.is_sensitive)
        if own and entry.config_source == wanted:
            section[key] = None if secret else entry.value
            if secret:
                result.broker_sensitive.add(key)
        if name == lint_broker and key in LINT_KEYS:
            result.cluster_configs[key] = None if secret else entry.value
    if own:
        result.broker_configs[name or state.CLUSTER_DEFAULT] = section


def _config_error(res: Any, *, name: str, kind: str, wire: Any) -> RequestFailed:
    """A refused DescribeConfigs result as the error to raise, with the grant to ask for when it lacks a right."""
    label = f"topic {name}" if kind == "topic" else f"broker {name or state.CLUSTER_DEFAULT}"
    return describe_failed(res, label=label, right=f"DescribeConfigs:{kind}", name=name, wire=wire)


def describe_failed(res: Any, *, label: str, right: str, name: str, wire: Any) -> RequestFailed:
    """A refused DescribeConfigs result for ``label``, with the grant of ``right`` to ask for when it lacks one."""
    hint = None
    if rights.is_authorization_error(codes.error_name(res.error_code)):
        hint = rights.grant_hint(right, settings=getattr(wire, "settings", None), name=name, wire=wire)
    return RequestFailed(
        f"cannot describe the configs of {label}: {codes.error_name(res.error_code)}"
        + (f": {res.error_message}" if res.error_message else "")
        + (f"; {hint}" if hint else ""),
        api="DescribeConfigs",
        error_code=int(res.error_code),
        error_name=codes.error_name(res.error_code),
        retriable=codes.is_retriable(res.error_code),
    )


def _same_unit_fallback(synonym: Any) -> bool:
    """A synonym below the topic override whose value is in the topic key's unit (not ``log.retention.hours``)."""
    return bool(
        synonym.source != ConfigSourceType.DYNAMIC_TOPIC_CONFIG
        and synonym.value is not None
        and not str(synonym.name).endswith((".hours", ".minutes"))
    )

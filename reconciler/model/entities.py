"""The config entities of Kafka 4 that are neither topics nor brokers: group configs and client-metrics subscriptions.

Both are a name and a set of configs, read with DescribeConfigs, written with IncrementalAlterConfigs and listed
with ListConfigResources (config resource types ``GROUP`` = 32 and ``CLIENT_METRICS`` = 16). This module says, once,
which kinds they are, their config resource type, and where each stage keeps them (desired, live and ownership
sections), so the planner, the snapshot, the fleet rows and apply share one definition.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from reconciler.model import desired, state
from reconciler.model.kinds import Kind

ENTITY_KINDS = (Kind.GROUP_CONFIG, Kind.CLIENT_METRICS)
# kind -> its config resource type, as IncrementalAlterConfigs names it (kafka-python's ConfigResourceType)
RESOURCE_TYPES: Mapping[Kind, str] = {Kind.GROUP_CONFIG: "GROUP", Kind.CLIENT_METRICS: "CLIENT_METRICS"}
RESOURCE_TYPE_IDS: Mapping[Kind, int] = {Kind.GROUP_CONFIG: 32, Kind.CLIENT_METRICS: 16}
# the config source DescribeConfigs gives a value set on the entity itself
DYNAMIC_SOURCES: Mapping[Kind, int] = {Kind.GROUP_CONFIG: 8, Kind.CLIENT_METRICS: 7}
# the section of ClusterState, DesiredState and snapshots that holds each kind
SECTIONS: Mapping[Kind, str] = {Kind.GROUP_CONFIG: "group_configs", Kind.CLIENT_METRICS: "client_metrics"}
LABELS: Mapping[Kind, str] = {Kind.GROUP_CONFIG: "group configs", Kind.CLIENT_METRICS: "client-metrics subscriptions"}
# what one entity is called in messages
NOUNS: Mapping[Kind, str] = {Kind.GROUP_CONFIG: "group", Kind.CLIENT_METRICS: "client-metrics subscription"}

Section = Mapping[str, Mapping[str, str | None]]


def live_section(live: state.ClusterState, kind: Kind) -> Section | None:
    """The live entities of ``kind`` (name -> configs set on it), ``None`` when not read."""
    return live.group_configs if kind == Kind.GROUP_CONFIG else live.client_metrics


def desired_section(wanted: desired.DesiredState, kind: Kind) -> Mapping[str, desired.DesiredEntityConfig]:
    """The declared entities of ``kind`` by name."""
    return wanted.group_configs if kind == Kind.GROUP_CONFIG else wanted.client_metrics


def rules(ownership: desired.Ownership, kind: Kind) -> tuple[desired.NamePattern, ...]:
    """The Ownership rules that name the undeclared entities of ``kind`` this repository manages."""
    return ownership.groups if kind == Kind.GROUP_CONFIG else ownership.client_metrics


def view(name: str, configs: Mapping[str, str | None] | None) -> dict[str, object] | None:
    """The live view of one entity (what change fingerprints cover); ``None`` when nothing is set on it."""
    if not configs:
        return None
    return {"name": name, "configs": dict(sorted(configs.items()))}


def read_filters(wanted: desired.DesiredState) -> dict[Kind, state.EntityFilter]:
    """Per kind: the declared names, and the ownership rules when there are some and the kind is managed (only then
    is the kind listed: there is nothing else to list it for)."""
    own = wanted.ownership
    out = {}
    for kind in ENTITY_KINDS:
        found = rules(own, kind) if kind in own.managed_kinds else ()
        owns = None if not found else functools.partial(own.owns_entity, kind)
        out[kind] = state.EntityFilter(declared=frozenset(desired_section(wanted, kind)), owns=owns)
    return out


def unread_text(kind: Kind, unread: Mapping[str, str], names: list[str] | None = None, *, shown: int = 5) -> str:
    """``names`` (default: all of ``unread``) as a message lists them: the first ``shown``, how many more, and the
    first one's refusal with the grant to ask for (``ClusterState.unread_entities``)."""
    names = sorted(unread) if names is None else names
    listed = ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")
    return f"{len(names)} {NOUNS[kind]}(s): {listed} ({unread[names[0]]})"

"""The config entities of Kafka 4 that are neither topics nor brokers: group configs and client-metrics subscriptions.

Both are a name and a set of configs, read with DescribeConfigs, written with IncrementalAlterConfigs and listed
with ListConfigResources (config resource types ``GROUP`` = 32 and ``CLIENT_METRICS`` = 16). This module declares each
once (``EntityKind``: its config resource type, where each stage keeps it, its catalogue, its words in messages, how
undeclared keys are treated), so the planner, the snapshot, the fleet rows, the wire adapter and apply read one
definition and none branches on which of the two it holds.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping

from reconciler.model import catalogue as catalogue_mod
from reconciler.model import desired, state
from reconciler.model.kinds import Kind

Section = Mapping[str, Mapping[str, str | None]]


@dataclasses.dataclass(frozen=True, slots=True)
class EntityKind:
    """One config-entity kind, declared once: the stages read these members instead of asking which kind it is."""

    kind: Kind
    resource_type: str  # its config resource type, as IncrementalAlterConfigs names it (kafka-python's)
    resource_type_id: int  # the same, as ListConfigResources and DescribeConfigs number it
    dynamic_source: int  # the config source DescribeConfigs gives a value set on the entity itself
    section: str  # the section of ClusterState, DesiredState and snapshots that holds it
    label: str  # its entities, in messages
    noun: str  # one entity, in messages
    describe_api: str  # the request a refused read names (with the right to grant)
    catalogue: Mapping[str, catalogue_mod.ConfigSpec]  # the keys it takes, with their defaults
    # whether a key set on an entity but not declared is always reset (else only where the kind's deletes are allowed)
    resets_undeclared: bool
    broker_fallbacks: bool  # whether a key not set on it falls back to a broker setting (read with the first answer)
    live_of: Callable[[state.ClusterState], Section | None]
    desired_of: Callable[[desired.DesiredState], Mapping[str, desired.DesiredEntityConfig]]
    rules_of: Callable[[desired.Ownership], tuple[desired.NamePattern, ...]]  # Ownership rules naming undeclared ones


ENTITIES: Mapping[Kind, EntityKind] = {
    Kind.GROUP_CONFIG: EntityKind(
        kind=Kind.GROUP_CONFIG,
        resource_type="GROUP",
        resource_type_id=32,
        dynamic_source=8,
        section="group_configs",
        label="group configs",
        noun="group",
        describe_api="DescribeConfigs:group",
        catalogue=catalogue_mod.GROUP_CONFIGS,
        resets_undeclared=False,
        broker_fallbacks=True,
        live_of=lambda live: live.group_configs,
        desired_of=lambda wanted: wanted.group_configs,
        rules_of=lambda ownership: ownership.groups,
    ),
    Kind.CLIENT_METRICS: EntityKind(
        kind=Kind.CLIENT_METRICS,
        resource_type="CLIENT_METRICS",
        resource_type_id=16,
        dynamic_source=7,
        section="client_metrics",
        label="client-metrics subscriptions",
        noun="client-metrics subscription",
        describe_api="DescribeConfigs:client_metrics",
        catalogue=catalogue_mod.CLIENT_METRICS_CONFIGS,
        resets_undeclared=True,
        broker_fallbacks=False,
        live_of=lambda live: live.client_metrics,
        desired_of=lambda wanted: wanted.client_metrics,
        rules_of=lambda ownership: ownership.client_metrics,
    ),
}
ENTITY_KINDS = tuple(ENTITIES)
# The members above as tables, for the stages that read one of them for every entity kind.
RESOURCE_TYPES: Mapping[Kind, str] = {k: e.resource_type for k, e in ENTITIES.items()}
RESOURCE_TYPE_IDS: Mapping[Kind, int] = {k: e.resource_type_id for k, e in ENTITIES.items()}
DYNAMIC_SOURCES: Mapping[Kind, int] = {k: e.dynamic_source for k, e in ENTITIES.items()}
SECTIONS: Mapping[Kind, str] = {k: e.section for k, e in ENTITIES.items()}
LABELS: Mapping[Kind, str] = {k: e.label for k, e in ENTITIES.items()}
NOUNS: Mapping[Kind, str] = {k: e.noun for k, e in ENTITIES.items()}


def live_section(live: state.ClusterState, kind: Kind) -> Section | None:
    """The live entities of ``kind`` (name -> configs set on it), ``None`` when not read."""
    return ENTITIES[kind].live_of(live)


def desired_section(wanted: desired.DesiredState, kind: Kind) -> Mapping[str, desired.DesiredEntityConfig]:
    """The declared entities of ``kind`` by name."""
    return ENTITIES[kind].desired_of(wanted)


def rules(ownership: desired.Ownership, kind: Kind) -> tuple[desired.NamePattern, ...]:
    """The Ownership rules that name the undeclared entities of ``kind`` this repository manages."""
    return ENTITIES[kind].rules_of(ownership)


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

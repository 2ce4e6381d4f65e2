"""Reads group configs and client-metrics subscriptions: which exist (ListConfigResources) and what they hold.

Kafka 4 keeps both as config resources (types ``GROUP`` and ``CLIENT_METRICS``). A read lists them with one
ListConfigResources request for both kinds, only when the Ownership rules manage undeclared ones of a kind (there is
nothing else to find them for), and then describes the declared and owned ones in the DescribeConfigs request the
topic and broker read already sends (``reconciler.kafka.read``), or in one of its own when that read sends none.
So a plan adds at most one request per kind. ListConfigResources version 0 (Kafka 3.7 to 4.0, then named
ListClientMetricsResources) lists client-metrics subscriptions only; version 1 (KIP-1142, Kafka 4.1) takes the
types to list.

A DescribeConfigs answer for a name that has nothing set (a group before its first config, a subscription never
created) is not an error: Kafka answers with the defaults; only values whose source is the entity itself are kept,
and an entity with none is absent from the section. What the others say (and the synonyms below a value set on the
group) is the broker's ``group.*`` setting a key falls back to, kept once per key (``ClusterState.entity_defaults``)
so a plan's reset says what it returns to. One the principal may not describe (no DESCRIBE_CONFIGS on that
group) does not fail the read: it is recorded as unread, with the refusal and the grant to ask for
(``ClusterState.unread_entities``), so a whole-cluster snapshot or import still gets everything else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kafka.protocol.admin import ListConfigResourcesRequest

from reconciler.kafka import codes, config_results, rights
from reconciler.kafka import wire as wire_mod
from reconciler.kafka.results import RequestFailed
from reconciler.model import entities
from reconciler.model.kinds import Kind

NameFilter = Callable[[str], bool]
# (resource type, name, the config keys asked for: None for all of them), as reconciler.kafka.read sends them
Resource = tuple[int, str, tuple[str, ...] | None]
_KIND_OF_TYPE = {type_id: kind for kind, type_id in entities.RESOURCE_TYPE_IDS.items()}


def list_names(wire: wire_mod.Wire, kinds: Iterable[Kind]) -> dict[Kind, set[str]]:
    """The names of the live entities of ``kinds`` (those with a config set), in one ListConfigResources request."""
    wanted = sorted(set(kinds), key=lambda k: k.value)
    found: dict[Kind, set[str]] = {kind: set() for kind in wanted}
    if not wanted:
        return found
    if wire.capabilities().get("ListConfigResources", 0) >= 1:
        request = ListConfigResourcesRequest(resource_types=[entities.RESOURCE_TYPE_IDS[k] for k in wanted])
    else:  # version 0 lists client-metrics subscriptions only (the group kind needs version 1 to be read at all)
        request = ListConfigResourcesRequest()
    response = wire.send(request)
    wire.check_top_level(response, api="ListConfigResources")
    for resource in response.config_resources:
        kind = _KIND_OF_TYPE.get(int(getattr(resource, "resource_type", 16)))
        if kind in found:
            found[kind].add(str(resource.resource_name))
    return found


def resources(
    wire: wire_mod.Wire,
    *,
    kinds: frozenset[Kind],
    declared: Mapping[Kind, frozenset[str]],
    owned: Mapping[Kind, NameFilter],
    named: Mapping[Kind, frozenset[str] | None],
) -> list[Resource]:
    """The DescribeConfigs resources of the entities to read: for each of ``kinds``, the ``named`` ones (a targeted
    read), else the declared ones and the listed ones ``owned`` accepts (listing only the kinds with such rules)."""
    listing = [k for k in kinds if named.get(k) is None and k in owned]
    listed = list_names(wire, listing) if listing else {}
    out: list[Resource] = []
    for kind in sorted(kinds, key=lambda k: k.value):
        names = named.get(kind)
        if names is None:
            accept = owned.get(kind)
            names = frozenset(declared.get(kind, frozenset())) | {
                n for n in listed.get(kind, ()) if accept is not None and accept(n)
            }
        out.extend((entities.RESOURCE_TYPE_IDS[kind], n, None) for n in sorted(names))
    return out


def is_entity(resource_type: int) -> bool:
    """Whether a DescribeConfigs result is a group config or a client-metrics subscription."""
    return resource_type in _KIND_OF_TYPE


def file_result(
    res: Any,
    sections: dict[Kind, dict[str, dict[str, str | None]]],
    *,
    wire: Any,
    unread: dict[Kind, dict[str, RequestFailed]] | None = None,
    fallbacks: dict[Kind, dict[str, str | None]] | None = None,
) -> None:
    """File one DescribeConfigs result of an entity into ``sections`` (only the values set on the entity); a result
    refused for lack of a right goes to ``unread`` (the refusal with its grant hint) when given, else is raised; the
    value each key not set on the entity falls back to (the broker's ``group.*`` setting) goes to ``fallbacks``."""
    kind = _KIND_OF_TYPE[int(res.resource_type)]
    name = str(res.resource_name)
    if res.error_code:
        error = _describe_error(res, kind=kind, name=name, wire=wire)
        if unread is None or not rights.is_authorization_error(codes.error_name(res.error_code)):
            raise error
        unread.setdefault(kind, {})[name] = error
        return
    own = entities.DYNAMIC_SOURCES[kind]
    values = {str(e.name): None if e.is_sensitive else e.value for e in res.configs if e.config_source == own}
    if fallbacks is not None and entities.ENTITIES[kind].broker_fallbacks:  # the same for every entity: one fills it
        known = fallbacks.setdefault(kind, {})
        for e in res.configs:
            if str(e.name) in known:
                continue
            if e.config_source != own:
                known[str(e.name)] = None if e.is_sensitive else e.value
            elif not e.is_sensitive:  # set on the group: the broker's setting is among its synonyms, when asked for
                below = next((s for s in getattr(e, "synonyms", None) or () if s.source != own), None)
                if below is not None:
                    known[str(e.name)] = below.value
    section = sections.setdefault(kind, {})
    if values:
        section[name] = dict(sorted(values.items()))


def _describe_error(res: Any, *, kind: Kind, name: str, wire: Any) -> RequestFailed:
    declared = entities.ENTITIES[kind]
    label = f"{declared.noun} {name}"
    return config_results.describe_failed(res, label=label, right=declared.describe_api, name=name, wire=wire)

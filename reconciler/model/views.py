"""The live view of a resource, per kind: plain JSON data of what a change's fingerprint covers (``None``: absent).

Each kind's declaration (``reconciler.kinds``) names its view function here as ``KindSpec.live_view``; the planner
fingerprints the view when it builds a change, and apply computes the same view on a fresh read to find out whether
the resource moved since the plan was made (``reconciler.planner.views.live_view``). The ACL and quota views look
the resource up by its change name through an index built once per live section.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from reconciler.model import entities, state
from reconciler.model.kinds import Kind

_ADDRESS_CACHE: dict[str, tuple[object, dict[str, Any]]] = {}


def acl_name(binding: state.AclBinding) -> str:
    """``Change.name`` of an ACL: its address without the ``acl/`` prefix."""
    return binding.address.removeprefix(Kind.ACL.prefix)


def quota_name(entity: state.QuotaEntity) -> str:
    """``Change.name`` of a quota entity: its address without the ``quota/`` prefix."""
    return entity.address.removeprefix(Kind.QUOTA.prefix)


def topic_view(topic: state.TopicState | None) -> dict[str, Any] | None:
    if topic is None:
        return None
    return {
        "name": topic.name,
        "internal": topic.internal,
        "assignment": [list(r) for r in topic.assignment],
        "configs": dict(sorted(topic.configs.items())),
    }


def acl_view(binding: state.AclBinding, present: bool) -> dict[str, str] | None:
    return binding.to_dict() if present else None


def quota_view(entity: state.QuotaEntity, values: Mapping[str, float] | None) -> dict[str, Any] | None:
    if not values:
        return None
    return {"entity": entity.to_list(), "values": dict(sorted(values.items()))}


def scram_view(user: str, credentials: Iterable[state.ScramCredential] | None) -> dict[str, Any] | None:
    creds = sorted(credentials or (), key=lambda c: c.mechanism)
    if not creds:
        return None
    return {"name": user, "credentials": {c.mechanism: {"iterations": c.iterations} for c in creds}}


def broker_config_view(broker: str, configs: Mapping[str, str | None] | None) -> dict[str, Any]:
    """A broker entry without dynamic configs and a missing entry look the same."""
    return {"broker": broker, "configs": dict(sorted((configs or {}).items()))}


# Connect's status of a connector whose target state is running: between two assignments (a worker joining or
# leaving makes the group rebalance) it is UNASSIGNED or RESTARTING for a while; FAILED is planned like running.
RUNNING_STATES = frozenset({"RUNNING", "UNASSIGNED", "RESTARTING", "FAILED"})


def connector_target_state(status: str) -> str:
    """The target state a connector's status stands for: ``RUNNING`` for every state a running one passes through
    (so a rebalance between plan and apply does not make the plan stale), else the status (``PAUSED``, ...)."""
    return "RUNNING" if status in RUNNING_STATES else status


def connector_view(c: state.ConnectorState | None) -> dict[str, Any] | None:
    """A connector's config (secrets as digests) and target state; task status is not part of it (it moves)."""
    if c is None:
        return None
    return {"name": c.name, "config": dict(sorted(c.config.items())), "state": connector_target_state(c.state)}


def _by_address(section: str, items: object, keyed: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    cached = _ADDRESS_CACHE.get(section)
    if cached is not None and cached[0] is items:
        return cached[1]
    index = dict(keyed)
    _ADDRESS_CACHE[section] = (items, index)
    return index


def acl_in(acls: Iterable[state.AclBinding], name: str) -> dict[str, str] | None:
    """The view of ACL ``name`` (its address without ``acl/``) among the live ``acls``."""
    index = _by_address("acl", acls, ((acl_name(b), b) for b in acls))
    binding = index.get(name)
    return None if binding is None else acl_view(binding, True)


def quota_in(quotas: Mapping[state.QuotaEntity, Mapping[str, float]], name: str) -> dict[str, Any] | None:
    """The view of quota entity ``name`` (its address without ``quota/``) among the live ``quotas``."""
    index = _by_address("quota", quotas, ((quota_name(e), e) for e in quotas))
    entity = index.get(name)
    return None if entity is None else quota_view(entity, quotas[entity])


def entity_in(section: Mapping[str, Mapping[str, str | None]], name: str) -> dict[str, object] | None:
    """The view of config entity ``name`` (a group's or a client-metrics subscription's configs)."""
    return entities.view(name, section.get(name))

"""Plain-data views of live resources, and the fingerprints a plan records for staleness checks.

``live_view(live, kind=..., name=...)`` is the ONE definition of "the live resource" per kind: the
planner fingerprints it when it builds a change, and apply calls the same function on a fresh read
to find out whether the resource moved since the plan was made. ``name`` is ``Change.name``.
``live_fingerprint(live, kinds=...)`` covers whole sections (every resource of the kinds read), so
any change in those sections, owned or not, makes a saved plan stale by that check.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from reconciler import desired, state

_ADDRESS_CACHE: dict[str, tuple[object, dict[str, Any]]] = {}


def address(kind: str, name: str) -> str:
    """The plan address of a resource: ``topic/orders``, ``scram_user/alice``, ``broker_config/<default>``."""
    return f"{kind}/{name}"


def acl_name(binding: state.AclBinding) -> str:
    """``Change.name`` of an ACL: its address without the ``acl/`` prefix."""
    return binding.address[len("acl/") :]


def quota_name(entity: state.QuotaEntity) -> str:
    """``Change.name`` of a quota entity: its address without the ``quota/`` prefix."""
    return entity.address[len("quota/") :]


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


def _by_address(section: str, items: object, keyed: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    cached = _ADDRESS_CACHE.get(section)
    if cached is not None and cached[0] is items:
        return cached[1]
    index = dict(keyed)
    _ADDRESS_CACHE[section] = (items, index)
    return index


def live_view(live: state.ClusterState, *, kind: str, name: str) -> Any:
    """The live resource ``kind``/``name`` as plain JSON data, or ``None`` when it does not exist."""
    if kind == desired.KIND_TOPIC:
        return topic_view(None if live.topics is None else live.topics.get(name))
    if kind == desired.KIND_ACL:
        acls = live.acls or frozenset()
        index = _by_address("acl", acls, ((acl_name(b), b) for b in acls))
        binding = index.get(name)
        return None if binding is None else acl_view(binding, True)
    if kind == desired.KIND_QUOTA:
        quotas = live.quotas or {}
        index = _by_address("quota", quotas, ((quota_name(e), e) for e in quotas))
        entity = index.get(name)
        return None if entity is None else quota_view(entity, quotas[entity])
    if kind == desired.KIND_SCRAM:
        return scram_view(name, (live.scram_users or {}).get(name))
    if kind == desired.KIND_BROKER_CONFIG:
        return broker_config_view(name, (live.broker_configs or {}).get(name))
    raise ValueError(f"unknown resource kind {kind!r}")


def fingerprint_of(view: Any) -> str | None:
    """``state.fingerprint`` of a view, ``None`` for an absent resource."""
    return None if view is None else state.fingerprint(view)


def live_fingerprint(live: state.ClusterState, *, kinds: Iterable[str]) -> str:
    """Fingerprint of every section of ``live`` that a plan over ``kinds`` depends on, plus the cluster id."""
    wanted = set(kinds)
    doc: dict[str, Any] = {"cluster_id": live.cluster_id}
    if desired.KIND_TOPIC in wanted:
        doc["topics"] = None if live.topics is None else [topic_view(live.topics[n]) for n in sorted(live.topics)]
    if desired.KIND_ACL in wanted:
        doc["acls"] = None if live.acls is None else [b.to_dict() for b in sorted(live.acls)]
    if desired.KIND_QUOTA in wanted:
        doc["quotas"] = None if live.quotas is None else [quota_view(e, v) for e, v in sorted(live.quotas.items())]
    if desired.KIND_SCRAM in wanted:
        doc["scram_users"] = (
            None if live.scram_users is None else [scram_view(u, c) for u, c in sorted(live.scram_users.items())]
        )
    if desired.KIND_BROKER_CONFIG in wanted:
        doc["broker_configs"] = (
            None
            if live.broker_configs is None
            else [broker_config_view(b, c) for b, c in sorted(live.broker_configs.items()) if c]
        )
    return state.fingerprint(doc)

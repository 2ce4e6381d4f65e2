"""Turn plan changes into the arguments of the adapter's batched calls.

Every phase runner goes through this module. It reads a change's typed payloads
(``reconciler.model.payloads``) and ``attributes``; ``topic``/``scram``/... below give the payload of
the expected type, or ``CannotTranslate`` naming the change when a plan file held data of another shape.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TypeVar

from reconciler.apply import secretref
from reconciler.connection.settings import Secret
from reconciler.kafka import results
from reconciler.model import payloads, plans, state

CONFIG_PREFIX = "configs."


class CannotTranslate(ValueError):
    """A change lacks what is needed to send it (e.g. a redacted value in a saved plan)."""


P = TypeVar("P", payloads.TopicPayload, payloads.AclPayload, payloads.QuotaPayload, payloads.ScramPayload)


def _payload(change: plans.Change, payload: payloads.Payload | None, of: type[P]) -> P | None:
    """``payload`` as ``of``; ``CannotTranslate`` naming the change when the plan file held another shape."""
    if payload is None or isinstance(payload, of):
        return payload
    if isinstance(payload, payloads.Unreadable):
        raise CannotTranslate(f"{change.address}: {payload.problem}")
    raise CannotTranslate(f"{change.address}: the change's data is not a {change.kind} description")


def topic(change: plans.Change, *, before: bool = False) -> payloads.TopicPayload:
    """A topic change's payload (``after`` unless ``before``); an empty one when the plan holds none."""
    found = _payload(change, change.before if before else change.after, payloads.TopicPayload)
    return found or payloads.TopicPayload()


def _revealed(change: plans.Change, key: str, reveal: secretref.Reveal | None) -> str:
    value = None if reveal is None else reveal(change.kind, change.name, key)
    if value is None:
        raise CannotTranslate(
            f"the plan holds the sensitive value of {key} redacted; apply with the manifests so it can be read"
        )
    return value


def redacted_keys(change: plans.Change) -> list[str]:
    """Config keys whose new value the plan holds only as ``plan.REDACTED``."""
    keys = [
        a.name[len(CONFIG_PREFIX) :]
        for a in change.attributes
        if a.name.startswith(CONFIG_PREFIX) and a.after == plans.REDACTED
    ]
    if change.phase is plans.Phase.TOPIC_CREATE:
        keys += [k for k, v in (topic(change).configs or {}).items() if v == plans.REDACTED]
    return sorted(set(keys))


def topic_spec(change: plans.Change, reveal: secretref.Reveal | None = None) -> results.TopicSpec:
    after = topic(change)
    configs = {
        k: _revealed(change, k, reveal) if v == plans.REDACTED else v
        for k, v in (after.configs or {}).items()
        if v is not None
    }
    if after.assignment:
        return results.TopicSpec(name=change.name, assignment=after.assignment, configs=configs)
    if after.partitions is None or after.replication_factor is None:
        raise CannotTranslate(f"{change.address}: the plan gives no partition count or replication factor")
    return results.TopicSpec(
        name=change.name,
        partitions=after.partitions,
        replication_factor=after.replication_factor,
        configs=configs,
    )


def partitions_total(change: plans.Change) -> int:
    total = topic(change).partitions
    if total is None:
        raise CannotTranslate(f"{change.address}: the plan gives no partition count")
    return total


def config_ops(change: plans.Change, reveal: secretref.Reveal | None = None) -> list[results.ConfigOp]:
    """IncrementalAlterConfigs operations from ``configs.<key>`` attributes: SET or DELETE."""
    ops: list[results.ConfigOp] = []
    for attr in change.attributes:
        if not attr.name.startswith(CONFIG_PREFIX):
            continue
        key = attr.name[len(CONFIG_PREFIX) :]
        if attr.after is None or change.action is plans.Action.DELETE:
            ops.append(results.ConfigOp("DELETE", key))
        elif attr.after == plans.REDACTED:
            ops.append(results.ConfigOp("SET", key, Secret(_revealed(change, key, reveal))))
        else:
            ops.append(results.ConfigOp("SET", key, str(attr.after)))
    return ops


def acl_binding(change: plans.Change) -> state.AclBinding:
    side = change.before if change.action is plans.Action.DELETE else change.after
    found = _payload(change, side, payloads.AclPayload)
    if found is None:
        raise CannotTranslate(f"{change.address}: the plan does not describe the binding")
    return found.binding


_QUOTA_PART = re.compile(r",(?=(?:" + "|".join(re.escape(t) for t in state.QUOTA_ENTITY_TYPES) + r")=)")


def quota_entity(change: plans.Change) -> state.QuotaEntity:
    """The entity from the change's name, ``user=alice,client-id=<default>`` (see ``QuotaEntity.address``)."""
    parts = []
    for part in _QUOTA_PART.split(change.name):
        entity_type, sep, name = part.partition("=")
        if not sep or entity_type not in state.QUOTA_ENTITY_TYPES:
            raise CannotTranslate(f"{change.address}: not a quota entity")
        parts.append((entity_type, None if name == "<default>" else name))
    return state.QuotaEntity(tuple(sorted(parts, key=lambda p: (p[0], p[1] or ""))))


def quota_values(change: plans.Change) -> dict[str, float | None]:
    """Keys to set (float) and keys to remove (``None``)."""
    found = _payload(change, change.before, payloads.QuotaPayload)
    before = {} if found is None else dict(found.values)
    found = None if change.action is plans.Action.DELETE else _payload(change, change.after, payloads.QuotaPayload)
    after = {} if found is None else dict(found.values)
    out: dict[str, float | None] = {k: float(v) for k, v in after.items()}
    out.update({k: None for k in before if k not in after})
    return out


def reassignment_targets(change: plans.Change) -> dict[int, tuple[int, ...]]:
    """Partition -> target replica list, for partitions whose replicas change."""
    before = topic(change, before=True).assignment or ()
    after = topic(change).assignment or ()
    return {p: target for p, target in enumerate(after) if p >= len(before) or before[p] != target}


@dataclasses.dataclass(frozen=True, slots=True)
class ScramChange:
    """The credentials one SCRAM change sets (mechanism -> iterations) and removes, and the password reference."""

    user: str
    upserts: dict[str, int]
    deletions: tuple[str, ...]
    password: str | None


def scram_change(change: plans.Change) -> ScramChange:
    """What to upsert and delete for a ``scram_user`` change."""
    had = _payload(change, change.before, payloads.ScramPayload)
    wants = _payload(change, change.after, payloads.ScramPayload)
    before = {} if had is None else dict(had.credentials)
    after = {} if wants is None or change.action is plans.Action.DELETE else dict(wants.credentials)
    if change.action is not plans.Action.DELETE and not after:
        raise CannotTranslate(f"{change.address}: the plan names no credential to set")
    return ScramChange(
        user=change.name,
        upserts=after,
        deletions=tuple(sorted(m for m in before if m not in after)),
        password=None if wants is None else wants.password,
    )


def broker_resource(change: plans.Change) -> str:
    """The broker id, or ``state.CLUSTER_DEFAULT`` for the cluster-wide default."""
    return change.name


def config_resource(resource_type: str, name: str) -> str:
    """The adapter's result key of a config resource: ``topic:orders``, ``broker:1``, ``broker:<default>``."""
    return f"{resource_type.lower()}:{name}"


def config_target(key: str) -> tuple[str, str]:
    """The adapter's request key ``(resource_type, name)`` of a result key made by ``config_resource``."""
    resource_type, _, name = key.partition(":")
    return resource_type.upper(), name

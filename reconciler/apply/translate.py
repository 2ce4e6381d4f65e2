"""Turn plan changes (plain JSON data) into the arguments of the adapter's batched calls.

This is the one place that knows how the planner lays out ``Change.before``/``after`` and
``attributes`` for each kind; every phase runner goes through it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

from reconciler import plan as plan_model
from reconciler import state
from reconciler.apply import secretref
from reconciler.connection import Secret
from reconciler.kafka import results

CONFIG_PREFIX = "configs."


class CannotTranslate(ValueError):
    """A change lacks what is needed to send it (e.g. a redacted value in a saved plan)."""


def _revealed(change: plan_model.Change, key: str, reveal: secretref.Reveal | None) -> str:
    value = None if reveal is None else reveal(change.kind, change.name, key)
    if value is None:
        raise CannotTranslate(
            f"the plan holds the sensitive value of {key} redacted; apply with the manifests so it can be read"
        )
    return value


def redacted_keys(change: plan_model.Change) -> list[str]:
    """Config keys whose new value the plan holds only as ``plan.REDACTED``."""
    keys = [
        a.name[len(CONFIG_PREFIX) :]
        for a in change.attributes
        if a.name.startswith(CONFIG_PREFIX) and a.after == plan_model.REDACTED
    ]
    if change.phase is plan_model.Phase.TOPIC_CREATE:
        keys += [k for k, v in ((change.after or {}).get("configs") or {}).items() if v == plan_model.REDACTED]
    return sorted(set(keys))


def topic_spec(change: plan_model.Change, reveal: secretref.Reveal | None = None) -> results.TopicSpec:
    after = change.after or {}
    assignment = after.get("assignment")
    configs = {
        str(k): _revealed(change, str(k), reveal) if v == plan_model.REDACTED else str(v)
        for k, v in (after.get("configs") or {}).items()
        if v is not None
    }
    if assignment:
        return results.TopicSpec(
            name=change.name, assignment=tuple(tuple(int(b) for b in r) for r in assignment), configs=configs
        )
    return results.TopicSpec(
        name=change.name,
        partitions=int(after["partitions"]),
        replication_factor=int(after["replication_factor"]),
        configs=configs,
    )


def partitions_total(change: plan_model.Change) -> int:
    return int((change.after or {})["partitions"])


def config_ops(change: plan_model.Change, reveal: secretref.Reveal | None = None) -> list[results.ConfigOp]:
    """IncrementalAlterConfigs operations from ``configs.<key>`` attributes: SET or DELETE."""
    ops: list[results.ConfigOp] = []
    for attr in change.attributes:
        if not attr.name.startswith(CONFIG_PREFIX):
            continue
        key = attr.name[len(CONFIG_PREFIX) :]
        if attr.after is None or change.action is plan_model.Action.DELETE:
            ops.append(results.ConfigOp("DELETE", key))
        elif attr.after == plan_model.REDACTED:
            ops.append(results.ConfigOp("SET", key, Secret(_revealed(change, key, reveal))))
        else:
            ops.append(results.ConfigOp("SET", key, str(attr.after)))
    return ops


def acl_binding(change: plan_model.Change) -> state.AclBinding:
    data = change.before if change.action is plan_model.Action.DELETE else change.after
    if not isinstance(data, Mapping):
        raise CannotTranslate(f"{change.address}: the plan does not describe the binding")
    return state.AclBinding.from_dict(data)


_QUOTA_PART = re.compile(r",(?=(?:" + "|".join(re.escape(t) for t in state.QUOTA_ENTITY_TYPES) + r")=)")


def quota_entity(change: plan_model.Change) -> state.QuotaEntity:
    """The entity from the change's name, ``user=alice,client-id=<default>`` (see ``QuotaEntity.address``)."""
    parts = []
    for part in _QUOTA_PART.split(change.name):
        entity_type, sep, name = part.partition("=")
        if not sep or entity_type not in state.QUOTA_ENTITY_TYPES:
            raise CannotTranslate(f"{change.address}: not a quota entity")
        parts.append((entity_type, None if name == "<default>" else name))
    return state.QuotaEntity(tuple(sorted(parts, key=lambda p: (p[0], p[1] or ""))))


def quota_values(change: plan_model.Change) -> dict[str, float | None]:
    """Keys to set (float) and keys to remove (``None``)."""
    before = dict(change.before or {})
    after = {} if change.action is plan_model.Action.DELETE else dict(change.after or {})
    out: dict[str, float | None] = {k: float(v) for k, v in after.items()}
    out.update({k: None for k in before if k not in after})
    return out


def reassignment_targets(change: plan_model.Change) -> dict[int, tuple[int, ...]]:
    """Partition -> target replica list, for partitions whose replicas change."""
    before: Sequence[Sequence[int]] = (change.before or {}).get("assignment") or ()
    after: Sequence[Sequence[int]] = (change.after or {}).get("assignment") or ()
    targets: dict[int, tuple[int, ...]] = {}
    for p, replicas in enumerate(after):
        target = tuple(int(b) for b in replicas)
        if p >= len(before) or tuple(before[p]) != target:
            targets[p] = target
    return targets


@dataclasses.dataclass(frozen=True, slots=True)
class ScramChange:
    """The credentials one SCRAM change sets (mechanism -> iterations) and removes, and the password reference."""

    user: str
    upserts: dict[str, int]
    deletions: tuple[str, ...]
    password: str | None


def _credentials(data: Any) -> dict[str, int]:
    creds = (data or {}).get("credentials") or {}
    return {str(m): int((v or {}).get("iterations") or 0) for m, v in creds.items()}


def scram_change(change: plan_model.Change) -> ScramChange:
    """What to upsert and delete for a ``scram_user`` change."""
    before = _credentials(change.before)
    after = {} if change.action is plan_model.Action.DELETE else _credentials(change.after)
    if change.action is not plan_model.Action.DELETE and not after:
        raise CannotTranslate(f"{change.address}: the plan names no credential to set")
    password = (change.after or {}).get("password")
    return ScramChange(
        user=change.name,
        upserts=after,
        deletions=tuple(sorted(m for m in before if m not in after)),
        password=None if password is None else str(password),
    )


def broker_resource(change: plan_model.Change) -> str:
    """The broker id, or ``state.CLUSTER_DEFAULT`` for the cluster-wide default."""
    return change.name


def config_resource(resource_type: str, name: str) -> str:
    """The adapter's result key of a config resource: ``topic:orders``, ``broker:1``, ``broker:<default>``."""
    return f"{resource_type.lower()}:{name}"


def config_target(key: str) -> tuple[str, str]:
    """The adapter's request key ``(resource_type, name)`` of a result key made by ``config_resource``."""
    resource_type, _, name = key.partition(":")
    return resource_type.upper(), name

"""Guards on declared topics: internal topics need an explicit opt-in; a name must not collide with a live topic.

* A topic internal to Kafka or to a tool around it (consumer offsets, transactions, Schema Registry, Connect
  storage, Kafka Streams changelog and repartition topics, MirrorMaker 2) keeps that tool working only with the
  settings the tool chose: a partition increase of ``__consumer_offsets`` moves every group's coordinator, a reset
  of its ``cleanup.policy`` deletes committed offsets. A change the plan would make to such a topic is *blocked*
  with the reason, unless its manifest says ``allowInternal: true``.
* An error-level finding about one resource (a warning with an address) blocks that resource's creates and updates,
  with the finding as the reason; the plan's other changes are unaffected.
* Kafka refuses a topic whose name equals an existing one once '.' and '_' are treated alike (they collide in
  metric names). A create of such a name is *blocked*, naming the live topic, instead of failing at apply.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping

from reconciler.model import desired, plans, state

# (full-match pattern, what such a topic is, what changing it breaks)
INTERNAL_TOPIC_PATTERNS: tuple[tuple[str, str, str], ...] = (
    (
        r"__.*",
        "run by Kafka itself (consumer offsets, transactions, cluster metadata, share groups)",
        "every consumer group, transaction or the cluster itself",
    ),
    (r"_schemas", "Schema Registry's schema store", "Schema Registry and every client that reads schemas"),
    (r"_confluent.*", "run by a Confluent Platform component", "that component"),
    (
        r"(?:.*[-_.])?connect(?:[-_.].*)?-(?:configs|offsets|status)",
        "Kafka Connect's storage (connector configs, source offsets or status)",
        "the Connect cluster and its connectors",
    ),
    (r".*\.internal", "MirrorMaker 2's (offset syncs, checkpoints, heartbeats)", "replication between the clusters"),
    (
        r".+-(?:changelog|repartition|subscription-registration-topic|subscription-response-topic)",
        "a Kafka Streams application's changelog or repartition topic",
        "the application's state stores and joins",
    ),
)
_INTERNAL = tuple((re.compile(p), what, breaks) for p, what, breaks in INTERNAL_TOPIC_PATTERNS)
_ANY_INTERNAL = re.compile("|".join(f"(?:{p})" for p, _, _ in INTERNAL_TOPIC_PATTERNS))


def is_internal(name: str, topic: state.TopicState | None = None) -> bool:
    """Whether a topic is internal: flagged so by the broker, or named like a tool's internal topic."""
    return (topic is not None and topic.internal) or _ANY_INTERNAL.fullmatch(name) is not None


def internal_reason(name: str, topic: state.TopicState | None, ownership: desired.Ownership) -> str | None:
    """Why a create or change of ``name`` is refused as internal (``None`` when the topic is not internal)."""
    found = next(((what, breaks) for pattern, what, breaks in _INTERNAL if pattern.fullmatch(name)), None)
    if found is None and topic is not None and topic.internal:
        found = ("flagged internal by the broker", "the brokers")
    if found is None and ownership.declares_internal(name):
        found = ("named internal by the Ownership rules or a ConnectWorker's storage topics", "the tool that runs it")
    if found is None:
        return None
    what, breaks = found
    return (
        f"{name} is an internal topic, {what}: changing it can break {breaks}. The tool does not create or change "
        "internal topics unless the topic's manifest says allowInternal: true"
    )


def block(changes: list[plans.Change], start: int, reason: str) -> None:
    """Turn the creates and updates from ``changes[start:]`` into blocked changes that give ``reason`` first."""
    for i in range(start, len(changes)):
        c = changes[i]
        if c.action in (plans.Action.CREATE, plans.Action.UPDATE):
            changes[i] = dataclasses.replace(c, action=plans.Action.BLOCKED, reasons=(reason, *c.reasons))


def block_at_errors(changes: list[plans.Change], warnings: Iterable[plans.PlanWarning]) -> None:
    """Block the creates and updates of each resource an error-level finding names (by its address)."""
    why: dict[str, str] = {}
    for w in warnings:
        if w.severity == "error" and w.address is not None:
            why.setdefault(w.address, f"error: [{w.code}] {w.message}")
    if not why:
        return
    for i, c in enumerate(changes):
        reason = why.get(c.address)
        if reason is not None:
            _block_one(changes, i, reason)


def _block_one(changes: list[plans.Change], i: int, reason: str) -> None:
    c = changes[i]
    if c.action in (plans.Action.CREATE, plans.Action.UPDATE, plans.Action.DELETE):
        changes[i] = dataclasses.replace(c, action=plans.Action.BLOCKED, reasons=(reason, *c.reasons))


def live_collisions(missing: Iterable[str], live: Mapping[str, state.TopicState]) -> dict[str, str]:
    """Declared name (not on the cluster) -> the live topic it collides with once '.' and '_' are alike."""
    by_key = {desired.topic_collision_key(n): n for n in missing}
    if not by_key:
        return {}
    out: dict[str, str] = {}
    for name in live:
        declared = by_key.get(desired.topic_collision_key(name))
        if declared is not None and declared != name:
            out[declared] = name
    return out


def collision_problem(name: str, other: str) -> str:
    return (
        f"the name collides with the live topic {other!r}: Kafka treats '.' and '_' alike in metric names and "
        f"refuses to create {name!r} (INVALID_TOPIC_EXCEPTION); rename it, or declare {other!r} instead"
    )

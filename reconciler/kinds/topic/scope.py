"""What a saved plan of topics depends on: the live topics its scope covers (``SCOPE``, the kind's ``scope`` part,
read by ``reconciler.planner.scope``) and the topics' part of the live fingerprint (``topic_rows``, its
``fingerprint_rows`` part, read by ``reconciler.planner.views.live_fingerprint``).
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Mapping
from typing import Any

from reconciler.kinds import spec
from reconciler.model import state
from reconciler.planner import guards


def _owns_topic(rules: spec.Rules, name: str, topic: state.TopicState | None) -> bool:
    """Whether the topic rules own ``name``: internal topics (the broker's flag, a tool's name, the Ownership
    internal-topic rules) excepted, as the planner excepts them."""
    if not any(p.matches(name) for p in rules.get("topics", ())):
        return False
    return not (guards.is_internal(name, topic) or any(p.matches(name) for p in rules.get("internal_topics", ())))


def _keep_topics(live: state.ClusterState, keep: Callable[[Any, Any], bool]) -> state.ClusterState:
    if live.topics is None:
        return live
    return dataclasses.replace(live, topics={n: t for n, t in live.topics.items() if keep(n, t)})


# The topics' part of a plan's scope (``reconciler.planner.scope``).
SCOPE = spec.KindScope(
    rule_sets=(
        spec.RuleSet("topics", lambda own: own.topics),
        spec.RuleSet("internal_topics", lambda own: own.internal_topics, always=True),
    ),
    owns=_owns_topic,
    keep=_keep_topics,
    count=lambda live: None if live.topics is None else len(live.topics),
)


class _Table:
    """Numbers distinct values in order of first use, so repeated values are stored once."""

    def __init__(self) -> None:
        self.index: dict[Any, int] = {}

    def __call__(self, value: Any) -> int:
        found = self.index.get(value)
        if found is None:
            found = self.index[value] = len(self.index)
        return found

    def values(self) -> list[Any]:
        return list(self.index)


def _topic_rows(topics: Mapping[str, state.TopicState]) -> list[Any]:
    """One row per topic in name order; assignments, config key sets and value lists are numbered.

    A row is ``(name, internal, assignment no., key-set no., values no.)``; the numbers count
    distinct values in order of first use, so equal states give equal rows and tables.
    """
    key_sets, value_lists, assignments = _Table(), _Table(), _Table()
    getters: dict[tuple[str, ...], tuple[int, Any]] = {}
    rows: list[Any] = []
    append = rows.append
    for name in sorted(topics):
        topic = topics[name]
        cfg = topic.configs
        keys = tuple(cfg)
        entry = getters.get(keys)
        if entry is None:
            ordered = tuple(sorted(keys))
            getter: Any = _values_of(ordered)
            if len(ordered) > 1:
                getter = operator.itemgetter(*ordered)
            entry = getters[keys] = (key_sets(ordered), getter)
        append((name, topic.internal, assignments(topic.assignment), entry[0], value_lists(entry[1](cfg))))
    return [rows, key_sets.values(), value_lists.values(), assignments.values()]


def _values_of(ordered: tuple[str, ...]) -> Any:
    return lambda cfg: tuple(cfg[k] for k in ordered)


def topic_rows(live: state.ClusterState) -> list[Any] | None:
    """The topics' part of a live fingerprint (their ``fingerprint_rows`` part, ``_topic_rows``)."""
    return None if live.topics is None else _topic_rows(live.topics)

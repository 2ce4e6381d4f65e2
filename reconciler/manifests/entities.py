"""``GroupConfig`` and ``ClientMetrics`` documents -> ``DesiredEntityConfig``s, checked against the catalogue.

A group config names its keys from ``catalogue.GROUP_CONFIGS`` (an unknown key is an error with a did-you-mean, as
the broker refuses it: ``Unknown group config name``); values are converted like topic configs (``45s`` ->
``45000``) and checked for type and range. A client-metrics subscription's ``metrics``, ``intervalMs`` and
``match`` become the three settings Kafka stores (``metrics`` and ``match`` comma-joined), with the selectors and
regular expressions checked as the broker checks them. Bounds that depend on the broker's own settings (a group's
session timeout within ``group.consumer.min/max.session.timeout.ms``) are left to apply's validateOnly request.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from reconciler.manifests import loader, models, topics
from reconciler.model import catalogue, configs, desired

ErrorSink = Callable[..., None]


class EntityBuilder:
    """Builds the group configs and client-metrics subscriptions of a load, reporting through ``error``."""

    def __init__(self, error: ErrorSink) -> None:
        self.error = error
        self.group_configs: dict[str, desired.DesiredEntityConfig] = {}
        self.client_metrics: dict[str, desired.DesiredEntityConfig] = {}

    def add_group_config(self, doc: loader.Document) -> None:
        spec: models.GroupConfigSpec = doc.spec
        group = spec.group if spec.group is not None else doc.name
        out: dict[str, str] = {}
        for key, value in spec.configs.items():
            path = ("spec", "configs", key)
            meta = catalogue.GROUP_CONFIGS.get(key)
            if meta is None:
                hint = configs.suggest(key, list(catalogue.GROUP_CONFIGS))
                self.error(
                    doc,
                    path,
                    f"{key!r} is not a group config Kafka knows",
                    key=True,
                    hint=f"did you mean {hint}?" if hint else "group configs: " + ", ".join(catalogue.GROUP_CONFIGS),
                )
                continue
            problems = configs.validate_config(meta, value)
            for problem in problems:
                self.error(doc, path, problem)
            if not problems:
                out[key] = configs.canonical(key, value)
        self._keep(doc, self.group_configs, group, out, what=f"group {group!r}", field=("spec", "group"))

    def add_client_metrics(self, doc: loader.Document) -> None:
        spec: models.ClientMetricsSpec = doc.spec
        out: dict[str, str] = {}
        for index, prefix in enumerate(spec.metrics):
            if "," in prefix or prefix != prefix.strip():
                self.error(doc, ("spec", "metrics", index), f"metric prefix {prefix!r} has a comma or spaces")
        out["metrics"] = ",".join(spec.metrics)
        if spec.interval_ms is not None:
            self._setting(doc, out, "interval.ms", spec.interval_ms, ("spec", "intervalMs"))
        for selector, pattern in spec.match.items():
            path = ("spec", "match", selector)
            if selector not in catalogue.CLIENT_METRICS_SELECTORS:
                hint = configs.suggest(selector, catalogue.CLIENT_METRICS_SELECTORS)
                self.error(
                    doc,
                    path,
                    f"{selector!r} is not a client-metrics selector",
                    key=True,
                    hint=f"did you mean {hint}?"
                    if hint
                    else "selectors: " + ", ".join(catalogue.CLIENT_METRICS_SELECTORS),
                )
                continue
            problem = _regex_problem(pattern)
            if problem is not None:
                self.error(doc, path, problem)
        if spec.match:
            out["match"] = ",".join(f"{k}={v}" for k, v in spec.match.items())
        self._keep(doc, self.client_metrics, doc.name, out, what=f"client-metrics subscription {doc.name!r}")

    def _setting(self, doc: loader.Document, out: dict[str, str], key: str, value: Any, path: tuple[str, ...]) -> None:
        problems = configs.validate_config(catalogue.CLIENT_METRICS_CONFIGS[key], value)
        for problem in problems:
            self.error(doc, path, problem)
        if not problems:
            out[key] = configs.canonical(key, value)

    def _keep(
        self,
        doc: loader.Document,
        into: dict[str, desired.DesiredEntityConfig],
        name: str,
        out: dict[str, str],
        *,
        what: str,
        field: tuple[str, ...] = ("metadata", "name"),
    ) -> None:
        existing = into.get(name)
        if existing is not None:
            self.error(doc, field, f"{what} is declared twice (first at {existing.source})")
            return
        into[name] = desired.DesiredEntityConfig(name=name, configs=out, source=topics.source(doc))


def _regex_problem(pattern: str) -> str | None:
    """Why the broker would refuse ``pattern`` as a match expression (a comma splits the list; Java regex)."""
    if "," in pattern:
        return f"the pattern {pattern!r} has a comma, which Kafka reads as the start of the next selector"
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"invalid regular expression {pattern!r}: {exc}"
    return None

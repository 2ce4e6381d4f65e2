"""Import of client-metrics subscriptions (``add_client_metrics``, the kind's ``adopt`` part):
``client-metrics.yaml``, one ``ClientMetrics`` document per subscription whose settings the manifest language can
hold, its ``metrics`` and ``match`` split back into a list and a map, so the loader reads it back to exactly the live
settings. A setting this version does not know, or a selector that is not one of Kafka's, leaves the subscription out
with a note. The subscriptions imported are the Ownership document's ``clientMetrics``.
"""

from __future__ import annotations

from collections.abc import Mapping

from reconciler.adopt import entities as adopt_entities
from reconciler.adopt import values
from reconciler.adopt.entities import Note
from reconciler.adopt.job import Job
from reconciler.adopt.output import Document, Flow
from reconciler.model import catalogue, entities
from reconciler.model.kinds import Kind, Manifest


def client_metrics_documents(section: entities.Section, note: Note) -> list[Document]:
    """One ``ClientMetrics`` per subscription whose settings the manifest language can hold."""
    docs = []
    for name in sorted(section):
        spec = _subscription(section[name])
        if isinstance(spec, str):
            note(Kind.CLIENT_METRICS.address(name), f"left out: {spec}")
            continue
        docs.append(Document(Manifest.CLIENT_METRICS, name, spec))
    return docs


def _subscription(found: Mapping[str, str | None]) -> dict[str, object] | str:
    """The ``spec`` of a subscription, or why it cannot be written."""
    unknown = sorted(set(found) - set(catalogue.CLIENT_METRICS_CONFIGS))
    if unknown:
        return f"setting(s) {', '.join(unknown)} unknown to this version"
    metrics = [m for m in (found.get("metrics") or "").split(",") if m]
    spec: dict[str, object] = {"metrics": Flow(metrics)}
    interval = found.get("interval.ms")
    if interval is not None:
        spec["intervalMs"] = values.config_value("interval.ms", interval)
    match: dict[str, str] = {}
    for pair in (found.get("match") or "").split(","):
        if not pair:
            continue
        selector, sep, pattern = pair.partition("=")
        if not sep or selector not in catalogue.CLIENT_METRICS_SELECTORS or not pattern:
            return f"match entry {pair!r} is not selector=pattern with a selector Kafka knows"
        match[selector] = pattern
    if match:
        spec["match"] = match
    return spec


def add_client_metrics(job: Job) -> None:
    """``client-metrics.yaml``: the ``ClientMetrics`` documents (``client_metrics_documents``)."""
    adopt_entities.add_documents(
        job, Kind.CLIENT_METRICS, client_metrics_documents, path="client-metrics.yaml", rules="clientMetrics"
    )

"""Import of group configs and client-metrics subscriptions: ``GroupConfig`` and ``ClientMetrics`` documents.

Each live entity becomes one document that the loader reads back to exactly the live configs, so the plan right
after an import is empty: a group's keys with readable values (``50s``), a subscription's ``metrics`` and ``match``
split back into a list and a map. Whatever the manifest language cannot hold (a key this version's catalogue does
not know, a selector that is not one of Kafka's) is left out with a note, as for the other kinds. ``add_group_configs``
and ``add_client_metrics`` are the two kinds' ``adopt`` parts; the names imported are the Ownership document's
``groups`` and ``clientMetrics``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from reconciler.adopt import values
from reconciler.adopt.job import Job
from reconciler.adopt.output import Document, Flow, ManifestFile
from reconciler.model import catalogue, configs, entities
from reconciler.model.kinds import Kind, Manifest

Note = Callable[[str, str], None]


def group_documents(section: entities.Section, note: Note) -> list[Document]:
    """One ``GroupConfig`` per group with configs this version can declare."""
    docs = []
    for group in sorted(section):
        address = Kind.GROUP_CONFIG.address(group)
        kept: dict[str, object] = {}
        for key, text in sorted(section[group].items()):
            spec = catalogue.GROUP_CONFIGS.get(key)
            problem = "not in this version's catalogue" if spec is None else None
            if spec is not None and text is not None:
                problem = "; ".join(configs.validate_config(spec, text)) or None
            if text is None or problem:
                note(address, f"{key}={text} left out: {problem or 'no value'}")
                continue
            kept[key] = values.config_value(key, text)
        if kept:
            docs.append(Document(Manifest.GROUP_CONFIG, group, {"configs": kept}))
    return docs


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


def unread_notes(kind: Kind, unread: Mapping[str, str], note: Note) -> None:
    """A note for each entity of ``kind`` whose configs could not be read, with the refusal and the grant to ask for
    (one note naming the first 20 when there are more than 5): it is neither imported nor owned (the Ownership written
    names only what was imported, so no plan touches it)."""
    if len(unread) > 5:  # a principal scoped to its team's groups on a shared cluster: one line, not hundreds
        text = entities.unread_text(kind, unread, shown=20)
        note(entities.LABELS[kind], f"not imported, their configs could not be read: {text}")
        return
    for name in sorted(unread):
        note(kind.address(name), f"not imported, its configs could not be read: {unread[name]}")


def _add(
    job: Job, kind: Kind, make: Callable[[entities.Section, Note], list[Document]], *, path: str, rules: str
) -> None:
    """The documents of ``kind`` (``make``) in ``path``, their names under the Ownership document's ``rules``."""
    section = entities.live_section(job.live, kind)
    if section is None:
        job.unread(kind, entities.LABELS[kind])
        return
    unread_notes(kind, job.live.unread_entities.get(kind.value, {}), job.report.note)
    docs = make(section, lambda address, message: job.report.note(address, message))
    job.owned[rules] = [d.name for d in docs]
    job.report.counts[entities.LABELS[kind]] = len(docs)
    if docs:
        job.files.append(ManifestFile(path, docs))


def add_group_configs(job: Job) -> None:
    """``groups.yaml``: the ``GroupConfig`` documents (``group_documents``)."""
    _add(job, Kind.GROUP_CONFIG, group_documents, path="groups.yaml", rules="groups")


def add_client_metrics(job: Job) -> None:
    """``client-metrics.yaml``: the ``ClientMetrics`` documents (``client_metrics_documents``)."""
    _add(job, Kind.CLIENT_METRICS, client_metrics_documents, path="client-metrics.yaml", rules="clientMetrics")

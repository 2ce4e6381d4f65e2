"""Topics and TopicDefaults: defaults layered per directory and by name, configs checked and made canonical.

Kafka rules on topics live here too: legal names, names colliding on '.'/'_', ``min.insync.replicas``
against the replication factor, and the shape of an explicit replica assignment.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from reconciler.base import errors
from reconciler.manifests import loader, models, rules, yamlio
from reconciler.model import configs, desired
from reconciler.model.kinds import Manifest

WARNING = errors.Severity.WARNING
Report = Callable[..., None]  # (doc, path, message, **diagnostic fields)


def source(doc: loader.Document, origin: str | None = None) -> desired.Source:
    """The declaration point of a document, for ``desired.*.source``."""
    return desired.Source(file=doc.raw.file, line=doc.raw.line, column=doc.raw.column, origin=origin)


def where(doc: loader.Document) -> str:
    return f"{doc.raw.file}:{doc.raw.line}:{doc.raw.column}"


class TopicBuilder:
    """Collects desired topics; TopicDefaults must be added before the topics that use them."""

    def __init__(self, error: Report) -> None:
        self.error = error
        self.topics: dict[str, desired.DesiredTopic] = {}
        self._defaults: dict[str, loader.Document] = {}
        self._canonical: dict[int, dict[str, str]] = {}
        self._topic_docs: dict[str, loader.Document] = {}
        self._dir_defaults: dict[Path, loader.Document] = {}
        self._dir_chain: dict[Path, list[loader.Document]] = {}

    def check_configs(self, doc: loader.Document, configs_map: dict[str, Any]) -> dict[str, str]:
        """Topic config keys and values checked against the catalogue; returns the canonical values."""
        return self.check_raw_configs(doc.raw, configs_map)

    def check_raw_configs(self, raw: yamlio.RawDocument, configs_map: dict[str, Any]) -> dict[str, str]:
        """As ``check_configs``, for a document that failed its model (so its config problems still show)."""
        doc = loader.Document(raw=raw, kind=Manifest.TOPIC, name="", model=None)
        out: dict[str, str] = {}
        for key, value in configs_map.items():
            path = ("spec", "configs", key)
            spec = configs.TOPIC_CONFIGS.get(key)
            if spec is None:
                hint = configs.suggest(key)
                broker = key in configs.BROKER_CONFIGS and "this is a broker config; set it with kind BrokerConfig"
                self.error(
                    doc,
                    path,
                    f"unknown topic config {key!r}",
                    key=True,
                    hint=broker or (f"did you mean {hint}?" if hint else None),
                )
                continue
            problems = configs.validate_config(spec, value)
            for problem in problems:
                self.error(doc, path, problem)
            if problems:
                continue
            if spec.removed_in:
                self.error(doc, path, f"{key} was removed in Kafka {spec.removed_in}", key=True, severity=WARNING)
            out[key] = configs.canonical(key, value)
        return out

    def add_defaults(self, doc: loader.Document) -> None:
        spec: models.TopicDefaultsSpec = doc.spec
        self._canonical[id(doc)] = self.check_configs(doc, spec.configs)
        if spec.scope == "directory":
            other = self._dir_defaults.get(doc.raw.directory)
            if other is not None:
                self.error(
                    doc,
                    ("spec", "scope"),
                    f"a second directory-scoped TopicDefaults for this directory (first: {where(other)})",
                )
                return
            self._dir_defaults[doc.raw.directory] = doc
        self._defaults[doc.name] = doc

    def _chain(self, directory: Path) -> list[loader.Document]:
        found = self._dir_chain.get(directory)
        if found is None:
            parent = directory.parent
            found = (self._chain(parent) if parent != directory else []) + (
                [self._dir_defaults[directory]] if directory in self._dir_defaults else []
            )
            self._dir_chain[directory] = found
        return found

    def add_topic(self, doc: loader.Document) -> None:
        spec: models.TopicSpec = doc.spec
        name = doc.name
        for problem in rules.topic_name_problems(name):
            self.error(doc, ("metadata", "name"), problem)
        layers = list(self._chain(doc.raw.directory))
        if spec.defaults is not None:
            named = self._defaults.get(spec.defaults)
            if named is None:
                close = configs.suggest(spec.defaults, list(self._defaults))
                self.error(
                    doc,
                    ("spec", "defaults"),
                    f"no TopicDefaults named {spec.defaults!r}",
                    hint=f"did you mean {close}?" if close else None,
                )
                return
            layers.append(named)
        partitions, replication, merged = None, None, {}
        for layer in layers:
            lspec: models.TopicDefaultsSpec = layer.spec
            partitions = lspec.partitions or partitions
            replication = lspec.replication_factor or replication
            merged.update(self._canonical.get(id(layer), {}))
        partitions = spec.partitions or partitions
        replication = spec.replication_factor or replication
        merged.update(self.check_configs(doc, spec.configs))
        missing = [f for f, v in (("partitions", partitions), ("replicationFactor", replication)) if v is None]
        for field in missing:
            self.error(
                doc, ("spec",), f"missing required field {field!r}", key=True, hint="set it here or in a TopicDefaults"
            )
        if missing or partitions is None or replication is None:
            return
        self._check_min_isr(doc, merged=merged, replication=replication)
        assignment = None
        if spec.replica_assignment is not None:
            assignment = self._assignment(doc, spec.replica_assignment, partitions=partitions, replication=replication)
        existing = self.topics.get(name)
        if existing is not None and existing.source is not None:
            self.error(doc, ("metadata", "name"), f"topic {name!r} is declared twice (first at {existing.source})")
            return
        self._topic_docs[name] = loader.Document(raw=doc.raw, kind=doc.kind, name=name, model=None)  # not the model
        self.topics[name] = desired.DesiredTopic(
            name=name,
            partitions=partitions,
            replication_factor=replication,
            configs=merged,
            assignment=assignment,
            source=source(doc),
            allow_internal=spec.allow_internal,
        )

    def _check_min_isr(self, doc: loader.Document, *, merged: dict[str, str], replication: int) -> None:
        """An error when the topic's min.insync.replicas (its own or from its defaults) exceeds its replicas."""
        spec: models.TopicSpec = doc.spec
        isr = merged.get("min.insync.replicas")
        if isr is not None and int(isr) > replication:
            at = (
                ("spec", "configs", "min.insync.replicas")
                if "min.insync.replicas" in spec.configs
                else ("spec", "replicationFactor")
            )
            self.error(
                doc,
                at,
                f"min.insync.replicas {isr} is greater than the replication factor {replication}",
                hint="producers with acks=all could never write",
            )

    def _assignment(
        self, doc: loader.Document, rows: list[list[int]], *, partitions: int, replication: int
    ) -> tuple[tuple[int, ...], ...] | None:
        ok = True
        if len(rows) != partitions:
            self.error(
                doc,
                ("spec", "replicaAssignment"),
                f"replicaAssignment lists {len(rows)} partitions but partitions is {partitions}",
            )
            ok = False
        for index, row in enumerate(rows):
            if len(row) != replication or len(set(row)) != len(row):
                self.error(
                    doc,
                    ("spec", "replicaAssignment", index),
                    f"partition {index} needs {replication} distinct broker ids, got {row}",
                )
                ok = False
            elif any(b < 0 for b in row):
                self.error(doc, ("spec", "replicaAssignment", index), f"partition {index} has a negative broker id")
                ok = False
        return tuple(tuple(r) for r in rows) if ok else None

    def check_collisions(self) -> None:
        seen: dict[str, str] = {}
        for name in sorted(self.topics):
            key = rules.collision_key(name)
            other = seen.setdefault(key, name)
            if other != name:
                self.error(
                    self._topic_docs[name],
                    ("metadata", "name"),
                    f"topic {name!r} collides with {other!r} (declared at {self.topics[other].source}): "
                    "Kafka treats '.' and '_' alike in metric names",
                )

"""Turning validated documents into the normalised ``DesiredState``: defaults, canonical configs, expanded grants.

Also the cross-document rules: the same resource declared twice, topic names colliding on '.'/'_',
references to unknown TopicDefaults, grants naming topics nobody declares or owns.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from reconciler import configs, desired, errors
from reconciler.manifests import loader, models, profiles, roles, rules, yamlio
from reconciler.state import AclBinding, QuotaEntity

WARNING = errors.Severity.WARNING
_KIND_NAMES = {
    "topic": "topic",
    "acl": "acl",
    "quota": "quota",
    "scramUser": "scram_user",
    "brokerConfig": "broker_config",
}


def source(doc: loader.Document, origin: str | None = None) -> desired.Source:
    return desired.Source(file=doc.raw.file, line=doc.raw.line, column=doc.raw.column, origin=origin)


class Builder:
    """Accumulates the desired state from documents in load order, recording diagnostics."""

    def __init__(self, diags: list[errors.Diagnostic]) -> None:
        self.diags = diags
        self.topics: dict[str, desired.DesiredTopic] = {}
        self.acls: dict[AclBinding, desired.Source | None] = {}
        self.quotas: dict[QuotaEntity, desired.DesiredQuota] = {}
        self.scram: dict[str, desired.DesiredScramUser] = {}
        self.brokers: dict[str, desired.DesiredBrokerConfig] = {}
        self.profiles: dict[str, profiles.ClusterProfile] = {}
        self.ownership = desired.Ownership()
        self._defaults: dict[str, loader.Document] = {}
        self._canonical: dict[int, dict[str, str]] = {}
        self._topic_docs: dict[str, loader.Document] = {}
        self._reported: set[tuple[object, ...]] = set()
        self._dir_defaults: dict[Path, loader.Document] = {}
        self._dir_chain: dict[Path, list[loader.Document]] = {}
        self._grant_topics: list[tuple[loader.Document, tuple[str | int, ...], str]] = []

    # -------------------------------------------------------------------------------- helpers
    def error(self, doc: loader.Document, path: Iterable[str | int], message: str, **kw: Any) -> None:
        diag = doc.raw.diagnostic(tuple(path), message, **kw)
        key = (diag.file, diag.line, diag.column, diag.message)
        if key not in self._reported:
            self._reported.add(key)
            self.diags.append(diag)

    def check_configs(self, doc: loader.Document, configs_map: dict[str, Any]) -> dict[str, str]:
        """Topic config keys and values checked against the catalogue; returns the canonical values."""
        return self.check_raw_configs(doc.raw, configs_map)

    def check_raw_configs(self, raw: yamlio.RawDocument, configs_map: dict[str, Any]) -> dict[str, str]:
        """As ``check_configs``, for a document that failed its model (so its config problems still show)."""
        doc = loader.Document(raw=raw, kind="Topic", name="", model=None)
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

    # ---------------------------------------------------------------------------------- topics
    def add_defaults(self, doc: loader.Document) -> None:
        spec: models.TopicDefaultsSpec = doc.spec
        self._canonical[id(doc)] = self.check_configs(doc, spec.configs)
        if spec.scope == "directory":
            other = self._dir_defaults.get(doc.raw.directory)
            if other is not None:
                self.error(
                    doc,
                    ("spec", "scope"),
                    f"a second directory-scoped TopicDefaults for this directory (first: {_where(other)})",
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
        assignment = None
        if spec.replica_assignment is not None:
            assignment = self._assignment(doc, spec.replica_assignment, partitions=partitions, replication=replication)
        existing = self.topics.get(name)
        if existing is not None and existing.source is not None:
            self.error(doc, ("metadata", "name"), f"topic {name!r} is declared twice (first at {existing.source})")
            return
        self._topic_docs[name] = doc
        self.topics[name] = desired.DesiredTopic(
            name=name,
            partitions=partitions,
            replication_factor=replication,
            configs=merged,
            assignment=assignment,
            source=source(doc),
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

    def check_topic_collisions(self) -> None:
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

    # ------------------------------------------------------------------------------------ ACLs
    def add_binding(
        self, doc: loader.Document, binding: AclBinding, paths: dict[str, tuple[str | int, ...]], origin: str | None
    ) -> None:
        """Check one binding's principal, host and operation; positions come from ``paths`` by field."""
        found = [
            (paths["principal"], rules.principal_problems(binding.principal)),
            (paths["host"], rules.host_problems(binding.host)),
            (
                paths["operation"],
                rules.acl_problems(
                    resource_type=binding.resource_type,
                    pattern_type=binding.pattern_type,
                    resource_name=binding.resource_name,
                    operation=binding.operation,
                ),
            ),
        ]
        bad = False
        for path, problems in found:
            for problem in problems:
                self.error(doc, path, problem)
                bad = True
        if not bad:
            self.acls.setdefault(binding, source(doc, origin))

    def add_acl(self, doc: loader.Document) -> None:
        spec: models.AclSpec = doc.spec
        for index, b in enumerate(spec.bindings):
            at: tuple[str | int, ...] = ("spec", "bindings", index)
            name = b.resource_name
            if name is None:
                if b.resource_type != "CLUSTER":
                    self.error(doc, at, "missing required field 'resourceName'", key=True)
                    continue
                name = rules.CLUSTER_RESOURCE
            ops = [(op, (*at, "operations", i)) for i, op in enumerate(b.operations or [])] or [
                (str(b.operation), (*at, "operation"))
            ]
            for op, op_path in ops:
                binding = AclBinding(b.resource_type, b.pattern_type, name, b.principal, b.host, op, b.permission)
                paths = {"principal": (*at, "principal"), "host": (*at, "host"), "operation": op_path}
                self.add_binding(doc, binding, paths, None)

    def add_grant(self, doc: loader.Document) -> None:
        origin = f"{doc.kind} {doc.name}"
        paths: dict[str, tuple[str | int, ...]] = {
            "principal": ("spec", "principal"),
            "host": ("spec", "host"),
            "operation": ("spec",),
        }
        for binding in roles.expand(doc.spec):
            self.add_binding(doc, binding, paths, origin)
        self._grant_topics.extend((doc, path, name) for path, name in roles.literal_topics(doc.spec))

    def check_grant_topics(self) -> None:
        for doc, path, name in self._grant_topics:
            if name not in self.topics and not self.ownership.owns_topic(name):
                self.error(
                    doc,
                    path,
                    f"topic {name!r} is not declared and not covered by the ownership rules",
                    severity=WARNING,
                    hint="declare it with kind Topic, or fix the name",
                )

    # -------------------------------------------------------------------- quotas, users, brokers
    def add_quota(self, doc: loader.Document) -> None:
        spec: models.ClientQuotaSpec = doc.spec
        raw = {"user": spec.entity.user, "client-id": spec.entity.client_id, "ip": spec.entity.ip}
        parts = {k: (None if v == "default" else v) for k, v in raw.items() if v is not None}
        problems = rules.quota_entity_problems(parts)
        for problem in problems:
            self.error(doc, ("spec", "entity"), problem)
        values: dict[str, float] = {}
        for key, value in spec.values.items():
            key_problems = rules.quota_key_problems(set(parts), key) if not problems else []
            for problem in key_problems:
                self.error(doc, ("spec", "values", key), problem, key=True)
            try:
                values[key] = configs.quota_value(key, value)
            except ValueError as exc:
                self.error(doc, ("spec", "values", key), str(exc))
        if problems:
            return
        entity = QuotaEntity(tuple(sorted(parts.items())))
        existing = self.quotas.get(entity)
        if existing is not None:
            self.error(
                doc,
                ("spec", "entity"),
                f"quota for {entity.address.removeprefix('quota/')} is declared twice (first at {existing.source})",
            )
            return
        self.quotas[entity] = desired.DesiredQuota(entity=entity, values=values, source=source(doc))

    def add_scram(self, doc: loader.Document) -> None:
        spec: models.ScramUserSpec = doc.spec
        ref = profiles.secret_ref(spec.password_from, profiles.directory_of(doc, ("spec", "passwordFrom", "file")))
        self.scram[doc.name] = desired.DesiredScramUser(
            name=doc.name,
            mechanism=spec.mechanism,
            iterations=spec.iterations,
            password=ref,
            rotation=spec.rotation,
            source=source(doc),
        )

    def add_broker_config(self, doc: loader.Document) -> None:
        spec: models.BrokerConfigSpec = doc.spec
        broker = "<default>" if spec.broker == "default" else spec.broker
        out: dict[str, str] = {}
        for key, value in spec.configs.items():
            path = ("spec", "configs", key)
            meta = configs.BROKER_CONFIGS.get(key)
            if configs.is_sensitive(key):
                self.error(
                    doc, path, f"{key} is a secret; sensitive broker configs are not managed from manifests", key=True
                )
                continue
            if meta is None:
                hint = configs.suggest(key, list(configs.BROKER_CONFIGS))
                self.error(
                    doc,
                    path,
                    f"{key!r} is not a known dynamic broker config; it is passed to Kafka as written",
                    key=True,
                    severity=WARNING,
                    hint=f"did you mean {hint}?" if hint else None,
                )
                try:
                    out[key] = configs.canonical(key, value)
                except ValueError as exc:
                    self.error(doc, path, str(exc))
                continue
            if meta.update_mode == "read-only":
                self.error(doc, path, f"{key} is read-only: it can only be set in server.properties", key=True)
                continue
            if meta.update_mode == "per-broker" and broker == "<default>":
                self.error(doc, path, f"{key} can only be set for one broker id, not as the cluster default", key=True)
                continue
            problems = configs.validate_config(meta, value)
            for problem in problems:
                self.error(doc, path, problem)
            if not problems:
                out[key] = configs.canonical(key, value)
        existing = self.brokers.get(broker)
        if existing is not None:
            self.error(
                doc,
                ("spec", "broker"),
                f"broker configs for {spec.broker} are declared twice (first at {existing.source})",
            )
            return
        self.brokers[broker] = desired.DesiredBrokerConfig(broker=broker, configs=out, source=source(doc))

    # --------------------------------------------------------------------- profiles, ownership
    def add_cluster(self, doc: loader.Document) -> None:
        profile = profiles.build_profile(doc, self.diags)
        if profile is not None:
            self.profiles[doc.name] = profile

    def add_ownership(self, doc: loader.Document) -> None:
        spec: models.OwnershipSpec = doc.spec
        if self.ownership.source is not None:
            self.error(doc, ("kind",), f"only one Ownership document is allowed (first at {self.ownership.source})")
            return
        kinds = desired.KINDS if spec.managed_kinds is None else tuple(_KIND_NAMES[k] for k in spec.managed_kinds)
        self.ownership = desired.Ownership(
            topics=tuple(self._patterns(doc, "topics", spec.topics)),
            principals=tuple(self._patterns(doc, "principals", spec.principals)),
            delete={_KIND_NAMES[k]: bool(getattr(spec.delete, _KIND_NAMES[k])) for k in _KIND_NAMES},
            managed_kinds=frozenset(kinds),
            source=source(doc),
        )

    def _patterns(
        self, doc: loader.Document, field: str, specs: list[models.NamePatternSpec]
    ) -> Iterable[desired.NamePattern]:
        for index, p in enumerate(specs):
            if p.regex is not None:
                try:
                    re.compile(p.regex)
                except re.error as exc:
                    self.error(doc, ("spec", field, index, "regex"), f"invalid regular expression: {exc}")
                    continue
                yield desired.NamePattern("regex", p.regex)
            elif p.glob is not None:
                yield desired.NamePattern("glob", p.glob)
            elif p.prefix is not None:
                yield desired.NamePattern("prefix", p.prefix)
            else:
                yield desired.NamePattern("exact", str(p.name))

    def result(self) -> desired.DesiredState:
        return desired.DesiredState(
            topics=self.topics,
            acls=self.acls,
            quotas=self.quotas,
            scram_users=self.scram,
            broker_configs=self.brokers,
            ownership=self.ownership,
        )


def _where(doc: loader.Document) -> str:
    return f"{doc.raw.file}:{doc.raw.line}:{doc.raw.column}"

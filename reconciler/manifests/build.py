"""Turning validated documents into the normalised ``DesiredState``: ACLs, expanded grants, quotas, users, brokers.

Topics and their defaults are built by ``topics.TopicBuilder``; this module adds the other kinds and
the cross-document rules that span them (grants naming topics nobody declares or owns, one Ownership).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

import pydantic

from reconciler.base import errors
from reconciler.manifests import entities, loader, models, parts, profiles, roles, rules, topics, yamlio
from reconciler.model import configs, desired
from reconciler.model.identities import AclBinding, QuotaEntity
from reconciler.model.kinds import Kind, Manifest

WARNING = errors.Severity.WARNING
_KIND_NAMES = {k.ownership_key: k for k in Kind}  # an Ownership document's managedKinds entry -> kind


source = topics.source


class _Only:
    """Stands in for a document model whose ``spec`` holds only some of the document's parts."""

    def __init__(self, spec: Any) -> None:
        self.spec = spec


class Builder:
    """Accumulates the desired state from documents in load order, recording diagnostics."""

    def __init__(self, diags: list[errors.Diagnostic]) -> None:
        self.diags = diags
        self.topic_builder = topics.TopicBuilder(self.error)
        self.entity_builder = entities.EntityBuilder(self.error)
        self.acls: dict[AclBinding, desired.Source | None] = {}
        self.quotas: dict[QuotaEntity, desired.DesiredQuota] = {}
        self.scram: dict[str, desired.DesiredScramUser] = {}
        self.brokers: dict[str, desired.DesiredBrokerConfig] = {}
        self.profiles: dict[str, profiles.ClusterProfile] = {}
        self.connectors: dict[str, desired.DesiredConnector] = {}
        self._sections: dict[Kind, dict[Any, Any]] = {}  # kind -> what its own part declared (``sections``)
        self.ownership = desired.Ownership()
        self._reported: set[tuple[object, ...]] = set()
        self._sources: dict[tuple[int, str | None], desired.Source] = {}  # documents stay alive while building
        self._grant_topics: list[tuple[loader.Document, tuple[str | int, ...], str]] = []
        self._connect_topics: list[desired.NamePattern] = []  # storage topics a ConnectWorker names: internal
        self._workers: dict[str, models.ConnectWorkerSpec | None] = {}  # for Connectors; None: failed its model

    @property
    def topics(self) -> dict[str, desired.DesiredTopic]:
        return self.topic_builder.topics

    def section(self, kind: Kind) -> dict[Any, Any]:
        """The resources of ``kind`` declared so far by its own manifest part, for the desired state's ``sections``
        (the kinds this module builds itself keep theirs in attributes of their own)."""
        return self._sections.setdefault(kind, {})

    # -------------------------------------------------------------------------------- helpers
    def error(self, doc: loader.Document, path: Iterable[str | int], message: str, **kw: Any) -> None:
        diag = doc.raw.diagnostic(tuple(path), message, **kw)
        key = (diag.file, diag.line, diag.column, diag.message)
        if key not in self._reported:
            self._reported.add(key)
            self.diags.append(diag)

    def check_failed_document(self, raw: yamlio.RawDocument, kind: str, name: str) -> None:
        """Kafka's rules on the readable parts of a document that failed its model, so every error is reported.

        Topics: the name and the config values; Acl: every binding that is well-formed on its own.
        Nothing is added to the desired state (a failed document makes the whole load fail anyway).
        """
        if kind == Manifest.CONNECT_WORKER:
            self._workers[name] = None  # its errors are reported; a Connector naming it gets none of its own
        spec = raw.data.get("spec")
        if not isinstance(spec, dict):
            return
        if kind in (Manifest.TOPIC, Manifest.TOPIC_DEFAULTS):
            if kind == Manifest.TOPIC:
                doc = loader.Document(raw=raw, kind=kind, name=name, model=None)
                for problem in rules.topic_name_problems(name):
                    self.error(doc, ("metadata", "name"), problem)
            topic_configs = spec.get("configs")
            if isinstance(topic_configs, dict):
                readable = {k: v for k, v in topic_configs.items() if not isinstance(v, dict)}
                self.topic_builder.check_raw_configs(raw, readable)
        elif kind == Manifest.ACL and isinstance(spec.get("bindings"), list):
            for index, item in enumerate(spec["bindings"]):
                try:
                    binding = models.AclBindingSpec.model_validate(item)
                except pydantic.ValidationError:
                    continue  # its errors are already reported
                bindings = models.AclSpec.model_construct(bindings=[binding])
                single = loader.Document(raw=raw, kind=kind, name=name, model=_Only(bindings))
                self.add_acl(single, indices=[index], record=False)

    # ------------------------------------------------------------------------------------ ACLs
    def add_binding(
        self,
        doc: loader.Document,
        binding: AclBinding,
        paths: dict[str, tuple[str | int, ...]],
        origin: str | None,
        *,
        record: bool = True,
    ) -> None:
        """Check one binding's principal, host, operation, name and pattern; positions come from ``paths`` by field
        (a field without its own path, as in a role grant, is reported at the ``operation`` path)."""
        found = [("principal", p) for p in rules.principal_problems(binding.principal)]
        found += [("host", p) for p in rules.host_problems(binding.host)]
        found += rules.acl_problems_by_field(
            resource_type=binding.resource_type,
            pattern_type=binding.pattern_type,
            resource_name=binding.resource_name,
            operation=binding.operation,
        )
        bad = False
        for field, problem in found:
            self.error(doc, paths.get(field, paths["operation"]), problem)
            bad = True
        if not bad and record:
            self.acls.setdefault(binding, self._source(doc, origin))

    def _source(self, doc: loader.Document, origin: str | None) -> desired.Source:
        """``source(doc, origin)``, made once per document and origin (an Acl document holds many bindings)."""
        key = (id(doc), origin)
        found = self._sources.get(key)
        if found is None:
            found = self._sources[key] = source(doc, origin)
        return found

    def add_acl(self, doc: loader.Document, *, indices: list[int] | None = None, record: bool = True) -> None:
        """Every binding of an Acl document; ``indices`` gives the bindings' places when ``doc.spec`` is a subset."""
        spec: models.AclSpec = doc.spec
        written = doc.raw.data.get("spec") if isinstance(doc.raw.data, dict) else None
        written = written.get("bindings") if isinstance(written, dict) else None
        for position, b in enumerate(spec.bindings):
            index = position if indices is None else indices[position]
            at: tuple[str | int, ...] = ("spec", "bindings", index)
            name = b.resource_name
            if name is None:
                if b.resource_type != "CLUSTER":
                    self.error(doc, at, "missing required field 'resourceName'", key=True)
                    continue
                name = rules.CLUSTER_RESOURCE
            single = [] if b.operation is None else [(b.operation, (*at, "operation"))]  # the model gives one
            ops = [(op, (*at, "operations", i)) for i, op in enumerate(b.operations or [])] or single
            for op, op_path in ops:
                binding = AclBinding(b.resource_type, b.pattern_type, name, b.principal, b.host, op, b.permission)
                first = self.acls.get(binding)
                if first is not None and record:
                    self.error(doc, op_path, f"ACL {binding.address} is already declared at {first}", severity=WARNING)
                    continue
                item = written[index] if isinstance(written, list) and 0 <= index < len(written) else None
                pattern_at = "patternType" if isinstance(item, dict) and "patternType" in item else "resourceName"
                paths = {
                    "principal": (*at, "principal"),
                    "host": (*at, "host"),
                    "operation": op_path,
                    "resourceName": (*at, "resourceName"),
                    "patternType": (*at, pattern_at),
                }
                self.add_binding(doc, binding, paths, None, record=record)

    def add_grant(self, doc: loader.Document) -> None:
        origin = f"{doc.kind} {doc.name}"
        paths: dict[str, tuple[str | int, ...]] = {
            "principal": ("spec", "principal"),
            "host": ("spec", "host"),
            "operation": ("spec",),
        }
        for binding in roles.expand(doc.spec):
            self.add_binding(doc, binding, paths, origin)
        if isinstance(doc.spec, models.ConnectWorkerSpec):
            spec = doc.spec
            names = (spec.config_storage_topic, spec.offset_storage_topic, spec.status_storage_topic)
            self._connect_topics.extend(desired.NamePattern("exact", n) for n in names)
            self._workers[doc.name] = spec
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
        ref = profiles.secret_ref(spec.password_from, doc, ("spec", "passwordFrom", "file"))
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
            meta = configs.BROKER_CONFIGS.get(rules.listener_base(key))
            if configs.is_sensitive(key):
                self.error(
                    doc, path, f"{key} is a secret; sensitive broker configs are not managed from manifests", key=True
                )
                continue
            if meta is None:
                # The broker stores an unknown key but treats it as a secret: it never shows the value again, so
                # the tool could neither check that the apply took effect nor see a later change.
                hint = configs.suggest(key, list(configs.BROKER_CONFIGS))
                self.error(
                    doc,
                    path,
                    f"{key!r} is not a dynamic broker config Kafka knows; the broker would store it as a secret "
                    "and never show its value, so it cannot be managed from manifests",
                    key=True,
                    hint=f"did you mean {hint}?" if hint else "set a custom plugin config in server.properties",
                )
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

    def add_connector(self, doc: loader.Document) -> None:
        # Imported with the first Connector document: a tree without one (most pre-commit runs) never loads them.
        from reconciler.manifests import connector_grants, connectors

        found = connectors.build(doc, self.error)
        derived = connector_grants.derive(doc, self._workers, self.error)
        if found is not None:
            acl_type = None if derived is None else derived.kind
            self.connectors[doc.name] = dataclasses.replace(found, acl_type=acl_type)
        if derived is not None:
            paths: dict[str, tuple[str | int, ...]] = {"operation": connector_grants.WORKER}
            for binding in derived.bindings:
                self.add_binding(doc, binding, paths, derived.origin)
            self._grant_topics.extend((doc, path, name) for path, name in derived.topics)

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
        kinds = tuple(Kind) if spec.managed_kinds is None else tuple(_KIND_NAMES[k] for k in spec.managed_kinds)
        self.ownership = desired.Ownership(
            topics=tuple(self._patterns(doc, "topics", spec.topics)),
            principals=tuple(self._patterns(doc, "principals", spec.principals)),
            delete={k: bool(getattr(spec.delete, k.value)) for k in Kind},
            managed_kinds=frozenset(kinds),
            source=source(doc),
            internal_topics=tuple(self._patterns(doc, "internalTopics", spec.internal_topics)),
            quota_entities=tuple(self._quota_patterns(doc, spec.quota_entities)),
            max_deletes=spec.max_deletes,
            groups=tuple(self._patterns(doc, "groups", spec.groups)),
            client_metrics=tuple(self._patterns(doc, "clientMetrics", spec.client_metrics)),
            connectors=tuple(self._patterns(doc, "connectors", spec.connectors)),
            rules=parts.ownership_rules(spec),
        )

    def _patterns(
        self, doc: loader.Document, field: str, specs: list[models.NamePatternSpec]
    ) -> Iterable[desired.NamePattern]:
        return (pattern for _, pattern in self._indexed_patterns(doc, field, specs))

    def _indexed_patterns(
        self, doc: loader.Document, field: str, specs: list[models.NamePatternSpec]
    ) -> Iterable[tuple[int, desired.NamePattern]]:
        for index, p in enumerate(specs):
            if p.regex is not None:
                try:
                    re.compile(p.regex)
                except re.error as exc:
                    self.error(doc, ("spec", field, index, "regex"), f"invalid regular expression: {exc}")
                    continue
                yield index, desired.NamePattern("regex", p.regex)
            elif p.glob is not None:
                yield index, desired.NamePattern("glob", p.glob)
            elif p.prefix is not None:
                yield index, desired.NamePattern("prefix", p.prefix)
            else:
                yield index, desired.NamePattern("exact", str(p.name))

    def _quota_patterns(
        self, doc: loader.Document, specs: list[models.NamePatternSpec]
    ) -> Iterable[desired.NamePattern]:
        """``quotaEntities`` rules match entity names as plans print them, client-id before user. An exact name
        written user-first (``user=<default>,client-id=x``, as Kafka's tools print it) is turned round; a prefix,
        glob or regex written so would match nothing and is refused with the order to write."""
        for index, pattern in self._indexed_patterns(doc, "quotaEntities", specs):
            if not (pattern.value.startswith("user=") and ",client-id=" in pattern.value):
                yield pattern
                continue
            user, _, client = pattern.value.partition(",client-id=")
            turned = f"client-id={client},{user}"
            if pattern.kind == "exact":
                yield desired.NamePattern("exact", turned)
                continue
            hint = f"; write glob: {turned!r}" if pattern.kind == "glob" else ""
            self.error(
                doc,
                ("spec", "quotaEntities", index, pattern.kind),
                f"{pattern.value!r} puts user before client-id and would match nothing: quota entity names list "
                f"client-id first, as plans print them (client-id=x,user=y){hint}",
            )

    def result(self) -> desired.DesiredState:
        return desired.DesiredState(
            topics=self.topics,
            acls=self.acls,
            quotas=self.quotas,
            scram_users=self.scram,
            broker_configs=self.brokers,
            group_configs=self.entity_builder.group_configs,
            client_metrics=self.entity_builder.client_metrics,
            connectors=self.connectors,
            sections={kind: section for kind, section in self._sections.items() if section},
            ownership=dataclasses.replace(
                self.ownership, internal_topics=(*self.ownership.internal_topics, *self._connect_topics)
            ),
        )

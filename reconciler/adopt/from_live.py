"""Adopting a live cluster (the ``import`` command): manifests that describe it exactly, so the first plan is empty.

``build_adoption(live)`` turns a ``ClusterState`` into manifest files (pure); ``adopt_cluster`` also writes
them. Every resource is checked against the same rules the loader applies, and anything the manifest
language cannot hold (a secret value, a Group: principal, a config this version does not know) is left
out with a note instead of producing files that fail to load. The Ownership document names exactly the
imported topics and principals, with every delete policy off.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reconciler.adopt import connectors, entities, output, subjects, values
from reconciler.adopt.adoption_report import AdoptionReport
from reconciler.adopt.output import Document, Flow, FlowMap, ManifestFile, Variable
from reconciler.kinds import registry
from reconciler.manifests import rules
from reconciler.model import configs, state
from reconciler.model import entities as model_entities
from reconciler.model.acl_names import AclOperation, AclPatternType, AclPermission, AclResourceType
from reconciler.model.kinds import Kind, Manifest
from reconciler.planner import topics as planner_topics

if TYPE_CHECKING:
    from reconciler.kafka.port import AdminPort

_AclEntryKey = tuple[AclResourceType, AclPatternType, str, str, AclPermission]  # sorted by code: Kafka's order


class _Adoption:
    """The manifests of one import, built section by section."""

    def __init__(self, live: state.ClusterState, *, include_tool_topics: bool) -> None:
        self.live = live
        self.include_tool_topics = include_tool_topics
        self.report = AdoptionReport(title="Import", out_dir=Path("."))
        self.files: list[ManifestFile] = []
        self.topics: list[str] = []
        self.principals: set[str] = set()
        self._variables: set[str] = set()
        self.entity_names: dict[Kind, list[str]] = {}

    def variable(self, *parts: str) -> Variable:
        name = output.unique(output.env_name(*parts), self._variables)
        self.report.variables.append(name)
        return Variable(name)

    # ------------------------------------------------------------------------------------ topics
    def add_topics(self) -> None:
        found = self.live.topics or {}
        docs: list[Document] = []
        tool_topics: list[str] = []
        for name in sorted(found):
            topic = found[name]
            if topic.internal or name.startswith("__"):
                continue
            if planner_topics.is_internal(name, topic) and not self.include_tool_topics:
                tool_topics.append(name)
                continue
            if not topic.assignment:
                self.report.note(Kind.TOPIC.address(name), "no partitions in the metadata answer; left out")
                continue
            docs.append(self._topic(topic))
            self.topics.append(name)
        if tool_topics:
            self.report.note(
                "topics",
                f"{len(tool_topics)} topic(s) run by Kafka tools (Connect, Schema Registry, MirrorMaker) were not "
                f"imported: {', '.join(tool_topics)}; import again with --include-tool-topics to manage them",
                severity="info",
            )
        self.report.counts["topics"] = len(docs)
        self.files.append(ManifestFile("topics.yaml", docs))

    def _topic(self, topic: state.TopicState) -> Document:
        address = Kind.TOPIC.address(topic.name)
        sizes = {len(r) for r in topic.assignment}
        rf = min(sizes)
        if len(sizes) > 1:
            self.report.note(
                address,
                f"partitions have different replica counts ({', '.join(map(str, sorted(sizes)))}); written as "
                f"replicationFactor {rf}, so the plan proposes a reassignment",
            )
        out: dict[str, object] = {}
        for key, text in sorted(topic.configs.items()):
            value = self._topic_config(address, key, text=text, rf=rf, secret=key in topic.sensitive)
            if value is not None:
                out[key] = value
        spec: dict[str, Any] = {"partitions": topic.partitions, "replicationFactor": rf}
        if out:
            spec["configs"] = out
        return Document(Manifest.TOPIC, topic.name, spec)

    def _topic_config(self, address: str, key: str, *, text: str | None, rf: int, secret: bool) -> object | None:
        if secret or text is None or configs.is_sensitive(key):
            variable = self.variable("TOPIC", address.removeprefix(Kind.TOPIC.prefix), key)
            self.report.note(
                address,
                f"{key} is a secret the broker does not return; written as {variable}: set that variable",
                severity="todo",
            )
            return variable
        spec = configs.TOPIC_CONFIGS.get(key)
        if spec is None:
            self.report.note(address, f"{key}={text} is not a topic config this version knows; left out (the "
                             "plan proposes resetting it)")  # fmt: skip
            return None
        problems = configs.validate_config(spec, text)
        if not problems and key == "min.insync.replicas" and int(configs.canonical(key, text)) > rf:
            problems = [f"min.insync.replicas {text} is greater than the replication factor {rf}"]
        if problems:
            self.report.note(address, f"{key}={text} left out ({'; '.join(problems)}); the plan proposes resetting it")
            return None
        return values.config_value(key, text)

    # -------------------------------------------------------------------------------------- ACLs
    def add_acls(self) -> None:
        if self.live.acls is None:
            self._unread(Kind.ACL, "ACLs")
            return
        by_principal: dict[str, list[state.AclBinding]] = defaultdict(list)
        for binding in sorted(self.live.acls):
            problems = rules.principal_problems(binding.principal) + rules.host_problems(binding.host)
            problems += rules.acl_problems(
                resource_type=binding.resource_type,
                pattern_type=binding.pattern_type,
                resource_name=binding.resource_name,
                operation=binding.operation,
            )
            if "UNKNOWN" in (binding.resource_type, binding.pattern_type, binding.operation, binding.permission):
                problems.append("a resource type, pattern, operation or permission this version cannot name")
            if problems:
                self.report.note(binding.address, f"left out: {'; '.join(problems)}")
                continue
            by_principal[binding.principal].append(binding)
        taken: set[str] = set()
        count = 0
        for principal in sorted(by_principal):
            name = output.unique(_principal_label(principal), taken)
            bindings = acl_entries(by_principal[principal])
            count += len(by_principal[principal])
            doc = Document(Manifest.ACL, name, {"bindings": bindings}, comments=[f"ACLs of {principal}"])
            self.files.append(ManifestFile(f"acls/{name}.yaml", [doc]))
            self.principals.add(principal)
        self.report.counts["ACL bindings"] = count
        self.report.counts["ACL principals"] = len(by_principal)

    # ------------------------------------------------------------------------------------ quotas
    def add_quotas(self) -> None:
        if self.live.quotas is None:
            self._unread(Kind.QUOTA, "client quotas")
            return
        docs: list[Document] = []
        for entity, found in sorted(self.live.quotas.items(), key=lambda item: item[0].address):
            if not found:
                continue
            address = entity.address
            parts = dict(entity.parts)
            if "default" in parts.values():
                self.report.note(address, "an entity literally named 'default' cannot be told apart from the "
                                 "default entity in a manifest; left out")  # fmt: skip
                continue
            kept: dict[str, object] = {}
            for key, number in sorted(found.items()):
                problems = rules.quota_key_problems(set(parts), key)
                if problems:
                    self.report.note(address, f"{key} left out: {'; '.join(problems)}")
                    continue
                kept[key] = values.quota_value(key, number)
            if not kept:
                continue
            spec_entity = FlowMap(
                (_QUOTA_FIELDS[t], "default" if n is None else n) for t, n in entity.parts if t in _QUOTA_FIELDS
            )
            docs.append(
                Document(
                    Manifest.CLIENT_QUOTA,
                    address.removeprefix(Kind.QUOTA.prefix),
                    {"entity": spec_entity, "values": kept},
                )
            )
            user = parts.get("user")
            if user is not None:
                self.principals.add(f"User:{user}")
        self.report.counts["client quotas"] = len(docs)
        self.files.append(ManifestFile("quotas.yaml", docs))

    # ------------------------------------------------------------------------------------- SCRAM
    def add_scram(self) -> None:
        if self.live.scram_users is None:
            self._unread(Kind.SCRAM_USER, "SCRAM users")
            return
        docs: list[Document] = []
        for user, creds in sorted(self.live.scram_users.items()):
            known = {c.mechanism: c.iterations for c in creds if c.mechanism in state.SCRAM_MECHANISMS}
            address = Kind.SCRAM_USER.address(user)
            if not known:
                if creds:
                    self.report.note(address, "no credential with a mechanism this version knows; left out")
                continue
            mechanism = "SCRAM-SHA-512" if "SCRAM-SHA-512" in known else "SCRAM-SHA-256"
            iterations = known[mechanism]
            if not 4096 <= iterations <= 16384:
                self.report.note(address, f"{iterations} iterations is outside 4096..16384; left out")
                continue
            if len(known) > 1:
                self.report.note(
                    address,
                    "has both SCRAM-SHA-256 and SCRAM-SHA-512 credentials; a ScramUser holds one, so "
                    f"{mechanism} was written and the plan proposes removing the other",
                )
            variable = self.variable("SCRAM_PASSWORD", user)
            spec = {"mechanism": mechanism, "iterations": iterations, "passwordFrom": FlowMap(env=variable.name)}
            comments = [
                f"TODO: export {variable.name} with this user's current password before the first apply.",
                "Kafka never returns SCRAM passwords; apply sends it only when the credential is (re)set.",
            ]
            docs.append(Document(Manifest.SCRAM_USER, user, spec, comments=comments))
            self.principals.add(f"User:{user}")
        self.report.counts["SCRAM users"] = len(docs)
        self.files.append(ManifestFile("users.yaml", docs))

    # ----------------------------------------------------------------------------- broker configs
    def add_broker_configs(self) -> None:
        if self.live.broker_configs is None:
            self._unread(Kind.BROKER_CONFIG, "dynamic broker configs")
            return
        docs: list[Document] = []
        entries = self.live.broker_configs
        for broker in sorted(entries, key=lambda b: (b != state.CLUSTER_DEFAULT, int(b) if b.isdigit() else 0, b)):
            kept = self._broker_entry(broker, entries[broker])
            if not kept:
                continue
            label = "default" if broker == state.CLUSTER_DEFAULT else broker
            name = "cluster-default" if broker == state.CLUSTER_DEFAULT else f"broker-{broker}"
            docs.append(Document(Manifest.BROKER_CONFIG, name, {"broker": label, "configs": kept}))
        self.report.counts["broker config sets"] = len(docs)
        self.files.append(ManifestFile("brokers.yaml", docs))

    def _broker_entry(self, broker: str, found: Mapping[str, str | None]) -> dict[str, object]:
        address = Kind.BROKER_CONFIG.address(broker)
        kept: dict[str, object] = {}
        for key, text in sorted(found.items()):
            if text is None or key in self.live.broker_config_sensitive or configs.is_sensitive(key):
                self.report.note(address, f"{key} is a secret; secrets are not managed from manifests, left out "
                                 "(the plan lists it as not declared)")  # fmt: skip
                continue
            meta = configs.BROKER_CONFIGS.get(key)
            problem = None
            if meta is not None and meta.update_mode == "read-only":
                problem = "read-only in this version's catalogue"
            elif meta is not None and meta.update_mode == "per-broker" and broker == state.CLUSTER_DEFAULT:
                problem = "can only be set per broker"
            elif meta is not None:
                problem = "; ".join(configs.validate_config(meta, text)) or None
            if problem:
                self.report.note(address, f"{key}={text} left out: {problem}")
                continue
            kept[key] = values.config_value(key, text)
        return kept

    # ------------------------------------------------------------ group configs, client metrics
    def add_entities(self) -> None:
        build = {Kind.GROUP_CONFIG: entities.group_documents, Kind.CLIENT_METRICS: entities.client_metrics_documents}
        files = {Kind.GROUP_CONFIG: "groups.yaml", Kind.CLIENT_METRICS: "client-metrics.yaml"}
        for kind, make in build.items():
            section = model_entities.live_section(self.live, kind)
            if section is None:
                self._unread(kind, model_entities.LABELS[kind])
                continue
            entities.unread_notes(kind, self.live.unread_entities.get(kind.value, {}), self.report.note)
            docs = make(section, lambda address, message: self.report.note(address, message))
            self.entity_names[kind] = [d.name for d in docs]
            self.report.counts[model_entities.LABELS[kind]] = len(docs)
            if docs:
                self.files.append(ManifestFile(files[kind], docs))

    # --------------------------------------------------------------------------------- ownership
    def add_ownership(self) -> None:
        spec: dict[str, Any] = {
            "topics": [{"name": t} for t in self.topics],
            "principals": [{"name": p} for p in sorted(self.principals)],
        }
        for kind, field in ((Kind.GROUP_CONFIG, "groups"), (Kind.CLIENT_METRICS, "clientMetrics")):
            if self.entity_names.get(kind):
                spec[field] = [{"name": n} for n in self.entity_names[kind]]
        live = self.live
        unread = {k for k, d in registry.KINDS.items() if k in live.unavailable or d.live_section(live) is None}
        if unread:
            spec["managedKinds"] = Flow(k.ownership_key for k in Kind if k not in unread)
        spec["delete"] = {k.ownership_key: False for k in Kind}
        comments = [
            "Exactly what was imported: these topics and principals are managed, nothing else is looked at.",
            "Deletes are off: enable them per kind once plans have stayed empty for a while (docs/adopting.md).",
        ]
        self.files.append(
            ManifestFile("ownership.yaml", [Document(Manifest.OWNERSHIP, "imported", spec, comments=comments)])
        )

    def _unread(self, kind: Kind, what: str) -> None:
        reason = self.live.unavailable.get(kind, "not read")
        self.report.note(what, f"not imported: {reason}", severity="info")


_QUOTA_FIELDS = {"user": "user", "client-id": "clientId", "ip": "ip"}


def _principal_label(principal: str) -> str:
    return "all-users" if principal == "User:*" else output.safe_file_name(principal)


def acl_entries(bindings: list[state.AclBinding]) -> list[dict[str, Any]]:
    """Acl ``bindings`` entries of one principal: bindings that differ only in operation share an entry."""
    groups: dict[_AclEntryKey, list[AclOperation]] = defaultdict(list)
    for b in bindings:
        groups[(b.resource_type, b.pattern_type, b.resource_name, b.host, b.permission)].append(b.operation)
    principal = bindings[0].principal
    out: list[dict[str, Any]] = []
    for (rtype, pattern, name, host, permission), ops in sorted(
        groups.items(), key=lambda item: (item[0][0].code, *item[0][1:])
    ):
        entry: dict[str, Any] = {"principal": principal, "resourceType": str(rtype)}  # YAML text, not the enum
        if rtype != "CLUSTER":
            entry["resourceName"] = name
        if pattern != "LITERAL":
            entry["patternType"] = str(pattern)
        ordered = [str(op) for op in sorted(set(ops), key=lambda op: op.code)]
        if len(ordered) == 1:
            entry["operation"] = ordered[0]
        else:
            entry["operations"] = Flow(ordered)
        if permission != "ALLOW":
            entry["permission"] = str(permission)
        if host != "*":
            entry["host"] = host
        out.append(entry)
    return out


def build_adoption(
    live: state.ClusterState, *, include_tool_topics: bool = False
) -> tuple[list[ManifestFile], AdoptionReport]:
    """The manifest files describing ``live`` and the report of what could not be expressed (no I/O)."""
    job = _Adoption(live, include_tool_topics=include_tool_topics)
    if live.topics is not None:
        job.add_topics()
    job.add_acls()
    job.add_quotas()
    job.add_scram()
    job.add_broker_configs()
    job.add_entities()
    connectors.add(job.files, job.report, live)
    subjects.add(job.files, job.report, live)
    job.add_ownership()
    job.report.intro = [
        f"Manifests written from the live state of cluster `{live.cluster_id}` ({len(live.brokers)} broker(s)).",
        "Only what is set on each resource was imported (topic configs at their defaults are not written).",
    ]
    job.report.next_steps = [
        "Review the files; rename or split them as your team likes (file names do not matter).",
        "Commit, then run `kafka-reconciler plan` against the cluster: it must show no changes.",
        "Enable deletes in ownership.yaml one kind at a time, once plans have stayed empty.",
    ]
    job.report.variables.sort()
    return job.files, job.report


def read_for_adoption(adapter: AdminPort) -> state.ClusterState:
    """Everything the cluster lets ``adapter`` read; a kind whose admin APIs are missing is recorded as unavailable."""
    missing = {k.value: "; ".join(reasons) for k in Kind if (reasons := adapter.missing_apis([k]))}
    live = adapter.read_state(kinds=frozenset(k for k in Kind if k.value not in missing))
    return dataclasses.replace(live, unavailable={**missing, **live.unavailable})


def adopt_cluster(
    live: state.ClusterState, *, out_dir: Path, force: bool, include_tool_topics: bool = False
) -> AdoptionReport:
    """Write manifests for ``live`` into ``out_dir`` (refusing a non-empty directory unless ``force``)."""
    files, report = build_adoption(live, include_tool_topics=include_tool_topics)
    existing = output.prepare_out_dir(out_dir, force=force)
    report.out_dir = out_dir
    report.files, report.leftovers = output.write_output(
        out_dir, files, extra={**report.texts, "IMPORT.md": report.markdown()}, existing=existing
    )
    return report

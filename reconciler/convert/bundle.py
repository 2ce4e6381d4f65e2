"""The manifests a conversion collects, checked with the loader's own rules as they are added.

Converters (``strimzi``, ``kafka_gitops``) add topics, ACL bindings, role grants, quotas and SCRAM users
here; anything Kafka or the manifest language would refuse is left out with a note, so the written
files always load. ``files()`` lays the result out like an import: topics.yaml, acls/<principal>.yaml,
grants.yaml, quotas.yaml, users.yaml, defaults.yaml and ownership.yaml.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reconciler.adopt import acl_bindings, output
from reconciler.adopt.adoption_report import AdoptionReport
from reconciler.adopt.output import Document, FlowMap, ManifestFile, Variable
from reconciler.manifests import rules
from reconciler.model import configs, state
from reconciler.model.acl_names import AclOperation
from reconciler.model.kinds import Kind, Manifest


class Bundle:
    """Documents collected from one conversion, plus its report."""

    def __init__(self, title: str) -> None:
        self.report = AdoptionReport(title=title, out_dir=Path("."))
        self.topics: dict[str, Document] = {}
        self.defaults: dict[str, Document] = {}
        self.acls: dict[str, set[state.AclBinding]] = defaultdict(set)
        self.grants: list[Document] = []
        self.quotas: dict[str, Document] = {}
        self.users: dict[str, Document] = {}
        self.principals: set[str] = set()
        self.topic_rules: list[dict[str, str]] = []
        self._variables: set[str] = set()
        self._grant_names: set[tuple[str, str]] = set()

    def variable(self, *parts: str) -> Variable:
        name = output.unique(output.env_name(*parts), self._variables)
        self.report.variables.append(name)
        return Variable(name)

    # ------------------------------------------------------------------------------------ topics
    def add_topic(
        self,
        name: str,
        *,
        partitions: int | None,
        replicas: int | None,
        topic_configs: Mapping[str, Any],
        origin: str,
        labels: Mapping[str, str] | None = None,
    ) -> bool:
        """Add a Topic; unset partitions/replicas point at a TopicDefaults the user must check."""
        problems = rules.topic_name_problems(name)
        if problems:
            self.report.note(origin, f"topic left out: {'; '.join(problems)}")
            return False
        if name in self.topics:
            self.report.note(origin, f"topic {name} is declared twice; the first declaration was kept")
            return False
        spec: dict[str, Any] = {}
        for field, value in (("partitions", partitions), ("replicationFactor", replicas)):
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                self.report.note(
                    origin, f"{field} {value!r} is not a positive whole number; the broker default is used"
                )
                value = None
            if value is not None:
                spec[field] = value
        if len(spec) < 2:
            spec["defaults"] = self.broker_defaults()
            self.report.note(
                origin,
                "partitions or replicas not set (the broker's default applied); taken from TopicDefaults "
                "'broker-defaults' in defaults.yaml: set it to your brokers' num.partitions/default.replication.factor",
                severity="todo",
            )
        kept = {
            k: v
            for k, v in ((k, self.topic_config(origin, key=k, value=v)) for k, v in topic_configs.items())
            if v is not None
        }
        if kept:
            spec["configs"] = dict(sorted(kept.items()))
        self.topics[name] = Document(Manifest.TOPIC, name, spec, labels=dict(labels or {}))
        return True

    def topic_config(self, origin: str, *, key: str, value: Any) -> Any:
        spec = configs.TOPIC_CONFIGS.get(str(key))
        if spec is None:
            self.report.note(origin, f"config {key}={value} is not a topic config this version knows; left out")
            return None
        problems = configs.validate_config(spec, value)
        if problems:
            self.report.note(origin, f"config {key}={value} left out: {'; '.join(problems)}")
            return None
        return value

    def broker_defaults(self) -> str:
        if "broker-defaults" not in self.defaults:
            spec = {"partitions": 1, "replicationFactor": 1}
            comments = ["TODO: the source left these to the brokers; set your brokers' defaults here."]
            self.defaults["broker-defaults"] = Document(
                Manifest.TOPIC_DEFAULTS, "broker-defaults", spec, comments=comments
            )
        return "broker-defaults"

    # -------------------------------------------------------------------------------------- ACLs
    def add_binding(self, binding: state.AclBinding, *, origin: str) -> bool:
        problems = rules.principal_problems(binding.principal) + rules.host_problems(binding.host)
        if not binding.resource_name:
            problems.append("the resource name is empty")
        problems += rules.acl_problems(
            resource_type=binding.resource_type,
            pattern_type=binding.pattern_type,
            resource_name=binding.resource_name,
            operation=binding.operation,
        )
        if problems:
            self.report.note(origin, f"ACL {binding.address} left out: {'; '.join(problems)}")
            return False
        self.acls[binding.principal].add(binding)
        self.principals.add(binding.principal)
        return True

    def add_grant(self, kind: str, name: str, *, spec: dict[str, Any], origin: str) -> None:
        problems = rules.principal_problems(str(spec.get("principal")))
        if problems:
            self.report.note(origin, f"{kind} grant left out: {'; '.join(problems)}")
            return
        unique = name
        n = 2
        while (kind, unique) in self._grant_names:
            unique, n = f"{name}-{n}", n + 1
        self._grant_names.add((kind, unique))
        self.grants.append(Document(kind, unique, spec, comments=[f"From {origin}"]))
        self.principals.add(str(spec["principal"]))

    # --------------------------------------------------------------------------- quotas, users
    def add_quota(self, user: str, found: Mapping[str, float], *, origin: str) -> None:
        if user == "default":
            self.report.note(origin, "a user literally named 'default' cannot carry a quota in a manifest; left out")
            return
        kept: dict[str, object] = {}
        for key, value in sorted(found.items()):
            try:
                kept[key] = configs.quota_value(key, value)
            except ValueError as exc:
                self.report.note(origin, f"quota {key} left out: {exc}")
        if kept:
            entity = FlowMap(user=user)
            self.quotas[user] = Document(Manifest.CLIENT_QUOTA, f"user={user}", {"entity": entity, "values": kept})
            self.principals.add(f"User:{user}")

    def add_scram_user(
        self, name: str, *, mechanism: str, iterations: int, comments: list[str], origin: str
    ) -> Variable | None:
        if name in self.users:
            self.report.note(origin, f"SCRAM user {name} is declared twice; the first declaration was kept")
            return None
        variable = self.variable("SCRAM_PASSWORD", name)
        spec = {"mechanism": mechanism, "iterations": iterations, "passwordFrom": FlowMap(env=variable.name)}
        self.users[name] = Document(Manifest.SCRAM_USER, name, spec, comments=comments)
        self.principals.add(f"User:{name}")
        return variable

    # ------------------------------------------------------------------------------------ files
    def files(self) -> list[ManifestFile]:
        taken: set[str] = set()
        out = [
            ManifestFile("topics.yaml", [self.topics[n] for n in sorted(self.topics)]),
            ManifestFile("defaults.yaml", list(self.defaults.values())),
            ManifestFile("grants.yaml", sorted(self.grants, key=lambda d: (d.kind, d.name))),
            ManifestFile("quotas.yaml", [self.quotas[u] for u in sorted(self.quotas)]),
            ManifestFile("users.yaml", [self.users[u] for u in sorted(self.users)]),
        ]
        for principal in sorted(self.acls):
            name = output.unique("all-users" if principal == "User:*" else output.safe_file_name(principal), taken)
            entries = acl_bindings.acl_entries(sorted(self.acls[principal]))
            doc = Document(Manifest.ACL, name, {"bindings": entries}, comments=[f"ACLs of {principal}"])
            out.append(ManifestFile(f"acls/{name}.yaml", [doc]))
        out.append(self._ownership())
        counts = {
            "topics": len(self.topics),
            "ACL bindings": sum(len(b) for b in self.acls.values()),
            "role grants": len(self.grants),
            "client quotas": len(self.quotas),
            "SCRAM users": len(self.users),
        }
        self.report.counts = {k: v for k, v in counts.items() if v}
        self.report.variables.sort()
        return out

    def _ownership(self) -> ManifestFile:
        rules_ = self.topic_rules or [{"name": n} for n in sorted(self.topics)]
        spec = {
            "topics": rules_,
            "principals": [{"name": p} for p in sorted(self.principals)],
            "delete": {k.ownership_key: False for k in Kind},
        }
        comments = [
            "What the converted source managed. Deletes are off: enable them per kind once plans stay empty.",
        ]
        return ManifestFile("ownership.yaml", [Document(Manifest.OWNERSHIP, "converted", spec, comments=comments)])


def mapping(value: object) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one (inputs are checked leniently and reported)."""
    return value if isinstance(value, Mapping) else {}


def acl_operation(raw: object) -> AclOperation | None:
    """The operation written ``Read``, ``DescribeConfigs``, ``describe_configs`` or ``READ``."""
    table = {op.replace("_", "").lower(): op for op in state.ACL_OPERATIONS}
    return table.get(str(raw).replace("_", "").replace("-", "").lower())

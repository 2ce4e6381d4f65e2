"""Import of the kinds written on the Kafka wire: topics, ACLs, client quotas, SCRAM users and dynamic broker configs,
each an ``add_*`` its declaration names as its ``adopt`` part.

Every resource is checked against the same rules the loader applies, and anything the manifest language cannot hold
(a secret value, a Group: principal, a config this version does not know) is left out with a note instead of
producing files that fail to load. The principals of what is imported are the Ownership document's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from reconciler.adopt import output, values
from reconciler.adopt.job import Job
from reconciler.adopt.output import Document, Flow, FlowMap, ManifestFile
from reconciler.manifests import rules
from reconciler.model import configs, state
from reconciler.model.acl_names import AclOperation, AclPatternType, AclPermission, AclResourceType
from reconciler.model.kinds import Kind, Manifest
from reconciler.planner import topics as planner_topics

_AclEntryKey = tuple[AclResourceType, AclPatternType, str, str, AclPermission]  # sorted by code: Kafka's order


# ------------------------------------------------------------------------------------ topics
def add_topics(job: Job) -> None:
    """``topics.yaml``: the topics read, but those Kafka and (unless asked for) its tools run."""
    if job.live.topics is None:
        return
    found = job.live.topics
    docs: list[Document] = []
    tool_topics: list[str] = []
    for name in sorted(found):
        topic = found[name]
        if topic.internal or name.startswith("__"):
            continue
        if planner_topics.is_internal(name, topic) and not job.include_tool_topics:
            tool_topics.append(name)
            continue
        if not topic.assignment:
            job.report.note(Kind.TOPIC.address(name), "no partitions in the metadata answer; left out")
            continue
        docs.append(_topic(job, topic))
        job.topics.append(name)
    if tool_topics:
        job.report.note(
            "topics",
            f"{len(tool_topics)} topic(s) run by Kafka tools (Connect, Schema Registry, MirrorMaker) were not "
            f"imported: {', '.join(tool_topics)}; import again with --include-tool-topics to manage them",
            severity="info",
        )
    job.report.counts["topics"] = len(docs)
    job.files.append(ManifestFile("topics.yaml", docs))


def _topic(job: Job, topic: state.TopicState) -> Document:
    address = Kind.TOPIC.address(topic.name)
    sizes = {len(r) for r in topic.assignment}
    rf = min(sizes)
    if len(sizes) > 1:
        job.report.note(
            address,
            f"partitions have different replica counts ({', '.join(map(str, sorted(sizes)))}); written as "
            f"replicationFactor {rf}, so the plan proposes a reassignment",
        )
    out: dict[str, object] = {}
    for key, text in sorted(topic.configs.items()):
        value = _topic_config(job, address, key, text=text, rf=rf, secret=key in topic.sensitive)
        if value is not None:
            out[key] = value
    spec: dict[str, Any] = {"partitions": topic.partitions, "replicationFactor": rf}
    if out:
        spec["configs"] = out
    return Document(Manifest.TOPIC, topic.name, spec)


def _topic_config(job: Job, address: str, key: str, *, text: str | None, rf: int, secret: bool) -> object | None:
    if secret or text is None or configs.is_sensitive(key):
        variable = job.variable("TOPIC", address.removeprefix(Kind.TOPIC.prefix), key)
        job.report.note(
            address,
            f"{key} is a secret the broker does not return; written as {variable}: set that variable",
            severity="todo",
        )
        return variable
    spec = configs.TOPIC_CONFIGS.get(key)
    if spec is None:
        job.report.note(address, f"{key}={text} is not a topic config this version knows; left out (the "
                        "plan proposes resetting it)")  # fmt: skip
        return None
    problems = configs.validate_config(spec, text)
    if not problems and key == "min.insync.replicas" and int(configs.canonical(key, text)) > rf:
        problems = [f"min.insync.replicas {text} is greater than the replication factor {rf}"]
    if problems:
        job.report.note(address, f"{key}={text} left out ({'; '.join(problems)}); the plan proposes resetting it")
        return None
    return values.config_value(key, text)


# -------------------------------------------------------------------------------------- ACLs
def add_acls(job: Job) -> None:
    """One file per principal under ``acls/``, its bindings grouped (``acl_entries``)."""
    if job.live.acls is None:
        job.unread(Kind.ACL, "ACLs")
        return
    by_principal: dict[str, list[state.AclBinding]] = defaultdict(list)
    for binding in sorted(job.live.acls):
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
            job.report.note(binding.address, f"left out: {'; '.join(problems)}")
            continue
        by_principal[binding.principal].append(binding)
    taken: set[str] = set()
    count = 0
    for principal in sorted(by_principal):
        name = output.unique(_principal_label(principal), taken)
        bindings = acl_entries(by_principal[principal])
        count += len(by_principal[principal])
        doc = Document(Manifest.ACL, name, {"bindings": bindings}, comments=[f"ACLs of {principal}"])
        job.files.append(ManifestFile(f"acls/{name}.yaml", [doc]))
        job.principals.add(principal)
    job.report.counts["ACL bindings"] = count
    job.report.counts["ACL principals"] = len(by_principal)


# ------------------------------------------------------------------------------------ quotas
def add_quotas(job: Job) -> None:
    """``quotas.yaml``: the client quotas of entities a manifest can name."""
    if job.live.quotas is None:
        job.unread(Kind.QUOTA, "client quotas")
        return
    docs: list[Document] = []
    for entity, found in sorted(job.live.quotas.items(), key=lambda item: item[0].address):
        if not found:
            continue
        address = entity.address
        parts = dict(entity.parts)
        if "default" in parts.values():
            job.report.note(address, "an entity literally named 'default' cannot be told apart from the "
                            "default entity in a manifest; left out")  # fmt: skip
            continue
        kept: dict[str, object] = {}
        for key, number in sorted(found.items()):
            problems = rules.quota_key_problems(set(parts), key)
            if problems:
                job.report.note(address, f"{key} left out: {'; '.join(problems)}")
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
            job.principals.add(f"User:{user}")
    job.report.counts["client quotas"] = len(docs)
    job.files.append(ManifestFile("quotas.yaml", docs))


# ------------------------------------------------------------------------------------- SCRAM
def add_scram_users(job: Job) -> None:
    """``users.yaml``: one credential per user, its password from a variable the user sets."""
    if job.live.scram_users is None:
        job.unread(Kind.SCRAM_USER, "SCRAM users")
        return
    docs: list[Document] = []
    for user, creds in sorted(job.live.scram_users.items()):
        known = {c.mechanism: c.iterations for c in creds if c.mechanism in state.SCRAM_MECHANISMS}
        address = Kind.SCRAM_USER.address(user)
        if not known:
            if creds:
                job.report.note(address, "no credential with a mechanism this version knows; left out")
            continue
        mechanism = "SCRAM-SHA-512" if "SCRAM-SHA-512" in known else "SCRAM-SHA-256"
        iterations = known[mechanism]
        if not 4096 <= iterations <= 16384:
            job.report.note(address, f"{iterations} iterations is outside 4096..16384; left out")
            continue
        if len(known) > 1:
            job.report.note(
                address,
                "has both SCRAM-SHA-256 and SCRAM-SHA-512 credentials; a ScramUser holds one, so "
                f"{mechanism} was written and the plan proposes removing the other",
            )
        variable = job.variable("SCRAM_PASSWORD", user)
        spec = {"mechanism": mechanism, "iterations": iterations, "passwordFrom": FlowMap(env=variable.name)}
        comments = [
            f"TODO: export {variable.name} with this user's current password before the first apply.",
            "Kafka never returns SCRAM passwords; apply sends it only when the credential is (re)set.",
        ]
        docs.append(Document(Manifest.SCRAM_USER, user, spec, comments=comments))
        job.principals.add(f"User:{user}")
    job.report.counts["SCRAM users"] = len(docs)
    job.files.append(ManifestFile("users.yaml", docs))


# ----------------------------------------------------------------------------- broker configs
def add_broker_configs(job: Job) -> None:
    """``brokers.yaml``: the dynamic configs of the cluster default and of each broker, secrets left out."""
    if job.live.broker_configs is None:
        job.unread(Kind.BROKER_CONFIG, "dynamic broker configs")
        return
    docs: list[Document] = []
    entries = job.live.broker_configs
    for broker in sorted(entries, key=lambda b: (b != state.CLUSTER_DEFAULT, int(b) if b.isdigit() else 0, b)):
        kept = _broker_entry(job, broker, entries[broker])
        if not kept:
            continue
        label = "default" if broker == state.CLUSTER_DEFAULT else broker
        name = "cluster-default" if broker == state.CLUSTER_DEFAULT else f"broker-{broker}"
        docs.append(Document(Manifest.BROKER_CONFIG, name, {"broker": label, "configs": kept}))
    job.report.counts["broker config sets"] = len(docs)
    job.files.append(ManifestFile("brokers.yaml", docs))


def _broker_entry(job: Job, broker: str, found: Mapping[str, str | None]) -> dict[str, object]:
    address = Kind.BROKER_CONFIG.address(broker)
    kept: dict[str, object] = {}
    for key, text in sorted(found.items()):
        if text is None or key in job.live.broker_config_sensitive or configs.is_sensitive(key):
            job.report.note(address, f"{key} is a secret; secrets are not managed from manifests, left out "
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
            job.report.note(address, f"{key}={text} left out: {problem}")
            continue
        kept[key] = values.config_value(key, text)
    return kept


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

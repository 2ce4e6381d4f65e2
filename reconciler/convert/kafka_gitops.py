"""A kafka-gitops desired state file (``state.yaml``) converted into manifests.

Topics map one to one (``settings.topics.defaults`` fills missing partitions/replication). Services map
onto role grants: ``application`` -> Producer + Consumer (group = ``group-id`` or the service name),
``kafka-streams`` -> StreamsApp (``application-id`` or the service name), ``kafka-connect`` ->
ConnectWorker for the worker and its source connectors plus one Consumer per sink connector (group
``connect-<connector>``). User roles (reader, writer, operator) and ``customServiceAcls`` /
``customUserAcls`` become exact Acl bindings. The topic blacklist/whitelist becomes the Ownership
topic rules. Confluent Cloud settings, schemas and service accounts without a principal have no
equivalent and are reported. Several input files are merged, section by section.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from reconciler.convert.bundle import Bundle, acl_operation, mapping
from reconciler.model import state
from reconciler.model.acl_names import AclOperation, AclPatternType, AclPermission, AclResourceType
from reconciler.model.kinds import Manifest

_T, _G, _C = AclResourceType.TOPIC, AclResourceType.GROUP, AclResourceType.CLUSTER
_ROLES: dict[str, list[tuple[AclResourceType, str, AclOperation]]] = {  # role -> (type, name, operation)
    "reader": [(_T, "*", AclOperation.READ), (_G, "*", AclOperation.READ)],
    "writer": [(_T, "*", AclOperation.WRITE)],
    "operator": [
        (_C, "kafka-cluster", AclOperation.DESCRIBE),
        (_T, "*", AclOperation.DESCRIBE),
        (_T, "*", AclOperation.DESCRIBE_CONFIGS),
        (_G, "*", AclOperation.READ),
        (_G, "*", AclOperation.DESCRIBE),
    ],
}
_KNOWN_TYPES = {str(t): t for t in state.ACL_RESOURCE_TYPES}
_KNOWN_PATTERNS = {str(p): p for p in state.ACL_PATTERN_TYPES}
_SECTIONS = ("settings", "topics", "services", "users", "customServiceAcls", "customUserAcls")


def _merge(bundle: Bundle, documents: Sequence[tuple[str, Any]]) -> dict[str, dict[str, Any]]:
    merged: dict[str, dict[str, Any]] = {s: {} for s in _SECTIONS}
    for where, doc in documents:
        if not isinstance(doc, Mapping):
            bundle.report.note(where, "not a kafka-gitops state file (a YAML mapping); ignored")
            continue
        for section, body in doc.items():
            if section not in _SECTIONS:
                bundle.report.note(f"{where} {section}", "section has no equivalent; ignored")
                continue
            if not isinstance(body, Mapping):
                bundle.report.note(f"{where} {section}", "expected a mapping; ignored")
                continue
            for key, value in body.items():
                if key in merged[section]:
                    bundle.report.note(f"{section}.{key}", f"declared again in {where}; the first one was kept")
                    continue
                merged[section][str(key)] = value
    return merged


def convert(documents: Sequence[tuple[str, Any]]) -> Bundle:
    """Convert one or more state files (merged) into a ``Bundle``."""
    bundle = Bundle("Conversion from kafka-gitops")
    state_doc = _merge(bundle, documents)
    defaults = _settings(bundle, state_doc["settings"])
    for name, topic in sorted(state_doc["topics"].items()):
        _topic(bundle, name, topic=topic, defaults=defaults)
    principals: dict[str, str] = {}
    for name, service in sorted(state_doc["services"].items()):
        principal = _service(bundle, name, service=service)
        if principal:
            principals[name] = principal
    users: dict[str, str] = {}
    for name, user in sorted(state_doc["users"].items()):
        principal = _user(bundle, name, user=user)
        if principal:
            users[name] = principal
    _custom(bundle, state_doc["customServiceAcls"], owners=principals, what="service")
    _custom(bundle, state_doc["customUserAcls"], owners=users, what="user")
    if bundle.grants:
        bundle.report.note(
            "services",
            "services became role grants with the same access; the grants also list DESCRIBE next to READ/WRITE "
            "(Kafka implies it), ConnectWorker adds DESCRIBE_CONFIGS on the storage topics and StreamsApp grants "
            "its internal topics (<application-id>-*) and group, as Kafka Streams needs (docs/adopting.md)",
            severity="info",
        )
    bundle.report.note(
        "deletes",
        "kafka-gitops deletes undeclared topics and ACLs unless run with --no-delete; the converted Ownership has "
        "every delete off until you enable them",
        severity="info",
    )
    return bundle


def _settings(bundle: Bundle, settings: Mapping[str, Any]) -> dict[str, Any]:
    for key in ("ccloud", "confluent"):
        block = settings.get(key)
        if isinstance(block, Mapping) and block.get("enabled"):
            bundle.report.note(
                f"settings.{key}",
                "Confluent Cloud mode has no equivalent: service accounts, API keys and Cloud ACL principals are "
                "not managed; services without a principal are left out",
            )
    for key in ("schemaRegistry", "schemas", "files", "services"):
        if key in settings:
            message = (
                "split state files: pass every referenced file as an input"
                if key == "files"
                else "has no equivalent; ignored"
            )
            bundle.report.note(f"settings.{key}", message)
    topics = mapping(settings.get("topics"))
    defaults = mapping(topics.get("defaults"))
    black = _prefixes(topics.get("blacklist"))
    white = _prefixes(topics.get("whitelist"))
    if white:
        bundle.topic_rules = [{"prefix": p} for p in white]
    elif black:
        escaped = "|".join(re.escape(p) for p in black)
        bundle.topic_rules = [{"regex": f"(?!(?:{escaped})).*"}]
    else:
        bundle.topic_rules = [{"regex": ".*"}]
    bundle.report.note(
        "settings.topics",
        "kafka-gitops manages every topic outside its blacklist (or inside its whitelist); the Ownership topic "
        "rule says the same, so undeclared topics show up in plans as not declared",
        severity="info",
    )
    return dict(defaults)


def _prefixes(block: object) -> list[str]:
    if not isinstance(block, Mapping):
        return []
    found = block.get("prefixed")
    return [str(p) for p in found] if isinstance(found, list) else []


def _topic(bundle: Bundle, name: str, *, topic: object, defaults: Mapping[str, Any]) -> None:
    body = mapping(topic)
    found = body.get("configs")
    bundle.add_topic(
        name,
        partitions=body.get("partitions", defaults.get("partitions")),
        replicas=body.get("replication", defaults.get("replication")),
        topic_configs={str(k): v for k, v in found.items()} if isinstance(found, Mapping) else {},
        origin=f"topics.{name}",
    )


def _topics(value: object) -> list[str]:
    return [str(t) for t in value] if isinstance(value, list) else []


def _service(bundle: Bundle, name: str, *, service: object) -> str | None:
    origin = f"services.{name}"
    body = mapping(service)
    kind = str(body.get("type", ""))
    principal = body.get("principal")
    if not isinstance(principal, str) or not principal:
        bundle.report.note(origin, "no principal (a Confluent Cloud service account?): no ACLs can be converted")
        return None
    produces, consumes = _topics(body.get("produces")), _topics(body.get("consumes"))
    if kind == "application":
        group = str(body.get("group-id") or name)
        if produces:
            bundle.add_grant(Manifest.PRODUCER, name, spec={"principal": principal, "topics": produces}, origin=origin)
        if consumes:
            spec = {"principal": principal, "topics": consumes, "groups": [group]}
            bundle.add_grant(Manifest.CONSUMER, name, spec=spec, origin=origin)
    elif kind == "kafka-streams":
        streams: dict[str, Any] = {"principal": principal, "applicationId": str(body.get("application-id") or name)}
        if consumes:
            streams["inputTopics"] = consumes
        if produces:
            streams["outputTopics"] = produces
        bundle.add_grant(Manifest.STREAMS_APP, name, spec=streams, origin=origin)
    elif kind == "kafka-connect":
        _connect(bundle, name, body=body, principal=principal, produces=produces, origin=origin)
    else:
        bundle.report.note(origin, f"service type {kind!r} has no equivalent; ignored")
        return None
    return principal


def _connect(
    bundle: Bundle, name: str, *, body: Mapping[str, Any], principal: str, produces: list[str], origin: str
) -> None:
    storage = mapping(body.get("storage-topics"))
    sources = list(produces)
    connectors = mapping(body.get("connectors"))
    sinks: list[tuple[str, list[str]]] = []
    for connector, details in sorted(connectors.items()):
        info = mapping(details)
        sources += [t for t in _topics(info.get("produces")) if t not in sources]
        if _topics(info.get("consumes")):
            sinks.append((str(connector), _topics(info.get("consumes"))))
    spec: dict[str, Any] = {
        "principal": principal,
        "groupId": str(body.get("group-id") or name),
        "configStorageTopic": str(storage.get("config") or f"connect-configs-{name}"),
        "offsetStorageTopic": str(storage.get("offset") or f"connect-offsets-{name}"),
        "statusStorageTopic": str(storage.get("status") or f"connect-status-{name}"),
    }
    if sources:
        spec["sourceTopics"] = sources
    bundle.add_grant(Manifest.CONNECT_WORKER, name, spec=spec, origin=origin)
    for connector, topics in sinks:
        grant = {"principal": principal, "topics": topics, "groups": [f"connect-{connector}"]}
        bundle.add_grant(
            Manifest.CONSUMER, f"{name}-{connector}", spec=grant, origin=f"{origin}.connectors.{connector}"
        )


def _user(bundle: Bundle, name: str, *, user: object) -> str | None:
    origin = f"users.{name}"
    body = mapping(user)
    principal = body.get("principal")
    if not isinstance(principal, str) or not principal:
        bundle.report.note(origin, "no principal: no ACLs can be converted")
        return None
    roles = body.get("roles")
    for role in roles if isinstance(roles, list) else []:
        grants = _ROLES.get(str(role).lower())
        if grants is None:
            bundle.report.note(origin, f"role {role!r} does not exist in kafka-gitops (reader, writer, operator)")
            continue
        for rtype, resource, op in grants:
            binding = state.AclBinding(rtype, AclPatternType.LITERAL, resource, principal, "*", op, AclPermission.ALLOW)
            bundle.add_binding(binding, origin=f"{origin} role {role}")
    bundle.principals.add(principal)
    return principal


def _custom(bundle: Bundle, section: Mapping[str, Any], *, owners: Mapping[str, str], what: str) -> None:
    for owner, acls in sorted(section.items()):
        if not isinstance(acls, Mapping):
            continue
        for acl_name, acl in sorted(acls.items()):
            origin = f"custom{what.capitalize()}Acls.{owner}.{acl_name}"
            body = mapping(acl)
            principal = body.get("principal") or owners.get(owner)
            op = acl_operation(body.get("operation"))
            rtype = _KNOWN_TYPES.get(str(body.get("type", "")).upper())
            pattern = _KNOWN_PATTERNS.get(str(body.get("pattern", "LITERAL")).upper())
            if not principal or op is None or rtype is None or pattern is None:
                bundle.report.note(origin, f"incomplete ACL (principal, type, pattern, operation needed; or no {what} "
                                   f"named {owner}); ignored")  # fmt: skip
                continue
            deny = str(body.get("permission", "ALLOW")).upper() == "DENY"
            permission = AclPermission.DENY if deny else AclPermission.ALLOW
            name = "kafka-cluster" if rtype == "CLUSTER" else str(body.get("name", ""))
            binding = state.AclBinding(rtype, pattern, name, str(principal), str(body.get("host", "*")), op, permission)
            bundle.add_binding(binding, origin=origin)

"""Strimzi ``KafkaTopic`` and ``KafkaUser`` resources (``kafka.strimzi.io``) converted into manifests.

KafkaTopic: ``spec.topicName`` (or ``metadata.name``), ``partitions``, ``replicas``, ``config`` -> Topic.
KafkaUser: ``scram-sha-512`` authentication -> ScramUser (the password by reference); ``simple``
authorization ACLs -> one Acl document per user (principal ``User:<name>``, or ``User:CN=<name>`` for
TLS users, as the User Operator names them); ``spec.quotas`` -> ClientQuota. TLS certificates, other
authorization types and Kubernetes-only fields have no equivalent and are reported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reconciler.convert.bundle import Bundle, acl_operation, mapping
from reconciler.model import state
from reconciler.model.acl_names import AclPatternType, AclPermission, AclResourceType

# The User Operator creates SCRAM-SHA-512 credentials with this iteration count.
SCRAM_ITERATIONS = 4096
_RESOURCE_TYPES = {
    "topic": AclResourceType.TOPIC,
    "group": AclResourceType.GROUP,
    "cluster": AclResourceType.CLUSTER,
    "transactionalid": AclResourceType.TRANSACTIONAL_ID,
}
_PATTERNS = {"literal": AclPatternType.LITERAL, "prefix": AclPatternType.PREFIXED, "prefixed": AclPatternType.PREFIXED}
_QUOTAS = {
    "producerByteRate": "producer_byte_rate",
    "consumerByteRate": "consumer_byte_rate",
    "requestPercentage": "request_percentage",
    "controllerMutationRate": "controller_mutation_rate",
}


def convert(documents: Sequence[tuple[str, Any]]) -> Bundle:
    """Convert every KafkaTopic and KafkaUser; other documents are listed as ignored."""
    bundle = Bundle("Conversion from Strimzi")
    for where, doc in documents:
        if not isinstance(doc, Mapping):
            bundle.report.note(where, "not a Kubernetes resource (a YAML mapping); ignored")
            continue
        api, kind = str(doc.get("apiVersion", "")), doc.get("kind")
        meta = mapping(doc.get("metadata"))
        name = meta.get("name")
        label = f"{kind}/{name}"
        if not api.startswith("kafka.strimzi.io/") or kind not in ("KafkaTopic", "KafkaUser"):
            bundle.report.note(f"{where} {label}", "not a Strimzi KafkaTopic or KafkaUser; ignored", severity="info")
            continue
        spec = mapping(doc.get("spec"))
        if not isinstance(name, str) or not name:
            bundle.report.note(where, f"{kind} without metadata.name; ignored")
            continue
        if kind == "KafkaTopic":
            _topic(bundle, name, spec=spec, meta=meta, origin=label)
        else:
            _user(bundle, name, spec=spec, origin=label)
    if bundle.topics:
        bundle.report.note(
            "KafkaTopic",
            "the Topic Operator only manages topics that have a KafkaTopic; the Ownership document names exactly "
            "these topics, so no other topic is ever looked at",
            severity="info",
        )
    return bundle


def _labels(meta: Mapping[str, Any]) -> dict[str, str]:
    raw = meta.get("labels")
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): str(v) for k, v in raw.items() if isinstance(v, (str, int, float, bool))}


def _topic(bundle: Bundle, name: str, *, spec: Mapping[str, Any], meta: Mapping[str, Any], origin: str) -> None:
    topic = spec.get("topicName") or name
    found = spec.get("config")
    if found is not None and not isinstance(found, Mapping):
        bundle.report.note(origin, "spec.config is not a mapping; configs left out")
        found = {}
    bundle.add_topic(
        str(topic),
        partitions=spec.get("partitions"),
        replicas=spec.get("replicas"),
        topic_configs={str(k): v for k, v in (found or {}).items()},
        origin=origin,
        labels=_labels(meta),
    )


def _user(bundle: Bundle, name: str, *, spec: Mapping[str, Any], origin: str) -> None:
    auth = mapping(spec.get("authentication"))
    auth_type = str(auth.get("type", "")).lower()
    principal_name = name
    if auth_type == "scram-sha-512":
        comments = [f"TODO: export the SCRAM password of {name} before the first apply."]
        secret = _secret_ref(auth)
        comments.append(
            f"Strimzi read it from the Secret {secret}."
            if secret
            else f"The User Operator generated it into the Secret {name} (key: password)."
        )
        bundle.add_scram_user(
            name, mechanism="SCRAM-SHA-512", iterations=SCRAM_ITERATIONS, comments=comments, origin=origin
        )
        bundle.report.note(
            origin,
            f"SCRAM-SHA-512 credential with {SCRAM_ITERATIONS} iterations (the User Operator's count); the "
            "password itself lives in a Kubernetes Secret and is referenced, not converted",
            severity="info",
        )
    elif auth_type in ("tls", "tls-external"):
        principal_name = f"CN={name}"
        bundle.report.note(
            origin,
            f"{auth_type} authentication (client certificates) has no equivalent: keep issuing certificates "
            f"outside kafka-reconciler; ACLs and quotas were converted for User:{principal_name}",
        )
    elif auth_type:
        bundle.report.note(origin, f"authentication type {auth_type!r} has no equivalent; ignored")
    else:
        bundle.report.note(origin, "no authentication: only ACLs and quotas were converted", severity="info")
    authz = spec.get("authorization")
    if isinstance(authz, Mapping):
        if str(authz.get("type", "")).lower() == "simple":
            acls = authz.get("acls")
            for index, rule in enumerate(acls if isinstance(acls, list) else []):
                _acl(bundle, f"User:{principal_name}", rule=rule, origin=f"{origin} acls[{index}]")
        else:
            bundle.report.note(origin, f"authorization type {authz.get('type')!r} has no equivalent; ACLs ignored")
    quotas = spec.get("quotas")
    if isinstance(quotas, Mapping):
        values: dict[str, float] = {}
        for key, value in quotas.items():
            target = _QUOTAS.get(str(key))
            if target is None:
                bundle.report.note(origin, f"quota {key} has no equivalent; ignored")
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                values[target] = float(value)
            else:
                bundle.report.note(origin, f"quota {key}={value!r} is not a number; ignored")
        if values:
            bundle.add_quota(principal_name, values, origin=origin)
    for field in ("template",):
        if field in spec:
            bundle.report.note(
                origin, f"spec.{field} is Kubernetes-only (the Secret's metadata); ignored", severity="info"
            )


def _secret_ref(auth: Mapping[str, Any]) -> str | None:
    password = auth.get("password")
    ref = None
    if isinstance(password, Mapping) and isinstance(password.get("valueFrom"), Mapping):
        ref = password["valueFrom"].get("secretKeyRef")
    if isinstance(ref, Mapping):
        return f"{ref.get('name')} (key: {ref.get('key')})"
    return None


def _acl(bundle: Bundle, principal: str, *, rule: object, origin: str) -> None:
    if not isinstance(rule, Mapping) or not isinstance(rule.get("resource"), Mapping):
        bundle.report.note(origin, "an ACL rule without a resource; ignored")
        return
    resource = rule["resource"]
    rtype = _RESOURCE_TYPES.get(str(resource.get("type", "")).replace("_", "").lower())
    if rtype is None:
        bundle.report.note(origin, f"resource type {resource.get('type')!r} has no equivalent; ignored")
        return
    pattern = _PATTERNS.get(str(resource.get("patternType", "literal")).lower())
    if pattern is None:
        bundle.report.note(origin, f"patternType {resource.get('patternType')!r} has no equivalent; ignored")
        return
    name = "kafka-cluster" if rtype == "CLUSTER" else resource.get("name")
    if not isinstance(name, str) or not name:
        bundle.report.note(origin, f"{rtype.lower()} ACL without a resource name; ignored")
        return
    raw_ops = rule.get("operations")
    if raw_ops is None:
        raw_ops = [rule.get("operation")]  # the older single-operation form
    host = str(rule.get("host", "*"))
    permission = AclPermission.DENY if str(rule.get("type", "allow")).lower() == "deny" else AclPermission.ALLOW
    for raw in raw_ops if isinstance(raw_ops, list) else [raw_ops]:
        op = acl_operation(raw)
        if op is None:
            bundle.report.note(origin, f"operation {raw!r} is not a Kafka ACL operation; ignored")
            continue
        bundle.add_binding(state.AclBinding(rtype, pattern, name, principal, host, op, permission), origin=origin)

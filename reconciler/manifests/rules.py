"""Kafka's own rules, checked client-side: topic names, ACL operations per resource type, principals, hosts, quotas.

Each check returns plain problem strings (empty when fine); callers attach positions. Rules follow
the broker: ``Topic.validate`` for names, ``AclEntry`` / the authorizer docs for ACL operations, and
the client-quota entity rules of KIP-546.
"""

from __future__ import annotations

import ipaddress
import re

from reconciler.model import configs, desired

TOPIC_NAME_MAX = 249
_TOPIC_NAME = re.compile(r"^[a-zA-Z0-9._-]+$")
CLUSTER_RESOURCE = "kafka-cluster"

OPERATIONS_BY_RESOURCE: dict[str, frozenset[str]] = {
    "TOPIC": frozenset(
        {"READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "ALL"}
    ),
    "GROUP": frozenset({"READ", "DESCRIBE", "DELETE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "ALL"}),
    "CLUSTER": frozenset(
        {
            "ALTER",
            "ALTER_CONFIGS",
            "CLUSTER_ACTION",
            "CREATE",
            "DESCRIBE",
            "DESCRIBE_CONFIGS",
            "IDEMPOTENT_WRITE",
            "ALL",
        }
    ),
    "TRANSACTIONAL_ID": frozenset({"WRITE", "DESCRIBE", "ALL"}),
    "DELEGATION_TOKEN": frozenset({"DESCRIBE", "ALL"}),
    "USER": frozenset({"CREATE_TOKENS", "DESCRIBE_TOKENS", "ALL"}),
}


def topic_name_problems(name: str) -> list[str]:
    """Why Kafka would refuse ``name`` as a topic name (empty when it is legal)."""
    if name in (".", ".."):
        return [f"topic name {name!r} is not allowed"]
    problems = []
    if len(name) > TOPIC_NAME_MAX:
        problems.append(f"topic name is {len(name)} characters long; Kafka allows at most {TOPIC_NAME_MAX}")
    if not _TOPIC_NAME.match(name):
        bad = sorted({c for c in name if not re.match(r"[a-zA-Z0-9._-]", c)})
        problems.append(
            f"topic name {name!r} contains {', '.join(repr(c) for c in bad)}; "
            "only ASCII letters, digits, '.', '_' and '-' are allowed"
        )
    return problems


def collision_key(name: str) -> str:
    """Topic names equal once '.' and '_' are treated alike collide in Kafka's metric names."""
    return desired.topic_collision_key(name)


def principal_problems(principal: str) -> list[str]:
    """A principal must be ``User:<name>`` (``User:*`` for everyone)."""
    kind, sep, name = principal.partition(":")
    if not sep or not name:
        return [f"principal {principal!r} must look like User:<name> (or User:* for any user)"]
    if kind != "User":
        return [f"principal type {kind!r} is not supported; use User:<name>"]
    return []


def host_problems(host: str) -> list[str]:
    """An ACL host is ``*`` or an IP address (Kafka matches client addresses, not host names)."""
    if host == "*":
        return []
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return [f"host {host!r} must be '*' or an IP address"]
    return []


def acl_problems(*, resource_type: str, pattern_type: str, resource_name: str, operation: str) -> list[str]:
    """Problems with one binding: operation valid for the resource type, cluster name, wildcard patterns."""
    found = acl_problems_by_field(
        resource_type=resource_type, pattern_type=pattern_type, resource_name=resource_name, operation=operation
    )
    return [problem for _field, problem in found]


def acl_problems_by_field(
    *, resource_type: str, pattern_type: str, resource_name: str, operation: str
) -> list[tuple[str, str]]:
    """As ``acl_problems``, each with the binding field it is about: operation, resourceName or patternType."""
    problems = []
    allowed = OPERATIONS_BY_RESOURCE.get(resource_type, frozenset())
    if operation not in allowed:
        valid = ", ".join(sorted(allowed))
        problems.append(
            ("operation", f"operation {operation} does not apply to {resource_type} resources; valid: {valid}")
        )
    if resource_type == "CLUSTER" and (resource_name != CLUSTER_RESOURCE or pattern_type != "LITERAL"):
        field = "resourceName" if resource_name != CLUSTER_RESOURCE else "patternType"
        problems.append((field, f"the CLUSTER resource is the literal name {CLUSTER_RESOURCE!r}"))
    if resource_name == "*" and pattern_type == "PREFIXED":
        problems.append(("patternType", "the wildcard '*' is only valid with patternType LITERAL"))
    return problems


def quota_entity_problems(parts: dict[str, str | None]) -> list[str]:
    """Allowed combinations: user, client-id, user+client-id, ip; an ip name must be an address."""
    types = set(parts)
    if not types:
        return ["give user, clientId (or both), or ip"]
    if "ip" in types and len(types) > 1:
        return ["ip quotas cannot be combined with user or clientId"]
    ip = parts.get("ip")
    if ip is not None:
        try:
            ipaddress.ip_address(ip)
        except ValueError:
            return [f"ip {ip!r} is not an IP address (or 'default')"]
    return []


def quota_key_problems(entity_types: set[str], key: str) -> list[str]:
    """Whether ``key`` is a client-quota key valid for this entity type combination."""
    allowed = configs.quota_keys_for(entity_types)
    if key in allowed:
        return []
    every = set().union(*configs.QUOTA_KEYS.values())
    if key in every:
        entity = "+".join(sorted(entity_types))
        return [f"quota {key} does not apply to {entity} entities; valid: {', '.join(sorted(allowed))}"]
    hint = configs.suggest(key, sorted(every))
    return [f"unknown quota key {key!r}" + (f"; did you mean {hint}?" if hint else "")]


_LISTENER_PREFIX = re.compile(r"listener\.name\.[^.]+\.(?:[a-z0-9-]+\.(?=sasl\.))?")


def listener_base(key: str) -> str:
    """``ssl.keystore.type`` for ``listener.name.internal.ssl.keystore.type``: a per-listener override of a known
    config (``listener.name.<l>.<mechanism>.sasl.*`` included) is known to the broker as its base config."""
    return _LISTENER_PREFIX.sub("", key, count=1) if key.startswith("listener.name.") else key

"""What the connecting principal must be granted for each read the tool sends, to name it when a broker says no.

A broker answers a request the principal may not make with ``CLUSTER_AUTHORIZATION_FAILED``,
``TOPIC_AUTHORIZATION_FAILED`` or ``GROUP_AUTHORIZATION_FAILED`` and nothing more. ``grant_hint`` turns that into
the one ACL to add, e.g. ``grant DESCRIBE_CONFIGS on CLUSTER kafka-cluster to User:alice``. The operations follow
Kafka's authorization table (docs/security.md lists the whole set the tool needs).
"""

from __future__ import annotations

from typing import Any

CLUSTER = "CLUSTER kafka-cluster"

# API -> (operation, resource); "{name}" is the topic or group the failure is about.
NEEDED: dict[str, tuple[str, str]] = {
    "DescribeAcls": ("DESCRIBE", CLUSTER),
    "DescribeClientQuotas": ("DESCRIBE_CONFIGS", CLUSTER),
    "DescribeUserScramCredentials": ("DESCRIBE", CLUSTER),
    "ListPartitionReassignments": ("DESCRIBE", CLUSTER),
    "DescribeCluster": ("DESCRIBE", CLUSTER),
    "DescribeLogDirs": ("DESCRIBE", CLUSTER),
    "DescribeConfigs:broker": ("DESCRIBE_CONFIGS", CLUSTER),
    "DescribeConfigs:topic": ("DESCRIBE_CONFIGS", "TOPIC {name}"),
    "ListOffsets": ("DESCRIBE", "TOPIC {name}"),
    "ListGroups": ("DESCRIBE", "GROUP {name}"),
    "OffsetFetch": ("DESCRIBE", "GROUP {name}"),
    "DescribeGroups": ("DESCRIBE", "GROUP {name}"),
}


def principal_of(settings: Any) -> str:
    """``User:<name>`` for a SASL connection, ``User:ANONYMOUS`` on PLAINTEXT; a description otherwise (TLS)."""
    protocol = getattr(settings, "security_protocol", None)
    username = getattr(settings, "username", None)
    if protocol in ("SASL_PLAINTEXT", "SASL_SSL") and username:
        return f"User:{username}"
    if protocol == "PLAINTEXT":
        return "User:ANONYMOUS"
    return "the connecting principal (the certificate's subject, e.g. User:CN=...)"


def grant_hint(api: str, *, settings: Any, name: str | None = None) -> str | None:
    """``grant OPERATION on RESOURCE to PRINCIPAL`` for a refused ``api`` (``None`` when the API is not listed)."""
    needed = NEEDED.get(api)
    if needed is None:
        return None
    operation, resource = needed
    if "{name}" in resource:
        resource = resource.format(name=name) if name else resource.replace(" {name}", "s it names")
    return f"grant {operation} on {resource} to {principal_of(settings)}"


def is_authorization_error(error_name: str | None) -> bool:
    return bool(error_name) and str(error_name).endswith("AUTHORIZATION_FAILED")

"""What the connecting principal must be granted for each read the tool sends, to name it when a broker says no.

A broker answers a request the principal may not make with ``CLUSTER_AUTHORIZATION_FAILED``,
``TOPIC_AUTHORIZATION_FAILED`` or ``GROUP_AUTHORIZATION_FAILED`` and nothing more. ``grant_hint`` turns that into
the one ACL to add, e.g. ``grant DESCRIBE_CONFIGS on CLUSTER kafka-cluster to User:alice``. The operations follow
Kafka's authorization table (docs/security.md lists the whole set the tool needs). A TLS or OAUTHBEARER principal
is named as ``identity`` computes it (the brokers' naming rules when the connection has read them), never at the
cost of another request.
"""

from __future__ import annotations

from typing import Any

from reconciler.base import errors
from reconciler.kafka import identity, tls

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
    "DescribeConfigs:group": ("DESCRIBE_CONFIGS", "GROUP {name}"),
    "DescribeConfigs:client_metrics": ("DESCRIBE_CONFIGS", CLUSTER),
    "ListConfigResources": ("DESCRIBE_CONFIGS", CLUSTER),
    "ListOffsets": ("DESCRIBE", "TOPIC {name}"),
    "ListGroups": ("DESCRIBE", "GROUP {name}"),
    "OffsetFetch": ("DESCRIBE", "GROUP {name}"),
    "DescribeGroups": ("DESCRIBE", "GROUP {name}"),
}


def principal_of(settings: Any, *, wire: Any = None) -> str:
    """``User:<name>`` for a SASL PLAIN/SCRAM connection, ``User:ANONYMOUS`` on PLAINTEXT; for TLS and OAUTHBEARER the
    principal ``identity`` computes from what ``wire`` already holds, else a description."""
    protocol = getattr(settings, "security_protocol", None)
    mechanism = getattr(settings, "sasl_mechanism", None)
    username = getattr(settings, "username", None)
    if protocol in ("SASL_PLAINTEXT", "SASL_SSL") and mechanism != "OAUTHBEARER" and username:
        return f"User:{username}"
    if protocol == "PLAINTEXT":
        return "User:ANONYMOUS"
    named = known_principal(wire) if wire is not None else None
    if named is not None:
        return named
    if mechanism == "OAUTHBEARER":
        return "the connecting principal (User: and the token's claim the brokers name it by, e.g. User:<sub>)"
    return "the connecting principal (the certificate's subject, e.g. User:CN=...)"


def known_principal(wire: Any) -> str | None:
    """The TLS or OAUTHBEARER principal as ``identity`` computes it, from the certificate or token claims and the
    brokers' naming rules the connection already read, without sending a request; without those rules the client
    settings' copy is used and the text says so. ``None`` when it cannot be computed (no certificate or claims
    to hand, a custom principal builder, no mapping rule matching the subject)."""
    settings = wire.settings
    rules = wire.broker_rules if isinstance(wire.broker_rules, identity.BrokerRules) else None
    if rules is not None and rules.builder is not None:
        return None
    try:
        claims = wire.token_provider.claims if wire.token_provider is not None else {}
        certificate = None if settings.uses_sasl else tls.client_certificate(settings)
        name = identity.principal(settings, rules, claims=claims, certificate=certificate)
    except (errors.ReconcilerError, ValueError):
        return None
    if name is None or rules is not None:
        return name
    setting = identity.SUB_CLAIM if settings.uses_sasl else identity.MAPPING_RULES
    return f"{name} (named by the client settings; the brokers' {setting} was not read)"


def grant_hint(api: str, *, settings: Any, name: str | None = None, wire: Any = None) -> str | None:
    """``grant OPERATION on RESOURCE to PRINCIPAL`` for a refused ``api`` (``None`` when the API is not listed);
    ``wire``, when given, names a TLS or OAUTHBEARER principal (``known_principal``)."""
    needed = NEEDED.get(api)
    if needed is None:
        return None
    operation, resource = needed
    if "{name}" in resource:
        resource = resource.format(name=name) if name else resource.replace(" {name}", "s it names")
    grant = f"grant {operation} on {resource}"
    return unread_rules_hint(grant, wire) or f"{grant} to {principal_of(settings, wire=wire)}"


def unread_rules_hint(grant: str, wire: Any) -> str | None:
    """The hint when the brokers' naming rules could not be read (the principal may not read broker configs): the
    name the client side computes may not be the one the brokers use (their mapping rules, another OAuth claim), so
    granting it could grant the wrong principal. It says so first, names the grant that lets the tool read the
    rules (DESCRIBE_CONFIGS on the cluster), and the candidates. ``None`` in every other case."""
    if wire is None or wire.broker_rules is not False:
        return None
    settings = wire.settings
    if getattr(settings, "security_protocol", None) == "PLAINTEXT" or (
        settings.uses_sasl and settings.sasl_mechanism != "OAUTHBEARER"
    ):
        return None
    try:
        claims = wire.token_provider.claims if wire.token_provider is not None else {}
        certificate = None if settings.uses_sasl else tls.client_certificate(settings)
        client = identity.principal(settings, None, claims=claims, certificate=certificate)
        default = identity.BrokerRules(mapping_rules=None, sub_claim="sub", builder=None, source="Kafka's defaults")
        kafka_default = identity.principal(settings, default, claims=claims, certificate=certificate)
    except (errors.ReconcilerError, ValueError):
        return None
    setting = identity.SUB_CLAIM if settings.uses_sasl else identity.MAPPING_RULES
    rule = "the default claim, sub" if settings.uses_sasl else "Kafka's default rule"
    if client is None and kafka_default is None:
        return None
    if client == kafka_default or client is None or kafka_default is None:
        who = f"{client or kafka_default} by the client settings and {rule}"
    else:
        who = f"{client} by the client settings, {kafka_default} by {rule}"
    read_rules = f"grant DESCRIBE_CONFIGS on {CLUSTER}"
    then = "" if grant == read_rules else f", then {grant} to the principal it names"
    return (
        f"the brokers' {setting} could not be read, so the principal they give this connection may not be the one "
        f"the client computes ({who}): first {read_rules} to the brokers' principal for this connection, which "
        f"lets the tool read the rules and name it{then}"
    )


def is_authorization_error(error_name: str | None) -> bool:
    return bool(error_name) and str(error_name).endswith("AUTHORIZATION_FAILED")

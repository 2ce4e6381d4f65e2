"""What the connecting principal may do, as the brokers' authorizer says (KIP-430 authorized operations).

Two requests: DescribeCluster with the cluster's authorized operations, and Metadata for the named topics with
each topic's authorized operations. The answer includes super users and every ACL rule (prefixed, wildcard,
DENY), because the broker evaluates it; a cluster without an authorizer reports every operation as allowed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from kafka.protocol.admin import DescribeClusterRequest
from kafka.protocol.metadata import MetadataRequest

from reconciler.kafka import wire as wire_mod

# AclOperation codes of the Kafka protocol; bit ``code`` of an authorized-operations field is set when allowed.
OPERATIONS = {
    3: "READ",
    4: "WRITE",
    5: "CREATE",
    6: "DELETE",
    7: "ALTER",
    8: "DESCRIBE",
    9: "CLUSTER_ACTION",
    10: "DESCRIBE_CONFIGS",
    11: "ALTER_CONFIGS",
    12: "IDEMPOTENT_WRITE",
    13: "CREATE_TOKENS",
    14: "DESCRIBE_TOKENS",
}
_NOT_PROVIDED = -(2**31)  # INT32_MIN: the broker did not say
_UNKNOWN_TOPIC = 3


@dataclasses.dataclass(frozen=True, slots=True)
class AuthorizedOperations:
    """``cluster`` and each named topic's allowed operations (for a topic that does not exist yet too, when
    the broker says); ``None`` where the broker did not say."""

    cluster: frozenset[str] | None
    topics: dict[str, frozenset[str] | None]


def decode(value: object) -> frozenset[str] | None:
    """Operation names from the field as kafka-python gives it: a bitfield, or the list of set bits' codes."""
    if isinstance(value, int):
        if value == _NOT_PROVIDED or value < 0:
            return None
        codes = [code for code in OPERATIONS if value & (1 << code)]
    elif isinstance(value, (list, tuple, set, frozenset)):
        codes = [int(code) for code in value]
        if any(code not in OPERATIONS for code in codes):
            return None  # the INT32_MIN "not provided" marker decoded as bit 31
    else:
        return None
    return frozenset(OPERATIONS[code] for code in codes)


def _field(obj: object, *names: str) -> object:
    for name in names:
        try:
            return getattr(obj, name)
        except AttributeError:
            continue
    return None


def read_authorized_operations(wire: wire_mod.Wire, topics: Sequence[str]) -> AuthorizedOperations:
    """The principal's operations on the cluster and on each of ``topics`` that exists (2 requests)."""
    cluster: frozenset[str] | None = None
    if wire.unsupported("DescribeCluster") is None:
        response = wire.send(DescribeClusterRequest(include_cluster_authorized_operations=True))
        if not getattr(response, "error_code", 0):
            cluster = decode(_field(response, "cluster_authorized_operations", "authorized_operations"))
    found: dict[str, frozenset[str] | None] = {}
    if topics:
        request = MetadataRequest(
            topics=[MetadataRequest.MetadataRequestTopic(name=n) for n in sorted(set(topics))],
            allow_auto_topic_creation=False,
            include_topic_authorized_operations=True,
        )
        for t in wire.send(request).topics:
            ops = decode(_field(t, "topic_authorized_operations", "authorized_operations"))
            if t.error_code == _UNKNOWN_TOPIC and not ops:
                continue  # does not exist (yet) and the broker did not say: the cluster's CREATE or an ACL decides
            found[str(t.name)] = ops if t.error_code in (0, _UNKNOWN_TOPIC) else None
    return AuthorizedOperations(cluster=cluster, topics=found)

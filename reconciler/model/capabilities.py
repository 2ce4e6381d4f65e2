"""What a cluster must support for each resource kind, decided from its ApiVersions answer (pure data).

``KIND_APIS`` lists the admin APIs each kind is read and written with; ``API_SINCE`` the Kafka release that
added each. ``kind_unsupported`` says, from a capabilities record (admin API name -> highest version, as
``ClusterState.capabilities`` holds it), whether a kind can be managed on the cluster and why not. The adapter
uses it to skip reading such a kind, the planner to block the kind's changes with that reason.
"""

from __future__ import annotations

from collections.abc import Mapping

from reconciler.model.kinds import Kind

# The Kafka release that introduced each admin API the tool may need, for plain "needs Kafka X" messages.
API_SINCE = {
    "Metadata": "0.8",
    "DescribeConfigs": "0.11",
    "DescribeAcls": "0.11",
    "CreateAcls": "0.11",
    "DeleteAcls": "0.11",
    "CreateTopics": "0.10.1",
    "DeleteTopics": "0.10.1",
    "CreatePartitions": "1.0",
    "IncrementalAlterConfigs": "2.3",
    "AlterPartitionReassignments": "2.4",
    "ListPartitionReassignments": "2.4",
    "DescribeClientQuotas": "2.6",
    "AlterClientQuotas": "2.6",
    "DescribeUserScramCredentials": "2.7",
    "AlterUserScramCredentials": "2.7",
    "DescribeCluster": "2.8",
}

# Admin APIs each kind needs to be read and written.
KIND_APIS: Mapping[Kind, tuple[str, ...]] = {
    Kind.TOPIC: ("Metadata", "DescribeConfigs", "CreateTopics", "DeleteTopics", "CreatePartitions",
                         "IncrementalAlterConfigs"),
    Kind.ACL: ("DescribeAcls", "CreateAcls", "DeleteAcls"),
    Kind.QUOTA: ("DescribeClientQuotas", "AlterClientQuotas"),
    Kind.SCRAM_USER: ("DescribeUserScramCredentials", "AlterUserScramCredentials"),
    Kind.BROKER_CONFIG: ("DescribeConfigs", "IncrementalAlterConfigs"),
}  # fmt: skip


def explain_unsupported(api: str, capabilities: Mapping[str, int]) -> str | None:
    """``cluster does not support DescribeClientQuotas (needs Kafka 2.6+)`` when ``api`` is missing, else ``None``."""
    if api in capabilities:
        return None
    since = API_SINCE.get(api)
    needs = f" (needs Kafka {since}+)" if since else ""
    return f"cluster does not support {api}{needs}"


def missing_apis(kind: Kind, capabilities: Mapping[str, int]) -> list[str]:
    """The admin APIs ``kind`` needs that ``capabilities`` lacks, in ``KIND_APIS`` order."""
    return [api for api in KIND_APIS.get(kind, ()) if api not in capabilities]


def kind_unsupported(kind: Kind, capabilities: Mapping[str, int]) -> str | None:
    """Why ``kind`` cannot be managed on a cluster with ``capabilities``, or ``None`` when it can.

    ``not supported by this cluster (version): it lacks DescribeClientQuotas, AlterClientQuotas (Kafka 2.6+)``.
    An empty record means the capabilities are unknown (a snapshot written without them): nothing is refused.
    """
    if not capabilities:
        return None
    missing = missing_apis(kind, capabilities)
    if not missing:
        return None
    since = max((API_SINCE.get(api, "0") for api in missing), key=_release)
    return f"not supported by this cluster (version): it lacks {', '.join(missing)} (Kafka {since}+)"


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))

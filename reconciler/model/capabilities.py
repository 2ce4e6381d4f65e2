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
    # As ListClientMetricsResources from 3.7 on, but only in KRaft mode: 4.0 is the first release every cluster of
    # which has it (a 3.9 ZooKeeper cluster lacks it). Version 1 (KIP-1142: every config resource type) is 4.1's.
    "ListConfigResources": "4.0",
}
# Versions of an API a kind needs beyond its first: (API, version) -> the Kafka release that added it.
VERSION_SINCE = {("ListConfigResources", 1): "4.1"}

# Admin APIs each kind needs to be read and written.
KIND_APIS: Mapping[Kind, tuple[str, ...]] = {
    Kind.TOPIC: ("Metadata", "DescribeConfigs", "CreateTopics", "DeleteTopics", "CreatePartitions",
                         "IncrementalAlterConfigs"),
    Kind.ACL: ("DescribeAcls", "CreateAcls", "DeleteAcls"),
    Kind.QUOTA: ("DescribeClientQuotas", "AlterClientQuotas"),
    Kind.SCRAM_USER: ("DescribeUserScramCredentials", "AlterUserScramCredentials"),
    Kind.BROKER_CONFIG: ("DescribeConfigs", "IncrementalAlterConfigs"),
    Kind.GROUP_CONFIG: ("ListConfigResources", "DescribeConfigs", "IncrementalAlterConfigs"),
    Kind.CLIENT_METRICS: ("ListConfigResources", "DescribeConfigs", "IncrementalAlterConfigs"),
}  # fmt: skip
# The lowest version of an API a kind needs, where it is above 0: listing every group (not only client-metrics
# subscriptions) takes ListConfigResources version 1 (KIP-1142).
KIND_API_VERSIONS: Mapping[Kind, Mapping[str, int]] = {Kind.GROUP_CONFIG: {"ListConfigResources": 1}}


def explain_unsupported(api: str, capabilities: Mapping[str, int]) -> str | None:
    """``cluster does not support DescribeClientQuotas (needs Kafka 2.6+)`` when ``api`` is missing, else ``None``."""
    if api in capabilities:
        return None
    since = API_SINCE.get(api)
    needs = f" (needs Kafka {since}+)" if since else ""
    return f"cluster does not support {api}{needs}"


def missing_apis(kind: Kind, capabilities: Mapping[str, int]) -> list[str]:
    """The admin APIs ``kind`` needs that ``capabilities`` lacks (or has only in a version too old), in ``KIND_APIS``
    order; an API needed in a version above 0 is named with it (``ListConfigResources v1``)."""
    out = []
    for api in KIND_APIS.get(kind, ()):
        least = KIND_API_VERSIONS.get(kind, {}).get(api, 0)
        if api not in capabilities or capabilities[api] < least:
            out.append(f"{api} v{least}" if least else api)
    return out


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
    since = max((_since(api) for api in missing), key=_release)
    return f"not supported by this cluster (version): it lacks {', '.join(missing)} (Kafka {since}+)"


def _since(api: str) -> str:
    """The release that added ``api`` (``ListConfigResources v1``: that version of it)."""
    name, _, version = api.partition(" v")
    return VERSION_SINCE.get((name, int(version)), "0") if version else API_SINCE.get(name, "0")


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))

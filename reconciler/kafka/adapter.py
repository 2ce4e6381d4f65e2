"""``KafkaAdapter``: the one object through which the tool reads and writes a Kafka cluster.

It connects lazily, reports what the cluster supports, reads the live state in a constant number of
requests (``read_state``) and applies batched writes that answer per entity (``ItemResult``). Every request
it sends is counted in ``request_count`` / ``request_counts``. It is the one implementation of
``reconciler.kafka.port.AdminPort`` over the wire (mypy checks it, at the end of this module). The modules next to
this one do the work: ``wire`` (connection, routing, counting), ``read`` (live state), ``write`` (batched topic,
config and reassignment changes) and ``security`` (ACLs, quotas and SCRAM credentials, read and written); their
writes are methods of the mixins ``write.Writes`` and ``security.SecurityWrites`` the adapter is made of, so each
admin call is written once, where it is implemented.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any

from kafka.protocol.metadata import MetadataRequest

from reconciler.base import errors
from reconciler.connection.settings import ConnectionSettings
from reconciler.kafka import access, budgets, evidence, identity, port, read, results, security, usage, write
from reconciler.kafka import lock as lock_mod
from reconciler.kafka import wire as wire_mod
from reconciler.model import impact, state
from reconciler.model.capabilities import KIND_API_VERSIONS, KIND_APIS, VERSION_SINCE
from reconciler.model.kinds import Kind

_UNKNOWN_TOPIC = 3
VIEW_TIMEOUT_MS = 5_000  # what a frozen broker can cost the read-back, once (then it is left out as unreachable)


class KafkaAdapter(write.Writes, security.SecurityWrites):
    """Reads and writes one cluster. Use as a context manager; nothing connects until the first call."""

    def __init__(
        self, settings: ConnectionSettings, *, connect_timeout_s: float | None = None, deadline_s: float | None = None
    ) -> None:
        self.settings = settings
        # deadline_s: nothing waits on the cluster past it, counted from now (``wire.DEFAULT_DEADLINE_S`` if None)
        self._wire = wire_mod.Wire(settings, connect_timeout_s=connect_timeout_s, deadline_s=deadline_s)

    def __enter__(self) -> KafkaAdapter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._wire.close()

    def __repr__(self) -> str:
        return f"KafkaAdapter({self.settings.describe()})"

    @property
    def principal(self) -> str | None:
        """The principal the brokers see for this connection, when the client side can know it (see ``Wire``)."""
        return self._wire.principal

    @property
    def principal_source(self) -> str:
        """Where the rules that name ``principal`` came from, for messages (the brokers' configuration or not)."""
        settings = self._wire.settings
        if settings.uses_sasl and settings.sasl_mechanism != "OAUTHBEARER":
            return "the SASL user name"
        rules = self._wire.broker_rules
        return identity.describe(rules if isinstance(rules, identity.BrokerRules) else None)

    def apply_lock(
        self, *, plan: str, wait_s: float, deadline_s: float, on_wait: Callable[[str], None] | None = None
    ) -> lock_mod.ClusterLock:
        """Hold the cluster's apply lock (``reconciler.kafka.lock``), waiting at most ``wait_s`` for another holder
        (``on_wait`` is told who, once) and never past ``deadline_s`` from now; release it before the adapter
        closes."""
        return lock_mod.take(self._wire, plan=plan, wait_s=wait_s, deadline_s=deadline_s, on_wait=on_wait)

    # -------------------------------------------------------------------------------- counting
    @property
    def request_count(self) -> int:
        """Admin requests sent so far (the client's own connection handshakes are not counted): the sum of
        ``request_counts``."""
        return sum(self._wire.request_counts.values())

    @property
    def request_counts(self) -> dict[str, int]:
        """Requests sent so far, per API name (``{"Metadata": 1, "DescribeConfigs": 1, ...}``)."""
        return dict(self._wire.request_counts)

    def reset_request_count(self) -> None:
        self._wire.request_counts.clear()

    def name_budget(self, *, given_s: float, left_s: float, used_by: str) -> None:
        """This adapter's connect bound is the ``left_s`` seconds that ``used_by`` (``planning``) left of the command's
        ``--timeout given_s``: a connect that times out names that --timeout and what used it (``budgets.Budget``)."""
        self._wire.budget = budgets.Budget(given_s=given_s, used_s=max(0.0, given_s - left_s), used_by=used_by)

    def limit_waits(self, seconds: float, *, named_s: float | None = None, reserve_s: float = 0.0) -> None:
        """No wait on the cluster past ``seconds`` from now, no write in its last ``reserve_s`` (``Wire.limit``)."""
        self._wire.limit(seconds, named_s=named_s, reserve_s=reserve_s)

    # ---------------------------------------------------------------------------- capabilities
    def connect(self) -> None:
        """Connect now (otherwise the first call does); raises ``ConnectionFailed`` with a plain message."""
        self._wire.client()

    def capabilities(self) -> dict[str, int]:
        """Admin API name -> highest version the cluster supports (from ApiVersions; no extra request)."""
        return self._wire.capabilities()

    def missing_apis(self, kinds: Iterable[Kind]) -> list[str]:
        """Plain sentences for each API that ``kinds`` need and the cluster lacks (empty when all are there)."""
        kinds = list(kinds)
        needed = dict.fromkeys(api for kind in kinds for api in KIND_APIS.get(kind, ()))
        found = [reason for api in needed if (reason := self._wire.unsupported(api)) is not None]
        caps = self._wire.capabilities()
        versions = {(api, v) for kind in kinds for api, v in KIND_API_VERSIONS.get(kind, {}).items()}
        found += [
            f"cluster does not support {api} version {v} (needs Kafka {VERSION_SINCE[(api, v)]}+)"
            for api, v in sorted(versions)
            if api in caps and caps[api] < v
        ]
        return found

    def require(self, kinds: Iterable[Kind]) -> None:
        """Raise ``UnsupportedByCluster`` naming every missing API, e.g. DescribeClientQuotas (needs Kafka 2.6+)."""
        missing = self.missing_apis(kinds)
        if missing:
            raise errors.UnsupportedByCluster("; ".join(missing))

    # ------------------------------------------------------------------------------------ read
    def read_state(
        self,
        *,
        kinds: frozenset[Kind],
        topic_filter: Callable[[str], bool] | None = None,
        principal_filter: Callable[[str], bool] | None = None,
        scope: state.ReadScope | None = None,
        entity_filters: Mapping[Kind, state.EntityFilter] | None = None,
    ) -> state.ClusterState:
        """The live state of what ``kinds`` need, in a number of requests that does not depend on the data.

        A full read is ``5 + number of brokers`` requests (one more per further ``read.MAX_CONFIG_RESOURCES``
        topics); a topics-only read is 3 (Metadata, DescribeConfigs, ListPartitionReassignments).

        ``topic_filter`` limits topics (and their configs and reassignments) to the names it accepts;
        ``principal_filter`` limits ACLs, SCRAM users and user quotas to principals (``User:alice``) it accepts.
        ``scope`` asks only for the named resources (a targeted read: small requests on a large cluster).
        ``entity_filters`` limits group configs and client-metrics subscriptions to the declared and owned ones
        (``reconciler.kafka.entities``: one ListConfigResources for both kinds, only when rules own undeclared ones).
        """
        return read.read_state(
            self._wire,
            kinds=kinds,
            topic_filter=topic_filter,
            principal_filter=principal_filter,
            scope=scope,
            entity_filters=entity_filters,
        )

    def authorized_operations(self, topics: Sequence[str] = ()) -> access.AuthorizedOperations:
        """What the connecting principal may do on the cluster and on each existing topic (2 requests)."""
        return access.read_authorized_operations(self._wire, topics)

    def read_topic_usage(self, topics: Sequence[str]) -> dict[str, state.TopicUsage]:
        """Evidence that ``topics`` are in use (groups with committed offsets, end offsets, latest record)."""
        return usage.read_usage(self._wire, topics)

    def read_impact_evidence(self, request: impact.EvidenceRequest) -> impact.ImpactEvidence:
        """Sizes, offsets and in-sync replicas of the topics ``request`` names, in a few batched requests, within
        one request timeout in all; what cannot be read is left unknown and said why (never raises)."""
        return evidence.read_evidence(self._wire, request, budget_s=self.settings.request_timeout_ms / 1000)

    def list_partition_reassignments(self) -> tuple[state.Reassignment, ...]:
        return read.read_reassignments(self._wire)

    # ------------------------------------------------------------------------------------ wait
    def wait_topics_present(
        self, names: Iterable[str], *, timeout_s: float = 30.0, poll_s: float = 0.25
    ) -> frozenset[str]:
        """Poll Metadata until every topic has a leader for each partition; returns those still not ready."""
        return self._wait(names, present=True, timeout_s=timeout_s, poll_s=poll_s)

    def wait_topics_absent(
        self, names: Iterable[str], *, timeout_s: float = 30.0, poll_s: float = 0.25
    ) -> frozenset[str]:
        """Poll Metadata until no topic is listed any more (deletion is asynchronous); returns those still there."""
        return self._wait(names, present=False, timeout_s=timeout_s, poll_s=poll_s)

    def topic_views(self, names: Sequence[str]) -> dict[int, dict[str, int]]:
        """One Metadata request for ``names`` to each broker (see ``port.AdminPort.topic_views``): brokers learn of
        topics from the controller at different moments (in ZooKeeper mode, through UpdateMetadata)."""
        brokers = self._wire.broker_ids()
        if len(brokers) < 2 or not names:
            return {}
        topics = [MetadataRequest.MetadataRequestTopic(name=n) for n in sorted(set(names))]
        views: dict[int, dict[str, int]] = {}
        wait_ms = min(self.settings.request_timeout_ms, VIEW_TIMEOUT_MS)
        for broker in (b for b in brokers if b not in self._wire.unreachable):  # a broker that failed: not again
            try:
                request = MetadataRequest(topics=topics, allow_auto_topic_creation=False)
                response = self._wire.send(request, node=broker, timeout_ms=wait_ms)
            except results.ConnectionLost:
                continue
            views[broker] = {str(t.name): len(t.partitions or ()) for t in response.topics if not t.error_code}
        return views

    def acl_views(self, principals: Iterable[str]) -> dict[int, frozenset[state.AclBinding]]:
        """One DescribeAcls per principal to each broker (see ``port.AdminPort.acl_views``): each broker's authorizer
        learns of ACL changes from the controller at its own moment (the metadata log, or ZooKeeper's notices)."""
        brokers = self._wire.broker_ids()
        wanted = frozenset(principals)
        if len(brokers) < 2 or not wanted:
            return {}
        views: dict[int, frozenset[state.AclBinding]] = {}
        wait_ms = min(self.settings.request_timeout_ms, VIEW_TIMEOUT_MS)
        for broker in (b for b in brokers if b not in self._wire.unreachable):  # a broker that failed: not again
            try:
                seen = security.acls_on(self._wire, node=broker, principals=wanted, timeout_ms=wait_ms)
            except results.ConnectionLost:
                continue
            if seen is not None:
                views[broker] = seen
        return views

    def _wait(self, names: Iterable[str], *, present: bool, timeout_s: float, poll_s: float) -> frozenset[str]:
        pending = sorted(set(names))
        deadline = time.monotonic() + timeout_s
        while pending:
            topics = [MetadataRequest.MetadataRequestTopic(name=n) for n in pending]
            response = self._wire.send(MetadataRequest(topics=topics, allow_auto_topic_creation=False))
            by_name = {str(t.name): t for t in response.topics}
            if present:
                pending = [n for n in pending if not _topic_ready(by_name.get(n))]
            else:
                pending = [n for n in pending if not _topic_absent(by_name.get(n))]
            if not pending or time.monotonic() >= deadline:
                break
            time.sleep(poll_s)
        return frozenset(pending)


def _topic_ready(topic: Any) -> bool:
    """True when Metadata shows the topic with every partition led; False when absent or not yet ready."""
    if topic is None or topic.error_code:
        return False
    partitions = list(getattr(topic, "partitions", []) or [])
    return bool(partitions) and all(p.error_code == 0 and p.leader_id >= 0 for p in partitions)


def _topic_absent(topic: Any) -> bool:
    return topic is None or bool(topic.error_code == _UNKNOWN_TOPIC)


def _implements_the_port(adapter: KafkaAdapter) -> port.AdminPort:
    """Never called: mypy checks here that ``KafkaAdapter`` has every member of ``AdminPort``, with its signature."""
    return adapter

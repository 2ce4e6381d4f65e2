"""``AdminPort``: every call the tool makes on a Kafka cluster, reads and writes, as one interface.

``reconciler.kafka.adapter.KafkaAdapter`` is its one implementation over the wire (mypy checks that it satisfies
the port, see the end of that module); the unit tests' ``RecordingAdapter`` (tests/support/recording.py) is the
other, over plain data, checked the same way. Apply, plan, adopt and the fleet reader take an ``AdminPort`` and
never probe the adapter for members it may lack. Structural types only: this module sends nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from reconciler.connection.settings import ConnectionSettings
from reconciler.kafka import access, results
from reconciler.model import impact, payloads, state
from reconciler.model.kinds import Kind


class ItemResultLike(Protocol):
    """The per-entity answer of one batched admin request."""

    @property
    def key(self) -> Any: ...

    @property
    def error_code(self) -> int: ...

    @property
    def error_name(self) -> str | None: ...

    @property
    def message(self) -> str | None: ...

    @property
    def target(self) -> Any: ...

    @property
    def extra(self) -> Mapping[str, Any]: ...

    @property
    def ok(self) -> bool: ...


class AdminPort(Protocol):
    """Every call the tool makes on a cluster. Each write is one call per batch; the implementation splits it into
    as few requests as the controller's limits allow and answers per entity (``ItemResultLike``)."""

    # ------------------------------------------------------------------------------ the connection
    @property
    def principal(self) -> str | None:
        """The principal the brokers see for this connection, when the client side can know it."""
        ...

    @property
    def principal_source(self) -> str:
        """Where the rules that name ``principal`` came from, for messages (``the connection settings`` when the
        adapter has no such rules)."""
        ...

    @property
    def settings(self) -> ConnectionSettings | None:
        """The connection settings (``None`` for an adapter that has none)."""
        ...

    @property
    def request_counts(self) -> Mapping[str, int]:
        """Requests sent so far, by API name."""
        ...

    @property
    def request_count(self) -> int:
        """Requests sent so far (the sum of ``request_counts``)."""
        ...

    def missing_apis(self, kinds: Iterable[Kind]) -> list[str]:
        """A plain sentence for each admin API ``kinds`` need that the cluster lacks (empty when all are there)."""
        ...

    def limit_waits(self, seconds: float, *, named_s: float | None = None, reserve_s: float = 0.0) -> None:
        """Nothing waits on the cluster past ``seconds`` from now (an apply's deadline): each request's timeout,
        connecting included, is at most what is left; a request not sent by then fails with ``DeadlineReached``.
        ``named_s``: the limit its messages name (the command's --timeout, of which ``seconds`` are left). No write
        is sent or waited for in the last ``reserve_s``: that time is kept for reading back what was sent."""
        ...

    # ------------------------------------------------------------------------------------- reads
    def read_state(
        self,
        *,
        kinds: frozenset[Kind],
        topic_filter: Callable[[str], bool] | None = None,
        principal_filter: Callable[[str], bool] | None = None,
        scope: state.ReadScope | None = None,
        entity_filters: Mapping[Kind, state.EntityFilter] | None = None,
    ) -> state.ClusterState: ...

    def authorized_operations(self, topics: Sequence[str] = ()) -> access.AuthorizedOperations: ...

    def read_topic_usage(self, topics: Sequence[str]) -> dict[str, state.TopicUsage]: ...

    def read_impact_evidence(self, request: impact.EvidenceRequest) -> impact.ImpactEvidence: ...

    def list_partition_reassignments(self) -> tuple[state.Reassignment, ...]: ...

    # ------------------------------------------------------------------------------------ writes
    def create_topics(
        self, specs: Sequence[results.TopicSpec], *, validate_only: bool = False, timeout_ms: int | None = None
    ) -> Sequence[ItemResultLike]: ...

    def delete_topics(self, names: Sequence[str], *, timeout_ms: int | None = None) -> Sequence[ItemResultLike]: ...

    def create_partitions(
        self,
        counts: Mapping[str, int],
        *,
        assignments: Mapping[str, Sequence[Sequence[int]]] | None = None,
        current: Mapping[str, int] | None = None,
        validate_only: bool = False,
        timeout_ms: int | None = None,
    ) -> Sequence[ItemResultLike]: ...

    def incremental_alter_configs(
        self, changes: Mapping[tuple[str, str], Sequence[payloads.ConfigOp]], *, validate_only: bool = False
    ) -> Sequence[ItemResultLike]: ...

    def create_acls(self, bindings: Sequence[state.AclBinding]) -> Sequence[ItemResultLike]: ...

    def delete_acls(self, bindings: Sequence[state.AclBinding]) -> Sequence[ItemResultLike]: ...

    def alter_client_quotas(
        self, changes: Mapping[state.QuotaEntity, Mapping[str, float | None]], *, validate_only: bool = False
    ) -> Sequence[ItemResultLike]: ...

    def alter_scram_credentials(
        self, *, upserts: Sequence[results.ScramUpsert] = (), deletions: Sequence[results.ScramDeletion] = ()
    ) -> Sequence[ItemResultLike]: ...

    def alter_partition_reassignments(
        self, changes: Mapping[tuple[str, int], Sequence[int] | None], *, timeout_ms: int | None = None
    ) -> Sequence[ItemResultLike]: ...

    # ------------------------------------------------------------------------------------- waits
    def wait_topics_present(
        self, names: Iterable[str], *, timeout_s: float = 30.0, poll_s: float = 0.25
    ) -> frozenset[str]: ...

    def wait_topics_absent(
        self, names: Iterable[str], *, timeout_s: float = 30.0, poll_s: float = 0.25
    ) -> frozenset[str]: ...

    def topic_views(self, names: Sequence[str]) -> dict[int, dict[str, int]]:
        """What each broker's own metadata shows of ``names``: broker id -> {topic: partition count} for the topics
        it lists. Empty on a one-broker cluster (the read-back's read already asked it); a broker that cannot be
        reached is left out (a later plan cannot ask it either)."""
        ...

    def acl_views(self, principals: Iterable[str]) -> dict[int, frozenset[state.AclBinding]]:
        """What each broker's own authorizer holds of the bindings of ``principals``: broker id -> bindings. Empty
        on a one-broker cluster (the read-back's read already asked it); a broker that cannot be reached, or has
        no authorizer, is left out."""
        ...

"""The narrow view of the wire adapter that apply depends on (structural types only, no I/O).

``reconciler.kafka.admin.KafkaAdapter`` satisfies these protocols; unit tests of the orchestration
logic use a small recording stand-in. Keeping the dependency structural lets the engine be tested on
plain data without importing kafka-python.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from reconciler import state


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
    def extra(self) -> Mapping[str, Any]: ...

    @property
    def ok(self) -> bool: ...


class AdminPort(Protocol):
    """Every wire call apply makes. Each write is one batched request per call (split only for size)."""

    def read_state(
        self,
        *,
        kinds: Iterable[str],
        topic_filter: Any = None,
        principal_filter: Any = None,
    ) -> state.ClusterState: ...

    def create_topics(self, specs: Sequence[Any], validate_only: bool = False) -> Sequence[ItemResultLike]: ...

    def delete_topics(self, names: Sequence[str]) -> Sequence[ItemResultLike]: ...

    def create_partitions(self, totals: Mapping[str, int], validate_only: bool = False) -> Sequence[ItemResultLike]: ...

    def incremental_alter_configs(
        self, changes: Mapping[Any, Sequence[Any]], validate_only: bool = False
    ) -> Sequence[ItemResultLike]: ...

    def create_acls(self, bindings: Sequence[state.AclBinding]) -> Sequence[ItemResultLike]: ...

    def delete_acls(self, bindings: Sequence[state.AclBinding]) -> Sequence[ItemResultLike]: ...

    def alter_client_quotas(
        self, changes: Mapping[state.QuotaEntity, Mapping[str, float | None]], validate_only: bool = False
    ) -> Sequence[ItemResultLike]: ...

    def alter_scram_credentials(self, upserts: Sequence[Any], deletions: Sequence[Any]) -> Sequence[ItemResultLike]: ...

    def alter_partition_reassignments(self, targets: Mapping[Any, Any]) -> Sequence[ItemResultLike]: ...

    def list_partition_reassignments(self) -> Any: ...

    def wait_topics_present(self, names: Sequence[str], timeout_s: float) -> Any: ...

    def wait_topics_absent(self, names: Sequence[str], timeout_s: float) -> Any: ...

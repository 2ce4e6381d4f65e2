"""``RecordingAdapter``: an in-memory stand-in for the admin adapter, for unit tests of apply's orchestration.

It is not the wire protocol (integration tests use a real broker); it holds a tiny cluster as plain
data, records every call with its arguments, and answers per entity like the real adapter. Each write first
builds and encodes the request the real adapter would send (``reconciler.kafka.encoders``), so a value the wire
cannot carry fails here as it would there. A script
of per-call errors lets tests make chosen items fail: ``{"create_topics": [{"t1": "INVALID_CONFIG"}]}``
fails ``t1`` on the first ``create_topics`` call. An error name ending in ``+applied`` reports the
error but still carries out the write (a timed-out request that completed anyway); ``+ignored``
reports success without writing.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from reconciler.connection.settings import ConnectionSettings, Secret
from reconciler.kafka import access, encoders, port, results
from reconciler.model import impact, payloads, state
from reconciler.model.kinds import Kind

ERROR_CODES = {
    "UNKNOWN_TOPIC_OR_PARTITION": 3,
    "LEADER_NOT_AVAILABLE": 5,
    "REQUEST_TIMED_OUT": 7,
    "TOPIC_AUTHORIZATION_FAILED": 29,
    "CLUSTER_AUTHORIZATION_FAILED": 31,
    "TOPIC_ALREADY_EXISTS": 36,
    "INVALID_PARTITIONS": 37,
    "INVALID_REPLICATION_FACTOR": 38,
    "INVALID_CONFIG": 40,
    "NOT_CONTROLLER": 41,
    "POLICY_VIOLATION": 44,
    "THROTTLING_QUOTA_EXCEEDED": 89,
}


@dataclasses.dataclass
class RecordingAdapter:
    topics: dict[str, state.TopicState] = dataclasses.field(default_factory=dict)
    acls: set[state.AclBinding] = dataclasses.field(default_factory=set)
    quotas: dict[state.QuotaEntity, dict[str, float]] = dataclasses.field(default_factory=dict)
    scram: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    broker_configs: dict[str, dict[str, str | None]] = dataclasses.field(default_factory=dict)
    group_configs: dict[str, dict[str, str | None]] = dataclasses.field(default_factory=dict)
    client_metrics: dict[str, dict[str, str | None]] = dataclasses.field(default_factory=dict)
    brokers: tuple[state.Broker, ...] = (state.Broker(1, "127.0.0.1", 9092),)
    cluster_id: str = "cluster-a"
    script: dict[str, list[dict[str, str]]] = dataclasses.field(default_factory=dict)
    throttle_ms: int = 0
    calls: list[tuple[str, Any]] = dataclasses.field(default_factory=list)
    scopes: list[state.ReadScope | None] = dataclasses.field(default_factory=list)
    request_counts: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    settings: ConnectionSettings | None = None
    principal: str | None = None
    operations: access.AuthorizedOperations | None = None
    limits: list[float] = dataclasses.field(default_factory=list)

    @property
    def request_count(self) -> int:
        return sum(self.request_counts.values())

    @property
    def principal_source(self) -> str:
        return "the connection settings"

    def missing_apis(self, kinds: Iterable[Kind]) -> list[str]:
        """Every kind is supported: the recorded cluster is a recent one."""
        return []

    def acl_views(self, principals: Iterable[str]) -> dict[int, frozenset[state.AclBinding]]:
        """One broker's view: nothing to ask beyond the read-back's own read."""
        return {}

    def topic_views(self, names: Sequence[str]) -> dict[int, dict[str, int]]:
        """One broker: the read-back's read already asked it (as the real adapter answers)."""
        return {}

    def limit_waits(self, seconds: float, *, named_s: float | None = None, reserve_s: float = 0.0) -> None:
        """Recorded (``limits``): nothing here waits on a network."""
        self.limits.append(seconds)

    def read_topic_usage(self, topics: Sequence[str]) -> dict[str, state.TopicUsage]:
        """No evidence of use: no group has committed offsets, every partition is empty."""
        self.calls.append(("read_topic_usage", list(topics)))
        self.request_counts["read_topic_usage"] += 1
        return {t: state.TopicUsage(end_offsets=(), latest_timestamp_ms=None, groups=(), read_at_ms=0) for t in topics}

    def read_impact_evidence(self, request: impact.EvidenceRequest) -> impact.ImpactEvidence:
        """Nothing measured: the plan says the impact is unknown."""
        self.calls.append(("read_impact_evidence", request))
        return impact.ImpactEvidence(topics={}, read_at_ms=0, unknown=("no evidence in the recorded cluster",))

    def authorized_operations(self, topics: Sequence[str] = ()) -> access.AuthorizedOperations:
        """``operations`` when a test sets it; otherwise the brokers' answer is "not said" for the cluster and
        every topic (as from a broker that does not report authorized operations), so no right is missing."""
        self.calls.append(("authorized_operations", list(topics)))
        self.request_counts["authorized_operations"] += 2
        if self.operations is not None:
            return self.operations
        return access.AuthorizedOperations(cluster=None, topics=dict.fromkeys(topics))

    # ------------------------------------------------------------------------------ recording
    def writes(self) -> list[tuple[str, Any]]:
        """Calls that could change the cluster (validate-only calls excluded)."""
        return [
            (name, args)
            for name, args in self.calls
            if name
            not in (
                "read_state",
                "authorized_operations",
                "wait_topics_present",
                "wait_topics_absent",
                "list_partition_reassignments",
            )
            and not (isinstance(args, dict) and args.get("validate_only"))
        ]

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]

    def _round(self, method: str) -> dict[str, str]:
        rounds = self.script.get(method) or []
        return rounds.pop(0) if rounds else {}

    def _answer(
        self,
        method: str,
        keys: Sequence[str],
        effect: Callable[[str], object],
        *,
        validate_only: bool = False,
        natural: Mapping[str, str] | None = None,
    ) -> list[results.ItemResult]:
        errors = {**(natural or {}), **self._round(method)}
        out = []
        for key in keys:
            spec = errors.get(key, "")
            name, _, mode = spec.partition("+")
            if name and name != "OK":
                if mode == "applied" and not validate_only:
                    effect(key)
                extra: dict[str, Any] = {"throttle_time_ms": self.throttle_ms} if self.throttle_ms else {}
                out.append(results.ItemResult(key, ERROR_CODES[name], name, f"{name} for {key}", extra))
                continue
            if not validate_only and mode != "ignored":
                effect(key)
            out.append(results.ItemResult(key, 0, None, None))
        return out

    # ------------------------------------------------------------------------------------ read
    def read_state(
        self,
        *,
        kinds: frozenset[str],
        topic_filter: Callable[[str], bool] | None = None,
        principal_filter: Callable[[str], bool] | None = None,
        scope: state.ReadScope | None = None,
        entity_filters: Mapping[Kind, state.EntityFilter] | None = None,
    ) -> state.ClusterState:
        self.calls.append(("read_state", {"kinds": sorted(kinds)}))
        self.scopes.append(scope)
        self.request_counts["read_state"] += 1
        keep = topic_filter or (lambda _n: True)
        return state.ClusterState(
            cluster_id=self.cluster_id,
            controller_id=self.brokers[0].id,
            brokers=self.brokers,
            topics={n: t for n, t in self.topics.items() if keep(n)} if "topic" in kinds else None,
            acls=frozenset(self.acls) if "acl" in kinds else None,
            quotas={e: dict(v) for e, v in self.quotas.items()} if "quota" in kinds else None,
            scram_users={
                u: tuple(state.ScramCredential(m, i) for m, i in sorted(c.items())) for u, c in self.scram.items() if c
            }
            if "scram_user" in kinds
            else None,
            broker_configs={b: dict(c) for b, c in self.broker_configs.items()} if "broker_config" in kinds else None,
            group_configs={n: dict(c) for n, c in self.group_configs.items() if c} if "group_config" in kinds else None,
            client_metrics={n: dict(c) for n, c in self.client_metrics.items() if c}
            if "client_metrics" in kinds
            else None,
        )

    def list_partition_reassignments(self) -> tuple[state.Reassignment, ...]:
        self.calls.append(("list_partition_reassignments", {}))
        self.request_counts["list_partition_reassignments"] += 1
        return ()

    def wait_topics_present(
        self, names: Iterable[str], *, timeout_s: float = 30.0, poll_s: float = 0.25
    ) -> frozenset[str]:
        wanted = sorted(names)
        self.calls.append(("wait_topics_present", {"names": wanted}))
        self.request_counts["wait_topics_present"] += 1
        return frozenset(n for n in wanted if n not in self.topics)

    def wait_topics_absent(
        self, names: Iterable[str], *, timeout_s: float = 30.0, poll_s: float = 0.25
    ) -> frozenset[str]:
        wanted = sorted(names)
        self.calls.append(("wait_topics_absent", {"names": wanted}))
        self.request_counts["wait_topics_absent"] += 1
        return frozenset(n for n in wanted if n in self.topics)

    # ----------------------------------------------------------------------------------- write
    def create_topics(
        self, specs: Sequence[results.TopicSpec], *, validate_only: bool = False, timeout_ms: int | None = None
    ) -> list[results.ItemResult]:
        self.calls.append(("create_topics", {"names": [s.name for s in specs], "validate_only": validate_only}))
        self.request_counts["create_topics"] += 1
        encoders.wire_bytes(encoders.create_topics(specs, timeout_ms=30_000, validate_only=validate_only))
        by_name = {s.name: s for s in specs}

        def effect(name: str) -> None:
            spec = by_name[name]
            assignment = spec.assignment or tuple(
                tuple(self.brokers[(p + r) % len(self.brokers)].id for r in range(spec.replication_factor or 1))
                for p in range(spec.partitions or 1)
            )
            self.topics[name] = state.TopicState(name=name, assignment=assignment, configs=dict(spec.configs))

        exists = {n: "TOPIC_ALREADY_EXISTS" for n in by_name if n in self.topics}
        out = self._answer("create_topics", list(by_name), effect, validate_only=validate_only, natural=exists)
        for r in out:
            if r.ok and validate_only:
                r.extra["configs"] = {"cleanup.policy": "delete", **dict(by_name[r.key].configs)}
        return out

    def delete_topics(self, names: Sequence[str], *, timeout_ms: int | None = None) -> list[results.ItemResult]:
        self.calls.append(("delete_topics", {"names": list(names)}))
        self.request_counts["delete_topics"] += 1
        encoders.wire_bytes(encoders.delete_topics(names, timeout_ms=30_000))
        return self._answer("delete_topics", list(names), lambda n: self.topics.pop(n, None))

    def create_partitions(
        self,
        counts: Mapping[str, int],
        *,
        assignments: Mapping[str, Sequence[Sequence[int]]] | None = None,
        current: Mapping[str, int] | None = None,
        validate_only: bool = False,
        timeout_ms: int | None = None,
    ) -> list[results.ItemResult]:
        self.calls.append(("create_partitions", {"counts": dict(counts), "validate_only": validate_only}))
        self.request_counts["create_partitions"] += 1
        request = encoders.create_partitions(
            list(counts), counts, assignments, timeout_ms=30_000, validate_only=validate_only
        )
        encoders.wire_bytes(request)

        def effect(name: str) -> None:
            t = self.topics[name]
            extra = tuple(t.assignment[0] for _ in range(counts[name] - t.partitions))
            self.topics[name] = dataclasses.replace(t, assignment=t.assignment + extra)

        return self._answer("create_partitions", list(counts), effect, validate_only=validate_only)

    def incremental_alter_configs(
        self, changes: Mapping[tuple[str, str], Sequence[payloads.ConfigOp]], *, validate_only: bool = False
    ) -> list[results.ItemResult]:
        self.calls.append(("incremental_alter_configs", {"resources": sorted(changes), "validate_only": validate_only}))
        self.request_counts["incremental_alter_configs"] += 1
        encoders.wire_bytes(encoders.incremental_alter_configs(changes, list(changes), validate_only=validate_only))
        keys = {f"{rtype.lower()}:{name}": (rtype, name) for rtype, name in changes}

        def effect(key: str) -> None:
            rtype, name = keys[key]
            if rtype == "TOPIC":
                t = self.topics[name]
                configs = dict(t.configs)
                _apply_ops(configs, changes[(rtype, name)])
                self.topics[name] = dataclasses.replace(t, configs=configs)
            else:
                sections = {"GROUP": self.group_configs, "CLIENT_METRICS": self.client_metrics}
                _apply_ops(sections.get(rtype, self.broker_configs).setdefault(name, {}), changes[(rtype, name)])

        answers = self._answer("incremental_alter_configs", list(keys), effect, validate_only=validate_only)
        return [dataclasses.replace(r, target=keys[r.key]) for r in answers]

    def create_acls(self, bindings: Sequence[state.AclBinding]) -> list[results.ItemResult]:
        self.calls.append(("create_acls", {"bindings": list(bindings)}))
        self.request_counts["create_acls"] += 1
        encoders.wire_bytes(encoders.create_acls(bindings))
        by_key = {b.address: b for b in bindings}
        return self._answer("create_acls", list(by_key), lambda k: self.acls.add(by_key[k]))

    def delete_acls(self, bindings: Sequence[state.AclBinding]) -> list[results.ItemResult]:
        self.calls.append(("delete_acls", {"bindings": list(bindings)}))
        self.request_counts["delete_acls"] += 1
        encoders.wire_bytes(encoders.delete_acls(bindings))
        by_key = {b.address: b for b in bindings}
        return self._answer("delete_acls", list(by_key), lambda k: self.acls.discard(by_key[k]))

    def alter_client_quotas(
        self, changes: Mapping[state.QuotaEntity, Mapping[str, float | None]], *, validate_only: bool = False
    ) -> list[results.ItemResult]:
        self.calls.append(("alter_client_quotas", {"entities": list(changes), "validate_only": validate_only}))
        self.request_counts["alter_client_quotas"] += 1
        encoders.wire_bytes(encoders.alter_client_quotas(changes, list(changes), validate_only=validate_only))
        by_key = {e.address: e for e in changes}

        def effect(key: str) -> None:
            entity = by_key[key]
            values = self.quotas.setdefault(entity, {})
            for k, v in changes[entity].items():
                if v is None:
                    values.pop(k, None)
                else:
                    values[k] = v
            if not values:
                del self.quotas[entity]

        return self._answer("alter_client_quotas", list(by_key), effect, validate_only=validate_only)

    def alter_scram_credentials(
        self, *, upserts: Sequence[results.ScramUpsert] = (), deletions: Sequence[results.ScramDeletion] = ()
    ) -> list[results.ItemResult]:
        self.calls.append(
            (
                "alter_scram_credentials",
                {
                    "upserts": [(u.user, u.mechanism, u.iterations) for u in upserts],
                    "deletions": [(d.user, d.mechanism) for d in deletions],
                    "passwords": [u.password.reveal() for u in upserts],
                },
            )
        )
        self.request_counts["alter_scram_credentials"] += 1
        per_user = encoders.scram_alterations(upserts, deletions)  # in rounds, as KafkaAdapter sends them
        for n in range(max(map(len, per_user.values()), default=0)):
            batch = [alts[n] for alts in per_user.values() if n < len(alts)]
            encoders.wire_bytes(encoders.alter_user_scram_credentials(batch))
        users = list(dict.fromkeys([*(u.user for u in upserts), *(d.user for d in deletions)]))

        def effect(user: str) -> None:
            creds = self.scram.setdefault(user, {})
            for d in deletions:
                if d.user == user:
                    creds.pop(d.mechanism, None)
            for u in upserts:
                if u.user == user:
                    creds[u.mechanism] = u.iterations

        return self._answer("alter_scram_credentials", users, effect)

    def alter_partition_reassignments(
        self, changes: Mapping[tuple[str, int], Sequence[int] | None], *, timeout_ms: int | None = None
    ) -> list[results.ItemResult]:
        self.calls.append(("alter_partition_reassignments", {"changes": dict(changes)}))
        self.request_counts["alter_partition_reassignments"] += 1
        encoders.wire_bytes(encoders.alter_partition_reassignments(changes, list(changes), timeout_ms=30_000))
        keys = {f"{t}:{p}": (t, p) for t, p in changes}

        def effect(key: str) -> None:
            topic, p = keys[key]
            t = self.topics[topic]
            assignment = list(t.assignment)
            assignment[p] = tuple(changes[(topic, p)] or ())
            self.topics[topic] = dataclasses.replace(t, assignment=tuple(assignment))

        return self._answer("alter_partition_reassignments", list(keys), effect)


def _apply_ops(configs: dict[str, str | None], ops: Sequence[payloads.ConfigOp]) -> None:
    for op in ops:
        if op.action is payloads.ConfigAction.DELETE:
            configs.pop(op.key, None)
        else:
            configs[op.key] = op.value.reveal() if isinstance(op.value, Secret) else str(op.value)


def _implements_the_port(adapter: RecordingAdapter) -> port.AdminPort:
    """Never called: mypy checks here that ``RecordingAdapter`` has every member of ``AdminPort``."""
    return adapter


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

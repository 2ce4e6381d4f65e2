"""Apply orchestration on plain data: phase order, batching, retries, dependency skipping, dry run, read-back.

Plans come from the real (pure) planner; the cluster is a ``RecordingAdapter`` holding plain data.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pytest

from reconciler.apply import ApplyEvent, ApplyOptions, ApplyReport, EventKind, Outcome, apply_plan
from reconciler.apply.apply_report import CheckedBy
from reconciler.base import errors
from reconciler.model import plans, state
from reconciler.model.desired import (
    DesiredBrokerConfig,
    DesiredQuota,
    DesiredScramUser,
    DesiredState,
    DesiredTopic,
    NamePattern,
    Ownership,
    SecretRef,
)
from reconciler.model.kinds import Kind
from reconciler.planner import plan
from tests.support.apply_runs import apply_options, one_replica_topic
from tests.support.recording import FakeClock, RecordingAdapter

ALICE_READ = state.AclBinding("TOPIC", "LITERAL", "orders", "User:alice", "*", "READ", "ALLOW")
BOB_WRITE = state.AclBinding("TOPIC", "LITERAL", "orders", "User:bob", "*", "WRITE", "ALLOW")
OWN_ALL = Ownership(
    topics=(NamePattern("prefix", "t"),),
    principals=(NamePattern("glob", "User:*"),),
    delete={Kind.TOPIC: True, Kind.ACL: True, Kind.QUOTA: True, Kind.SCRAM_USER: True},
)


def topics(*names: str, partitions: int = 1, configs: Mapping[str, str] | None = None) -> dict[str, DesiredTopic]:
    return {n: DesiredTopic(n, partitions, 1, dict(configs or {})) for n in names}


def replan(adapter: RecordingAdapter, wanted: DesiredState) -> list[str]:
    """Addresses a fresh plan still wants to change."""
    live = adapter.read_state(kinds=wanted.needs())
    return sorted({c.address for c in plan(wanted, live).actionable})


def run(
    adapter: RecordingAdapter,
    wanted: DesiredState,
    opts: ApplyOptions | None = None,
    events: list[ApplyEvent] | None = None,
) -> ApplyReport:
    p = plan(wanted, adapter.read_state(kinds=wanted.needs()))
    adapter.calls.clear()
    sink: Callable[[ApplyEvent], None] | None = events.append if events is not None else None
    return apply_plan(p, adapter, options=opts or apply_options(), events=sink)


def test_every_kind_is_applied_in_phase_order_with_one_request_per_phase_and_converges() -> None:
    adapter = RecordingAdapter(
        topics={
            "t-old": one_replica_topic("t-old"),
            "t-grow": one_replica_topic("t-grow", 1, configs={"retention.ms": "1000"}),
        },
        acls={BOB_WRITE},
        quotas={state.QuotaEntity.of(user="bob"): {"producer_byte_rate": 10.0}},
    )
    wanted = DesiredState(
        topics={**topics("t-new"), "t-grow": DesiredTopic("t-grow", 3, 1, {"retention.ms": "2000"})},
        acls={ALICE_READ: None},
        quotas={
            state.QuotaEntity.of(user="alice"): DesiredQuota(
                state.QuotaEntity.of(user="alice"), {"consumer_byte_rate": 5.0}
            )
        },
        scram_users={"alice": DesiredScramUser("alice", "SCRAM-SHA-256", 8192, SecretRef(env="ALICE_PW"))},
        broker_configs={"<default>": DesiredBrokerConfig("<default>", {"log.cleaner.threads": "2"})},
        ownership=OWN_ALL,
    )
    report = run(adapter, wanted)

    assert [name for name, _ in adapter.writes()] == [
        "delete_acls",
        "delete_topics",
        "create_topics",
        "create_partitions",
        "incremental_alter_configs",
        "alter_client_quotas",
        "alter_scram_credentials",
        "incremental_alter_configs",
        "create_acls",
    ]
    assert report.counts()["applied"] == len(report.items) == 10
    assert report.converged is True and report.exit_code == 0
    assert replan(adapter, wanted) == []
    assert adapter.scram == {"alice": {"SCRAM-SHA-256": 8192}}
    assert [p.phase for p in report.phases] == sorted(p.phase for p in report.phases)


def test_one_invalid_config_among_fifty_creates_fails_alone_and_is_not_retried() -> None:
    names = [f"t-{i:02d}" for i in range(50)]
    adapter = RecordingAdapter(script={"create_topics": [{"t-17": "INVALID_CONFIG"}]})
    wanted = DesiredState(topics=topics(*names), ownership=OWN_ALL)
    report = run(adapter, wanted)

    assert adapter.names().count("create_topics") == 1
    assert report.counts()["applied"] == 49
    [bad] = report.failed()
    assert (bad.address, bad.outcome, bad.error_name, bad.error_code) == (
        "topic/t-17",
        Outcome.FAILED,
        "INVALID_CONFIG",
        40,
    )
    assert bad.message == "INVALID_CONFIG for t-17"
    assert report.exit_code == 3
    assert replan(adapter, wanted) == ["topic/t-17"]


def test_retriable_errors_resend_only_the_failed_items_after_a_backoff() -> None:
    clock = FakeClock()
    adapter = RecordingAdapter(script={"create_topics": [{"t-b": "NOT_CONTROLLER", "t-d": "LEADER_NOT_AVAILABLE"}]})
    report = run(
        adapter, DesiredState(topics=topics("t-a", "t-b", "t-c", "t-d"), ownership=OWN_ALL), apply_options(clock)
    )

    sent = [args["names"] for name, args in adapter.calls if name == "create_topics"]
    assert sent == [["t-a", "t-b", "t-c", "t-d"], ["t-b", "t-d"]]
    assert clock.slept == [pytest.approx(0.1)]  # first retry: ceiling 0.2 s x rand 0.5
    assert report.exit_code == 0
    assert {i.address: i.attempts for i in report.items}["topic/t-b"] == 2


def test_throttling_waits_at_least_the_time_the_broker_asked_for() -> None:
    clock = FakeClock()
    adapter = RecordingAdapter(script={"create_topics": [{"t-a": "THROTTLING_QUOTA_EXCEEDED"}]}, throttle_ms=1500)
    report = run(adapter, DesiredState(topics=topics("t-a"), ownership=OWN_ALL), apply_options(clock))
    assert clock.slept == [1.5]
    assert report.exit_code == 0


def test_a_timed_out_create_that_completed_is_reported_applied_without_resending() -> None:
    adapter = RecordingAdapter(script={"create_topics": [{"t-a": "REQUEST_TIMED_OUT+applied"}]})
    report = run(adapter, DesiredState(topics=topics("t-a", "t-b"), ownership=OWN_ALL))

    assert adapter.names().count("create_topics") == 1
    item = next(i for i in report.items if i.address == "topic/t-a")
    assert item.outcome is Outcome.APPLIED
    assert "timed out" in (item.message or "")


def test_a_create_beaten_by_another_writer_to_the_same_topic_is_unchanged_not_failed() -> None:
    """Two applies of one plan at once: the loser's creates answer TOPIC_ALREADY_EXISTS for topics the winner
    made exactly as declared; the loser reads them back and reports nothing left to do (exit 0)."""
    adapter = RecordingAdapter(script={"create_topics": [{"t-a": "TOPIC_ALREADY_EXISTS+applied"}]})
    report = run(
        adapter, DesiredState(topics=topics("t-a", "t-b", configs={"retention.ms": "1000"}), ownership=OWN_ALL)
    )

    item = next(i for i in report.items if i.address == "topic/t-a")
    assert item.outcome is Outcome.UNCHANGED, item
    assert item.error_name is None
    assert "another writer created it after the plan was made, exactly as planned" in (item.message or "")
    assert report.exit_code == 0 and report.converged
    assert {k: v for k, v in report.counts().items() if v} == {"applied": 1, "unchanged": 1}


def test_a_create_beaten_by_another_writer_with_a_different_topic_fails_naming_the_differences() -> None:
    adapter = RecordingAdapter()
    wanted = DesiredState(topics=topics("t-a", partitions=3, configs={"retention.ms": "1000"}), ownership=OWN_ALL)

    def other_writer(event: ApplyEvent) -> None:
        if event.kind is EventKind.PHASE_STARTED:
            adapter.topics["t-a"] = one_replica_topic(
                "t-a", 1, configs={"retention.ms": "1000", "cleanup.policy": "compact"}
            )

    p = plan(wanted, adapter.read_state(kinds=wanted.needs()))
    report = apply_plan(p, adapter, options=apply_options(), events=other_writer)

    [item] = report.items
    assert item.outcome is Outcome.FAILED
    assert item.error_name == "TOPIC_ALREADY_EXISTS"
    assert "another writer created it after the plan was made, and it differs" in (item.message or "")
    assert "1 partition(s), wanted 3" in (item.message or "")
    assert report.exit_code == 3


def test_a_create_beaten_by_a_writer_that_set_extra_configs_fails_naming_them() -> None:
    adapter = RecordingAdapter()
    wanted = DesiredState(topics=topics("t-a", configs={"retention.ms": "1000"}), ownership=OWN_ALL)

    def other_writer(event: ApplyEvent) -> None:
        if event.kind is EventKind.PHASE_STARTED:
            adapter.topics["t-a"] = one_replica_topic(
                "t-a", 1, configs={"retention.ms": "1000", "cleanup.policy": "compact"}
            )

    p = plan(wanted, adapter.read_state(kinds=wanted.needs()))
    [item] = apply_plan(p, adapter, options=apply_options(), events=other_writer).items
    assert item.outcome is Outcome.FAILED
    assert "also sets cleanup.policy" in (item.message or "")


def test_retries_stop_at_the_deadline_and_report_the_last_error() -> None:
    clock = FakeClock()
    adapter = RecordingAdapter(script={"create_topics": [{"t-a": "NOT_CONTROLLER"}] * 50})
    report = run(adapter, DesiredState(topics=topics("t-a"), ownership=OWN_ALL), apply_options(clock, deadline_s=2.0))

    [item] = report.items
    assert item.outcome is Outcome.FAILED and item.error_name == "NOT_CONTROLLER"
    assert "deadline" in (item.message or "")
    assert clock.now <= 2.0


def test_authorization_errors_are_not_retried() -> None:
    adapter = RecordingAdapter(script={"create_topics": [{"t-a": "TOPIC_AUTHORIZATION_FAILED"}]})
    report = run(adapter, DesiredState(topics=topics("t-a"), ownership=OWN_ALL))
    assert adapter.names().count("create_topics") == 1
    assert report.items[0].error_name == "TOPIC_AUTHORIZATION_FAILED"


def test_failed_delete_skips_the_recreate_of_that_name_only() -> None:
    from reconciler.model import plans

    adapter = RecordingAdapter(
        topics={"t-a": one_replica_topic("t-a"), "t-b": one_replica_topic("t-b")},
        script={"delete_topics": [{"t-a": "TOPIC_AUTHORIZATION_FAILED"}]},
    )
    live = adapter.read_state(kinds=frozenset({"topic"}))
    deletes = plan(DesiredState(ownership=OWN_ALL), live).changes
    creates = plan(
        DesiredState(topics=topics("t-a", "t-b")), state.ClusterState("cluster-a", 1, adapter.brokers, topics={})
    ).changes
    p = plans.Plan(cluster=plans.ClusterInfo("cluster-a", 1), changes=plans.sort_changes(deletes + creates))
    adapter.calls.clear()
    report = apply_plan(p, adapter, options=apply_options())

    by = {(i.phase, i.address): i for i in report.items}
    assert by[(plans.Phase.TOPIC_DELETE, "topic/t-a")].outcome is Outcome.FAILED
    skipped = by[(plans.Phase.TOPIC_CREATE, "topic/t-a")]
    assert skipped.outcome is Outcome.SKIPPED and "deletion of topic/t-a failed" in (skipped.message or "")
    assert by[(plans.Phase.TOPIC_CREATE, "topic/t-b")].outcome is Outcome.APPLIED
    created = [args["names"] for name, args in adapter.calls if name == "create_topics"]
    assert created == [["t-b"]]
    # the re-create waited for the deleted name to disappear first
    assert adapter.names().index("wait_topics_absent") < adapter.names().index("create_topics")
    assert report.exit_code == 3


def test_failed_partition_increase_skips_the_reassignment_of_that_topic() -> None:
    adapter = RecordingAdapter(
        topics={"t-a": one_replica_topic("t-a", 1)},
        brokers=(state.Broker(1, "h", 1), state.Broker(2, "h", 2)),
        script={"create_partitions": [{"t-a": "INVALID_PARTITIONS"}]},
    )
    report = run(adapter, DesiredState(topics={"t-a": DesiredTopic("t-a", 2, 2)}, ownership=OWN_ALL))
    by = {i.phase: i for i in report.items}
    assert by[plans.Phase.PARTITIONS].outcome is Outcome.FAILED
    assert by[plans.Phase.REASSIGN].outcome is Outcome.SKIPPED
    assert "alter_partition_reassignments" not in adapter.names()


def _throttled_growth(script: dict[str, list[dict[str, str]]], clock: FakeClock | None = None):  # type: ignore[no-untyped-def]
    """Replication factor 1 -> 2 of one topic with a replication throttle; ``script`` scripts the config calls."""
    adapter = RecordingAdapter(
        topics={"t-a": one_replica_topic("t-a", 1)},
        brokers=(state.Broker(1, "h", 1), state.Broker(2, "h", 2)),
        script=script,
    )
    wanted = DesiredState(topics={"t-a": DesiredTopic("t-a", 1, 2)}, ownership=OWN_ALL)
    return adapter, run(adapter, wanted, apply_options(clock, replication_throttle=1_000_000))


def test_the_replication_throttle_is_removed_and_read_back_after_the_move() -> None:
    adapter, report = _throttled_growth({})
    assert report.exit_code == 0 and report.notes == ()
    assert adapter.topics["t-a"].configs == {}
    after_move = adapter.names()[adapter.names().index("alter_partition_reassignments") :]
    assert after_move.count("incremental_alter_configs") == 1


def test_a_refused_throttle_removal_is_named_in_the_notes() -> None:
    adapter, report = _throttled_growth({"incremental_alter_configs": [{}, {"topic:t-a": "INVALID_CONFIG"}]})
    [note] = report.notes
    assert note.startswith("replication throttle not removed from topic:t-a: INVALID_CONFIG")
    assert "leader.replication.throttled.replicas" in adapter.topics["t-a"].configs


def test_a_throttle_the_brokers_keep_showing_after_its_removal_is_named_in_the_notes() -> None:
    clock = FakeClock()
    _adapter, report = _throttled_growth({"incremental_alter_configs": [{}, {"topic:t-a": "OK+ignored"}]}, clock)
    [note] = report.notes
    assert note.startswith("the brokers still showed the replication throttle on t-a 15 s after its removal")
    assert sum(clock.slept) >= 14


def test_dry_run_validates_on_the_broker_where_possible_and_writes_nothing() -> None:
    adapter = RecordingAdapter(
        topics={"t-cfg": one_replica_topic("t-cfg", configs={"retention.ms": "1"})},
        script={"create_topics": [{"t-bad": "INVALID_REPLICATION_FACTOR"}]},
    )
    wanted = DesiredState(
        topics={
            **topics("t-ok", "t-bad", configs={"retention.ms": "5"}),
            **topics("t-cfg", configs={"retention.ms": "2"}),
        },
        acls={ALICE_READ: None},
        ownership=OWN_ALL,
    )
    before = (dict(adapter.topics), set(adapter.acls))
    report = run(adapter, wanted, apply_options(dry_run=True))

    assert adapter.writes() == []
    assert (dict(adapter.topics), set(adapter.acls)) == before
    by = {i.address: i for i in report.items}
    assert by["topic/t-ok"].outcome is Outcome.DRY_RUN_ACCEPTED
    assert by["topic/t-ok"].details["resolved_configs"]["retention.ms"] == "5"
    assert by["topic/t-bad"].outcome is Outcome.DRY_RUN_REJECTED
    assert by["topic/t-bad"].error_name == "INVALID_REPLICATION_FACTOR"
    assert by["topic/t-cfg"].checked_by is CheckedBy.BROKER
    assert by[ALICE_READ.address].checked_by is CheckedBy.CLIENT
    assert report.converged is None and report.exit_code == 3
    assert all(
        args.get("validate_only")
        for name, args in adapter.calls
        if name in ("create_topics", "incremental_alter_configs")
    )


def test_dry_run_reports_an_unresolvable_password_reference_without_its_value() -> None:
    adapter = RecordingAdapter()
    wanted = DesiredState(
        scram_users={"carol": DesiredScramUser("carol", "SCRAM-SHA-512", 8192, SecretRef(env="CAROL_PW"))},
        ownership=OWN_ALL,
    )
    report = run(adapter, wanted, apply_options(dry_run=True))
    [item] = report.items
    assert item.outcome is Outcome.DRY_RUN_REJECTED and item.checked_by is CheckedBy.CLIENT
    assert "carol" in (item.message or "") and "CAROL_PW" in (item.message or "")


def test_missing_password_stops_the_apply_before_any_write() -> None:
    adapter = RecordingAdapter()
    wanted = DesiredState(
        topics=topics("t-a"),
        scram_users={"carol": DesiredScramUser("carol", "SCRAM-SHA-512", 8192, SecretRef(file="/nonexistent/pw"))},
        ownership=OWN_ALL,
    )
    with pytest.raises(errors.ConfigError, match=r"carol.*file:/nonexistent/pw"):
        run(adapter, wanted)
    assert adapter.writes() == []


def test_passwords_reach_the_adapter_but_never_the_report() -> None:
    adapter = RecordingAdapter()
    wanted = DesiredState(
        scram_users={"alice": DesiredScramUser("alice", "SCRAM-SHA-256", 8192, SecretRef(env="ALICE_PW"))},
        ownership=OWN_ALL,
    )
    report = run(adapter, wanted)
    assert [args["passwords"] for name, args in adapter.calls if name == "alter_scram_credentials"] == [
        ["s3cret-alice"]
    ]
    assert "s3cret-alice" not in report.to_json()


def test_stale_plan_is_refused_naming_what_changed_and_writes_nothing() -> None:
    adapter = RecordingAdapter(topics={"t-a": one_replica_topic("t-a", configs={"retention.ms": "1"})})
    wanted = DesiredState(topics={**topics("t-a", configs={"retention.ms": "2"}), **topics("t-new")}, ownership=OWN_ALL)
    saved = plan(wanted, adapter.read_state(kinds=wanted.needs()))
    adapter.topics["t-a"] = one_replica_topic("t-a", configs={"retention.ms": "3"})  # out-of-band change
    adapter.topics["t-new"] = one_replica_topic("t-new")
    adapter.calls.clear()
    with pytest.raises(errors.StalePlan, match=r"topic/t-a \(changed\).*topic/t-new \(now exists\)"):
        apply_plan(saved, adapter, options=apply_options())
    assert adapter.writes() == []


def test_plan_for_another_cluster_is_refused() -> None:
    adapter = RecordingAdapter()
    saved = plan(DesiredState(topics=topics("t-a")), adapter.read_state(kinds=frozenset({"topic"})))
    adapter.cluster_id = "cluster-b"
    with pytest.raises(errors.PlanFileError, match=r"cluster-a.*cluster-b"):
        apply_plan(saved, adapter, options=apply_options())
    assert adapter.writes() == []


def test_self_lockout_guard_fires_before_any_write_unless_allowed() -> None:
    admin_all = state.AclBinding("CLUSTER", "LITERAL", "kafka-cluster", "User:admin", "*", "ALL", "ALLOW")
    adapter = RecordingAdapter(acls={admin_all})
    wanted = DesiredState(topics=topics("t-a"), ownership=OWN_ALL)
    with pytest.raises(errors.ReconcilerError, match=r"User:admin.*ALTER on CLUSTER 'kafka-cluster'") as info:
        run(adapter, wanted, apply_options(principal="User:admin"))
    assert info.value.exit_code == 1
    assert adapter.writes() == []

    report = run(adapter, wanted, apply_options(principal="User:admin", allow_self_lockout=True))
    assert report.exit_code == 0 and adapter.acls == set()


def test_a_write_that_did_not_take_effect_is_reported_as_not_converged() -> None:
    adapter = RecordingAdapter(script={"create_acls": [{ALICE_READ.address: "OK+ignored"}]})
    report = run(adapter, DesiredState(acls={ALICE_READ: None}, ownership=OWN_ALL))
    assert report.items[0].outcome is Outcome.APPLIED
    assert report.converged is False
    assert [n.address for n in report.not_converged] == [ALICE_READ.address]
    assert report.exit_code == 3


def test_progress_events_per_phase() -> None:
    adapter = RecordingAdapter(topics={"t-a": one_replica_topic("t-a", configs={"retention.ms": "1"})})
    events: list[ApplyEvent] = []
    run(adapter, DesiredState(topics={**topics("t-b"), **topics("t-a")}, ownership=OWN_ALL), events=events)
    kinds = [(e.kind, e.phase) for e in events if e.kind is not EventKind.RETRY]
    assert kinds == [
        (EventKind.PHASE_STARTED, plans.Phase.TOPIC_CREATE),
        (EventKind.ITEM_DONE, plans.Phase.TOPIC_CREATE),
        (EventKind.PHASE_FINISHED, plans.Phase.TOPIC_CREATE),
        (EventKind.PHASE_STARTED, plans.Phase.TOPIC_CONFIG),
        (EventKind.ITEM_DONE, plans.Phase.TOPIC_CONFIG),
        (EventKind.PHASE_FINISHED, plans.Phase.TOPIC_CONFIG),
        (EventKind.VERIFYING, None),
        (EventKind.VERIFYING, None),
    ]
    verifying = [e for e in events if e.kind is EventKind.VERIFYING]
    assert [(e.done, e.total) for e in verifying] == [(0, 2), (2, 2)]
    assert verifying[0].message == "verifying 2 changes: reading them back"
    assert (verifying[-1].message or "").startswith("verifying 2 changes: all converged in ")


def test_an_empty_plan_sends_nothing() -> None:
    adapter = RecordingAdapter(topics={"t-a": one_replica_topic("t-a")})
    report = run(adapter, DesiredState(topics=topics("t-a"), ownership=OWN_ALL))
    assert adapter.calls == [] and report.items == () and report.exit_code == 0


def test_sensitive_config_values_come_from_the_manifests_never_from_the_plan() -> None:
    adapter = RecordingAdapter()
    wanted = DesiredState(
        broker_configs={"<default>": DesiredBrokerConfig("<default>", {"listener.name.x.ssl.key.password": "k3y"})},
        ownership=OWN_ALL,
    )
    p = plan(wanted, adapter.read_state(kinds=wanted.needs()))
    assert "k3y" not in p.to_json()
    with pytest.raises(errors.PlanFileError, match=r"broker_config/<default> \(listener.name.x.ssl.key.password\)"):
        apply_plan(p, adapter, options=apply_options())
    assert adapter.writes() == []

    report = apply_plan(p, adapter, options=apply_options(desired=wanted))
    assert report.items[0].outcome is Outcome.APPLIED
    assert adapter.broker_configs["<default>"]["listener.name.x.ssl.key.password"] == "k3y"
    assert "k3y" not in report.to_json()


def test_a_wait_that_fails_mid_apply_fails_its_phase_and_still_produces_a_report() -> None:
    from reconciler.kafka.results import ConnectionLost

    class LosesConnectionWhileWaiting(RecordingAdapter):
        def wait_topics_absent(
            self, names: Iterable[str], *, timeout_s: float = 30.0, poll_s: float = 0.25
        ) -> frozenset[str]:
            raise ConnectionLost("Metadata to the cluster failed: connection reset", api="Metadata")

    adapter = LosesConnectionWhileWaiting(topics={"t-old": one_replica_topic("t-old")})
    report = run(adapter, DesiredState(topics=topics("t-new"), ownership=OWN_ALL))
    by = {i.address: i for i in report.items}
    assert by["topic/t-old"].outcome is Outcome.FAILED and "connection reset" in (by["topic/t-old"].message or "")
    assert by["topic/t-new"].outcome is Outcome.APPLIED
    assert report.exit_code == 3


class _BrokenQuotaEncoder(RecordingAdapter):
    """A defect in the tool's own code, mid-apply: the quota phase raises what no check expected."""

    def alter_client_quotas(self, *args: Any, **kwargs: Any) -> Any:
        raise ValueError("cannot encode s3cret-alice")


def test_an_unexpected_exception_in_a_phase_fails_that_phase_and_the_report_is_still_written() -> None:
    """Regression: an exception other than the tool's own errors left the phase runner, after earlier phases had
    written: "internal error", no report. Now the phase's items fail, later phases run, the report says so."""
    adapter = _BrokenQuotaEncoder()
    alice = state.QuotaEntity.of(user="alice")
    wanted = DesiredState(
        topics=topics("t-new"),
        quotas={alice: DesiredQuota(alice, {"consumer_byte_rate": 5.0})},
        scram_users={"alice": DesiredScramUser("alice", "SCRAM-SHA-256", 8192, SecretRef(env="ALICE_PW"))},
    )
    report = run(adapter, wanted)
    by_address = {i.address: i for i in report.items}
    assert by_address["topic/t-new"].outcome is Outcome.APPLIED and "t-new" in adapter.topics
    quota = by_address[alice.address]
    assert quota.outcome is Outcome.FAILED and quota.error_name == "INTERNAL_ERROR"
    assert "ValueError" in (quota.message or "") and "s3cret-alice" not in (quota.message or "")
    assert by_address["scram_user/alice"].outcome is Outcome.APPLIED
    assert report.exit_code == 3


class _ReorderedConfigAnswers(RecordingAdapter):
    """Answers IncrementalAlterConfigs in reverse order, naming each resource only by its typed target."""

    def incremental_alter_configs(self, changes: Any, *, validate_only: bool = False) -> Any:
        answers = super().incremental_alter_configs(changes, validate_only=validate_only)
        return [dataclasses.replace(r, key="(resource)") for r in reversed(answers)]


def test_config_results_are_matched_by_their_typed_resource_not_by_text_or_position() -> None:
    """Regression: a config result was paired with its resource by parsing its key text back (``topic:orders``),
    falling back to position: an answer in another order went to the wrong topic."""
    adapter = _ReorderedConfigAnswers(
        topics={n: one_replica_topic(n, configs={"retention.ms": "1000"}) for n in ("t-a", "t-b")},
        script={"incremental_alter_configs": [{"topic:t-a": "INVALID_CONFIG"}]},
    )
    wanted = DesiredState(
        topics={n: DesiredTopic(n, 1, 1, {"retention.ms": "2000"}) for n in ("t-a", "t-b")}, ownership=OWN_ALL
    )
    report = run(adapter, wanted)
    by_address = {i.address: i.outcome for i in report.items}
    assert by_address == {"topic/t-a": Outcome.FAILED, "topic/t-b": Outcome.APPLIED}

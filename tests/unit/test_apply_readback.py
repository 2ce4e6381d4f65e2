"""The read-back waits in proportion to the work, with backoff, within a deadline the user can set.

A stand-in cluster shows new topics only some (fake) seconds after they were created, as a broker that is
still creating partition logs does; a config that never takes stands for a change that cannot converge.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pytest

from reconciler.apply import ApplyOptions, ApplyReport, apply_plan, decoded, engine, readback, retry
from reconciler.kafka.results import ItemResult, TopicSpec
from reconciler.model import payloads, plans, state
from reconciler.model.desired import DesiredState, DesiredTopic, NamePattern, Ownership
from reconciler.model.kinds import Kind
from reconciler.planner import plan
from tests.support.recording import FakeClock, RecordingAdapter

OWN = Ownership(topics=(NamePattern("prefix", "t"),))


@dataclasses.dataclass
class SlowBroker(RecordingAdapter):
    """Shows a created topic ``lag_s`` after the create, and ignores writes of ``stuck`` configs."""

    clock: Callable[[], float] = lambda: 0.0
    lag_s: float = 0.0
    created_at: dict[str, float] = dataclasses.field(default_factory=dict)

    def read_state(
        self,
        *,
        kinds: frozenset[str],
        topic_filter: Callable[[str], bool] | None = None,
        principal_filter: Callable[[str], bool] | None = None,
        scope: state.ReadScope | None = None,
        entity_filters: Mapping[Kind, state.EntityFilter] | None = None,
    ) -> state.ClusterState:
        live = super().read_state(
            kinds=kinds,
            topic_filter=topic_filter,
            principal_filter=principal_filter,
            scope=scope,
            entity_filters=entity_filters,
        )
        if live.topics is None:
            return live
        now = self.clock()
        shown = {n: t for n, t in live.topics.items() if now >= self.created_at.get(n, -1e9) + self.lag_s}
        return dataclasses.replace(live, topics=shown)

    def create_topics(
        self, specs: Sequence[TopicSpec], *, validate_only: bool = False, timeout_ms: int | None = None
    ) -> list[ItemResult]:
        for s in specs:
            self.created_at.setdefault(s.name, self.clock())
        return super().create_topics(specs, validate_only=validate_only)


def wanted(count: int, *, partitions: int = 1) -> DesiredState:
    return DesiredState(
        topics={f"t{i:05}": DesiredTopic(f"t{i:05}", partitions, 1, {}) for i in range(count)}, ownership=OWN
    )


def run(adapter: RecordingAdapter, want: DesiredState, clock: FakeClock, **kw: Any) -> ApplyReport:
    """Plan ``want`` and apply it on ``clock``; ``kw`` are further ApplyOptions fields."""
    p = plan(want, adapter.read_state(kinds=want.needs()))
    adapter.calls.clear()
    opts = ApplyOptions(pacer=retry.Pacer(sleep=clock.sleep, rand=lambda: 0.5), clock=clock, **kw)
    return apply_plan(p, adapter, options=opts)


def test_the_window_grows_with_the_partitions_created() -> None:
    small = plan(wanted(3), state.ClusterState(cluster_id="c", controller_id=1, brokers=(), topics={}))
    large = plan(
        wanted(10_000, partitions=3), state.ClusterState(cluster_id="c", controller_id=1, brokers=(), topics={})
    )
    assert readback.window_s(small.actionable) == pytest.approx(15.06)
    assert readback.window_s(large.actionable) == pytest.approx(15 + 600)


def test_ten_thousand_topics_that_show_after_two_minutes_converge_and_exit_0() -> None:
    clock = FakeClock()
    adapter = SlowBroker(clock=clock, lag_s=120.0)
    report = run(adapter, wanted(10_000), clock, deadline_s=300)
    assert report.converged is True and report.exit_code == 0, report.notes
    assert not report.not_converged
    # Polled with backoff: 0.5 s, then 1.5 times longer each time, never more than 5 s apart.
    assert clock.slept[:4] == [0.5, 0.75, 1.125, 1.6875]
    assert max(clock.slept) == 5.0
    assert 120 <= clock.now < 130


def test_what_never_converges_is_named_with_why_the_read_back_stopped() -> None:
    clock = FakeClock()
    adapter = SlowBroker(clock=clock, lag_s=1e9)  # the brokers never show the new topics
    report = run(adapter, wanted(2), clock, deadline_s=300)
    assert report.converged is False and report.exit_code == 3
    assert [n.address for n in report.not_converged] == ["topic/t00000", "topic/t00001"]
    assert all("does not exist" in n.detail for n in report.not_converged)
    # A small apply gives up after 15 s without progress, as before, not at the apply's deadline.
    assert 15 <= clock.now < 21
    (note,) = [n for n in report.notes if "did not converge" in n]
    assert "nothing more converged in the last 15 s" in note and "--read-back-timeout" in note


def test_the_users_read_back_timeout_bounds_the_wait() -> None:
    clock = FakeClock()
    adapter = SlowBroker(clock=clock, lag_s=120.0)
    report = run(adapter, wanted(2_000), clock, deadline_s=300, settle_s=30.0)
    assert report.converged is False and len(report.not_converged) == 2_000
    assert clock.now <= 31
    (note,) = [n for n in report.notes if "did not converge" in n]
    assert "deadline was reached" in note and "(--read-back-timeout)" in note


def test_the_apply_deadline_bounds_the_read_back_too() -> None:
    clock = FakeClock()
    adapter = SlowBroker(clock=clock, lag_s=120.0)
    report = run(adapter, wanted(2_000), clock, deadline_s=40)
    assert report.converged is False and clock.now <= 41
    (note,) = [n for n in report.notes if "did not converge" in n]
    assert "--timeout" in note


@dataclasses.dataclass
class SlowController(SlowBroker):
    """Each CreateTopics also takes ``write_s`` (fake) seconds to answer, as on a loaded controller."""

    clock: FakeClock = dataclasses.field(default_factory=FakeClock)
    write_s: float = 0.0

    def create_topics(
        self, specs: Sequence[TopicSpec], *, validate_only: bool = False, timeout_ms: int | None = None
    ) -> list[ItemResult]:
        self.clock.now += self.write_s
        return super().create_topics(specs, validate_only=validate_only)


def test_without_a_timeout_the_deadline_grows_with_the_work_so_a_slow_large_create_converges() -> None:
    # 1,000 new topics: the create answers after 285 s, the topics show 30 s after it (inside the read-back's
    # window of 15 s + 20 ms x 1,000 = 35 s without progress). 315 s in all: past a fixed 300 s, within the
    # default of 300 s + 30 ms x 1,000 = 330 s. (The same holds for 10,000 topics against 600 s, at ten times
    # the CPU for the same assertions.)
    clock = FakeClock()
    adapter = SlowController(clock=clock, lag_s=30.0, write_s=285.0)
    p = plan(wanted(1_000), adapter.read_state(kinds=wanted(1_000).needs()))
    assert engine.default_deadline_s(p.actionable) == pytest.approx(330.0)
    assert engine.default_deadline_s(p.actionable[:3]) == pytest.approx(300.09)
    assert readback.window_s(p.actionable) == pytest.approx(35.0)
    report = run(adapter, wanted(1_000), clock)
    assert report.converged is True and report.exit_code == 0, report.notes
    assert 315 <= clock.now < 330

    fixed = FakeClock()
    report = run(SlowController(clock=fixed, lag_s=30.0, write_s=285.0), wanted(1_000), fixed, deadline_s=300)
    assert report.converged is False and report.exit_code == 3
    (note,) = [n for n in report.notes if "did not converge" in n]
    assert "--timeout" in note


def test_the_read_back_asks_only_for_what_has_not_converged() -> None:
    clock = FakeClock()
    adapter = SlowBroker(clock=clock, lag_s=3.0)
    report = run(adapter, wanted(5), clock)
    assert report.converged is True
    scopes = [s for s in adapter.scopes if s is not None]
    assert scopes[-1].topics == frozenset(f"t{i:05}" for i in range(5))
    assert plans.Phase.TOPIC_CREATE in {p.phase for p in report.phases}


def test_a_change_whose_resource_cannot_be_named_reads_its_kind_whole() -> None:
    odd = plans.Change(
        address="quota/payments-api",
        kind=Kind.QUOTA,
        name="payments-api",  # no entity type: a hand-edited plan
        action=plans.Action.CREATE,
        phase=plans.Phase.QUOTA,
    )
    topic = plans.Change(
        address="topic/t1",
        kind=Kind.TOPIC,
        name="t1",
        action=plans.Action.CREATE,
        phase=plans.Phase.TOPIC_CREATE,
    )
    scope = decoded.of_changes([odd, topic]).read_scope()
    assert scope.quota_entities is None  # read whole; the quota phase then reports the change it cannot send
    assert scope.topics == frozenset({"t1"}) and scope.principals == frozenset()


def test_the_read_back_asks_each_topic_only_for_the_config_keys_the_apply_wrote() -> None:
    """Regression: the read-back re-read every config of every changed topic (about 40 keys each), several times
    over while it waited for anything else to show."""
    clock = FakeClock()
    live = {
        f"t{i:05}": state.TopicState(f"t{i:05}", ((1,),), configs={"retention.ms": "1", "segment.bytes": "1048576"})
        for i in range(3)
    }
    adapter = SlowBroker(clock=clock, topics=live)
    want = DesiredState(
        topics={n: DesiredTopic(n, 2 if n == "t00002" else 1, 1, {"retention.ms": "2"}) for n in live}, ownership=OWN
    )
    report = run(adapter, want, clock)
    assert report.converged is True and report.exit_code == 0
    reads = [s for s in adapter.scopes if s is not None]
    # Before writing: everything about the topics (the staleness check compares them whole).
    assert reads[0].topic_config_keys is None
    # After: only the key the config changes wrote (segment.bytes is reset, so it is read too).
    assert reads[-1].topics == frozenset(live)
    assert reads[-1].topic_config_keys == frozenset({"retention.ms", "segment.bytes"})
    assert adapter.topics["t00000"].configs == {"retention.ms": "2"}


@dataclasses.dataclass
class LaggingBrokers(SlowBroker):
    """Three brokers: the one the read-back reads shows a new topic at once, broker 3's own metadata only
    ``lag_s`` (fake) seconds after the create (a ZooKeeper-mode broker whose UpdateMetadata comes late)."""

    views_asked: int = 0

    def read_state(self, **kwargs: Any) -> state.ClusterState:
        return RecordingAdapter.read_state(self, **kwargs)  # the broker read shows every topic at once

    def topic_views(self, names: Sequence[str]) -> dict[int, dict[str, int]]:
        self.views_asked += 1
        now = self.clock()
        listed = {n: self.topics[n].partitions for n in names if n in self.topics}
        late = {n: p for n, p in listed.items() if now >= self.created_at.get(n, -1e9) + self.lag_s}
        return {1: listed, 2: listed, 3: late}


def test_converged_means_every_broker_lists_the_new_topics() -> None:
    clock = FakeClock()
    adapter = LaggingBrokers(clock=clock, lag_s=4.0)
    report = run(adapter, wanted(3), clock, deadline_s=120)
    assert report.converged is True and report.exit_code == 0
    assert adapter.views_asked >= 2  # asked again until broker 3 listed them
    assert clock.now >= 4.0  # not called converged before broker 3 showed the topics


def test_a_broker_that_never_lists_the_topic_is_named_in_what_did_not_converge() -> None:
    clock = FakeClock()
    adapter = LaggingBrokers(clock=clock, lag_s=1e9)
    report = run(adapter, wanted(1), clock, deadline_s=120, settle_s=10)
    assert report.converged is False and report.exit_code == 3
    assert [n.detail for n in report.not_converged] == ["topic create: broker 3 does not list it yet"]


@dataclasses.dataclass
class LaggingAuthorizers(RecordingAdapter):
    """Three brokers: the read-back's read shows ACL changes at once, broker 3's own authorizer only ``lag_s`` (fake)
    seconds after the last ACL write (a broker that applies the controller's ACL records, or ZooKeeper's change
    notices, late)."""

    clock: Callable[[], float] = lambda: 0.0
    lag_s: float = 0.0
    written_at: float | None = None
    before: frozenset[state.AclBinding] = frozenset()
    views_asked: list[list[str]] = dataclasses.field(default_factory=list)

    def create_acls(self, bindings: Sequence[state.AclBinding]) -> list[ItemResult]:
        self.before, self.written_at = frozenset(self.acls), self.clock()
        return super().create_acls(bindings)

    def delete_acls(self, bindings: Sequence[state.AclBinding]) -> list[ItemResult]:
        self.before, self.written_at = frozenset(self.acls), self.clock()
        return super().delete_acls(bindings)

    def acl_views(self, principals: Iterable[str]) -> dict[int, frozenset[state.AclBinding]]:
        wanted = set(principals)
        self.views_asked.append(sorted(wanted))
        held = frozenset(b for b in self.acls if b.principal in wanted)
        caught_up = self.written_at is None or self.clock() >= self.written_at + self.lag_s
        late = held if caught_up else frozenset(b for b in self.before if b.principal in wanted)
        return {1: held, 2: held, 3: late}


ALICE = state.AclBinding("TOPIC", "LITERAL", "t-orders", "User:alice", "*", "READ", "ALLOW")
OWN_ALICE = Ownership(topics=(NamePattern("prefix", "t"),), principals=(NamePattern("glob", "User:alice"),))


def test_converged_means_every_brokers_authorizer_holds_the_bindings_created() -> None:
    clock = FakeClock()
    adapter = LaggingAuthorizers(clock=clock, lag_s=4.0)
    want = DesiredState(acls={ALICE: None}, ownership=OWN_ALICE)
    report = run(adapter, want, clock, deadline_s=120)
    assert report.converged is True and report.exit_code == 0
    assert len(adapter.views_asked) >= 2 and adapter.views_asked[0] == ["User:alice"]  # asked until broker 3 held it
    assert clock.now >= 4.0  # not called converged before broker 3's authorizer held the binding


def test_a_broker_whose_authorizer_still_holds_a_deleted_binding_is_named() -> None:
    clock = FakeClock()
    adapter = LaggingAuthorizers(clock=clock, lag_s=1e9, acls={ALICE})
    want = DesiredState(ownership=dataclasses.replace(OWN_ALICE, delete={Kind.ACL: True}))
    report = run(adapter, want, clock, deadline_s=120, settle_s=10)
    assert report.converged is False and report.exit_code == 3
    assert [(n.address, n.detail) for n in report.not_converged] == [
        (ALICE.address, "acl delete: broker 3's authorizer still holds it")
    ]


# ------------------------------------------------------------------ config writes a broker applies late
GROUP, KEY = "orders-service", "consumer.session.timeout.ms"
Sections = dict[str, dict[str, str | None]]  # name -> configs set on it


@dataclasses.dataclass
class LaggingConfigs(RecordingAdapter):
    """Answers reads of group configs and client-metrics subscriptions with what they held before a write until
    ``lag_s`` after it (a broker that has not applied the accepted write yet); ``other`` is what another writer
    leaves instead, when set."""

    clock: Callable[[], float] = lambda: 0.0
    lag_s: float = 0.0
    other: str | None = None
    written: list[tuple[float, Sections, Sections]] = dataclasses.field(default_factory=list)  # (when, before)

    def incremental_alter_configs(self, changes: Any, *, validate_only: bool = False) -> list[ItemResult]:
        before = (copy.deepcopy(self.group_configs), copy.deepcopy(self.client_metrics))
        answers = super().incremental_alter_configs(changes, validate_only=validate_only)
        if not validate_only:
            self.written.append((self.clock(), *before))
            if self.other is not None:
                self.group_configs[GROUP][KEY] = self.other
        return answers

    def read_state(self, **kw: Any) -> state.ClusterState:
        live = super().read_state(**kw)
        late = [(groups, metrics) for at, groups, metrics in self.written if self.clock() < at + self.lag_s]
        if not late:
            return live
        groups, metrics = late[0]
        return dataclasses.replace(
            live,
            group_configs=None if live.group_configs is None else groups,
            client_metrics=None if live.client_metrics is None else metrics,
        )


# kind -> (resource name, key, value before, value written)
ENTITY_WRITES = {
    Kind.GROUP_CONFIG: (GROUP, KEY, "45000", "50000"),
    Kind.CLIENT_METRICS: ("producers", "interval.ms", "300000", "60000"),
}


def _entity_plan(kind: Kind) -> plans.Plan:
    name, key, before, after = ENTITY_WRITES[kind]
    change = plans.Change(
        address=kind.address(name),
        kind=kind,
        name=name,
        action=plans.Action.UPDATE,
        phase=plans.Phase.GROUP_CONFIG if kind is Kind.GROUP_CONFIG else plans.Phase.CLIENT_METRICS,
        before=payloads.EntityConfigPayload(configs={key: before}),
        after=payloads.EntityConfigPayload(config_ops=(payloads.ConfigOp.set(key, after),)),
    )
    return plans.Plan(cluster=plans.ClusterInfo("cluster-a", 1), changes=(change,))


def _apply_group_config(
    adapter: LaggingConfigs, clock: FakeClock, kind: Kind = Kind.GROUP_CONFIG, **kw: Any
) -> ApplyReport:
    name, key, before, _ = ENTITY_WRITES[kind]
    (adapter.group_configs if kind is Kind.GROUP_CONFIG else adapter.client_metrics)[name] = {key: before}
    opts = ApplyOptions(pacer=retry.Pacer(sleep=clock.sleep, rand=lambda: 0.5), clock=clock, check_staleness=False)
    return apply_plan(_entity_plan(kind), adapter, options=dataclasses.replace(opts, **kw))


@pytest.mark.parametrize("kind", list(ENTITY_WRITES))
def test_a_config_the_broker_shows_late_converges_within_the_deadline(kind: Kind) -> None:
    """Regression: a group config or client-metrics write the broker had accepted but showed only later was reported
    "did not converge: nothing more converged in the last 15 s" (exit 3) while the change held. A config write whose
    resource still reads as before is waited for until the deadline, not the quiet window."""
    clock = FakeClock()
    adapter = LaggingConfigs(clock=clock, lag_s=40.0)
    report = _apply_group_config(adapter, clock, kind, deadline_s=120)
    assert report.converged is True and report.exit_code == 0, (report.not_converged, report.notes)
    assert 40 <= clock.now < 46  # read again until it showed, backing off to 5 s
    name, key, _, after = ENTITY_WRITES[kind]
    assert (adapter.group_configs if kind is Kind.GROUP_CONFIG else adapter.client_metrics)[name] == {key: after}


def test_a_group_config_still_as_before_at_the_deadline_says_so() -> None:
    clock = FakeClock()
    adapter = LaggingConfigs(clock=clock, lag_s=1e9)
    report = _apply_group_config(adapter, clock, deadline_s=60)
    assert report.converged is False and report.exit_code == 3
    (item,) = report.not_converged
    assert item.address == f"group_config/{GROUP}" and "(the value from before the change)" in item.detail
    (note,) = [n for n in report.notes if "did not converge" in n]
    assert "deadline was reached" in note and "still showed the values from before the change" in note
    assert "nothing more converged" not in note


def test_a_group_config_holding_a_third_value_stops_after_the_quiet_window() -> None:
    """A value neither the one written nor the one before (another writer's) is an outcome: the window ends it."""
    clock = FakeClock()
    adapter = LaggingConfigs(clock=clock, other="60000")
    report = _apply_group_config(adapter, clock, deadline_s=300)
    assert report.converged is False and 15 <= clock.now < 21
    (note,) = [n for n in report.notes if "did not converge" in n]
    assert "nothing more converged in the last 15 s" in note

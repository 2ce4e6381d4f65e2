"""Change impact on plain data: what each topic change does, from the evidence in the live state (table-driven)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler import planner
from reconciler.kinds.topic import impact
from reconciler.model import impact as im
from reconciler.model import plans
from reconciler.model import state as s
from reconciler.planner import plan
from reconciler.snapshot import files
from tests.support.builders import cluster, live_topic, topic, want

NOW = 1_795_000_000_000
DAY = 86_400_000
MB = 10**6


def part(
    earliest: int,
    end: int,
    at_cutoff: int = -1,
    *,
    size: int = 0,
    replicas: tuple[int, ...] = (1, 2, 3),
    isr: tuple[int, ...] | None = None,
) -> im.PartitionEvidence:
    return im.PartitionEvidence(
        leader=replicas[0],
        replicas=replicas,
        isr=replicas if isr is None else isr,
        earliest=earliest,
        end=end,
        at_cutoff=at_cutoff,
        sizes={b: size for b in replicas},
    )


def evidence(name: str, *partitions: im.PartitionEvidence, retention_ms: int | None = None) -> im.ImpactEvidence:
    te = im.TopicEvidence(
        partitions=partitions,
        retention_ms=retention_ms,
        cutoff_ms=None if retention_ms is None else NOW - retention_ms,
        sizes_read=True,
        offsets_read=True,
    )
    return im.ImpactEvidence(topics={name: te}, read_at_ms=NOW)


def plan_with(
    wanted: list[s.TopicState] | None = None,
    *,
    declared: list[object],
    live: list[s.TopicState],
    ev: im.ImpactEvidence | None,
    usage: dict[str, s.TopicUsage] | None = None,
    cluster_configs: dict[str, str | None] | None = None,
) -> plans.Plan:
    state = dataclasses.replace(cluster(topics=live, cluster_configs=cluster_configs), impact=ev, topic_usage=usage)
    return plan(want(topics=declared, own_topics=["old."], delete=["topic"]), state)  # type: ignore[arg-type]


def entries(result: plans.Plan, kind: str) -> list[im.TopicImpact]:
    return [] if result.impact is None else result.impact.of(kind)


# ---------------------------------------------------------------------------------------- retention
@pytest.mark.parametrize(
    ("partitions", "records", "nbytes", "records_exact", "bytes_exact"),
    [
        pytest.param([part(0, 100, 40, size=100 * MB)], 40, 40 * MB, True, False, id="part-older"),
        pytest.param([part(0, 100, -1, size=100 * MB)], 100, 100 * MB, True, True, id="all-older"),
        pytest.param([part(0, 100, 0, size=100 * MB)], 0, 0, True, True, id="none-older"),
        pytest.param([part(50, 150, 100, size=10 * MB), part(0, 0, -1)], 50, 5 * MB, True, False, id="after-deletes"),
    ],
)
def test_retention_ms_shrink_counts_records_older_than_the_new_retention(
    partitions: list[im.PartitionEvidence], records: int, nbytes: int, records_exact: bool, bytes_exact: bool
) -> None:
    ev = evidence("orders", *partitions, retention_ms=DAY)
    n = len(partitions)
    result = plan_with(
        declared=[topic("orders", n, configs={"retention.ms": str(DAY)})],
        live=[live_topic("orders", n, configs={"retention.ms": str(7 * DAY)})],
        ev=ev,
    )
    [found] = entries(result, im.DELETES)
    assert (found.records, found.bytes) == (records, nbytes)
    assert (found.records_exact, found.bytes_exact) == (records_exact, bytes_exact)
    change = next(c for c in result.changes if c.phase is plans.Phase.TOPIC_CONFIG)
    assert any(w.startswith("impact: ") and "records older than 1d" in w for w in change.warnings)


def test_retention_bytes_shrink_estimates_from_partition_sizes() -> None:
    ev = evidence("orders", part(0, 1000, size=100 * MB), part(0, 1000, size=30 * MB))
    result = plan_with(
        declared=[topic("orders", 2, configs={"retention.bytes": str(50 * MB)})],
        live=[live_topic("orders", 2)],
        ev=ev,
    )
    [found] = entries(result, im.DELETES)
    assert found.bytes == 50 * MB  # only the first partition is over the limit, by 50 MB
    assert found.records == 500 and not found.records_exact
    assert found.bytes_exact and found.at_most


def _size_shrink(limit: int, *partitions: im.PartitionEvidence, retention_ms: int | None = None) -> im.TopicImpact:
    ev = evidence("orders", *partitions, retention_ms=retention_ms)
    configs = {"retention.bytes": str(limit)} | ({} if retention_ms is None else {"retention.ms": str(retention_ms)})
    n = len(partitions)
    result = plan_with(
        declared=[topic("orders", n, configs=configs)],
        live=[live_topic("orders", n, configs={} if retention_ms is None else {"retention.ms": str(30 * DAY)})],
        ev=ev,
    )
    [found] = entries(result, im.DELETES)
    return found


@pytest.mark.parametrize(
    ("partitions", "limit", "records", "nbytes"),
    [
        # 3 records of 100 bytes, limit 50: 50 bytes over, which hold 1.5 records -> at most 1 record, 50 bytes.
        pytest.param([part(0, 3, size=100)], 50, 1, 50, id="half-a-record-over"),
        # 7 records in 1,000 bytes, 1 byte over: less than a record's worth -> no record, at most 1 byte.
        pytest.param([part(0, 7, size=1000)], 999, 0, 1, id="one-byte-over"),
        pytest.param([part(0, 3, size=100), part(10, 13, size=100), part(0, 9, size=40)], 50, 2, 100, id="three"),
    ],
)
def test_retention_bytes_never_claims_more_than_is_over_the_limit(
    partitions: list[im.PartitionEvidence], limit: int, records: int, nbytes: int
) -> None:
    found = _size_shrink(limit, *partitions)
    assert (found.records, found.bytes) == (records, nbytes)
    assert found.at_most and found.bytes_exact and not found.records_exact
    line = found.lines[0]
    assert f"beyond {im.human_bytes(limit)} per partition become eligible for deletion at once: at most " in line
    assert "(over the limit, from partition sizes)" in line and "(estimated pro rata, rounded down)" in line
    assert "only while the partition stays at or above the limit" in line
    assert "nothing in a partition with one segment" in line


def test_a_time_and_a_size_limit_together_claim_the_larger_of_the_two_per_partition() -> None:
    # 100 records in 1,000 bytes: 40 older than a day (about 400 bytes), 300 bytes over a 700-byte limit.
    older = _size_shrink(700, part(0, 100, 40, size=1000), retention_ms=DAY)
    assert (older.records, older.bytes, older.records_exact, older.bytes_exact) == (40, 400, False, False)
    # 10 older (about 100 bytes), 300 bytes over: the size bound wins; with older records' bytes pro rata beside
    # it, neither figure is exact.
    sized = _size_shrink(700, part(0, 100, 10, size=1000), retention_ms=DAY)
    assert (sized.records, sized.bytes, sized.records_exact, sized.bytes_exact) == (30, 300, False, False)
    assert sized.at_most and older.at_most


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**9)), min_size=1, max_size=4),
    st.integers(1, 10**9),
)
def test_a_size_shrink_is_bounded_by_what_is_over_the_limit(held_and_sizes: list[tuple[int, int]], limit: int) -> None:
    partitions = [part(0, held, size=size) for held, size in held_and_sizes]
    ev = evidence("orders", *partitions)
    result = plan_with(
        declared=[topic("orders", len(partitions), configs={"retention.bytes": str(limit)})],
        live=[live_topic("orders", len(partitions))],
        ev=ev,
    )
    [found] = entries(result, im.DELETES)
    over = [max(size - limit, 0) if held else 0 for held, size in held_and_sizes]
    assert found.bytes == sum(over)
    assert found.records == sum(held * o // size for (held, size), o in zip(held_and_sizes, over, strict=True) if o)
    assert all(held * o // size <= held for (held, size), o in zip(held_and_sizes, over, strict=True) if o)


def test_switch_to_delete_applies_the_retention_and_growth_does_not_delete() -> None:
    ev = evidence("ledger", part(0, 10, 4, size=MB), retention_ms=7 * DAY)
    switched = plan_with(
        declared=[topic("ledger", 1, configs={"cleanup.policy": "delete"})],
        live=[live_topic("ledger", 1, configs={"cleanup.policy": "compact"})],
        ev=ev,
    )
    [found] = entries(switched, im.DELETES)
    assert found.records == 4
    grown = plan_with(
        declared=[topic("ledger", 1, configs={"retention.ms": str(30 * DAY)})],
        live=[live_topic("ledger", 1)],
        ev=ev,
    )
    assert entries(grown, im.DELETES) == []


def test_request_asks_for_the_new_retention_only_of_changed_topics() -> None:
    desired = want(
        topics=[
            topic("a", configs={"retention.ms": str(DAY)}),
            topic("b"),
            topic("c", configs={"min.insync.replicas": "2"}),
        ]
    )
    live = cluster(topics=[live_topic("a"), live_topic("b"), live_topic("c")])
    first = plan(desired, live)
    assert impact.needs(first.changes, desired, live).topics == {"a": DAY, "c": None}


def test_without_evidence_the_finding_is_made_with_unknown_figures() -> None:
    result = plan_with(
        declared=[topic("orders", 1, configs={"retention.ms": str(DAY)})],
        live=[live_topic("orders", 1)],
        ev=None,
    )
    [found] = entries(result, im.DELETES)
    assert found.records is None and found.unknown == "no impact evidence was read"
    assert result.impact is not None
    assert result.impact.summary_line() == "Impact: deletes data of 1 topic (amount unknown)"


# ------------------------------------------------------------------------------- delete and copies
def test_topic_delete_states_the_data_it_holds() -> None:
    ev = evidence("old.log", part(0, 1000, size=3 * MB), part(10, 510, size=2 * MB))
    result = plan_with(declared=[], live=[live_topic("old.log", 2)], ev=ev)
    [found] = entries(result, im.DROPS)
    assert (found.records, found.bytes) == (1500, 5 * MB)
    assert "drops the data it holds: 5 MB (15 MB with all replicas), 1,500 records" in found.lines[0]


def test_replication_factor_increase_copies_each_partition_to_its_new_replica() -> None:
    assignment = ((1, 2), (2, 3), (3, 1))
    ev = evidence("clicks", *(part(0, 10, size=(i + 1) * 100 * MB, replicas=r) for i, r in enumerate(assignment)))
    result = plan_with(
        declared=[topic("clicks", 3, 3)], live=[live_topic("clicks", 3, 2, assignment=assignment)], ev=ev
    )
    [found] = entries(result, im.COPIES)
    assert found.bytes == 600 * MB
    assert found.per_broker == {3: 100 * MB, 1: 200 * MB, 2: 300 * MB}
    assert "apply --replication-throttle 10000000" in found.lines[0]
    assert impact.suggested_throttle(36_000 * MB) == 10 * MB
    assert impact.suggested_throttle(72_001 * MB) == 21 * MB


# ------------------------------------------------------------------------------ producers, ordering
@pytest.mark.parametrize(
    ("isr", "min_isr", "failing"),
    [
        pytest.param([(1, 2, 3), (2, 3), (3,)], "2", ["2"], id="one-partition-short"),
        pytest.param([(1, 2, 3), (2, 3), (3, 1)], "3", ["1", "2"], id="equal-to-rf-under-replicated"),
        pytest.param([(1, 2, 3)] * 3, "4", ["0", "1", "2"], id="above-rf"),
        pytest.param([(1, 2, 3)] * 3, "2", None, id="all-in-sync"),
        pytest.param([(1, 2, 3)] * 3, "3", None, id="equal-to-rf-all-in-sync"),
    ],
)
def test_min_insync_replicas_against_the_in_sync_replicas(
    isr: list[tuple[int, ...]], min_isr: str, failing: list[str] | None
) -> None:
    ev = evidence("audit", *(part(0, 1, isr=i) for i in isr))
    result = plan_with(
        declared=[topic("audit", 3, configs={"min.insync.replicas": min_isr})], live=[live_topic("audit", 3)], ev=ev
    )
    found = entries(result, im.MIN_ISR)
    if failing is None:
        assert found == []
        return
    assert list(found[0].items) == failing
    assert "NOT_ENOUGH_REPLICAS" in found[0].lines[0]
    assert result.impact is not None and "1 topic' producers may fail (min ISR)" not in (
        result.impact.summary_line() or ""
    )
    assert "1 topic's producers may fail (min ISR)" in (result.impact.summary_line() or "")


@pytest.mark.parametrize(
    ("configs", "usage", "keyed"),
    [
        pytest.param({"cleanup.policy": "compact"}, None, True, id="compacted"),
        pytest.param({}, s.TopicUsage((5, 5), NOW, ("billing",), NOW), True, id="records-and-groups"),
        pytest.param({}, s.TopicUsage((5, 5), NOW, (), NOW), False, id="records-no-group"),
        pytest.param({}, s.TopicUsage((0, 0), None, ("billing",), NOW), False, id="empty"),
    ],
)
def test_partition_increase_on_keyed_data_names_the_groups(
    configs: dict[str, str], usage: s.TopicUsage | None, keyed: bool
) -> None:
    result = plan_with(
        declared=[topic("events", 4, configs=configs)],
        live=[live_topic("events", 2, configs=configs)],
        ev=None,
        usage=None if usage is None else {"events": usage},
    )
    found = entries(result, im.ORDERING)
    assert bool(found) is keyed
    if keyed and usage is not None:
        assert found[0].items == ("billing",) and "consumer groups reading it: billing" in found[0].lines[0]


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ({"max.message.bytes": "1048588"}, {"max.message.bytes": "1000"}, "MESSAGE_TOO_LARGE"),
        ({}, {"cleanup.policy": "compact"}, "records without a key are refused"),
        ({}, {"message.timestamp.type": "LogAppendTime"}, "replaces producers' record timestamps"),
        ({}, {"unclean.leader.election.enable": "true"}, "out of sync may become leader"),
    ],
)
def test_specific_warnings_without_figures(before: dict[str, str], after: dict[str, str], expected: str) -> None:
    result = plan_with(declared=[topic("t", 1, configs=after)], live=[live_topic("t", 1, configs=before)], ev=None)
    assert any(expected in line for e in entries(result, im.NOTICE) for line in e.lines)


# ------------------------------------------------------------------------------------ plan and files
def test_summary_line_and_plan_file_round_trip() -> None:
    ev = im.ImpactEvidence(
        topics={
            **evidence("orders", part(0, 3000, 1000, size=3 * 10**9), retention_ms=DAY).topics,
            **evidence("old.log", part(0, 500, size=10**9)).topics,
        },
        read_at_ms=NOW,
        unknown=("partition sizes unknown: grant DESCRIBE on CLUSTER kafka-cluster to User:ci",),
    )
    result = plan_with(
        declared=[topic("orders", 1, configs={"retention.ms": str(DAY)})],
        live=[live_topic("orders", 1), live_topic("old.log", 1)],
        ev=ev,
    )
    assert result.impact is not None
    assert result.impact.summary_line() == (
        "Impact: deletes at most ~2 GB / 1,500 records at once across 2 topics (some evidence could not be read)"
    )
    assert result.impact.notes == ev.unknown
    again = plans.Plan.from_json_dict(json.loads(result.to_json()))
    assert again.impact == result.impact


def test_snapshot_carries_the_evidence() -> None:
    ev = evidence("orders", part(0, 3, 1, size=10), retention_ms=DAY)
    live = dataclasses.replace(cluster(topics=[live_topic("orders", 1)]), impact=ev)
    assert files.from_json_dict(json.loads(json.dumps(files.to_json_dict(live)))).impact == ev


def test_human_bytes() -> None:
    assert [im.human_bytes(n) for n in (0, 999, 1000, 1_234_567, 412 * 10**9, 5 * 10**15)] == [
        "0 B",
        "999 B",
        "1 kB",
        "1.23 MB",
        "412 GB",
        "5000 TB",
    ]


def test_impact_attached_to_a_first_plan_equals_planning_again_with_the_evidence() -> None:
    from tests.golden.impact import desired_state, live_state

    live = live_state()
    first = planner.plan(desired_state(), dataclasses.replace(live, impact=None), assess_impact=False)
    assert first.impact is None
    assert planner.with_impact(first, desired_state(), live) == planner.plan(desired_state(), live)


def test_local_retention_shrink_moves_data_off_local_disk_and_is_not_counted_as_deleted() -> None:
    tiered = {"remote.storage.enable": "true"}
    ev = evidence("logs", part(0, 100, 30, size=100 * MB), retention_ms=DAY)
    result = plan_with(
        declared=[topic("logs", 1, configs={**tiered, "local.retention.ms": str(DAY)})],
        live=[live_topic("logs", 1, configs=tiered)],
        ev=ev,
    )
    assert entries(result, im.DELETES) == []
    [local] = entries(result, im.DELETES_LOCAL)
    assert (local.records, local.bytes) == (30, 30 * MB)
    assert "leave the broker's disk (kept in remote storage)" in local.lines[0]
    assert result.impact is not None
    assert result.impact.summary_line() == (
        "Impact: moves at most ~30 MB off local disk (kept in remote storage) for 1 topic"
    )
    without_remote = plan_with(
        declared=[topic("logs", 1, configs={"local.retention.ms": str(DAY)})], live=[live_topic("logs", 1)], ev=ev
    )
    assert entries(without_remote, im.DELETES_LOCAL) == []  # local retention only applies to tiered topics

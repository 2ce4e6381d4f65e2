"""Fleet row model and local engine: generated desired/live pairs plan exactly like the single-cluster planner.

The strategies (``cluster_pairs``, ``fleets``) live in tests/support/fleet.py; the Spark parity tests share them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from reconciler import planner
from reconciler.fleet import local, planning, rows, sources
from reconciler.model import desired as d
from reconciler.model import state as s
from reconciler.snapshot import files
from tests.support.fleet import cluster_pairs, fleet_inputs, fleets, offline, write_snapshot

RELAXED = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _reference(wanted: d.DesiredState, live: s.ClusterState) -> str:
    return planner.plan(wanted, offline(wanted, live)).to_json()


@RELAXED
@given(cluster_pairs())
def test_rows_rebuild_states_that_plan_identically(pair: tuple[d.DesiredState, s.ClusterState]) -> None:
    wanted, live = pair
    rebuilt_desired = rows.rebuild_desired(rows.desired_rows(wanted))
    rebuilt_live = rows.rebuild_live(reversed(list(rows.live_rows(live))))  # row order must not matter
    assert files.to_json_dict(rebuilt_live) == files.to_json_dict(live)
    assert rebuilt_desired == wanted
    assert planner.plan(rebuilt_desired, offline(rebuilt_desired, rebuilt_live)).to_json() == _reference(wanted, live)


@RELAXED
@given(cluster_pairs())
def test_joined_rows_plan_like_the_planner_and_flag_every_changed_resource(
    pair: tuple[d.DesiredState, s.ClusterState],
) -> None:
    wanted, live = pair
    joined = planning.hash_join(rows.desired_rows(wanted), rows.live_rows(live))
    outcome = planning.plan_joined("c", joined)
    assert outcome.plan_json == _reference(wanted, live)
    differing = planning.differing_attributes(joined)
    plan = outcome.plan()
    assert plan is not None
    for change in plan.changes:
        assert (change.kind, change.name) in differing, f"the join calls {change.address} equal"
    for unmanaged in plan.unmanaged:
        assert (unmanaged.kind, unmanaged.name) in differing


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(pairs=fleets)
def test_local_engine_plans_each_cluster_like_the_planner(
    pairs: list[tuple[d.DesiredState, s.ClusterState]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    tasks, desired_sets, expected = fleet_inputs(pairs, tmp_path_factory.mktemp("fleet"))
    outcomes = list(local.run_local(tasks, desired_sets))
    assert {o.cluster: o.plan_json for o in outcomes} == expected
    for o in outcomes:  # the summary's numbers, computed with the plan, are what the plan file says
        parsed = o.plan()
        assert parsed is not None
        assert o.digest == planning.PlanDigest.of(parsed, json.loads(str(o.plan_json))["checksum"])


def test_parquet_snapshot_keeps_null_values_and_every_section(tmp_path: Path) -> None:
    live = s.ClusterState(
        cluster_id="c-1",
        controller_id=1,
        brokers=(s.Broker(1, "b1", 9092, "r1"),),
        topics={
            "t": s.TopicState(
                "t", ((1,),), configs={"sasl.jaas.config": None}, sensitive=frozenset({"sasl.jaas.config"})
            )
        },
        acls=None,
        quotas={},
        scram_users={"alice": ()},
        broker_configs={s.CLUSTER_DEFAULT: {}},
    )
    path = write_snapshot(live, tmp_path / "c.parquet")
    assert files.to_json_dict(rows.rebuild_live(sources.read_parquet_snapshot(path))) == files.to_json_dict(live)


def test_unreadable_snapshot_becomes_an_error_row_not_an_exception(tmp_path: Path) -> None:
    task = sources.ClusterTask(name="gone", desired_key="k", snapshot=str(tmp_path / "missing.json"))
    (row,) = sources.read_live_rows(task, d.DesiredState())
    assert row[0] == rows.ERROR and "missing.json" in str(row[3])
    outcome = planning.plan_joined("gone", planning.hash_join(rows.desired_rows(d.DesiredState()), [row]))
    assert outcome.status == planning.STATUS_UNREADABLE and outcome.plan_json is None
    assert "cannot read snapshot" in str(outcome.reason)


def test_drift_names_the_differing_attributes_of_changed_resources() -> None:
    wanted = d.DesiredState(
        topics={"orders": d.DesiredTopic("orders", 3, 1, {"retention.ms": "86400000", "cleanup.policy": "delete"})}
    )
    live = s.ClusterState(
        cluster_id="c",
        controller_id=1,
        brokers=(s.Broker(1, "b1", 9092),),
        topics={"orders": s.TopicState("orders", ((1,), (1,), (1,)), configs={"retention.ms": "1", "segment.ms": "5"})},
    )
    outcome = planning.plan_joined("c", planning.hash_join(rows.desired_rows(wanted), rows.live_rows(live)))
    (drift,) = outcome.drift
    assert (drift.kind, drift.name, drift.action) == ("topic", "orders", "update")
    assert drift.names == ("configs.cleanup.policy", "configs.retention.ms", "configs.segment.ms")
    assert drift.attributes == 3
    assert outcome.digest is not None and outcome.digest.counts["update"] == 1 and outcome.digest.has_changes
    assert outcome.digest.checksum == json.loads(str(outcome.plan_json))["checksum"]

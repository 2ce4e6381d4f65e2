"""Group configs and client-metrics subscriptions, planned on plain data: desired + live -> expected changes.

Also: a plan file's values for these kinds are checked at decode as strictly as the manifest fields they came
from, the saved plan re-serialises byte for byte, and a cluster too old for the kinds blocks them, one warning per
kind, while the rest of the plan goes on.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from reconciler import manifests
from reconciler.adopt import from_live
from reconciler.apply import decoded
from reconciler.fleet import rows as fleet_rows
from reconciler.model import desired, payloads, plans, state
from reconciler.model.kinds import Kind
from reconciler.planner import plan
from reconciler.planner import scope as planner_scope
from reconciler.snapshot import files
from tests.support.builders import attrs, cluster, only, rows, topic
from tests.support.fuzzing import reseal

GROUP = {"consumer.session.timeout.ms": "50000", "share.auto.offset.reset": "earliest"}
SUBSCRIPTION = {"metrics": "org.apache.kafka.producer.", "interval.ms": "60000", "match": "client_id=app-.*"}
KAFKA_44 = {"Metadata": 13, "DescribeConfigs": 4, "IncrementalAlterConfigs": 1, "ListConfigResources": 1}


def wanted(
    *,
    groups: dict[str, dict[str, str]] | None = None,
    subscriptions: dict[str, dict[str, str]] | None = None,
    own_groups: tuple[str, ...] = (),
    own_subscriptions: tuple[str, ...] = (),
    delete: tuple[Kind, ...] = (),
    topics: tuple[desired.DesiredTopic, ...] = (),
) -> desired.DesiredState:
    return desired.DesiredState(
        topics={t.name: t for t in topics},
        group_configs={n: desired.DesiredEntityConfig(n, c) for n, c in (groups or {}).items()},
        client_metrics={n: desired.DesiredEntityConfig(n, c) for n, c in (subscriptions or {}).items()},
        ownership=desired.Ownership(
            groups=tuple(desired.NamePattern("prefix", p) for p in own_groups),
            client_metrics=tuple(desired.NamePattern("prefix", p) for p in own_subscriptions),
            delete=dict.fromkeys(delete, True),
        ),
    )


def live(
    groups: dict[str, dict[str, str | None]] | None = None,
    subscriptions: dict[str, dict[str, str | None]] | None = None,
    *,
    caps: dict[str, int] | None = None,
) -> state.ClusterState:
    return dataclasses.replace(
        cluster(),
        group_configs={} if groups is None else groups,
        client_metrics={} if subscriptions is None else subscriptions,
        capabilities=KAFKA_44 if caps is None else caps,
    )


@pytest.mark.parametrize(
    ("desired_state", "live_state", "expected"),
    [
        pytest.param(
            wanted(groups={"orders": GROUP}),
            live(),
            [("+", "GROUP_CONFIG", "group_config/orders")],
            id="a-group-config-is-set-before-the-group-exists",
        ),
        pytest.param(wanted(groups={"orders": GROUP}), live({"orders": dict(GROUP)}), [], id="in-sync-group"),
        pytest.param(
            wanted(groups={"orders": GROUP}),
            live({"orders": {**GROUP, "consumer.session.timeout.ms": "45000"}}),
            [("~", "GROUP_CONFIG", "group_config/orders")],
            id="drifted-group",
        ),
        pytest.param(
            wanted(subscriptions={"producers": SUBSCRIPTION}),
            live(),
            [("+", "CLIENT_METRICS", "client_metrics/producers")],
            id="new-subscription",
        ),
        pytest.param(
            wanted(subscriptions={"producers": SUBSCRIPTION}),
            live(subscriptions={"producers": {**SUBSCRIPTION, "metrics": "org.apache.kafka.producer. "}}),
            [],
            id="a-list-written-with-spaces-is-the-same-list",
        ),
        pytest.param(
            wanted(own_groups=("orders",), own_subscriptions=("p",)),
            live({"orders-old": {"consumer.heartbeat.interval.ms": "6000"}}, {"p-old": {"metrics": "*"}}),
            [],
            id="owned-undeclared-kept-while-deletes-are-off",
        ),
        pytest.param(
            wanted(own_groups=("orders",), delete=(Kind.GROUP_CONFIG, Kind.CLIENT_METRICS)),
            live(
                {
                    "orders-old": {"consumer.heartbeat.interval.ms": "6000"},
                    "billing": {"share.delivery.count.limit": "3"},
                },
                {"p-old": {"metrics": "*"}},
            ),
            [("-", "GROUP_CONFIG", "group_config/orders-old")],
            id="only-owned-entities-are-deleted",
        ),
    ],
)
def test_plan(desired_state: desired.DesiredState, live_state: state.ClusterState, expected: list[Any]) -> None:
    assert rows(plan(desired_state, live_state)) == expected


def test_an_undeclared_key_of_a_declared_group_is_reset_only_when_deletes_are_on() -> None:
    have = live({"orders": {**GROUP, "consumer.heartbeat.interval.ms": "6000"}})
    kept = plan(wanted(groups={"orders": GROUP}), have)
    assert kept.changes == ()
    assert [u.address for u in kept.unmanaged] == ["group_config/orders"]
    assert "consumer.heartbeat.interval.ms" in kept.unmanaged[0].reason
    reset = only(plan(wanted(groups={"orders": GROUP}, delete=(Kind.GROUP_CONFIG,)), have), "group_config/orders")
    assert attrs(reset) == {"configs.consumer.heartbeat.interval.ms": ("6000", None)}
    assert reset.after is not None and isinstance(reset.after, payloads.EntityConfigPayload)
    assert reset.after.config_ops == (payloads.ConfigOp.delete("consumer.heartbeat.interval.ms"),)


def test_a_subscription_is_declared_whole_and_a_setting_it_leaves_out_is_reset() -> None:
    declared = {"metrics": "*"}
    result = plan(
        wanted(subscriptions={"all": declared}), live(subscriptions={"all": {"metrics": "*", "interval.ms": "1000"}})
    )
    change = only(result, "client_metrics/all")
    assert attrs(change) == {"configs.interval.ms": ("1000", None)}
    assert change.attributes[0].default == "300000"
    # a setting at Kafka's default is no change
    same = plan(wanted(subscriptions={"all": declared}), live(subscriptions={"all": {"metrics": "*", "match": ""}}))
    assert same.changes == ()


def test_a_deleted_subscription_removes_every_setting_and_counts_against_the_delete_limit() -> None:
    subs: dict[str, dict[str, str | None]] = {f"p-{i:02d}": {"metrics": "*"} for i in range(12)}
    result = plan(wanted(own_subscriptions=("p-",), delete=(Kind.CLIENT_METRICS,)), live(subscriptions=subs))
    deletes = [c for c in result.changes if c.kind is Kind.CLIENT_METRICS]
    assert len(deletes) == 12
    (refusal,) = [w for w in result.warnings if w.code == "too-many-deletes"]
    assert "deletes 12 resources (Client-metrics subscriptions: 12), more than the limit of 10" in refusal.message
    small = plan(wanted(own_subscriptions=("p-0",), delete=(Kind.CLIENT_METRICS,)), live(subscriptions=subs))
    change = only(small, "client_metrics/p-00")
    assert change.action is plans.Action.DELETE
    assert decoded.operation(change).request == decoded.AlterConfigs(
        "CLIENT_METRICS", (payloads.ConfigOp.delete("metrics"),)
    )


def test_a_cluster_too_old_for_the_kinds_blocks_them_once_each_and_plans_the_rest() -> None:
    old = dataclasses.replace(
        cluster(), group_configs=None, client_metrics=None, capabilities={"Metadata": 9, "DescribeConfigs": 2,
        "IncrementalAlterConfigs": 1, "CreateTopics": 5, "DeleteTopics": 4, "CreatePartitions": 2},
    )  # fmt: skip
    result = plan(
        wanted(groups={"orders": GROUP}, subscriptions={"producers": SUBSCRIPTION}, topics=(topic("orders"),)), old
    )
    assert rows(result) == [
        ("+", "TOPIC_CREATE", "topic/orders"),
        ("!", "GROUP_CONFIG", "group_config/orders"),
        ("!", "CLIENT_METRICS", "client_metrics/producers"),
    ]
    warnings = [w.message for w in result.warnings if w.code == "kind-unsupported"]
    assert warnings == [
        "client-metrics subscriptions: not supported by this cluster (version): it lacks ListConfigResources "
        "(Kafka 4.0+); 1 declared resource(s) blocked",
        "group configs: not supported by this cluster (version): it lacks ListConfigResources v1 (Kafka 4.1+); "
        "1 declared resource(s) blocked",
    ]


def _saved(result: plans.Plan) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(result.to_json())
    return doc


def test_a_saved_plan_reloads_typed_and_byte_for_byte() -> None:
    result = plan(wanted(groups={"orders": GROUP}, subscriptions={"producers": SUBSCRIPTION}), live())
    text = result.to_json()
    again = plans.Plan.from_json_dict(json.loads(text))
    assert again.to_json() == text
    assert {type(c.after) for c in again.changes} == {payloads.EntityConfigPayload}


@pytest.mark.parametrize(
    ("op", "problem"),
    [
        ({"key": "consumer.session.timeout.ms", "op": "set", "value": "soon"}, "not valid"),
        ({"key": "consumer.session.timeout.ms", "op": "set", "value": "50s"}, "not in Kafka's form"),
        ({"key": "share.delivery.count.limit", "op": "set", "value": "99"}, "above the maximum 10"),
        ({"key": "consumer.sesion.timeout.ms", "op": "set", "value": "50000"}, "not a group or client-metrics config"),
    ],
)
def test_a_hand_edited_value_is_refused_at_decode_naming_the_change(op: dict[str, Any], problem: str) -> None:
    result = plan(wanted(groups={"orders": GROUP}), live())
    doc = _saved(result)
    doc["changes"][0]["after"]["config_ops"] = [op]
    change = plans.Plan.from_json_dict(reseal(doc)).changes[0]
    assert isinstance(change.after, payloads.Unreadable)
    assert problem in change.after.problem
    found = decoded.operation(change)
    assert found.problem is not None and found.problem.startswith("group_config/orders: ")


def test_snapshot_round_trip_keeps_both_sections() -> None:
    before = live({"orders": dict(GROUP)}, {"producers": dict(SUBSCRIPTION)})
    again = files.from_json_dict(json.loads(json.dumps(files.to_json_dict(before))))
    assert again.group_configs == before.group_configs
    assert again.client_metrics == before.client_metrics
    unread = files.from_json_dict(files.to_json_dict(dataclasses.replace(before, group_configs=None)))
    assert unread.group_configs is None


def test_a_saved_plan_with_owned_entities_loads_and_names_them_in_its_scope(tmp_path: Path) -> None:
    result = plan(wanted(groups={"orders": GROUP}, own_groups=("orders",), own_subscriptions=("p-",)), live())
    path = tmp_path / "plan.json"
    result.save(path)
    loaded = plans.Plan.load(path)
    assert loaded.scope is not None
    assert loaded.scope["entities"] == {"client_metrics": [["prefix", "p-"]], "group_config": [["prefix", "orders"]]}
    assert loaded.to_json() == result.to_json()


def _varied_entities() -> state.ClusterState:
    return live(
        {"orders": {"consumer.session.timeout.ms": "50000", "share.isolation.level": "read_committed"},
         "billing": {"streams.rack.aware.assignment.tags": "zone,rack"}},
        {"producers": dict(SUBSCRIPTION), "all": {"metrics": "*", "interval.ms": "1000", "match": ""},
         "odd": {"metrics": "*", "match": "client_colour=blue"}},
    )  # fmt: skip


def test_import_writes_both_kinds_and_the_plan_of_the_import_is_empty(tmp_path: Path) -> None:
    live_state = _varied_entities()
    report = from_live.adopt_cluster(live_state, out_dir=tmp_path / "out", force=False)
    loaded = manifests.load([tmp_path / "out"], env={})
    assert loaded.diagnostics == []
    assert "consumer.session.timeout.ms: 50s" in (tmp_path / "out" / "groups.yaml").read_text()
    result = plan(loaded.desired, live_state)
    assert [c.address for c in result.actionable] == []
    assert [u.address for u in result.unmanaged] == []
    # the selector Kafka does not know cannot be written: left out with a note, and the rest imported
    assert [(n.resource, n.message) for n in report.notes if n.resource.startswith("client_metrics/")] == [
        ("client_metrics/odd", "left out: match entry 'client_colour=blue' is not selector=pattern with a selector "
         "Kafka knows"),
    ]  # fmt: skip
    assert set(loaded.desired.client_metrics) == {"producers", "all"}
    assert loaded.desired.ownership.owns_entity(Kind.GROUP_CONFIG, "billing")


def test_fleet_rows_carry_both_kinds_there_and_back() -> None:
    live_state = _varied_entities()
    again = fleet_rows.rebuild_live(fleet_rows.live_rows(live_state))
    assert again.group_configs == live_state.group_configs
    assert again.client_metrics == live_state.client_metrics
    want = wanted(groups={"orders": GROUP}, subscriptions={"producers": SUBSCRIPTION}, own_groups=("o",))
    back = fleet_rows.rebuild_desired(fleet_rows.desired_rows(want))
    assert plan(back, live_state).to_json() == plan(want, live_state).to_json()


def test_a_saved_plan_goes_stale_when_an_owned_entity_changes_and_not_for_others() -> None:
    want = wanted(groups={"orders": GROUP}, own_subscriptions=("p-",))
    before = live({"orders": dict(GROUP)}, {"p-1": {"metrics": "*"}, "other": {"metrics": "*"}})
    scope_doc = plan(want, before).scope
    assert scope_doc is not None
    unrelated = dataclasses.replace(before, client_metrics={"p-1": {"metrics": "*"}, "other": {"metrics": "x."}})
    assert planner_scope.changed(unrelated, scope_doc) == []
    owned = dataclasses.replace(before, client_metrics={"p-1": {"metrics": "x."}, "other": {"metrics": "*"}})
    assert planner_scope.changed(owned, scope_doc) == ["Client-metrics subscriptions: changed in scope"]
    declared = dataclasses.replace(before, group_configs={})
    assert planner_scope.changed(declared, scope_doc) == ["Group configs: 1 -> 0 in scope"]

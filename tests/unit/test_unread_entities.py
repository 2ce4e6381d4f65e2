"""Group configs the principal may not describe: recorded as unread, never mistaken for groups with nothing set.

A whole-cluster snapshot or import by a principal without DESCRIBE_CONFIGS on some group still gets everything
else; the group is kept in ``unread_entities`` with the refusal and the grant to ask for. A plan (live, offline from
the snapshot, or in a fleet) blocks a declared or owned unread group instead of proposing to set or delete its
configs, with one error-level warning naming the groups; import leaves it out and says so; a saved plan touching it
is refused at apply; a snapshot diff does not report it as removed.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from reconciler.adopt import from_live
from reconciler.apply import preflight, readback
from reconciler.base import errors
from reconciler.fleet import rows as fleet_rows
from reconciler.kafka import config_results
from reconciler.kafka import entities as kafka_entities
from reconciler.kafka import read as kafka_read
from reconciler.kafka.results import RequestFailed
from reconciler.model import desired, state
from reconciler.model.kinds import Kind
from reconciler.planner import plan
from reconciler.render.text import render_text
from reconciler.snapshot import diff as snapshot_diff
from reconciler.snapshot import files
from tests.support.builders import cluster, rows

GRANT = "grant DESCRIBE_CONFIGS on GROUP {name} to User:carol"
KAFKA_44 = {"Metadata": 13, "DescribeConfigs": 4, "IncrementalAlterConfigs": 1, "ListConfigResources": 1}


def why(name: str) -> str:
    return f"cannot describe the configs of group {name}: GROUP_AUTHORIZATION_FAILED; {GRANT.format(name=name)}"


def snapshot_state() -> state.ClusterState:
    """A whole-cluster read: ``app-ok`` readable, ``app-hidden``, ``app-stray`` and ``team-x`` refused."""
    return dataclasses.replace(
        cluster(),
        group_configs={"app-ok": {"consumer.session.timeout.ms": "45000"}},
        client_metrics={},
        capabilities=KAFKA_44,
        unread_entities={"group_config": {n: why(n) for n in ("app-hidden", "app-stray", "team-x")}},
    )


def wanted(*, delete: bool = True) -> desired.DesiredState:
    declared = {
        "app-ok": {"consumer.session.timeout.ms": "50000"},
        "app-hidden": {"consumer.session.timeout.ms": "50000"},
    }
    return desired.DesiredState(
        group_configs={n: desired.DesiredEntityConfig(n, c) for n, c in declared.items()},
        ownership=desired.Ownership(
            groups=(desired.NamePattern("prefix", "app-"),),
            delete={Kind.GROUP_CONFIG: True} if delete else {},
        ),
    )


def test_a_plan_blocks_declared_and_owned_unread_groups_and_plans_the_readable_one() -> None:
    result = plan(wanted(), snapshot_state())
    # the readable group is planned; the declared and the owned unread ones are blocked, never "+" or "-"; a group
    # neither declared nor owned (team-x) is not looked at
    assert sorted(rows(result)) == [
        ("!", "GROUP_CONFIG", "group_config/app-hidden"),
        ("!", "GROUP_CONFIG", "group_config/app-stray"),
        ("~", "GROUP_CONFIG", "group_config/app-ok"),
    ]
    blocked = {c.address: c.reasons for c in result.changes if c.action.value == "blocked"}
    assert GRANT.format(name="app-hidden") in blocked["group_config/app-hidden"][0]
    errors_found = [w for w in result.warnings if w.severity == "error"]
    assert [w.code for w in errors_found] == ["group_config-unreadable"]
    assert errors_found[0].message.startswith(
        "group configs not planned, their configs could not be read: 2 group(s): app-hidden, app-stray ("
    )
    assert GRANT.format(name="app-hidden") in errors_found[0].message
    text = render_text(result)
    assert "! group_config/app-hidden" in text and "app-stray" in text


def test_without_deletes_an_owned_unread_group_is_still_blocked_not_listed_as_unmanaged() -> None:
    result = plan(wanted(delete=False), snapshot_state())
    assert ("!", "GROUP_CONFIG", "group_config/app-stray") in rows(result)
    assert [u.address for u in result.unmanaged] == []


def test_the_snapshot_file_and_fleet_rows_keep_what_was_not_read(tmp_path: Path) -> None:
    before = snapshot_state()
    path = tmp_path / "snap.json"
    files.write_snapshot(before, path)
    again = files.read_snapshot(path)
    assert again.unread_entities == before.unread_entities
    assert again.group_configs == before.group_configs
    assert fleet_rows.rebuild_live(fleet_rows.live_rows(before)).unread_entities == before.unread_entities
    # an offline plan from the file is the plan from the live read
    assert plan(wanted(), again).to_json() == plan(wanted(), before).to_json()
    # a snapshot of a cluster where everything was read has no such section
    clean = dataclasses.replace(before, unread_entities={})
    assert "unread_entities" not in files.to_json_dict(clean)
    bad = {**files.to_json_dict(before), "unread_entities": {"group_config": {"x": 3}}}
    with pytest.raises(errors.SnapshotError, match="malformed snapshot"):
        files.from_json_dict(json.loads(json.dumps(bad)))


def test_import_writes_the_readable_groups_and_names_the_ones_it_skipped(tmp_path: Path) -> None:
    report = from_live.adopt_cluster(snapshot_state(), out_dir=tmp_path / "out", force=False)
    groups = (tmp_path / "out" / "groups.yaml").read_text()
    assert "name: app-ok" in groups and "app-hidden" not in groups
    ownership = (tmp_path / "out" / "ownership.yaml").read_text()
    assert "app-hidden" not in ownership and "app-stray" not in ownership  # not owned, so never deleted
    notes = {n.resource: n.message for n in report.notes if n.resource.startswith("group_config/")}
    assert sorted(notes) == ["group_config/app-hidden", "group_config/app-stray", "group_config/team-x"]
    assert notes["group_config/app-hidden"] == f"not imported, its configs could not be read: {why('app-hidden')}"


def test_import_names_many_skipped_groups_in_one_note(tmp_path: Path) -> None:
    many = {f"team-{i:02}": why(f"team-{i:02}") for i in range(30)}
    live = dataclasses.replace(snapshot_state(), unread_entities={"group_config": many})
    report = from_live.adopt_cluster(live, out_dir=tmp_path / "out", force=False)
    notes = [(n.resource, n.message) for n in report.notes if "could not be read" in n.message]
    assert notes == [
        (
            "group configs",
            "not imported, their configs could not be read: 30 group(s): "
            + ", ".join(f"team-{i:02}" for i in range(20))
            + f" and 10 more ({why('team-00')})",
        )
    ]


def test_apply_refuses_a_saved_plan_for_a_group_it_can_no_longer_read() -> None:
    readable = dataclasses.replace(snapshot_state(), unread_entities={})
    saved = plan(wanted(), readable)
    assert ("~", "GROUP_CONFIG", "group_config/app-ok") in rows(saved)
    now = dataclasses.replace(readable, group_configs={}, unread_entities={"group_config": {"app-ok": why("app-ok")}})
    with pytest.raises(errors.StalePlan, match=r"cannot verify that the plan is current: .*GROUP app-ok"):
        preflight.check_fresh(saved.actionable, now)


def test_a_snapshot_diff_does_not_report_an_unread_group_as_removed() -> None:
    before = dataclasses.replace(snapshot_state(), unread_entities={}, group_configs={"app-ok": {"a": "1"}, "b": {}})
    after = dataclasses.replace(
        before, group_configs={"b": {}}, unread_entities={"group_config": {"app-ok": why("app-ok")}}
    )
    diff = snapshot_diff.compare(before, after)
    assert diff.addresses == []
    assert "group_config/app-ok (configs not read)" in diff.not_compared


def _result(code: int, name: str = "app-hidden") -> SimpleNamespace:
    return SimpleNamespace(
        resource_type=32, resource_name=name, error_code=code, error_message=None, configs=[], synonyms=[]
    )


def test_a_refused_describe_is_recorded_when_asked_and_any_other_error_still_fails() -> None:
    sections: dict[Kind, dict[str, dict[str, str | None]]] = {}
    unread: dict[Kind, dict[str, RequestFailed]] = {}
    kafka_entities.file_result(_result(30), sections, wire=None, unread=unread)  # GROUP_AUTHORIZATION_FAILED
    assert sections == {} and list(unread) == [Kind.GROUP_CONFIG]
    assert "cannot describe the configs of group app-hidden: GROUP_AUTHORIZATION_FAILED" in str(
        unread[Kind.GROUP_CONFIG]["app-hidden"]
    )
    with pytest.raises(RequestFailed, match="GROUP_AUTHORIZATION_FAILED"):
        kafka_entities.file_result(_result(30), sections, wire=None)  # a caller that does not record them
    with pytest.raises(RequestFailed, match="UNKNOWN_SERVER_ERROR"):
        kafka_entities.file_result(_result(-1), sections, wire=None, unread=unread)


def test_a_read_of_named_groups_raises_the_refusal_and_a_whole_read_records_it() -> None:
    configs = config_results.Configs()
    unread: dict[Kind, dict[str, RequestFailed]] = {}
    kafka_entities.file_result(_result(30), configs.entities, wire=None, unread=unread)
    configs.unread_entities = unread
    whole = kafka_read._entity_sections(configs, frozenset({Kind.GROUP_CONFIG}), state.ReadScope())
    assert whole["group_configs"] == {} and whole["client_metrics"] is None
    assert list(whole["unread_entities"]["group_config"]) == ["app-hidden"]
    # apply's read-back and stale-plan check name the groups they read: the missing right is their answer
    named = state.ReadScope(group_configs=frozenset({"app-hidden"}))
    with pytest.raises(RequestFailed, match="GROUP_AUTHORIZATION_FAILED") as refused:
        kafka_read._entity_sections(configs, frozenset({Kind.GROUP_CONFIG}), named)
    assert str(readback.missing_right(refused.value)).startswith("grant DESCRIBE_CONFIGS on GROUP app-hidden to ")

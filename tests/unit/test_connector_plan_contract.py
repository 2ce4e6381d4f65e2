"""A connector change shows what apply sends: its attribute lines are derived from its ``before``/``after``, so a
saved plan whose connector data was edited and resealed is refused on load (or, with its lines edited to match,
shows the edited values), never shown one way and applied another. Plain plan JSON in, pure."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from reconciler.base import errors
from reconciler.model import desired as d
from reconciler.model import payloads, plans, shown
from reconciler.model import state as s
from reconciler.model.kinds import Kind
from reconciler.planner import plan
from tests.support.fuzzing import reseal

SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
OLD = {"connector.class": SINK, "tasks.max": "1", "topics": "orders", "file": "old.txt"}


def _plan_doc(wanted: d.DesiredConnector, have: s.ConnectorState | None) -> dict[str, Any]:
    connectors = {} if have is None else {have.name: have}
    live = s.ClusterState(
        cluster_id="c",
        controller_id=1,
        brokers=(),
        connect=s.ConnectState(url="http://c:8083", connectors=connectors, plugins=(SINK,)),
    )
    p = plan(d.DesiredState(connectors={wanted.name: wanted}), live)
    doc: dict[str, Any] = json.loads(p.to_json())
    return doc


def _connector(doc: dict[str, Any]) -> dict[str, Any]:
    [change] = [c for c in doc["changes"] if c["kind"] == "connector"]
    found: dict[str, Any] = change
    return found


def _saved(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(reseal(doc), indent=2) + "\n", encoding="utf-8")
    return path


def _lines(p: plans.Plan) -> list[tuple[str, Any, Any]]:
    [change] = [c for c in p.changes if c.kind.value == "connector"]
    return [(a.name, a.before, a.after) for a in change.attributes]


def _update_doc() -> dict[str, Any]:
    return _plan_doc(d.DesiredConnector("sink", {**OLD, "file": "new.txt"}), s.ConnectorState("sink", OLD, "RUNNING"))


def test_the_planned_connector_update_loads_and_shows_the_file_it_changes(tmp_path: Path) -> None:
    loaded = plans.Plan.load(_saved(tmp_path, _update_doc()))
    assert _lines(loaded) == [("config.file", "old.txt", "new.txt")]


def test_an_edited_and_resealed_connector_config_is_refused_on_load(tmp_path: Path) -> None:
    doc = _update_doc()
    _connector(doc)["after"]["config"].update({"file": "evil.txt", "topics": "other"})
    with pytest.raises(errors.PlanFileError) as refused:
        plans.Plan.load(_saved(tmp_path, doc))
    assert "connector/sink" in str(refused.value)


def test_an_edited_connector_whose_lines_were_dropped_shows_what_its_data_writes(tmp_path: Path) -> None:
    doc = _update_doc()
    change = _connector(doc)
    change["after"]["config"].update({"file": "evil.txt", "topics": "other"})
    change["attributes"] = []
    loaded = plans.Plan.load(_saved(tmp_path, doc))
    assert _lines(loaded) == [("config.file", "old.txt", "evil.txt"), ("config.topics", "orders", "other")]


def test_an_edited_connector_state_is_shown_or_refused(tmp_path: Path) -> None:
    doc = _update_doc()
    _connector(doc)["after"]["state"] = "stopped"
    with pytest.raises(errors.PlanFileError):
        plans.Plan.load(_saved(tmp_path, copy.deepcopy(doc)))
    _connector(doc)["attributes"] = []
    assert ("state", "running", "stopped") in _lines(plans.Plan.load(_saved(tmp_path, doc)))


def test_a_created_connector_shows_every_key_it_sends_and_an_added_key_is_refused(tmp_path: Path) -> None:
    doc = _plan_doc(d.DesiredConnector("sink", OLD), None)
    assert _lines(plans.Plan.load(_saved(tmp_path, copy.deepcopy(doc)))) == [
        ("config.connector.class", None, SINK),
        ("config.file", None, "old.txt"),
        ("config.tasks.max", None, "1"),
        ("config.topics", None, "orders"),
        ("state", None, "running"),
    ]
    _connector(doc)["after"]["config"]["transforms"] = "x"
    with pytest.raises(errors.PlanFileError):
        plans.Plan.load(_saved(tmp_path, doc))


def test_a_deleted_connector_shows_no_lines_and_one_added_is_refused(tmp_path: Path) -> None:
    live = s.ClusterState(
        cluster_id="c",
        controller_id=1,
        brokers=(),
        connect=s.ConnectState(
            url="http://c:8083", connectors={"gone": s.ConnectorState("gone", OLD, "RUNNING")}, plugins=(SINK,)
        ),
    )
    rules = d.Ownership(connectors=(d.NamePattern("prefix", ""),), delete={Kind.CONNECTOR: True})
    doc: dict[str, Any] = json.loads(plan(d.DesiredState(ownership=rules), live).to_json())
    assert _connector(doc)["action"] == "delete" and _connector(doc)["attributes"] == []
    _connector(doc)["attributes"] = [{"name": "config.file", "before": "old.txt", "after": "kept.txt"}]
    with pytest.raises(errors.PlanFileError):
        plans.Plan.load(_saved(tmp_path, doc))


def test_a_secret_the_live_connector_does_not_hold_as_one_is_always_shown() -> None:
    before = payloads.ConnectorPayload({**OLD, "password": "plain"}, "running")
    after = payloads.ConnectorPayload(OLD, "running", {"password": "env:PW"})
    assert shown.connector_attributes(before, after) == (
        shown.AttributeChange("config.password", shown.REDACTED, shown.REDACTED, sensitive=True),
    )
    hidden = payloads.ConnectorPayload(OLD, "running", {"password": shown.REDACTED})
    assert shown.connector_attributes(hidden, after) == ()
    assert [a.name for a in shown.connector_attributes(hidden, after, secrets_changed={"password"})] == [
        "config.password"
    ]

"""Connectors, pure: desired + live -> the expected changes; payloads checked at decode; secrets never kept.

Table-driven planner cases (plain ``DesiredConnector`` and ``ConnectState`` data in, changes out), the manifest
rules of a Connector document, the plan payload's decode checks and the digests that stand in for secrets.
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
import threading
import time
from pathlib import Path

import pytest

from reconciler import manifests
from reconciler.apply import decoded
from reconciler.base import errors
from reconciler.connect import port as connect_port
from reconciler.connect import secrets
from reconciler.kinds.connector import writes as connector_writes
from reconciler.model import desired as d
from reconciler.model import payloads, plans
from reconciler.model import state as s
from reconciler.model.kinds import Kind
from reconciler.planner import plan
from reconciler.render import render_json

SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
CFG = {"connector.class": SINK, "tasks.max": "1", "topics": "orders", "file": "/data/o.txt"}
RUNNING = (s.ConnectorTask(0, "RUNNING"),)


def live(*connectors: s.ConnectorState, **kw: object) -> s.ClusterState:
    state = s.ConnectState(url="http://c:8083", connectors={c.name: c for c in connectors}, plugins=(SINK,), **kw)  # type: ignore[arg-type]
    return s.ClusterState(cluster_id="c", controller_id=1, brokers=(), connect=state)


def want(*connectors: d.DesiredConnector, ownership: d.Ownership | None = None) -> d.DesiredState:
    return d.DesiredState(connectors={c.name: c for c in connectors}, ownership=ownership or d.Ownership())


def changes(p: plans.Plan) -> list[tuple[str, plans.Action, tuple[str, ...]]]:
    return [(c.name, c.action, tuple(a.name for a in c.attributes)) for c in p.changes]


CASES = [
    ("missing: created", want(d.DesiredConnector("a", CFG)), live(), [("a", "create")]),
    (
        "same: unchanged, nothing sent",
        want(d.DesiredConnector("a", CFG)),
        live(s.ConnectorState("a", CFG, "RUNNING", RUNNING)),
        [],
    ),
    (
        "config differs",
        want(d.DesiredConnector("a", {**CFG, "batch.size": "5"})),
        live(s.ConnectorState("a", CFG, "RUNNING", RUNNING)),
        [("a", "update", ("config.batch.size",))],
    ),
    (
        "live key not declared is removed",
        want(d.DesiredConnector("a", CFG)),
        live(s.ConnectorState("a", {**CFG, "extra": "1"}, "RUNNING", RUNNING)),
        [("a", "update", ("config.extra",))],
    ),
    (
        "state differs",
        want(d.DesiredConnector("a", CFG, "stopped")),
        live(s.ConnectorState("a", CFG, "RUNNING", RUNNING)),
        [("a", "update", ("state",))],
    ),
    (
        "a FAILED connector declared running is restarted",
        want(d.DesiredConnector("a", CFG)),
        live(s.ConnectorState("a", CFG, "FAILED", ())),
        [("a", "update", ("restart",))],
    ),
    (
        "a FAILED task of a connector declared running is restarted",
        want(d.DesiredConnector("a", CFG)),
        live(s.ConnectorState("a", CFG, "RUNNING", (s.ConnectorTask(0, "RUNNING"), s.ConnectorTask(1, "FAILED")))),
        [("a", "update", ("restart",))],
    ),
    (
        "a FAILED task of a connector declared paused is not restarted",
        want(d.DesiredConnector("a", CFG, "paused")),
        live(s.ConnectorState("a", CFG, "PAUSED", (s.ConnectorTask(0, "FAILED"),))),
        [],
    ),
    (
        "tasks.max left out is Connect's 1: no change",
        want(d.DesiredConnector("a", CFG)),
        live(s.ConnectorState("a", {k: v for k, v in CFG.items() if k != "tasks.max"}, "RUNNING", RUNNING)),
        [],
    ),
    (
        "tasks.max left out differs from a declared 2",
        want(d.DesiredConnector("a", {**CFG, "tasks.max": "2"})),
        live(s.ConnectorState("a", {k: v for k, v in CFG.items() if k != "tasks.max"}, "RUNNING", RUNNING)),
        [("a", "update", ("config.tasks.max",))],
    ),
]


@pytest.mark.parametrize(("title", "wanted", "have", "expected"), CASES, ids=[c[0] for c in CASES])
def test_planner_cases(
    title: str, wanted: d.DesiredState, have: s.ClusterState, expected: list[tuple[str, ...]]
) -> None:
    p = plan(wanted, have)
    got = [
        (n, a.value, *((attrs,) if len(e) > 2 else ())) for (n, a, attrs), e in zip(changes(p), expected, strict=False)
    ]
    assert len(p.changes) == len(expected)
    assert got == [tuple(e) for e in expected]
    assert all(c.phase is plans.Phase.CONNECTOR for c in p.changes)
    if not expected:
        assert p.unchanged.get(Kind.CONNECTOR) == 1


def test_undeclared_connectors_are_deleted_only_where_ownership_says_and_count_as_deletes() -> None:
    have = live(s.ConnectorState("team-x", CFG, "RUNNING", RUNNING), s.ConnectorState("other", CFG, "RUNNING", RUNNING))
    rules = (d.NamePattern("prefix", "team-"),)
    kept = plan(want(ownership=d.Ownership(connectors=rules)), have)
    assert not kept.changes and [u.name for u in kept.unmanaged] == ["team-x"]
    gone = plan(want(ownership=d.Ownership(connectors=rules, delete={Kind.CONNECTOR: True})), have)
    assert changes(gone) == [("team-x", plans.Action.DELETE, ())]
    assert gone.changes[0].phase is plans.Phase.CONNECTOR_DELETE
    capped = plan(want(ownership=d.Ownership(connectors=rules, delete={Kind.CONNECTOR: True}, max_deletes=0)), have)
    assert [w.code for w in capped.warnings if w.severity == "error"] == ["too-many-deletes"]


def test_a_create_with_a_declared_reset_names_the_offsets_it_deletes_and_what_is_read_again() -> None:
    source = {"connector.class": "FileStreamSource", "topic": "lines", "file": "/in.txt"}
    sink = {**CFG, "consumer.override.auto.offset.reset": "latest"}
    wanted = want(
        d.DesiredConnector("src", source, reset_offsets=True),
        d.DesiredConnector("snk", sink, reset_offsets=True),
        d.DesiredConnector("kept", CFG),
    )
    p = plan(wanted, live())
    reasons = {c.name: c.reasons for c in p.changes}
    [src] = [r for r in reasons["src"] if r.startswith("resetOffsetsOnCreate")]
    assert "the source offsets Connect kept under the name src are deleted" in src
    assert "reads its input again from the start" in src and "not known before the apply" in src
    [snk] = [r for r in reasons["snk"] if r.startswith("resetOffsetsOnCreate")]
    assert "the offsets consumer group connect-snk committed are deleted" in snk
    assert "auto.offset.reset=latest" in snk
    assert not any(r.startswith("resetOffsetsOnCreate") for r in reasons["kept"])
    assert any("resumes from them" in r for r in reasons["kept"])


def test_a_secret_is_compared_by_digest_and_shown_only_as_changed() -> None:
    ref = {"db.password": d.SecretRef(env="DB_PW")}
    held = {**CFG, "db.password": secrets.digest("a", "db.password", "old")}
    same = live(
        s.ConnectorState("a", held, "RUNNING", RUNNING), secret_digests={"a": {"db.password": held["db.password"]}}
    )
    assert not plan(want(d.DesiredConnector("a", CFG, secrets=ref)), same).changes
    new = {"a": {"db.password": secrets.digest("a", "db.password", "new")}}
    p = plan(
        want(d.DesiredConnector("a", CFG, secrets=ref)),
        live(s.ConnectorState("a", held, "RUNNING", RUNNING), secret_digests=new),
    )
    [attr] = p.changes[0].attributes
    assert attr.sensitive and attr.before == attr.after == plans.REDACTED
    assert "old" not in p.to_json() and "new" not in p.to_json().replace('"news', "")


def test_validate_errors_block_only_their_connector_at_the_key_line_and_unknown_classes_suggest() -> None:
    at = d.Source("m.yaml", 12, 5)
    bad = d.DesiredConnector("bad", {**CFG, "errors.tolerance": "x"}, positions={"errors.tolerance": at})
    typo = d.DesiredConnector(
        "typo", {**CFG, "connector.class": "FileStreamSinkConector"}, source=d.Source("m.yaml", 30, 1)
    )
    good = d.DesiredConnector("good", CFG)
    have = live(validation={"bad": (("errors.tolerance", "Invalid value x"),)})
    p = plan(want(bad, typo, good), have)
    assert {c.name: c.action for c in p.changes} == {
        "bad": plans.Action.BLOCKED,
        "typo": plans.Action.BLOCKED,
        "good": plans.Action.CREATE,
    }
    messages = {w.address: w.message for w in p.warnings if w.severity == "error"}
    assert messages["connector/bad"] == "m.yaml:12:5: errors.tolerance: Invalid value x"
    assert messages["connector/typo"].endswith(f"did you mean {SINK}?")


def test_failed_tasks_of_a_connector_not_declared_running_are_warnings_with_the_first_trace_line() -> None:
    task = s.ConnectorTask(0, "FAILED", "w:8083", "java.io.IOException: boom")
    p = plan(want(d.DesiredConnector("a", CFG, "paused")), live(s.ConnectorState("a", CFG, "PAUSED", (task,))))
    [w] = [w for w in p.warnings if w.code == "connector-task-failed"]
    assert w.message == "connector a task 0 is FAILED: java.io.IOException: boom" and w.severity == "warning"
    assert not p.actionable


def test_a_failed_task_of_a_connector_declared_running_is_a_restart_naming_it_with_its_trace() -> None:
    from reconciler.render import render_text

    task = s.ConnectorTask(1, "FAILED", "w:8083", "java.io.IOException: boom")
    have = live(s.ConnectorState("a", CFG, "RUNNING", (s.ConnectorTask(0, "RUNNING"), task)))
    p = plan(want(d.DesiredConnector("a", CFG)), have)
    [change] = p.actionable
    [attr] = change.attributes
    assert (attr.name, attr.before) == ("restart", "task 1 FAILED: java.io.IOException: boom")
    assert isinstance(change.before, payloads.ConnectorPayload)
    assert change.before.failed == ("task 1: java.io.IOException: boom",)
    assert not [w for w in p.warnings if w.code.startswith("connector-")]  # the change says it, not a warning too
    assert "restart" in render_text(p, color=False) and "task 1 FAILED: java.io.IOException: boom" in render_text(
        p, color=False
    )
    op = decoded.operation(change)
    assert isinstance(op.request, connector_writes.WriteConnector) and op.request.restart
    again = payloads.decode(Kind.CONNECTOR, change.before.to_dict())
    assert again == change.before


def test_a_connector_failing_again_after_its_restart_is_failed_once_the_window_passed() -> None:
    from reconciler.kinds.connector import restart as connector_restart
    from reconciler.kinds.connector import watch as connector_watch

    now = [100.0]
    w = connector_writes.WriteConnector("a", CFG, {}, "running", restart=True)
    check = connector_restart.after_failed_restart(
        connector_watch.declared(w), restarted_at=100.0, clock=lambda: now[0], remaining=lambda: 60.0, last_round_s=4
    )
    failed = s.ConnectorState("a", CFG, "RUNNING", (s.ConnectorTask(0, "FAILED", None, "E: boom"),))
    assert check(failed)[0] is False  # the status from before the restart may still be read
    now[0] = 100.0 + connector_restart.SETTLE_S
    assert check(failed) == (True, "task 0 FAILED again after its restart: E: boom")
    assert check(s.ConnectorState("a", CFG, "RUNNING", RUNNING)) == (True, None)
    now[0] = 100.5
    assert check(s.ConnectorState("a", CFG, "RUNNING", RUNNING))[0] is False  # not believed before the window


def test_a_restart_is_sent_only_for_what_connect_still_reports_failed() -> None:

    w = connector_writes.WriteConnector("a", CFG, {}, "running", restart=True)
    both = s.ConnectorState("a", CFG, "FAILED", (s.ConnectorTask(0, "RUNNING"), s.ConnectorTask(1, "FAILED")))
    assert connector_writes.restarted(w, both) == ["connector", "task 1"]
    assert connector_writes.restarted(w, s.ConnectorState("a", CFG, "RUNNING", RUNNING)) == []
    assert connector_writes.restarted(dataclasses.replace(w, restart=False), both) == []


def test_no_connect_cluster_read_is_an_error_for_declared_connectors() -> None:
    p = plan(want(d.DesiredConnector("a", CFG)), s.ClusterState(cluster_id="c", controller_id=1, brokers=()))
    assert [w.code for w in p.warnings if w.severity == "error"] == ["connectors-unreadable"]


# ------------------------------------------------------------------------------------------ payloads
@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"config": {"tasks.max": "1"}, "state": "running"}, "no connector.class"),
        ({"config": {"connector.class": "X", "tasks.max": "0"}, "state": "running"}, "tasks.max"),
        ({"config": {"connector.class": "X", "tasks.max": "9999999999"}, "state": "running"}, "tasks.max"),
        ({"config": {"connector.class": "X", "a": 1}, "state": "running"}, "text values"),
        ({"config": {"connector.class": "X"}, "state": "sleeping"}, "state"),
        ({"config": {"connector.class": "X"}, "state": "running", "secrets": {"k": "hunter2"}}, "references"),
        ({"config": {"connector.class": "X"}, "state": "running", "reset_offsets": "yes"}, "reset_offsets"),
        ({"config": {"connector.class": "X"}, "state": "running", "extra": 1}, "unexpected"),
        ({"config": {"connector.class": "X"}, "state": "running", "failed": ["oops"]}, "failed parts"),
        ({"config": {"connector.class": "X"}, "state": "running", "failed": "task 0"}, "failed parts"),
    ],
)
def test_a_connector_payload_is_checked_at_decode(data: object, problem: str) -> None:
    found = payloads.decode(Kind.CONNECTOR, data)
    assert isinstance(found, payloads.Unreadable) and problem in found.problem


def test_a_connector_change_to_a_live_only_state_is_refused_before_anything_is_sent() -> None:
    c = plans.Change(
        address="connector/a",
        kind=Kind.CONNECTOR,
        name="a",
        action=plans.Action.CREATE,
        phase=plans.Phase.CONNECTOR,
        after=payloads.ConnectorPayload({"connector.class": "X"}, "failed"),
    )
    op = decoded.operation(c)
    assert op.request is None and "not a state a connector can be put in" in (op.problem or "")


# ------------------------------------------------------------------------------------------ secrets
def test_the_port_keeps_no_secret_value_of_what_connect_returns() -> None:
    entry = {
        "info": {
            "config": {
                "name": "a",
                "connector.class": SINK,
                "db.password": "hunter2",
                "conn.url": "jdbc:x",
                "ssl.key.password": "${file:/s.properties:k}",
            },
            "type": "sink",
        },
        "status": {"connector": {"state": "RUNNING"}, "tasks": [{"id": 0, "state": "FAILED", "trace": "E: x\n\tat y"}]},
    }
    found = connect_port.connector_state("a", entry, declared_secrets={"conn.url"})
    assert "hunter2" not in repr(found) and "jdbc:x" not in repr(found)
    assert found.config["ssl.key.password"] == "${file:/s.properties:k}"  # a placeholder is what Connect holds
    assert secrets.is_digest(found.config["db.password"]) and found.tasks[0].trace == "E: x"
    assert secrets.same_config(
        "a",
        {
            "connector.class": SINK,
            "db.password": "hunter2",
            "conn.url": "jdbc:x",
            "ssl.key.password": "${file:/s.properties:k}",
        },
        found.config,
        {"conn.url"},
    )


# ------------------------------------------------------------------------------------------ manifests
def load(tmp_path: Path, spec: str) -> manifests.LoadResult:
    (tmp_path / "c.yaml").write_text(
        "apiVersion: kafka-reconciler/v1\nkind: Connector\nmetadata: {name: a}\nspec:\n"
        + textwrap.indent(textwrap.dedent(spec), "  ")
    )
    return manifests.load([tmp_path])


def test_a_connector_document_becomes_connects_strings(tmp_path: Path) -> None:
    loaded = load(
        tmp_path,
        f"""\
        class: {SINK}
        tasksMax: 3
        state: paused
        config: {{topics: orders, batch.size: 5, flag: true, db.password: "${{file:/p:k}}"}}
        secrets: {{sasl.jaas.config: {{env: JAAS}}}}
        """,
    )
    c = loaded.desired.connectors["a"]
    assert c.config == {
        "connector.class": SINK,
        "tasks.max": "3",
        "topics": "orders",
        "batch.size": "5",
        "flag": "true",
        "db.password": "${file:/p:k}",
    }
    assert c.state == "paused" and c.secrets == {"sasl.jaas.config": d.SecretRef(env="JAAS")}
    assert c.positions["batch.size"].line == 8


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("{tasks.max: 2}", "tasks.max is set by tasksMax"),
        ("{db.password: hunter2}", "looks like a secret"),
    ],
)
def test_misplaced_connector_keys_are_errors_at_their_line(tmp_path: Path, config: str, message: str) -> None:
    with pytest.raises(errors.ValidationFailed) as failed:
        load(tmp_path, f"class: {SINK}\nconfig: {config}\n")
    [diag] = failed.value.diagnostics
    assert message in diag.message and diag.line == 6
    assert "hunter2" not in str(failed.value)


@pytest.mark.parametrize("name", ["a/b", "a\\b", "50%", "a{b}", " lead", "trail ", "tab\there"])
def test_a_name_connect_cannot_address_is_an_error_at_its_line(tmp_path: Path, name: str) -> None:
    (tmp_path / "c.yaml").write_text(
        f"apiVersion: kafka-reconciler/v1\nkind: Connector\nmetadata:\n  name: {json.dumps(name)}\n"
        f"spec: {{class: {SINK}}}\n"
    )
    with pytest.raises(errors.ValidationFailed) as failed:
        manifests.load([tmp_path])
    [diag] = failed.value.diagnostics
    assert diag.file == str(tmp_path / "c.yaml") and diag.line == 4, diag
    assert f"connector name {name!r}" in diag.message and "Kafka Connect" in diag.message


def test_names_connect_addresses_are_accepted(tmp_path: Path) -> None:
    docs = [f"name: {json.dumps(n)}" for n in ("orders.sink-1", "a b", "a?b", "a+b", "a#b", "é")]
    (tmp_path / "c.yaml").write_text(
        "".join(
            f"---\napiVersion: kafka-reconciler/v1\nkind: Connector\nmetadata: {{{doc}}}\nspec: {{class: {SINK}}}\n"
            for doc in docs
        )
    )
    assert len(manifests.load([tmp_path]).desired.connectors) == 6


# ------------------------------------------------------------------------------------------ snapshots
def test_a_snapshot_keeps_the_connectors_and_an_offline_plan_equals_the_live_one(tmp_path: Path) -> None:
    from reconciler.snapshot import files

    held = {**CFG, "db.password": secrets.digest("a", "db.password", "hunter2")}
    task = s.ConnectorTask(0, "FAILED", "w:8083", "E: boom")
    have = live(s.ConnectorState("a", held, "RUNNING", (task,), "sink"), s.ConnectorState("b", CFG, "PAUSED", ()))
    path = tmp_path / "snap.json"
    files.write_snapshot(have, path)
    assert "hunter2" not in path.read_text()
    again = files.read_snapshot(path)
    assert again.connect is not None and have.connect is not None
    assert again.connect.connectors == have.connect.connectors and again.connect.plugins == have.connect.plugins
    wanted = want(d.DesiredConnector("a", {**CFG, "batch.size": "2"}), d.DesiredConnector("b", CFG))
    assert plan(wanted, again).to_json() == plan(wanted, have).to_json()


def test_import_turns_a_live_connector_into_a_document_without_its_secret() -> None:
    from reconciler.adopt.adoption_report import AdoptionReport
    from reconciler.kinds.connector import adopt as adopt_connectors

    report = AdoptionReport(title="Import", out_dir=Path("out"))
    held = {**CFG, "db.password": secrets.digest("orders-sink", "db.password", "hunter2")}
    doc = adopt_connectors.document(s.ConnectorState("orders-sink", held, "FAILED", ()), report)
    assert doc is not None
    assert doc.spec["class"] == SINK and doc.spec["tasksMax"] == 1 and doc.spec["state"] == "running"
    assert doc.spec["config"] == {"topics": "orders", "file": "/data/o.txt"}
    assert doc.spec["secrets"] == {"db.password": {"env": "CONNECTOR_ORDERS_SINK_DB_PASSWORD"}}
    assert report.variables == ["CONNECTOR_ORDERS_SINK_DB_PASSWORD"]
    assert "hunter2" not in repr(doc.spec) and "sha256" not in repr(doc.spec)


def test_an_offline_plan_compares_secrets_by_digest_as_a_live_plan_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reconciler.kinds.connector import evidence
    from reconciler.snapshot import files

    monkeypatch.setenv("DB_PW", "hunter2")
    held = {**CFG, "db.password": secrets.digest("a", "db.password", "hunter2")}
    path = tmp_path / "snap.json"
    files.write_snapshot(live(s.ConnectorState("a", held, "RUNNING", RUNNING)), path)
    wanted = want(d.DesiredConnector("a", CFG, secrets={"db.password": d.SecretRef(env="DB_PW")}))
    assert not plan(wanted, evidence.offline(files.read_snapshot(path), wanted)).changes
    monkeypatch.setenv("DB_PW", "changed")
    [change] = plan(wanted, evidence.offline(files.read_snapshot(path), wanted)).changes
    assert change.action is plans.Action.UPDATE and [a.name for a in change.attributes] == ["config.db.password"]


def test_diff_of_two_snapshots_names_the_connector_that_changed() -> None:
    from reconciler.snapshot import diff as snapshot_diff

    before = live(s.ConnectorState("a", CFG, "RUNNING", RUNNING), s.ConnectorState("b", CFG, "RUNNING", RUNNING))
    after = live(
        s.ConnectorState("a", {**CFG, "batch.size": "9"}, "RUNNING", RUNNING), s.ConnectorState("c", CFG, "PAUSED", ())
    )
    found = {(x.address, x.change, x.path) for x in snapshot_diff.compare(before, after).differences}
    assert found == {
        ("connector/a", "added", "config.batch.size"),
        ("connector/b", "removed", ""),
        ("connector/c", "added", ""),
    }


class ValidatingPort:
    """The two calls ``read_for_plan`` makes; each validate waits at a barrier of two, so validates sent one after
    the other would never pass it (``BrokenBarrierError`` after its timeout)."""

    url = "http://c:8083"

    def __init__(self, have: s.ConnectState) -> None:
        self.have = have
        self.barrier = threading.Barrier(2, timeout=10)
        self.validated: list[str] = []

    def read(self, *, deadline: float, secret_keys: object = None) -> s.ConnectState:
        return self.have

    def validate(
        self, name: str, config: dict[str, str], *, deadline: float, secret_keys: object = ()
    ) -> tuple[tuple[str, str], ...]:
        self.barrier.wait()
        self.validated.append(name)
        return (("batch.size", f"not a number: {config['batch.size']}"),) if name.startswith("bad") else ()


def test_changed_configs_are_validated_concurrently_each_answer_kept_for_its_connector() -> None:
    from reconciler.kinds.connector import evidence

    have = live(s.ConnectorState("same", CFG, "RUNNING", RUNNING)).connect
    assert have is not None
    names = ["bad-1", "bad-2", "good-1", "good-2"]
    wanted = want(
        d.DesiredConnector("same", CFG), *(d.DesiredConnector(n, {**CFG, "batch.size": f"x{n}"}) for n in names)
    )
    port = ValidatingPort(have)
    found = evidence.read_for_plan(port, wanted, deadline=time.monotonic() + 30)  # type: ignore[arg-type]
    assert sorted(port.validated) == names  # the unchanged connector is not validated
    assert found.validation == {
        "bad-1": (("batch.size", "not a number: xbad-1"),),
        "bad-2": (("batch.size", "not a number: xbad-2"),),
        "good-1": (),
        "good-2": (),
    }


class OffsetsPort(ValidatingPort):
    """``ValidatingPort`` that also answers the offsets of the connectors it keeps offsets for (else HTTP 404)."""

    def __init__(self, have: s.ConnectState, kept: dict[str, tuple[str, ...]]) -> None:
        super().__init__(have)
        self.kept = kept
        self.asked: list[str] = []

    def offsets(self, name: str, *, deadline: float) -> tuple[str, ...]:
        from reconciler.connect.http import ConnectError

        self.asked.append(name)
        if name not in self.kept:
            raise ConnectError(f"reading the offsets of {name}: HTTP 404: not found", status=404)
        return self.kept[name]


def test_a_delete_shows_the_offsets_connect_keeps_read_only_for_the_connectors_deleted() -> None:
    from reconciler.kinds.connector import evidence

    names = ["team-a", "team-b", "team-c", "other"]
    have = live(*(s.ConnectorState(n, CFG, "RUNNING", RUNNING) for n in names)).connect
    assert have is not None
    kept = {"team-a": ('{"filename": "/in.txt"} -> {"position": 35}',), "team-b": ()}
    rules = d.Ownership(connectors=(d.NamePattern("prefix", "team-"),), delete={Kind.CONNECTOR: True})
    port = OffsetsPort(have, kept)
    found = evidence.read_for_plan(port, want(ownership=rules), deadline=time.monotonic() + 30)  # type: ignore[arg-type]
    assert port.asked == ["team-a", "team-b", "team-c"]  # the deleted ones, not "other"
    assert found.kept_offsets == kept  # team-c: Connect answered 404, nothing shown
    p = plan(want(ownership=rules), s.ClusterState(cluster_id="c", controller_id=1, brokers=(), connect=found))
    reasons = {c.name: c.reasons for c in p.changes}
    assert (
        "offsets Connect keeps for it (1 partition(s), partition -> offset): " + kept["team-a"][0] in reasons["team-a"]
    )
    assert "Connect holds no offsets for it yet" in reasons["team-b"]
    assert all("resumes from them" in r[1] for r in reasons.values()) and len(reasons["team-c"]) == 2

    port = OffsetsPort(have, kept)
    evidence.read_for_plan(port, want(ownership=dataclasses.replace(rules, delete={})), deadline=time.monotonic() + 30)  # type: ignore[arg-type]
    assert port.asked == []  # no delete, no offsets request


def test_a_connector_created_then_failed_is_summarised_as_carried_out_not_as_not_carried_out() -> None:
    from reconciler.apply.apply_report import ApplyReport, ItemOutcome, Outcome, PhaseReport
    from reconciler.commands import apply_display

    item = ItemOutcome(
        "connector/a",
        "connector",
        "a",
        plans.Phase.CONNECTOR,
        plans.Action.CREATE,
        Outcome.FAILED,
        error_name="CONNECTOR_NOT_CONVERGED",
        message="task 0 FAILED after the write: E: boom",
        details={"written": True},
    )
    phase = PhaseReport(plans.Phase.CONNECTOR, 0.66, 4, 1, {"POST /connectors": 1, "GET /connectors": 3})
    report = ApplyReport(None, False, (item,), (phase,), converged=None, requests=0, duration_s=1.0)
    line = apply_display.summary_line(report)
    assert "1 change carried out, then failed, so the cluster still differs from the manifests" in line, line
    assert "not carried out" not in line and "nothing was applied" not in line
    assert "phase connector: 0.66s, 4 requests, 1 item" in apply_display.report_text(report)
    assert report.exit_code == 3


# ------------------------------------------------------------------------------------------ masked values
def masked_live(record: str | None) -> s.ClusterState:
    held = {**CFG, "db.password": secrets.MASKED}
    if record is not None:
        held[secrets.RECORD_KEY] = record
    c = s.ConnectorState("a", held, "RUNNING", RUNNING)
    have = live(c, secret_digests={"a": {"db.password": secrets.digest("a", "db.password", "hunter2")}})
    return have


WANT_SECRET = want(d.DesiredConnector("a", CFG, secrets={"db.password": d.SecretRef(env="DB_PW")}))


@pytest.mark.parametrize("mask", ["********", "[hidden]", "<hidden>", "[REDACTED]"])
def test_a_value_the_worker_masks_is_read_as_masked_not_as_a_digest_of_the_mask(mask: str) -> None:
    entry = {"info": {"config": {"name": "a", "connector.class": SINK, "db.password": mask}}, "status": {}}
    found = connect_port.connector_state("a", entry, {"db.password"})
    assert found.config["db.password"] == secrets.MASKED


def test_a_masked_secret_without_a_record_is_no_change_and_a_warning() -> None:
    p = plan(WANT_SECRET, masked_live(None))
    assert not p.actionable and p.unchanged.get(Kind.CONNECTOR) == 1
    [w] = [w for w in p.warnings if w.code == "connector-secret-masked"]
    assert "Kafka Connect masks the value of db.password of connector a: it cannot be compared" in w.message


def test_a_masked_secret_is_compared_by_the_recorded_digest() -> None:
    same = secrets.record("a", {**CFG, "db.password": "hunter2"}, {"db.password"})[secrets.RECORD_KEY]
    assert "hunter2" not in same
    p = plan(WANT_SECRET, masked_live(same))
    assert not p.actionable and not [w for w in p.warnings if w.code == "connector-secret-masked"]
    other = secrets.record("a", {**CFG, "db.password": "old"}, {"db.password"})[secrets.RECORD_KEY]
    p = plan(WANT_SECRET, masked_live(other))
    [change] = p.actionable
    [attr] = change.attributes
    assert (attr.name, attr.before, attr.after, attr.sensitive) == (
        "config.db.password",
        plans.REDACTED,
        plans.REDACTED,
        True,
    )
    assert any("compared by the digest recorded" in r for r in change.reasons)
    assert secrets.RECORD_KEY not in render_json(p)  # the record is bookkeeping, never shown as a config change


def test_same_config_leaves_the_record_out_and_compares_a_masked_value_by_it() -> None:
    sent = secrets.record("a", {**CFG, "db.password": "hunter2"}, {"db.password"})
    held = {**CFG, "db.password": secrets.MASKED, secrets.RECORD_KEY: sent[secrets.RECORD_KEY]}
    assert secrets.same_config("a", sent, held, {"db.password"})
    assert secrets.same_config("a", {**CFG, "db.password": "hunter2"}, held, {"db.password"})
    assert not secrets.same_config("a", {**CFG, "db.password": "rotated"}, held, {"db.password"})
    unrecorded = {**CFG, "db.password": secrets.MASKED}
    assert secrets.same_config("a", {**CFG, "db.password": "anything"}, unrecorded, {"db.password"})


# ------------------------------------------------------------------------------------------ plugin version
def versioned(version: str, versions: tuple[str, ...] = ("3.9.0", "4.3.1")) -> s.ClusterState:
    base = live()
    assert base.connect is not None
    connect = dataclasses.replace(base.connect, plugin_versions={SINK: versions} if versions else {})
    return dataclasses.replace(base, connect=connect)


def test_a_declared_version_becomes_connector_plugin_version_at_its_line(tmp_path: Path) -> None:
    loaded = load(tmp_path, f"class: {SINK}\nversion: 4.3.1\n")
    c = loaded.desired.connectors["a"]
    assert c.config["connector.plugin.version"] == "4.3.1" and c.positions["connector.plugin.version"].line == 6
    with pytest.raises(errors.ValidationFailed) as failed:
        load(tmp_path, f"class: {SINK}\nconfig: {{connector.plugin.version: 4.3.1}}\n")
    assert "connector.plugin.version is set by version" in failed.value.diagnostics[0].message


@pytest.mark.parametrize(
    ("version", "versions", "blocked"),
    [
        ("4.3.1", ("3.9.0", "4.3.1"), False),
        ("9.9", ("3.9.0", "4.3.1"), True),
        ("[4.0,5.0)", ("3.9.0", "4.3.1"), False),  # a range: Connect resolves it
        ("9.9", (), False),  # workers older than 4.1 report no version: nothing to check against
    ],
)
def test_a_version_the_workers_do_not_have_blocks_its_connector_listing_theirs(
    version: str, versions: tuple[str, ...], blocked: bool
) -> None:
    source = d.Source(file="c.yaml", line=7, column=12)
    wanted = d.DesiredConnector(
        "a", {**CFG, "connector.plugin.version": version}, positions={"connector.plugin.version": source}
    )
    p = plan(want(wanted), versioned(version, versions))
    [change] = p.changes
    assert (change.action is plans.Action.BLOCKED) is blocked
    found = [w for w in p.warnings if w.code == "connector-version-unknown"]
    if blocked:
        assert [w.message for w in found] == [
            f"c.yaml:7:12: version 9.9 of connector class {SINK} is not installed on the workers (they have: "
            "3.9.0, 4.3.1)"
        ]
    else:
        assert not found


def test_plugin_versions_survive_a_snapshot_and_an_import_declares_the_version(tmp_path: Path) -> None:
    from reconciler.adopt.adoption_report import AdoptionReport
    from reconciler.kinds.connector import adopt as adopt_connectors
    from reconciler.snapshot import files

    have = versioned("4.3.1")
    files.write_snapshot(have, tmp_path / "snap.json")
    again = files.read_snapshot(tmp_path / "snap.json").connect
    assert again is not None and again.plugin_versions == {SINK: ("3.9.0", "4.3.1")}
    report = AdoptionReport(title="Import", out_dir=Path("out"))
    doc = adopt_connectors.document(
        s.ConnectorState("a", {**CFG, "connector.plugin.version": "4.3.1"}, "RUNNING", ()), report
    )
    assert doc is not None and doc.spec["version"] == "4.3.1"
    assert "connector.plugin.version" not in doc.spec["config"]


# ------------------------------------------------------------------------------------------ declared offsets
def test_declared_offsets_are_altered_only_when_the_declaration_changes_showing_before_and_after(
    tmp_path: Path,
) -> None:
    from reconciler.model import connector_offsets

    loaded = load(
        tmp_path,
        f"""\
        class: {SINK}
        config: {{topics: orders, file: /data/o.txt}}
        offsets:
          - partition: {{kafka_topic: orders, kafka_partition: 0}}
            offset: {{kafka_offset: 5}}
        """,
    )
    c = loaded.desired.connectors["a"]
    record = c.config[connector_offsets.RECORD_KEY]
    part = '{"kafka_partition": 0, "kafka_topic": "orders"}'
    assert c.offsets == ((part, '{"kafka_offset": 5}'),)
    held = {k: v for k, v in c.config.items() if k != connector_offsets.RECORD_KEY}
    now = ((part, '{"kafka_offset": 42}'),)
    have = live(s.ConnectorState("a", held, "RUNNING", RUNNING), current_offsets={"a": now})
    p = plan(want(c), have)
    [change] = p.actionable
    shown_lines = {a.name: (a.before, a.after) for a in change.attributes}
    assert shown_lines["offsets"] == (f'{part} -> {{"kafka_offset": 42}}', f'{part} -> {{"kafka_offset": 5}}')
    assert shown_lines[f"config.{connector_offsets.RECORD_KEY}"] == (None, record)
    op = decoded.operation(change)
    assert isinstance(op.request, connector_writes.WriteConnector) and op.request.offsets == c.offsets
    assert connector_offsets.body(c.offsets) == {
        "offsets": [{"partition": {"kafka_topic": "orders", "kafka_partition": 0}, "offset": {"kafka_offset": 5}}]
    }

    applied = live(s.ConnectorState("a", dict(c.config), "RUNNING", RUNNING))  # moved on since: not altered again
    assert not plan(want(c), applied).actionable
    moved = dataclasses.replace(c, config={**c.config, "batch.size": "9"})
    [change] = plan(want(moved), applied).actionable  # a config change never implies an offsets change
    assert [a.name for a in change.attributes] == ["config.batch.size"]
    op = decoded.operation(change)
    assert isinstance(op.request, connector_writes.WriteConnector) and op.request.offsets == ()


def test_a_record_of_offsets_no_longer_declared_is_kept_not_shown_as_removed() -> None:
    from reconciler.model import connector_offsets

    held = {**CFG, connector_offsets.RECORD_KEY: "sha256:0123"}
    p = plan(want(d.DesiredConnector("a", CFG)), live(s.ConnectorState("a", held, "RUNNING", RUNNING)))
    assert not p.actionable and p.unchanged.get(Kind.CONNECTOR) == 1
    assert secrets.same_config("a", CFG, held, ())

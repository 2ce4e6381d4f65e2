"""Fleet plans over snapshots that hold connectors plan them as ``plan --live-state`` plans the same snapshot.

One manifest set declares connectors (one with a secret read from a file) and an Ownership rule for undeclared
ones; the snapshot holds the Connect cluster's connectors with the secret as its digest. The fleet's plan file must
carry the same connector changes as the single-cluster offline plan, and no row, plan or output holds the secret.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.connect import secrets as connect_secrets
from reconciler.fleet import load_fleet, rows, run_fleet_plan, sources
from reconciler.model import plans
from reconciler.model import state as s
from reconciler.snapshot import files

SECRET = "hunter2-fleet"

MANIFESTS = """\
apiVersion: kafka-reconciler/v1
kind: Ownership
metadata: {{name: platform}}
spec:
  connectors: [{{prefix: sink-}}]
  delete: {{connector: true}}
---
apiVersion: kafka-reconciler/v1
kind: Connector
metadata: {{name: sink-orders}}
spec:
  class: FileStreamSink
  tasksMax: 2
  config:
    topics: orders
    file: /data/orders.txt
  secrets:
    connection.password: {{file: {secret}}}
---
apiVersion: kafka-reconciler/v1
kind: Connector
metadata: {{name: sink-payments}}
spec:
  class: FileStreamSink
  state: paused
  config:
    topics: payments
    file: /data/payments.txt
  secrets:
    connection.password: {{file: {secret}}}
---
apiVersion: kafka-reconciler/v1
kind: Connector
metadata: {{name: src-new}}
spec:
  class: org.apache.kafka.connect.file.FileStreamSourceConnector
  config:
    topic: orders
    file: /data/in.txt
"""


def _connector(name: str, config: dict[str, str], secret: str, state: str = "RUNNING") -> s.ConnectorState:
    held = {**config, "connection.password": connect_secrets.digest(name, "connection.password", secret)}
    return s.ConnectorState(name, held, state, (s.ConnectorTask(0, state),), "sink")


def _fleet(tmp_path: Path) -> Path:
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n")
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "connectors.yaml").write_text(MANIFESTS.format(secret=secret))
    sink = {"connector.class": "FileStreamSink", "topics": "orders", "file": "/data/orders.txt"}
    payments = {"connector.class": "FileStreamSink", "tasks.max": "1", "topics": "payments"}
    payments["file"] = "/data/payments.txt"
    connect = s.ConnectState(
        "http://connect-eu:8083",
        {
            # tasks.max differs; the secret is the declared one (same digest): only tasks.max changes.
            "sink-orders": _connector("sink-orders", {**sink, "tasks.max": "1"}, SECRET),
            # same config, running instead of paused, and the secret changed: both planned, the secret by digest.
            "sink-payments": _connector("sink-payments", payments, "old-secret"),
            "sink-legacy": _connector("sink-legacy", {**sink, "tasks.max": "1"}, "x"),  # owned, undeclared
            "other": _connector("other", {**sink, "tasks.max": "1"}, "y"),  # not owned: never touched
        },
        plugins=(
            "org.apache.kafka.connect.file.FileStreamSinkConnector",
            "org.apache.kafka.connect.file.FileStreamSourceConnector",
        ),
    )
    live = s.ClusterState("c-eu", 1, (s.Broker(1, "b1", 9092),), topics={}, connect=connect)
    files.write_snapshot(live, tmp_path / "eu.json")
    sources.write_parquet_snapshot(live, tmp_path / "us.parquet")
    (tmp_path / "fleet.yaml").write_text(
        "defaults:\n  manifests: manifests\nclusters:\n"
        "  - name: eu-1\n    snapshot: eu.json\n"
        "  - name: us-1\n    snapshot: us.parquet\n"
    )
    return tmp_path


def _changes(plan: plans.Plan) -> list[tuple[str, str, str]]:
    return [(c.address, c.action.value, json.dumps(c.to_dict(), sort_keys=True)) for c in plan.changes]


def test_fleet_plans_connectors_like_the_offline_plan_of_the_same_snapshot(tmp_path: Path) -> None:
    fleet_dir = _fleet(tmp_path)
    single = tmp_path / "single.json"
    result = CliRunner().invoke(
        app, ["plan", str(fleet_dir / "manifests"), "--live-state", str(fleet_dir / "eu.json"), "--out", str(single)]
    )
    assert result.exit_code == 0, result.output
    expected = plans.Plan.load(single)

    out = fleet_dir / "out"
    run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
    for cluster in ("eu-1", "us-1"):
        fleet_plan = plans.Plan.load(out / cluster / "plan.json")
        assert _changes(fleet_plan) == _changes(expected)
    addresses = {c.address: c.action.value for c in expected.changes}
    assert addresses == {
        "connector/sink-orders": "update",
        "connector/sink-payments": "update",
        "connector/sink-legacy": "delete",
        "connector/src-new": "create",
    }
    shown = (out / "eu-1" / "plan.json").read_text()
    assert "tasks.max" in shown and "connection.password" in shown
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_connector_rows_hold_digests_and_references_never_a_secret(tmp_path: Path) -> None:
    fleet_dir = _fleet(tmp_path)
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    (desired_set,) = sources.load_desired(fleet.clusters, env={}).values()
    assert desired_set.desired is not None
    want = list(rows.desired_rows(desired_set.desired))
    have = sources.read_parquet_snapshot(fleet_dir / "us.parquet")
    assert ("connector", "sink-orders", "configs.tasks.max", "2") in want
    assert ("connector", "sink-orders", "configs.tasks.max", "1") in have
    assert ("connector", "sink-payments", "state", "running") in have
    digest = connect_secrets.digest("sink-orders", "connection.password", SECRET)
    assert ("connector", "sink-orders", "configs.connection.password", digest) in have
    assert all(SECRET not in str(v) for *_, v in [*want, *have])


def test_declared_offsets_plugin_versions_and_current_offsets_cross_the_fleet_rows_unchanged() -> None:
    from reconciler.kinds.connector import rows as connector_rows
    from reconciler.model import connector_offsets
    from reconciler.model import desired as d

    offsets = connector_offsets.declared([({"kafka_topic": "t", "kafka_partition": 0}, {"kafka_offset": 5})])
    config = {"connector.class": "X", "tasks.max": "1", connector_offsets.RECORD_KEY: connector_offsets.digest(offsets)}
    wanted = d.DesiredState(connectors={"a": d.DesiredConnector("a", config, offsets=offsets)})
    section: dict[str, dict[str, str | None]] = {}
    for _kind, name, attribute, value in connector_rows.desired_rows(wanted):
        section.setdefault(name, {})[attribute] = value
    assert connector_rows.rebuild_desired(section) == dict(wanted.connectors)

    connect = s.ConnectState(
        url="http://c:8083",
        connectors={"a": s.ConnectorState("a", {"connector.class": "X"}, "RUNNING", ())},
        plugins=("X",),
        plugin_versions={"X": ("1.0", "2.0")},
        current_offsets={"a": (('{"kafka_partition": 0, "kafka_topic": "t"}', '{"kafka_offset": 9}'),)},
    )
    live: dict[str, dict[str, str | None]] = {}
    for _kind, name, attribute, value in connector_rows.live_rows(connect):
        live.setdefault(name, {})[attribute] = value
    meta = json.loads(json.dumps(connector_rows.meta(connect)))  # as a fleet file holds it
    assert connector_rows.rebuild_live(meta, live) == connect

"""Fleet connector rows beyond snapshots: drift records compare declared secrets by digest, the field errors of a
live read's validate requests and the offsets kept for deleted connectors travel through the rows, and fleet
apply's choice of Kafka Connect cluster.

Plain data in and out: rows built from states, planned by ``planning.plan_joined``; no Connect cluster is asked.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from reconciler import manifests
from reconciler.base import errors
from reconciler.connect import secrets as connect_secrets
from reconciler.connect.http import ConnectError
from reconciler.fleet import apply_results, applying, planning, rows, sources, spec
from reconciler.model import desired, plans
from reconciler.model import state as s

SECRET = "s3cret-live-fleet"
MANIFESTS = """\
apiVersion: kafka-reconciler/v1
kind: Cluster
metadata: {{name: eu}}
spec:
  bootstrapServers: ["127.0.0.1:1"]
{connect}---
apiVersion: kafka-reconciler/v1
kind: Connector
metadata: {{name: sink-orders}}
spec:
  class: FileStreamSink
  tasksMax: 2
  config:
    topics: orders
  secrets:
    connection.password: {{file: {secret}}}
---
apiVersion: kafka-reconciler/v1
kind: Connector
metadata: {{name: sink-payments}}
spec:
  class: FileStreamSink
  config:
    topics: payments
  secrets:
    connection.password: {{file: {secret}}}
"""
SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"


def _loaded(tmp_path: Path, *, connect: bool = True) -> manifests.LoadResult:
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n")
    folder = tmp_path / "m"
    folder.mkdir(exist_ok=True)
    named = "  connect: {urls: ['http://127.0.0.1:1']}\n" if connect else ""
    (folder / "all.yaml").write_text(MANIFESTS.format(secret=secret, connect=named))
    return manifests.load([folder])


def _held(name: str, tasks_max: str, topics: str, secret: str) -> s.ConnectorState:
    config = {"connector.class": "FileStreamSink", "tasks.max": tasks_max, "topics": topics}
    config["connection.password"] = connect_secrets.digest(name, "connection.password", secret)
    return s.ConnectorState(name, config, "RUNNING", (s.ConnectorTask(0, "RUNNING"),), "sink")


def _live(**connect_fields: object) -> s.ClusterState:
    connect = s.ConnectState(
        "http://127.0.0.1:1",
        {
            "sink-orders": _held("sink-orders", "1", "orders", SECRET),  # tasks.max differs, the secret is the same
            "sink-payments": _held("sink-payments", "1", "payments", "an-old-one"),  # only the secret differs
        },
        plugins=(SINK,),
    )
    connect = dataclasses.replace(connect, **connect_fields)  # type: ignore[arg-type]
    return s.ClusterState("c-eu", 1, (s.Broker(1, "b1", 9092),), topics={}, connect=connect)


def _outcome(wanted: desired.DesiredState, live: s.ClusterState) -> planning.ClusterOutcome:
    joined = planning.hash_join(rows.desired_rows(wanted), rows.live_rows(live))
    return planning.plan_joined("eu", joined)


def test_drift_records_compare_a_declared_secret_by_digest_as_the_plan_does(tmp_path: Path) -> None:
    outcome = _outcome(_loaded(tmp_path).desired, _live())
    drift = {(d.kind, d.name): d for d in outcome.drift}
    orders, payments = drift[("connector", "sink-orders")], drift[("connector", "sink-payments")]
    assert (orders.action, orders.names) == ("update", ("configs.tasks.max",))
    assert (payments.action, payments.names) == ("update", ("configs.connection.password",))
    p = outcome.plan()
    assert p is not None
    changed = {c.name: sorted(a.name for a in c.attributes) for c in p.actionable}
    assert changed == {"sink-orders": ["config.tasks.max"], "sink-payments": ["config.connection.password"]}


def test_the_field_errors_and_kept_offsets_of_a_live_read_travel_through_the_rows(tmp_path: Path) -> None:
    found = {"sink-orders": (("topics", "Must not be empty"),)}
    kept = {"sink-gone": ("{'filename': '/in.txt'} -> {'position': 12}",)}
    live = _live(validation=found, kept_offsets=kept)
    rebuilt = rows.rebuild_live(list(rows.live_rows(live))).connect
    assert rebuilt is not None and rebuilt.validation == found and rebuilt.kept_offsets == kept
    outcome = _outcome(_loaded(tmp_path).desired, live)
    p = outcome.plan()
    assert p is not None
    actions = {c.name: c.action for c in p.changes}
    assert actions == {"sink-orders": plans.Action.BLOCKED, "sink-payments": plans.Action.UPDATE}
    [invalid] = [w for w in p.warnings if w.code == "connector-invalid"]
    assert "topics: Must not be empty" in invalid.message and invalid.severity == "error"


def test_a_live_read_uses_only_the_cluster_profiles_connect_cluster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KAFKA_CONNECT_URL", "http://127.0.0.1:1")  # never asked: one URL cannot serve a fleet
    loaded = _loaded(tmp_path, connect=False)
    live = s.ClusterState("c-eu", 1, (s.Broker(1, "b1", 9092),), topics={})
    task = sources.ClusterTask(name="eu", desired_key="k", profile="eu", profiles=loaded.profiles)
    assert sources.read_ports(task, loaded.desired, live, request_bound_s=1.0) is live
    p = _outcome(loaded.desired, live).plan()
    assert p is not None and not p.changes
    [unread] = [w for w in p.warnings if w.code == "connectors-unreadable"]
    assert "the Kafka Connect cluster was not read" in unread.message


def test_fleet_apply_refuses_connector_changes_when_the_profile_names_no_connect_cluster(tmp_path: Path) -> None:
    planned = _outcome(_loaded(tmp_path).desired, _live()).plan()
    assert planned is not None and planned.actionable
    cluster = spec.ClusterSpec(name="eu", manifests=(tmp_path / "m",), profile="eu")
    assert "connect" in applying.ports_of(cluster, _loaded(tmp_path), planned)
    with pytest.raises(errors.ConfigError, match="cluster eu: the plan changes connectors, but its Cluster profile"):
        applying.ports_of(cluster, _loaded(tmp_path, connect=False), planned)
    unchanged = dataclasses.replace(planned, changes=tuple(c for c in planned.changes if c.kind.value != "connector"))
    assert applying.ports_of(cluster, _loaded(tmp_path, connect=False), unchanged) == {}


def test_a_connect_cluster_down_at_apply_time_is_unreachable_and_a_refusal_by_connect_is_refused() -> None:
    down = ConnectError("GET /connectors: Kafka Connect could not be reached (http://127.0.0.1:1: refused)")
    assert applying._refusal(down) == apply_results.UNREACHABLE
    assert applying._refusal(ConnectError("GET /connectors: 401 Unauthorized", status=401)) == apply_results.REFUSED
    assert applying._refusal(errors.ConfigError("no connect")) == apply_results.REFUSED

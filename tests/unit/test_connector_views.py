"""A connector's live view (what a saved plan's fingerprints cover) holds its config and target state, not the
status a rebalance moves it through: a plan made before a worker joined the group is not stale after it."""

from __future__ import annotations

import pytest

from reconciler.model import state
from reconciler.model.kinds import Kind
from reconciler.planner import views


def connect_live(
    status: str, *, worker: str = "127.0.0.1:8083", config: dict[str, str] | None = None
) -> state.ClusterState:
    task = state.ConnectorTask(id=0, state=status, worker=worker)
    connector = state.ConnectorState(
        name="orders-sink",
        config=config or {"connector.class": "FileStreamSink", "topics": "orders"},
        state=status,
        tasks=(task,),
    )
    connect = state.ConnectState(url="http://127.0.0.1:8083", connectors={"orders-sink": connector})
    return state.ClusterState(cluster_id="c1", controller_id=1, brokers=(), connect=connect)


def fingerprints(live: state.ClusterState) -> tuple[str | None, str]:
    view = views.live_view(live, kind=Kind.CONNECTOR, name="orders-sink")
    return views.fingerprint_of(view), views.live_fingerprint(live, kinds=[Kind.CONNECTOR])


@pytest.mark.parametrize("status", ["UNASSIGNED", "RESTARTING", "FAILED"])
def test_a_running_connector_between_assignments_keeps_its_fingerprint(status: str) -> None:
    assert fingerprints(connect_live(status, worker="127.0.0.1:9093")) == fingerprints(connect_live("RUNNING"))


@pytest.mark.parametrize("status", ["PAUSED", "STOPPED"])
def test_another_target_state_or_config_changes_it(status: str) -> None:
    running = fingerprints(connect_live("RUNNING"))
    assert fingerprints(connect_live(status))[0] != running[0]
    assert fingerprints(connect_live(status))[1] != running[1]
    edited = connect_live("RUNNING", config={"connector.class": "FileStreamSink", "topics": "payments"})
    assert fingerprints(edited)[0] != running[0]

"""Apply's read-back of a connector written as declared: when a connector counts as settled in its declared state.

Plain data: ``reconciler.kinds.connector.watch.declared``, the check of one written connector against the states
Connect reports.
"""

from __future__ import annotations

from reconciler.kinds.connector import watch as connector_watch
from reconciler.kinds.connector.writes import WriteConnector
from reconciler.model import state as s


def _check(state: str) -> connector_watch.Check:
    return connector_watch.declared(WriteConnector("c", {"topics": "t"}, {}, state))


def test_a_connector_created_paused_has_no_task_and_is_settled() -> None:
    assert _check("paused")(s.ConnectorState("c", {}, "PAUSED", ())) == (True, None)


def test_tasks_listed_must_all_reach_the_declared_state() -> None:
    paused, running = s.ConnectorTask(0, "PAUSED"), s.ConnectorTask(1, "RUNNING")
    assert _check("paused")(s.ConnectorState("c", {}, "PAUSED", (paused,))) == (True, None)
    settled, why = _check("paused")(s.ConnectorState("c", {}, "PAUSED", (paused, running)))
    assert not settled and why == "waiting for every task to be PAUSED (1 of 2)"
    settled, why = _check("running")(s.ConnectorState("c", {}, "RUNNING", ()))
    assert not settled and why == "waiting for every task to be RUNNING (0 of 0)"
    settled, why = _check("paused")(s.ConnectorState("c", {}, "UNASSIGNED", ()))
    assert not settled and why == "Connect reports UNASSIGNED, waiting for PAUSED"

"""The trend across runs: after a failed run the next one is compared with the last successful run, and no two runs
share a label in the chart.

Runs on the snapshot fleet (eu-1 and us-1 drifted, ap-1's snapshot missing).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from reconciler.base import errors
from reconciler.fleet import history, load_fleet, report_trend, run_fleet_plan
from reconciler.fleet import spark as spark_engine
from reconciler.fleet.runner import FleetRunFailed
from reconciler.snapshot import files
from tests.support.fleet import live_from


def test_after_a_failed_run_the_next_is_compared_with_the_last_successful_run(
    fleet_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: the run after a failed one was compared with the failed run, which planned nothing, so every
    cluster was "left out of the comparison" and no drift was new or resolved."""
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    out = fleet_dir / "out"
    first = run_fleet_plan(fleet, out_dir=out, env={})

    def session(master: str | None = None, **_: Any) -> Any:
        raise errors.ConfigError("cannot start Spark on spark://spark-master:7077: All masters are unresponsive")

    with monkeypatch.context() as patched:
        patched.setattr(spark_engine, "session", session)
        with pytest.raises(FleetRunFailed) as failed:
            run_fleet_plan(fleet, out_dir=out, env={}, engine="spark")
    eu = live_from(fleet_dir / "manifests", drop="payments.settled", extra_topic="orders.legacy", retention="1000")
    files.write_snapshot(eu, fleet_dir / "eu.json")  # orders.shipped is back, payments.settled gone
    run_fleet_plan(fleet, out_dir=out, env={})

    trend = history.trend(out)
    assert trend is not None and [r.status for r in trend.runs] == ["partial", "failed", "partial"]
    assert trend.previous is not None and trend.previous.startswith(first.summary["run"]["id"])
    failed_id = failed.value.result.summary["run"]["id"]
    assert len(trend.failed_since) == 1 and trend.failed_since[0].startswith(failed_id)
    assert trend.left_out == ("ap-1",)  # down in both runs compared; eu-1 and us-1 are compared
    assert trend.new == (("eu-1", "topic", "payments.settled"),)
    assert trend.resolved == (("eu-1", "topic", "orders.shipped"),)
    report = (out / "report.html").read_text()
    compared = re.search(r'<p id="compared-with">(.*?)</p>', report)
    assert compared is not None and first.summary["run"]["id"] in compared.group(1)
    assert f"the 1 failed run(s) since, {failed_id}" in compared.group(1)


def _point(run_id: str, run_at: str) -> history.RunPoint:
    return history.RunPoint(run_id, run_at, clusters_with_changes=1, drifted=2, planned=3, total=3)


def test_no_two_runs_share_a_label() -> None:
    """Regression: labels were the start to the minute, so two runs of one minute had the same label."""
    runs = [
        _point("a1b2c3d4e5", "2026-12-02T01:04:59+00:00"),
        _point("f6a7b8c9d0", "2026-12-02T01:05:09+00:00"),
        _point("0123456789", "2026-12-02T01:05:41+00:00"),
        _point("9876543210", "2026-12-02T01:05:41+00:00"),  # the same second: told apart by the run id
    ]
    shown = re.findall(r'<text class="date"[^>]*>([^<]*)</text>', report_trend.chart(runs))
    assert shown == ["12-02 01:04:59", "12-02 01:05:09", "12-02 01:05:41 012345", "12-02 01:05:41 987654"]

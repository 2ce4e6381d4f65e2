"""The fleet webhook against a local HTTP endpoint: told of new drift, resolved drift and failed runs, and only
then; a Slack-compatible ``text`` with the facts as fields; an endpoint that fails never fails the run, and
the URL (which holds the secret) is never printed.

Runs on the snapshot fleet (eu-1 and us-1 drifted, ap-1's snapshot missing).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reconciler.base import errors
from reconciler.cli import app
from reconciler.fleet import load_fleet, run_fleet_plan
from reconciler.fleet import spark as spark_engine
from reconciler.fleet.runner import FleetRunFailed
from reconciler.model import snapshotfile
from tests.support.fake_webhook import FakeWebhook
from tests.support.fleet import live_from


def test_new_drift_resolved_drift_and_quiet_nights(fleet_dir: Path) -> None:
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    out = fleet_dir / "out"
    with FakeWebhook() as hook:
        first = run_fleet_plan(fleet, out_dir=out, env={}, webhook=hook.url)
        quiet = run_fleet_plan(fleet, out_dir=out, env={}, webhook=hook.url)  # the same drift: nothing to tell
        eu = live_from(fleet_dir / "manifests", drop="payments.settled", extra_topic="orders.legacy", retention="1000")
        snapshotfile.write_snapshot(eu, fleet_dir / "eu.json")  # orders.shipped is back, payments.settled gone
        changed = run_fleet_plan(fleet, out_dir=out, env={}, webhook=hook.url)
        bodies = hook.bodies()
        paths = {path for path, _ in hook.posts}

    assert len(bodies) == 2 and paths == {FakeWebhook.SECRET_PATH}
    opening, later = bodies
    assert opening["events"] == ["new-drift"]  # the first run in the folder: all it found is news
    assert opening["new_drift_count"] == len([d for d in first.summary["drift"] if d["action"] != "unmanaged"]) > 0
    assert opening["run"]["id"] == first.summary["run"]["id"] and opening["status"] == "partial"
    assert opening["text"].startswith(f"Kafka fleet plan {first.summary['run']['id'][:12]}")
    assert "New drift (" in opening["text"] and opening["report"] == str((out / "report.html").resolve())
    assert any("webhook to http://127.0.0.1:" in n and "sent (new-drift)" in n for n in first.notes)
    assert not any("webhook" in n for n in quiet.notes)

    assert later["events"] == ["new-drift", "resolved-drift"]
    assert later["new_drift"] == [{"cluster": "eu-1", "kind": "topic", "name": "payments.settled"}]
    assert later["resolved_drift"] == [{"cluster": "eu-1", "kind": "topic", "name": "orders.shipped"}]
    assert later["left_out"] == ["ap-1"]  # not planned by either run: not compared
    assert "• eu-1: topic/payments.settled" in later["text"] and "Not compared" in later["text"]
    assert later["run"]["id"] == changed.summary["run"]["id"]


def test_a_failed_run_is_told(fleet_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def session(master: str | None = None, **_: Any) -> Any:
        raise errors.ConfigError("could not start Spark on local[1] before the run's deadline (--deadline) passed")

    monkeypatch.setattr(spark_engine, "session", session)
    out = fleet_dir / "out"
    with FakeWebhook() as hook:
        with pytest.raises(FleetRunFailed):
            run_fleet_plan(
                load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={}, engine="spark", webhook=hook.url
            )
        cli = CliRunner().invoke(
            app,
            ["fleet", "plan", str(fleet_dir / "fleet.yaml"), "--out", str(out), "-q", "--engine", "spark"],
            env={"KAFKA_RECONCILER_FLEET_WEBHOOK": hook.url},
        )
        bodies = hook.bodies()
    assert cli.exit_code == 1 and "sent (failed)" in cli.output
    assert [b["events"] for b in bodies] == [["failed"], ["failed"]]
    assert bodies[0]["status"] == "failed" and "could not start Spark" in bodies[0]["error"]
    assert bodies[0]["text"].endswith(
        "FAILED: could not start Spark on local[1] before the run's deadline (--deadline) passed"
    )


def test_an_endpoint_that_fails_is_retried_then_reported_never_fatal(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    with FakeWebhook() as hook:
        hook.fail_next(500, 503)  # two server errors, then accepted
        first = run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={}, webhook=hook.url)
        assert len(hook.posts) == 3 and any("sent (new-drift)" in n for n in first.notes)

        (out / "history").rename(fleet_dir / "old-history")  # a first run again: there is news to send
        hook.fail_next(404)  # a client error is not retried
        cli = CliRunner().invoke(
            app, ["fleet", "plan", str(fleet_dir / "fleet.yaml"), "--out", str(out), "-q", "--webhook", hook.url]
        )
        assert len(hook.posts) == 4
    assert cli.exit_code == 3, cli.output  # partial (ap-1), as without the webhook
    assert "webhook to http://127.0.0.1:" in cli.output and "failed: HTTP 404" in cli.output
    assert "s3cr3t" not in cli.output and "/services/" not in cli.output


def test_a_bad_webhook_url_is_refused_before_anything_is_written(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    cli = CliRunner().invoke(
        app, ["fleet", "plan", str(fleet_dir / "fleet.yaml"), "--out", str(out), "--webhook", "ftp://x/s3cr3t"]
    )
    assert cli.exit_code == 1 and "--webhook must be an http(s) URL" in cli.output and "s3cr3t" not in cli.output
    assert not out.exists()

"""The fleet webhook against a local HTTP endpoint: told of new drift, resolved drift, failed runs, a failed run
recovered and every change of a cluster's status (in one message), and only then; a Slack-compatible ``text``
with the facts as fields; an endpoint that fails never fails the run, and the URL (which holds the secret) is
never printed.

Runs on the snapshot fleet (eu-1 and us-1 drifted, ap-1's snapshot missing).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reconciler.base import errors
from reconciler.cli import app
from reconciler.fleet import history, load_fleet, notify, run_fleet_plan
from reconciler.fleet import spark as spark_engine
from reconciler.fleet.runner import FleetRunFailed
from reconciler.snapshot import files
from tests.support.fake_webhook import FakeWebhook
from tests.support.fleet import live_from


def test_new_drift_resolved_drift_and_quiet_nights(fleet_dir: Path) -> None:
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    out = fleet_dir / "out"
    with FakeWebhook() as hook:
        first = run_fleet_plan(fleet, out_dir=out, env={}, webhook=hook.url)
        quiet = run_fleet_plan(fleet, out_dir=out, env={}, webhook=hook.url)  # the same drift: nothing to tell
        eu = live_from(fleet_dir / "manifests", drop="payments.settled", extra_topic="orders.legacy", retention="1000")
        files.write_snapshot(eu, fleet_dir / "eu.json")  # orders.shipped is back, payments.settled gone
        changed = run_fleet_plan(fleet, out_dir=out, env={}, webhook=hook.url)
        bodies = hook.bodies()
        paths = {path for path, _ in hook.posts}

    assert len(bodies) == 2 and paths == {FakeWebhook.SECRET_PATH}
    opening, later = bodies
    assert opening["events"] == ["cluster-status", "new-drift"]  # the first run in the folder: all it found is news
    assert [e["cluster"] for e in opening["status_changes"]["unreachable"]] == ["ap-1"]
    assert opening["new_drift_count"] == len([d for d in first.summary["drift"] if d["action"] != "unmanaged"]) > 0
    assert opening["run"]["id"] == first.summary["run"]["id"] and opening["status"] == "partial"
    assert opening["text"].startswith(f"Kafka fleet plan {first.summary['run']['id'][:12]}")
    assert "New drift (" in opening["text"] and opening["report"] == str((out / "report.html").resolve())
    assert any("webhook to http://127.0.0.1:" in n and "sent (cluster-status, new-drift)" in n for n in first.notes)
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
        assert len(hook.posts) == 3 and any("new-drift)" in n for n in first.notes)

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


def test_every_change_of_a_clusters_status_is_told_in_one_message(
    fleet_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: a night where eu-1 became unreachable (a partial run, exit 3) sent nothing, and neither did the
    night a failed run recovered, since it compared with the failed run (every cluster left out, no drift news)."""
    fleet = load_fleet(fleet_dir / "fleet.yaml", env={})
    out = fleet_dir / "out"
    with FakeWebhook() as hook:
        run_fleet_plan(fleet, out_dir=out, env={}, webhook=hook.url)  # eu-1, us-1 planned; ap-1's snapshot missing
        (fleet_dir / "eu.json").rename(fleet_dir / "eu.kept")
        down = run_fleet_plan(fleet, out_dir=out, env={}, webhook=hook.url)

        def session(master: str | None = None, **_: Any) -> Any:
            raise errors.ConfigError("cannot start Spark on spark://spark-master:7077: All masters are unresponsive")

        with monkeypatch.context() as patched:
            patched.setattr(spark_engine, "session", session)
            with pytest.raises(FleetRunFailed) as failed:
                run_fleet_plan(fleet, out_dir=out, env={}, engine="spark", webhook=hook.url)
        (fleet_dir / "eu.kept").rename(fleet_dir / "eu.json")
        back = run_fleet_plan(fleet, out_dir=out, env={}, webhook=hook.url)
        bodies = hook.bodies()

    assert down.exit_code == 3 and len(bodies) == 4
    _, unreachable, told_failed, recovered = bodies
    assert unreachable["events"] == ["cluster-status"]  # eu-1's drift is not compared: no drift news
    (entry,) = unreachable["status_changes"]["unreachable"]
    assert entry["cluster"] == "eu-1" and entry["was"] == "planned" and "eu.json" in entry["reason"]
    assert list(unreachable["status_changes"]) == ["unreachable"]  # ap-1 was already down: not news
    assert "Unreachable (1):\n• eu-1 (was planned): " in unreachable["text"]

    assert told_failed["events"] == ["failed"] and told_failed["run"]["id"] == failed.value.result.summary["run"]["id"]

    # the morning after: the failed night recovered and eu-1 is back, both told at once, compared with the last
    # run that did not fail (the partial one), not with the failed one
    assert recovered["events"] == ["recovered", "cluster-status"]
    assert recovered["status_changes"] == {"recovered": [{"cluster": "eu-1", "was": "unreachable"}]}
    assert recovered["compared_with"].startswith(down.summary["run"]["id"])
    assert recovered["failed_since"][0].startswith(told_failed["run"]["id"])
    assert recovered["left_out"] == ["ap-1", "eu-1"]  # not planned by both runs compared; us-1 was
    assert "Recovered: the run before this one failed" in recovered["text"]
    assert "Recovered (1):\n• eu-1 (was unreachable)" in recovered["text"]
    assert any("sent (recovered, cluster-status)" in n for n in back.notes)


def test_a_refused_cluster_is_told_apart_from_an_unreachable_one() -> None:
    summary = {
        "clusters": [
            {"name": "a", "status": "unreadable", "reason": "SASL authentication failed: bad credentials"},
            {"name": "b", "status": "unreadable", "reason": "cannot connect to kafka-1:9093: connection refused"},
            {
                "name": "b2",
                "status": "unreadable",
                "reason": "cannot connect to Kafka at kafka-2:9093: the other end closed the connection before "
                "answering, 3 times (a SASL or TLS listener, or not Kafka at all?)",
            },
            {"name": "a2", "status": "unreadable", "reason": "read failed: CLUSTER_AUTHORIZATION_FAILED"},
            {"name": "c", "status": "failed", "reason": "3 error(s) in the manifests; first: ..."},
            {"name": "d", "status": "planned", "reason": None},
        ]
    }
    trend = history.Trend(runs=(), previous="r1 at t", new=(), resolved=(), statuses=(("d", "skipped", "deadline"),))
    changes = notify.status_changes(summary, trend)
    assert {group: [e["cluster"] for e in entries] for group, entries in changes.items()} == {
        "unreachable": ["b", "b2"],
        "refused": ["a", "a2"],
        "failed": ["c"],
        "recovered": ["d"],
    }

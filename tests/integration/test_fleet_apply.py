"""``fleet apply`` on three live clusters: the run's plans applied side by side, a cluster changed out of band
since the plan refused, a cluster that was down at plan time never touched, a retry planning again the clusters
applied since, and the next run finishing the job.

Three single-node KRaft clusters (the session's ``kafka_single`` and two more started here) and a port nothing
listens on. What each cluster holds afterwards is read with kafka-python's own admin client.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka.admin import ConfigResource, KafkaAdminClient, NewTopic
from typer.testing import CliRunner

from reconciler.cli import app
from tests.kafka.cluster import KafkaCluster
from tests.kafka.kinds import single_node
from tests.support.integration import closed_port

pytestmark = [pytest.mark.kafka, pytest.mark.slow]
DAY_MS = "86400000"


@pytest.fixture(scope="module")
def two_more() -> Iterator[tuple[KafkaCluster, KafkaCluster]]:
    second = single_node()
    try:
        third = single_node()
    except BaseException:
        second.close()
        raise
    try:
        yield second, third
    finally:
        third.close()
        second.close()


def topics(cluster: KafkaCluster, prefix: str) -> dict[str, tuple[int, str]]:
    """``name -> (partitions, retention.ms)`` of the cluster's topics under ``prefix``."""
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=20_000)
    try:
        names = sorted(n for n in admin.list_topics() if n.startswith(prefix))
        partitions = {t["name"]: len(t["partitions"]) for t in admin.describe_topics(names)} if names else {}
        out = {}
        for name in names:
            configs = admin.describe_configs([ConfigResource("TOPIC", name)])["topic"][name]
            out[name] = (partitions[name], str(configs["retention.ms"]["value"]))
        return out
    finally:
        admin.close()


def write_fleet(root: Path, *, prefix: str, clusters: dict[str, str]) -> Path:
    (root / "manifests").mkdir()
    (root / "manifests" / "topics.yaml").write_text(
        textwrap.dedent(
            f"""\
            apiVersion: kafka-reconciler/v1
            kind: Ownership
            metadata: {{name: fleet-apply}}
            spec:
              topics: [{{prefix: "{prefix}"}}]
              delete: {{topic: true}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: Topic
            metadata: {{name: {prefix}orders}}
            spec:
              partitions: 6
              replicationFactor: 1
              configs: {{retention.ms: 1d, cleanup.policy: delete, max.message.bytes: "2097152"}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: Topic
            metadata: {{name: {prefix}payments}}
            spec:
              partitions: 4
              replicationFactor: 1
              configs: {{retention.ms: 1d, min.insync.replicas: "1"}}
            """
        )
    )
    entries = "".join(f"  - {{name: {name}, bootstrap: '{bootstrap}'}}\n" for name, bootstrap in clusters.items())
    (root / "fleet.yaml").write_text(
        f"defaults: {{manifests: manifests, requestTimeoutMs: 8000}}\nclusters:\n{entries}"
    )
    return root / "fleet.yaml"


def create(cluster: KafkaCluster, *new: NewTopic) -> None:
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=20_000)
    try:
        admin.create_topics(list(new))
    finally:
        admin.close()


def test_fleet_apply_applies_the_runs_plans_and_refuses_a_cluster_changed_since(
    kafka_single: KafkaCluster, two_more: tuple[KafkaCluster, KafkaCluster], topic_prefix: str, tmp_path: Path
) -> None:
    second, third = two_more
    p = topic_prefix
    create(
        kafka_single, NewTopic(f"{p}orders", 6, 1, topic_configs={"retention.ms": "1000"}), NewTopic(f"{p}old", 2, 1)
    )
    create(third, NewTopic(f"{p}orders", 6, 1, topic_configs={"retention.ms": "1000"}))
    fleet_file = write_fleet(
        tmp_path,
        prefix=p,
        clusters={
            "one": kafka_single.bootstrap,
            "two": second.bootstrap,
            "three": third.bootstrap,
            "down": f"127.0.0.1:{closed_port()}",
        },
    )
    out = tmp_path / "out"
    runner = CliRunner()
    planned = runner.invoke(app, ["fleet", "plan", str(fleet_file), "--out", str(out), "--quiet"])
    assert planned.exit_code == 3, planned.output  # partial: "down"
    run_id = json.loads((out / "summary.json").read_text())["run"]["id"]

    admin = KafkaAdminClient(bootstrap_servers=third.bootstrap, request_timeout_ms=20_000)
    try:  # out of band, after the plan: the plan's "before" no longer holds on "three"
        admin.alter_configs([ConfigResource("TOPIC", f"{p}orders", configs={"retention.ms": "5000"})])
    finally:
        admin.close()

    dry = runner.invoke(
        app, ["fleet", "apply", str(fleet_file), "--plans", str(out), "--run", run_id, "--auto-approve", "--dry-run"]
    )
    assert dry.exit_code == 3, dry.output  # three is stale, down has no plan
    dry_status = {c["name"]: c["status"] for c in json.loads((out / "apply-summary.json").read_text())["clusters"]}
    assert (dry_status["one"], dry_status["two"], dry_status["three"]) == ("validated", "validated", "refused")
    assert topics(second, p) == {}  # nothing written by the dry run

    applied = runner.invoke(
        app,
        [
            "fleet",
            "apply",
            str(fleet_file),
            "--plans",
            str(out),
            "--run",
            run_id,
            "--auto-approve",
            "--concurrency",
            "3",
        ],
    )
    assert applied.exit_code == 3, applied.output
    doc = json.loads((out / "apply-summary.json").read_text())
    status = {c["name"]: (c["status"], c["reason"]) for c in doc["clusters"]}
    assert status["one"] == ("applied", None) and status["two"] == ("applied", None), status
    assert status["three"][0] == "refused" and "changed since the plan was made" in status["three"][1]
    assert status["down"][0] == "not-applied" and "not planned in run" in status["down"][1]
    assert doc["plan_run"] == run_id and doc["status"] == "partial"
    assert "three: REFUSED: the cluster changed since the plan was made" in applied.output

    want = {f"{p}orders": (6, DAY_MS), f"{p}payments": (4, DAY_MS)}
    assert topics(kafka_single, p) == want  # updated, created, and the undeclared topic deleted
    assert topics(second, p) == want
    assert topics(third, p) == {f"{p}orders": (6, "5000")}  # untouched: nothing was written
    report = json.loads((out / "one" / "apply-report.json").read_text())
    assert report["exit_code"] == 0 and report["converged"] is True

    retried = runner.invoke(
        app,
        ["fleet", "plan", str(fleet_file), "--out", str(out), "--quiet", "--retry-failed", str(out / "summary.json")],
    )
    assert retried.exit_code == 3, retried.output  # "down" is still down
    after = {c["name"]: c for c in json.loads((out / "summary.json").read_text())["clusters"]}
    # one and two were applied since the run: planned again, in sync now; three (refused) keeps the run's plan
    for name in ("one", "two"):
        assert "planned_in_run" not in after[name], after[name]
        assert [after[name]["counts"][a] for a in ("create", "update", "delete")] == [0, 0, 0], after[name]
    assert after["three"]["planned_in_run"] == run_id and after["down"]["status"] == "unreadable"
    assert not (out / "apply-summary.json").exists() and not (out / "one" / "apply-report.json").exists()

    again = runner.invoke(
        app, ["fleet", "plan", str(fleet_file), "--out", str(out), "--quiet", "--clusters", "one,two,three"]
    )
    assert again.exit_code == 0, again.output
    finished = runner.invoke(
        app, ["fleet", "apply", str(fleet_file), "--plans", str(out), "--auto-approve", "--clusters", "one,two,three"]
    )
    assert finished.exit_code == 0, finished.output
    outcomes = {c["name"]: c["status"] for c in json.loads((out / "apply-summary.json").read_text())["clusters"]}
    assert outcomes == {"one": "no-changes", "two": "no-changes", "three": "applied"}
    assert topics(third, p) == want


def test_a_cluster_down_at_apply_time_is_unreachable_not_refused(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    p = topic_prefix
    gone = single_node()
    try:
        create(kafka_single, NewTopic(f"{p}orders", 6, 1, topic_configs={"retention.ms": "1000"}))
        fleet_file = write_fleet(tmp_path, prefix=p, clusters={"one": kafka_single.bootstrap, "gone": gone.bootstrap})
        out = tmp_path / "out"
        runner = CliRunner()
        planned = runner.invoke(app, ["fleet", "plan", str(fleet_file), "--out", str(out), "--quiet"])
        assert planned.exit_code == 0, planned.output
        admin = KafkaAdminClient(bootstrap_servers=kafka_single.bootstrap, request_timeout_ms=20_000)
        try:  # out of band, after the plan: "one" is refused (stale plan)
            admin.alter_configs([ConfigResource("TOPIC", f"{p}orders", configs={"retention.ms": "5000"})])
        finally:
            admin.close()
    finally:
        gone.close()  # down at apply time

    applied = runner.invoke(
        app, ["fleet", "apply", str(fleet_file), "--plans", str(out), "--auto-approve", "--timeout", "20"]
    )
    assert applied.exit_code == 3, applied.output
    doc = json.loads((out / "apply-summary.json").read_text())
    status = {c["name"]: (c["status"], c["reason"]) for c in doc["clusters"]}
    assert status["one"][0] == "refused" and "changed since the plan was made" in status["one"][1]
    assert status["gone"][0] == "unreachable" and gone.bootstrap in status["gone"][1], status
    assert doc["outcomes"]["unreachable"] == 1 and doc["outcomes"]["refused"] == 1
    assert "gone: UNREACHABLE: " in applied.output
    assert "0 of 2 cluster(s) applied or unchanged, 1 refused, 1 unreachable" in applied.output
    assert not (out / "gone" / "apply-report.json").exists()
    assert topics(kafka_single, p) == {f"{p}orders": (6, "5000")}  # nothing written to the refused cluster

"""``fleet drift-issue``: one GitHub issue for the whole fleet, opened on drift, updated while it remains, left
open by a partial run that finds none (its missing clusters may still drift), closed by a complete clean run.

Against the local fake GitHub API (tests/support/fake_github.py), on the snapshot fleet (eu-1 and us-1
drifted, ap-1's snapshot missing) and on a calm cluster whose snapshot matches its manifests.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.fleet import load_fleet, run_fleet_plan
from reconciler.model import state as s
from reconciler.snapshot import files
from tests.support.fake_github import FakeGitHub

REPO = "acme/kafka"
TOKEN = "ghp_fleet_test_token"


def calm_fleet(root: Path, *, with_missing: bool) -> Path:
    (root / "calm").mkdir(exist_ok=True)
    (root / "calm" / "topic.yaml").write_text(
        "apiVersion: kafka-reconciler/v1\nkind: Topic\nmetadata: {name: calm.events}\n"
        "spec: {partitions: 3, replicationFactor: 1}\n"
    )
    calm = s.ClusterState(
        cluster_id="calm",
        controller_id=1,
        brokers=(s.Broker(1, "b1", 9092, None),),
        topics={"calm.events": s.TopicState(name="calm.events", assignment=((1,), (1,), (1,)))},
    )
    files.write_snapshot(calm, root / "calm.json")
    missing = "  - {name: ap-1, manifests: calm, snapshot: ap.json}\n" if with_missing else ""
    (root / "calm.yaml").write_text(f"clusters:\n  - {{name: calm-1, manifests: calm, snapshot: calm.json}}\n{missing}")
    return root / "calm.yaml"


def issue_cli(gh: FakeGitHub, out: Path, *extra: str) -> str:
    env = {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": REPO, "GITHUB_API_URL": gh.url, "GITHUB_EVENT_PATH": ""}
    result = CliRunner().invoke(
        app, ["fleet", "drift-issue", "--plans", str(out), "--name", "nightly", *extra], env=env
    )
    assert result.exit_code == 0, result.output
    assert TOKEN not in result.output
    return result.output


def test_the_fleet_issue_follows_the_runs(fleet_dir: Path) -> None:
    out = fleet_dir / "out"
    with FakeGitHub(token=TOKEN) as gh:
        drifted = run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
        said = issue_cli(gh, out, "--close-if-clean")
        [issue] = gh.issues[REPO]
        assert said.startswith("Drift across fleet nightly: yes; issue created #1")
        assert issue["title"] == "Kafka drift across fleet nightly" and issue["state"] == "open"
        assert [lab["name"] for lab in issue["labels"]] == ["kafka-drift"]
        assert f"fleet plan run `{drifted.summary['run']['id']}`" in issue["body"]
        assert "2 of the 3 cluster(s) of fleet `nightly` no longer match" in issue["body"]
        assert "| eu-1 | planned |" in issue["body"]  # the run's report.md

        rerun = run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
        assert "issue updated #1" in issue_cli(gh, out, "--close-if-clean")
        assert rerun.summary["run"]["id"] in issue["body"] and len(gh.issues[REPO]) == 1

        partial_clean = calm_fleet(fleet_dir, with_missing=True)
        run_fleet_plan(load_fleet(partial_clean, env={}), out_dir=out, env={})
        assert "Drift across fleet nightly: no; issue unchanged #1" in issue_cli(gh, out, "--close-if-clean")
        assert issue["state"] == "open"  # ap-1 was not planned: it may still drift

        complete_clean = calm_fleet(fleet_dir, with_missing=False)
        run_fleet_plan(load_fleet(complete_clean, env={}), out_dir=out, env={})
        assert "issue closed #1" in issue_cli(gh, out, "--close-if-clean")
        assert issue["state"] == "closed" and "matches its manifests again" in issue["body"]

        run_fleet_plan(load_fleet(fleet_dir / "fleet.yaml", env={}), out_dir=out, env={})
        assert "issue created #2" in issue_cli(gh, out)  # drift again: a new issue
        assert all(r.authorization == f"Bearer {TOKEN}" for r in gh.requests)


def test_a_folder_without_a_fleet_plan_is_an_error(tmp_path: Path) -> None:
    env = {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": REPO, "GITHUB_API_URL": "http://127.0.0.1:9"}
    result = CliRunner().invoke(app, ["fleet", "drift-issue", "--plans", str(tmp_path)], env=env)
    assert result.exit_code == 1 and "cannot read fleet summary" in result.output

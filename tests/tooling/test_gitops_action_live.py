"""The action's run step with the real ``kafka-reconciler`` against the fake GitHub API, as a pull request lives.

Plan (comment created) -> a push breaks the manifests, the plan fails (the same comment now says the plan failed,
with the error, instead of showing the old plan as current) -> a fix is pushed, plan again (the comment shows the
new plan). No Cluster profile is declared: the connection comes from the arguments (here a snapshot via
``--live-state``), the comment is keyed by the ``cluster`` input alone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.model import state
from reconciler.snapshot import files
from tests.support.action import run_script
from tests.support.fake_github import FakeGitHub
from tests.support.manifest_texts import DEFAULTS, topic_documents, topic_text

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "ghs_actionLiveTestToken0123456789"
REPO = "acme/kafka-config"


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN) as server:
        yield server


def _step(
    work: Path, gh: FakeGitHub, tmp_path: Path, *, cluster: str, command: str = "plan", **inputs: str
) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "step.sh"
    script.write_text(run_script(), encoding="utf-8")
    bindir = Path(sys.executable).parent
    assert (bindir / "kafka-reconciler").exists(), "the project must be installed (make venv)"
    output, summary = tmp_path / "output", tmp_path / "summary"
    env = {
        "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
        "HOME": os.environ.get("HOME", str(tmp_path)),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(ROOT / "tests" / "fixtures" / "github" / "pull_request.json"),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": gh.url,
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_RUN_ID": "777",
        "GITHUB_TOKEN": TOKEN,
        "INPUT_COMMAND": command,
        "INPUT_MANIFESTS": "kafka/",
        "INPUT_CLUSTER": cluster,
        "INPUT_PROFILE": "",
        "INPUT_ENVIRONMENT": "",
        "INPUT_PLAN_FILE": "plan.json",
        "INPUT_COMMENT": "true",
        "INPUT_CLOSE_DRIFT_ISSUE": "true",
        "INPUT_FAIL_ON_DRIFT": "false",
        "INPUT_ARGS": "--live-state live.json" if command == "plan" else "",
        "NO_COLOR": "1",
        **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"},
        **inputs,
    }
    bash = shutil.which("bash")
    assert bash is not None
    return subprocess.run(
        [bash, "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_plan_comment_follows_a_failing_then_fixed_plan(gh: FakeGitHub, tmp_path: Path) -> None:
    work = tmp_path / "repo"
    (work / "kafka").mkdir(parents=True)
    (work / "kafka" / "defaults.yaml").write_text(DEFAULTS, encoding="utf-8")
    topic = work / "kafka" / "topics.yaml"
    topic.write_text(topic_text("6"), encoding="utf-8")
    live = state.ClusterState("c-1", 1, (state.Broker(1, "127.0.0.1", 9092, None),), topics={})
    files.write_snapshot(live, work / "live.json")

    first = _step(work, gh, tmp_path, cluster="prod-eu")
    assert first.returncode == 0, first.stdout + first.stderr
    [comment] = gh.comments[(REPO, 42)]
    assert "<!-- kafka-reconciler: cluster=prod-eu -->" in comment["body"]
    assert "+ topic/orders.state" in comment["body"] and "partitions: 6" in comment["body"]
    assert json.loads((work / "plan.json").read_text(encoding="utf-8"))["changes"]

    topic.write_text(topic_text("zero"), encoding="utf-8")  # a push breaks the manifests
    second = _step(work, gh, tmp_path, cluster="prod-eu")
    assert second.returncode == 1
    [comment] = gh.comments[(REPO, 42)]  # the same comment, edited
    body = comment["body"]
    assert "**The plan failed, so this pull request has no current plan.**" in body
    assert "kafka/topics.yaml:6:" in body  # the error, with its position
    assert "+ topic/orders.state" not in body  # the old plan is gone
    assert not (work / "plan.json").exists()  # and no stale plan file is left to upload

    topic.write_text(topic_text("12"), encoding="utf-8")
    third = _step(work, gh, tmp_path, cluster="prod-eu")
    assert third.returncode == 0, third.stdout + third.stderr
    [comment] = gh.comments[(REPO, 42)]
    assert "partitions: 12" in comment["body"] and "plan failed" not in comment["body"]
    assert len(gh.calls("POST")) == 1 and len(gh.calls("PATCH")) == 2
    assert TOKEN not in first.stdout + second.stdout + third.stdout + second.stderr


OWNED = """\
apiVersion: kafka-reconciler/v1
kind: Ownership
metadata: {name: platform}
spec:
  topics:
    - prefix: orders.
  delete: {topic: true}
"""


def test_a_plan_refused_for_mass_deletes_reaches_the_comment_with_its_findings(gh: FakeGitHub, tmp_path: Path) -> None:
    """Exit 1 with a saved plan (an error-level finding): the comment shows the refusal, the counts per kind and
    how to consent, with the plan below; it once said "no error output was captured" (the finding is not on
    stderr)."""
    work = tmp_path / "repo"
    (work / "kafka").mkdir(parents=True)
    (work / "kafka" / "ownership.yaml").write_text(OWNED, encoding="utf-8")
    doomed = {f"orders.t{i:02d}": state.TopicState(f"orders.t{i:02d}", ((1,),)) for i in range(25)}
    live = state.ClusterState("c-1", 1, (state.Broker(1, "127.0.0.1", 9092, None),), topics=doomed)
    files.write_snapshot(live, work / "live.json")

    refused = _step(work, gh, tmp_path, cluster="prod-eu")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    [comment] = gh.comments[(REPO, 42)]
    body = comment["body"]
    assert "no error output was captured" not in body
    assert body.index("### Kafka plan for prod-eu: refused\n") < body.index("**Refused: apply writes nothing")
    assert "| Topics | 0 | 0 | 25 | 0 |" in body  # the counts per kind
    assert "[too-many-deletes] this plan deletes 25 resources (Topics: 25)" in body
    assert "--max-deletes 25" in body and "maxDeletes: 25 in the Ownership document" in body
    details = body.index("<details><summary>Topics: 25 delete</summary>")
    assert body.index("too-many-deletes") < details < body.index("- topic/orders.t00")  # the plan below
    summary = (tmp_path / "summary").read_text(encoding="utf-8")
    assert summary.startswith("### Kafka plan for prod-eu: refused\n")  # the job summary: the comment's heading


READERS = """\
apiVersion: kafka-reconciler/v1
kind: Acl
metadata: {name: readers}
spec:
  bindings:
"""


def test_blocked_changes_open_the_comment_and_fail_the_check_unless_the_workflow_opts_out(
    gh: FakeGitHub, tmp_path: Path
) -> None:
    """150 topic creates blocked (replication factor 3 on one broker) and 50 ACL creates: plan exits 2 and apply
    would write only the ACLs. The comment once had no word of it on top and the step was green."""
    work = tmp_path / "repo"
    (work / "kafka").mkdir(parents=True)
    topics: dict[str, tuple[int, int, dict[str, str]]] = {f"orders.t{i:03d}": (3, 3, {}) for i in range(150)}
    (work / "kafka" / "topics.yaml").write_text(topic_documents(topics), encoding="utf-8")
    bindings = "".join(
        f"    - {{principal: User:app{i:02d}, operation: READ, resourceType: GROUP, resourceName: g{i:02d}}}\n"
        for i in range(50)
    )
    (work / "kafka" / "acls.yaml").write_text(READERS + bindings, encoding="utf-8")
    live = state.ClusterState("c-1", 1, (state.Broker(1, "127.0.0.1", 9092, None),), topics={}, acls=frozenset())
    files.write_snapshot(live, work / "live.json")

    failed = _step(work, gh, tmp_path, cluster="prod-eu")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "::error title=kafka-reconciler::apply will NOT change 150 resource(s)" in failed.stdout
    outputs = (tmp_path / "output").read_text(encoding="utf-8").splitlines()
    assert "exit-code=2" in outputs and "blocked=150" in outputs
    [comment] = gh.comments[(REPO, 42)]
    body = comment["body"]
    opening = body[body.index("### Kafka plan for prod-eu\n") :].split("**Plan: ")[0]
    assert opening == (
        "### Kafka plan for prod-eu\n\n**Blocked: apply will NOT change 150 resources:**\n\n"
        "- 150 topics: cannot create: replication factor 3 exceeds the 1 broker(s) in the cluster\n\n"
    )
    assert "**Plan: 50 to create, 0 to update, 0 to delete, 150 blocked.**" in body
    run = "https://github.example/acme/kafka-config/actions/runs/777"
    assert f"full plan: artifact [`kafka-plan-prod-eu`]({run}#artifacts)" in body  # what the upload step names it

    passed = _step(work, gh, tmp_path, cluster="prod-eu", INPUT_FAIL_ON_BLOCKED="false")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "::error" not in passed.stdout
    [comment] = gh.comments[(REPO, 42)]  # the same comment, still saying what apply will not do
    assert "**Blocked: apply will NOT change 150 resources:**" in comment["body"]


def test_validate_annotates_a_repeated_mistake_a_few_times_and_json_keeps_every_one(
    gh: FakeGitHub, tmp_path: Path
) -> None:
    work = tmp_path / "repo"
    (work / "kafka").mkdir(parents=True)
    (work / "kafka" / "defaults.yaml").write_text(DEFAULTS, encoding="utf-8")
    broken = "---\n".join(topic_text("zero", name=f"orders.t{i:03d}") for i in range(120))
    (work / "kafka" / "topics.yaml").write_text(broken, encoding="utf-8")

    step = _step(work, gh, tmp_path, cluster="prod-eu", command="validate")
    assert step.returncode == 1
    annotations = [line for line in step.stdout.splitlines() if line.startswith("::error ")]
    assert len(annotations) == 4, step.stdout + step.stderr
    assert "title=kafka-reconciler::... and 117 more places with the same error (kafka/topics.yaml:" in annotations[3]
    listed = subprocess.run(
        [str(Path(sys.executable).parent / "kafka-reconciler"), "validate", "kafka/", "--format", "json"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert len(json.loads(listed.stdout)["diagnostics"]) == 120

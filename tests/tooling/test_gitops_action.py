"""The action's run script, executed by bash as the runner does, with a stand-in ``kafka-reconciler`` on PATH.

The stand-in records its arguments and exits with the code a test chooses, so these tests check what the script
decides: which commands run, which exit codes fail the step, when the comment and the drift issue are posted, and
that inputs reach the commands as single arguments whatever characters they hold.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.action import run_script

ROOT = Path(__file__).resolve().parents[2]
BASH = shutil.which("bash")

STAND_IN = """#!/usr/bin/env bash
{ printf '%s\\n' "$@"; echo '--'; } >> "$FAKE_LOG"
case "$1" in
  plan) echo "## plan markdown"; exit "${FAKE_PLAN_RC:-0}" ;;
  apply) exit "${FAKE_APPLY_RC:-0}" ;;
  validate) exit "${FAKE_VALIDATE_RC:-0}" ;;
  *) exit 0 ;;
esac
"""


@dataclass
class Run:
    returncode: int
    stdout: str
    calls: list[list[str]]
    outputs: dict[str, str]
    summary: str


class ActionRunner:
    """Runs the action's script in ``work`` with the given inputs and collects what it did."""

    def __init__(self, tmp_path: Path) -> None:
        assert BASH is not None, "bash is needed: the action runs its script with bash"
        self.tmp = tmp_path
        self.script = tmp_path / "step.sh"
        self.script.write_text(run_script(), encoding="utf-8")
        self.bindir = tmp_path / "bin"
        self.bindir.mkdir()
        fake = self.bindir / "kafka-reconciler"
        fake.write_text(STAND_IN, encoding="utf-8")
        fake.chmod(0o755)
        self.work = tmp_path / "work"
        self.work.mkdir()

    def __call__(self, event: str = "pull_request", **inputs: str) -> Run:
        log, output, summary = self.tmp / "calls.log", self.tmp / "output", self.tmp / "summary"
        for f in (log, output, summary):
            f.write_text("", encoding="utf-8")
        env = {
            "PATH": f"{self.bindir}{os.pathsep}{os.environ['PATH']}",
            "FAKE_LOG": str(log),
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_EVENT_NAME": event,
            "INPUT_MANIFESTS": ".",
            "INPUT_CLUSTER": "",
            "INPUT_PROFILE": "",
            "INPUT_ENVIRONMENT": "",
            "INPUT_PLAN_FILE": "plan.json",
            "INPUT_COMMENT": "true",
            "INPUT_CLOSE_DRIFT_ISSUE": "true",
            "INPUT_FAIL_ON_DRIFT": "false",
            "INPUT_ARGS": "",
            **inputs,
        }
        proc = subprocess.run(
            [str(BASH), "--noprofile", "--norc", "-eo", "pipefail", str(self.script)],
            cwd=self.work,
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        calls = [chunk.strip("\n").split("\n") for chunk in log.read_text(encoding="utf-8").split("--\n") if chunk]
        outputs = dict(line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines())
        return Run(proc.returncode, proc.stdout, calls, outputs, summary.read_text(encoding="utf-8"))


@pytest.fixture
def run_action(tmp_path: Path) -> ActionRunner:
    return ActionRunner(tmp_path)


def test_plan_with_changes_comments_on_the_pull_request(run_action: ActionRunner) -> None:
    result = run_action(
        INPUT_COMMAND="plan", INPUT_CLUSTER="prod-eu", INPUT_MANIFESTS="kafka/ shared/", FAKE_PLAN_RC="2"
    )

    assert result.returncode == 0
    assert result.calls == [
        ["plan", "kafka/", "shared/", "--out", "plan.json", "--format", "markdown", "--name", "prod-eu",
         "--detailed-exitcode"],
        ["comment", "--plan", "plan.json", "--name", "prod-eu", "--artifact", "kafka-plan-prod-eu"],
    ]  # fmt: skip
    assert result.outputs == {"plan-file": "plan.json", "exit-code": "2", "has-changes": "true", "blocked": "0"}
    assert "## plan markdown" in result.summary
    assert (run_action.work / "kafka-plan.md").read_text(encoding="utf-8") == "## plan markdown\n"


def test_plan_outside_a_pull_request_does_not_comment(run_action: ActionRunner) -> None:
    result = run_action(event="push", INPUT_COMMAND="plan", FAKE_PLAN_RC="0")
    assert result.returncode == 0
    assert [c[0] for c in result.calls] == ["plan"]
    assert result.outputs["has-changes"] == "false"


def test_the_comment_links_the_artifact_the_step_uploads(run_action: ActionRunner) -> None:
    named = run_action(INPUT_COMMAND="plan", INPUT_CLUSTER="eu", INPUT_ARTIFACT_NAME="plans-eu", FAKE_PLAN_RC="2")
    assert named.calls[1][-2:] == ["--artifact", "plans-eu"]
    not_uploaded = run_action(INPUT_COMMAND="plan", INPUT_CLUSTER="eu", INPUT_UPLOAD_ARTIFACT="false", FAKE_PLAN_RC="2")
    assert "--artifact" not in not_uploaded.calls[1]


def test_comment_can_be_switched_off(run_action: ActionRunner) -> None:
    result = run_action(INPUT_COMMAND="plan", INPUT_COMMENT="false", FAKE_PLAN_RC="2")
    assert [c[0] for c in result.calls] == ["plan"]


def test_profile_is_passed_to_plan_and_apply_the_cluster_only_names_things(run_action: ActionRunner) -> None:
    result = run_action(INPUT_COMMAND="plan", INPUT_CLUSTER="eu", INPUT_PROFILE="prod-eu", FAKE_PLAN_RC="2")
    assert result.calls[0][:4] == ["plan", ".", "--cluster", "prod-eu"]
    assert result.calls[1] == ["comment", "--plan", "plan.json", "--name", "eu", "--artifact", "kafka-plan-eu"]


def test_the_summary_and_the_comment_are_headed_by_one_name(run_action: ActionRunner) -> None:
    """The cluster input names both; without it, the profile does (the summary once said the profile while the
    comment said the cluster)."""
    both = run_action(INPUT_COMMAND="plan", INPUT_CLUSTER="prod-eu", INPUT_PROFILE="local", FAKE_PLAN_RC="2")
    assert both.calls[0][both.calls[0].index("--name") + 1] == "prod-eu"
    assert both.calls[1][3:5] == ["--name", "prod-eu"]
    profile_only = run_action(INPUT_COMMAND="plan", INPUT_PROFILE="local", FAKE_PLAN_RC="2")
    assert profile_only.calls[0][profile_only.calls[0].index("--name") + 1] == "local"
    assert profile_only.calls[1][3:5] == ["--name", "local"]


def test_failed_plan_fails_the_step_and_says_so_in_the_comment(run_action: ActionRunner) -> None:
    (run_action.work / "plan.json").write_text("{}", encoding="utf-8")  # left by an earlier run
    result = run_action(INPUT_COMMAND="plan", FAKE_PLAN_RC="1")
    assert result.returncode == 1
    assert result.calls[1] == ["comment", "--failed", "kafka-plan.err", "--name", "default"]
    assert not (run_action.work / "plan.json").exists()  # no stale plan for the artifact


def test_a_refused_plan_is_commented_from_its_plan_file(run_action: ActionRunner) -> None:
    """The plan was made (its file written) but refused, exit 1: the comment shows that plan, findings first."""
    (run_action.bindir / "kafka-reconciler").write_text(
        STAND_IN.replace('plan) echo "## plan markdown";', 'plan) echo "## plan markdown"; echo "{}" > plan.json;'),
        encoding="utf-8",
    )
    result = run_action(INPUT_COMMAND="plan", INPUT_CLUSTER="prod-eu", FAKE_PLAN_RC="1")
    assert result.returncode == 1
    assert result.calls[1] == ["comment", "--plan", "plan.json", "--failed", "kafka-plan.err", "--name", "prod-eu"]


def test_failed_plan_outside_a_pull_request_posts_nothing(run_action: ActionRunner) -> None:
    result = run_action(event="push", INPUT_COMMAND="plan", FAKE_PLAN_RC="1")
    assert result.returncode == 1
    assert [c[0] for c in result.calls] == ["plan"]


def test_drift_found_updates_the_issue_and_passes_unless_asked_to_fail(run_action: ActionRunner) -> None:
    result = run_action(INPUT_COMMAND="drift", INPUT_CLUSTER="prod", FAKE_PLAN_RC="2")
    assert result.returncode == 0
    assert result.calls[1] == ["drift-issue", "--plan", "plan.json", "--name", "prod", "--close-if-clean"]
    assert result.outputs["has-changes"] == "true"

    strict = run_action(INPUT_COMMAND="drift", INPUT_CLUSTER="prod", FAKE_PLAN_RC="2", INPUT_FAIL_ON_DRIFT="true")
    assert strict.returncode == 2
    assert [c[0] for c in strict.calls] == ["plan", "drift-issue"]


def test_no_drift_still_lets_the_issue_be_closed(run_action: ActionRunner) -> None:
    result = run_action(INPUT_COMMAND="drift", FAKE_PLAN_RC="0", INPUT_CLOSE_DRIFT_ISSUE="false")
    assert result.returncode == 0
    assert result.calls[1] == ["drift-issue", "--plan", "plan.json"]
    assert result.outputs["has-changes"] == "false"


def test_drift_check_error_fails_and_leaves_the_issue_alone(run_action: ActionRunner) -> None:
    result = run_action(INPUT_COMMAND="drift", FAKE_PLAN_RC="1")
    assert result.returncode == 1
    assert [c[0] for c in result.calls] == ["plan"]


def test_apply_needs_the_plan_file(run_action: ActionRunner) -> None:
    missing = run_action(INPUT_COMMAND="apply")
    assert missing.returncode == 1
    assert "::error title=kafka-reconciler::plan file plan.json not found" in missing.stdout
    assert missing.calls == []

    (run_action.work / "plan.json").write_text("{}", encoding="utf-8")
    applied = run_action(INPUT_COMMAND="apply", INPUT_ARGS="--timeout 60")
    assert applied.returncode == 0
    assert applied.calls == [["apply", ".", "--plan", "plan.json", "--auto-approve", "--timeout", "60"]]

    refused = run_action(INPUT_COMMAND="apply", FAKE_APPLY_RC="3")
    assert refused.returncode == 3


def test_validate_emits_github_annotations_and_fails_on_errors(run_action: ActionRunner) -> None:
    result = run_action(INPUT_COMMAND="validate", INPUT_MANIFESTS="kafka/", FAKE_VALIDATE_RC="1")
    assert result.returncode == 1
    assert result.calls == [["validate", "kafka/", "--format", "github"]]


def test_inputs_are_passed_as_single_arguments_not_as_shell_code(run_action: ActionRunner) -> None:
    hostile = 'prod"; touch pwned; echo "$(id)'
    result = run_action(INPUT_COMMAND="plan", INPUT_PROFILE=hostile, FAKE_PLAN_RC="0")
    assert result.calls[0][:3] == ["plan", ".", "--cluster"]
    assert result.calls[0][3] == hostile
    assert not (run_action.work / "pwned").exists()


def test_unknown_command_is_an_error(run_action: ActionRunner) -> None:
    result = run_action(INPUT_COMMAND="destroy")
    assert result.returncode == 1
    assert "unknown command 'destroy'" in result.stdout
    assert result.calls == []

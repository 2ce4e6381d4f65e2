"""The shipped CI files are valid: workflows, action.yml and GitLab CI against their published schemas, the hook
manifest against pre-commit's own loader, and every use of the action passes only inputs the action declares.

Schemas come vendored inside check-jsonschema, so these checks run offline; a proxy pointing nowhere makes sure of it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / "examples" / "github").glob("*.yml"))
OFFLINE_ENV = {**os.environ, "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": ""}


def check_schema(schema: str, *files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *map(str, files)],
        capture_output=True,
        text=True,
        env=OFFLINE_ENV,
        timeout=120,
        check=False,
    )


def load(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def test_the_three_example_workflows_exist() -> None:
    assert [p.name for p in WORKFLOWS] == ["kafka-apply.yml", "kafka-drift.yml", "kafka-plan.yml"]


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_matches_the_github_workflow_schema(workflow: Path) -> None:
    result = check_schema("vendor.github-workflows", workflow)
    assert result.returncode == 0, result.stdout + result.stderr


def test_action_matches_the_github_action_schema() -> None:
    result = check_schema("vendor.github-actions", ROOT / "action.yml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_gitlab_pipeline_matches_the_gitlab_ci_schema() -> None:
    result = check_schema("vendor.gitlab-ci", ROOT / "examples" / "gitlab" / ".gitlab-ci.yml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_schema_check_rejects_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  plan:\n    runs-on: ubuntu-latest\n    stepz: []\n", encoding="utf-8")
    result = check_schema("vendor.github-workflows", broken)
    assert result.returncode == 1
    assert "jobs.plan" in result.stdout


def test_workflows_pass_only_declared_action_inputs() -> None:
    action = load(ROOT / "action.yml")
    declared = set(action["inputs"])
    required = {name for name, spec in action["inputs"].items() if spec.get("required")}
    commands = {"validate", "plan", "apply", "drift"}
    uses = 0
    for workflow in WORKFLOWS:
        for job in load(workflow)["jobs"].values():
            for step in job.get("steps", []):
                if not re.fullmatch(r"[\w-]+/kafka-reconciler@\S+", str(step.get("uses", ""))):
                    continue
                uses += 1
                given = set(step.get("with", {}))
                assert given <= declared, f"{workflow.name}: unknown inputs {given - declared}"
                assert required <= given, f"{workflow.name}: missing inputs {required - given}"
                assert step["with"]["command"] in commands
    assert uses >= 6


def test_apply_jobs_never_run_two_applies_of_one_cluster_at_once() -> None:
    job = load(ROOT / "examples" / "github" / "kafka-apply.yml")["jobs"]["apply"]
    assert job["concurrency"] == {"group": "kafka-apply-${{ matrix.cluster }}", "cancel-in-progress": False}
    assert job["environment"] == "kafka-apply-${{ matrix.cluster }}"


def test_workflow_permissions_are_least_privilege() -> None:
    perms = {p.name: load(p)["permissions"] for p in WORKFLOWS}
    assert perms["kafka-plan.yml"] == {"contents": "read", "pull-requests": "write"}
    assert perms["kafka-apply.yml"] == {"contents": "read", "actions": "read", "pull-requests": "read"}
    assert perms["kafka-drift.yml"] == {"contents": "read", "issues": "write"}


def test_pre_commit_hook_manifest_is_valid() -> None:
    from pre_commit.clientlib import load_manifest  # type: ignore[import-untyped]

    [hook] = load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    assert hook["id"] == "kafka-reconciler-validate"
    assert hook["entry"] == "kafka-reconciler validate --tree"
    assert hook["require_serial"] is True
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is True
    files = re.compile(hook["files"])
    assert all(files.search(p) for p in ("kafka/topics.yaml", "acls.yml"))
    assert not any(files.search(p) for p in ("plan.json", "topics.yaml.bak", "README.md"))


ACTIONLINT_VERSION = "v1.7.7"
SHA_PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def _actionlint() -> Path:
    """actionlint, built once with the Go toolchain into .cache/ (reused by later runs); skips when not buildable."""
    binary = ROOT / ".cache" / "actionlint" / ACTIONLINT_VERSION / "actionlint"
    if binary.exists():
        return binary
    go = shutil.which("go")
    if go is None:
        pytest.skip("actionlint is built from source with the Go toolchain, and 'go' is not installed")
    built = subprocess.run(
        [go, "install", f"github.com/rhysd/actionlint/cmd/actionlint@{ACTIONLINT_VERSION}"],
        env={**os.environ, "GOBIN": str(binary.parent), "GOFLAGS": "-mod=mod"},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if built.returncode != 0 or not binary.exists():
        pytest.skip(
            f"actionlint {ACTIONLINT_VERSION} could not be built (Go module proxy unreachable?): {built.stderr[-500:]}"
        )
    return binary


def test_actionlint_finds_nothing_in_the_example_workflows() -> None:
    result = subprocess.run(
        [str(_actionlint()), "-no-color", *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_is_a_real_check(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [str(_actionlint()), "-no-color", str(broken)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 1 and "nope" in result.stdout


def _third_party_uses(path: Path) -> list[str]:
    doc = load(path)
    steps = doc["runs"]["steps"] if "runs" in doc else [s for job in doc["jobs"].values() for s in job.get("steps", [])]
    return [str(s["uses"]) for s in steps if "uses" in s and "/kafka-reconciler@" not in str(s["uses"])]


@pytest.mark.parametrize("path", [ROOT / "action.yml", *WORKFLOWS], ids=lambda p: p.name)
def test_third_party_actions_are_pinned_by_commit_sha(path: Path) -> None:
    uses = _third_party_uses(path)
    assert uses, f"{path.name} uses no third-party action?"
    assert [u for u in uses if not SHA_PINNED.match(u)] == [], f"{path.name}: pin these by full commit SHA"

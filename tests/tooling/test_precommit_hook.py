"""The shipped pre-commit hook run by the real pre-commit (``pre-commit try-repo``) on a scratch repository.

A commit that changes only ``kafka/topics.yaml`` must pass although the topic uses a ``TopicDefaults`` declared in
``kafka/defaults.yaml`` beside it (the hook validates the whole tree the file belongs to); a commit with a real
error must fail and name file:line:column. try-repo builds the hook's environment as a user's pre-commit does: a
virtualenv with this repository pip-installed into it (dependencies from the package index, through pip's cache),
so this is slow; ``PRE_COMMIT_HOME`` under ``.cache/`` keeps pre-commit's own files out of the home directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.manifest_texts import DEFAULTS, topic_text

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, timeout=60)


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed: pre-commit needs a git repository")
    repo = tmp_path / "config-repo"
    (repo / "kafka").mkdir(parents=True)
    (repo / "kafka" / "defaults.yaml").write_text(DEFAULTS, encoding="utf-8")
    (repo / "kafka" / "topics.yaml").write_text(topic_text("6"), encoding="utf-8")
    (repo / ".github").mkdir()
    (repo / ".github" / "ci.yml").write_text("on: push\n", encoding="utf-8")  # not a manifest: never passed
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial")
    return repo


def _try_repo(repo: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``pre-commit try-repo ROOT kafka-reconciler-validate`` on the staged files, as ``git commit`` would (``extra``:
    e.g. ``--all-files``, as ``pre-commit run --all-files`` with the hook configured by its id alone)."""
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(ROOT / ".cache" / "pre-commit"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "NO_COLOR": "1",
    }
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(
        [
            *(sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "kafka-reconciler-validate"),
            *("--color", "never", *extra),
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def test_a_commit_of_one_file_is_validated_with_its_tree_and_errors_name_the_position(scratch: Path) -> None:
    topics = scratch / "kafka" / "topics.yaml"
    topics.write_text(topic_text("12"), encoding="utf-8")
    _git(scratch, "add", "kafka/topics.yaml")  # the commit touches this file only
    passed = _try_repo(scratch)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "kafka-reconciler validate" in passed.stdout and "Passed" in passed.stdout

    topics.write_text(topic_text("0"), encoding="utf-8")
    _git(scratch, "add", "kafka/topics.yaml")
    failed = _try_repo(scratch)
    assert failed.returncode == 1
    assert "Failed" in failed.stdout
    assert "kafka/topics.yaml:6:" in failed.stdout  # file:line:column of the bad value
    assert "Traceback" not in failed.stdout


PRE_COMMIT_CONFIG = """\
repos:
  - repo: https://github.com/acme/kafka-reconciler
    rev: v1.0.0
    hooks:
      - id: kafka-reconciler-validate
"""
WORKFLOW = """\
name: ci
on: [push]
jobs:
  test: {runs-on: ubuntu-latest, steps: [{run: make test}]}
"""
K8S = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n"


def test_run_all_files_with_the_hook_by_its_id_alone_skips_yaml_that_is_not_a_manifest(scratch: Path) -> None:
    """Configured with just its id, the hook sees every YAML file of the repository: the pre-commit config, workflow
    files and a Kubernetes resource (at the top level, beside a manifest) are skipped, the manifests validated."""
    (scratch / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG, encoding="utf-8")
    (scratch / ".github" / "workflows").mkdir()
    (scratch / ".github" / "workflows" / "kafka.yml").write_text(WORKFLOW, encoding="utf-8")
    (scratch / "configmap.yaml").write_text(K8S, encoding="utf-8")
    (scratch / "topic.yaml").write_text(topic_text("3", name="top.level"), encoding="utf-8")
    (scratch / "defaults.yaml").write_text(DEFAULTS, encoding="utf-8")
    _git(scratch, "add", ".")
    passed = _try_repo(scratch, "--all-files")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout and "missing apiVersion" not in passed.stdout

    (scratch / "kafka" / "topics.yaml").write_text(topic_text("0"), encoding="utf-8")
    _git(scratch, "add", ".")
    failed = _try_repo(scratch, "--all-files")
    assert failed.returncode == 1
    assert "kafka/topics.yaml:6:" in failed.stdout
    assert "missing apiVersion" not in failed.stdout and ".pre-commit-config.yaml" not in failed.stdout

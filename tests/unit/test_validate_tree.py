"""``validate --tree``: the pre-commit hook's mode, where each changed file stands for the manifest tree it is in."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler.cli import app
from tests.support.manifest_texts import DEFAULTS, topic_text

runner = CliRunner()


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    """A configuration repository: kafka/defaults.yaml, kafka/topics.yaml, kafka/overlays/prod/topics.yaml."""
    (tmp_path / "kafka" / "overlays" / "prod").mkdir(parents=True)
    (tmp_path / "kafka" / "defaults.yaml").write_text(DEFAULTS, encoding="utf-8")
    (tmp_path / "kafka" / "topics.yaml").write_text(topic_text("6"), encoding="utf-8")
    overlay = "apiVersion: kafka-reconciler/v1\nkind: Topic\nmetadata: {name: orders.state}\nspec: {partitions: 12}\n"
    (tmp_path / "kafka" / "overlays" / "prod" / "topics.yaml").write_text(overlay, encoding="utf-8")
    cwd = Path.cwd()
    os.chdir(tmp_path)  # pre-commit runs at the repository root and passes paths relative to it
    try:
        yield tmp_path
    finally:
        os.chdir(cwd)


def test_one_changed_file_alone_fails_but_its_tree_is_valid(repo: Path) -> None:
    alone = runner.invoke(app, ["validate", "kafka/topics.yaml"])
    assert alone.exit_code == 1
    assert "compacted" in alone.output  # the defaults beside it were not loaded

    tree = runner.invoke(app, ["validate", "--tree", "kafka/topics.yaml"])
    assert tree.exit_code == 0, tree.output
    assert tree.stdout.splitlines()[0].startswith("kafka/: valid: 1 topic")


def test_an_error_in_the_tree_names_file_line_and_column_relative_to_the_repository(repo: Path) -> None:
    (repo / "kafka" / "topics.yaml").write_text(topic_text("0", name="a"), "utf-8")
    result = runner.invoke(app, ["validate", "--tree", "kafka/defaults.yaml"])
    assert result.exit_code == 1
    assert "kafka/topics.yaml:6:" in result.output
    assert str(repo) not in result.output


def test_a_changed_overlay_also_validates_its_environment(repo: Path) -> None:
    result = runner.invoke(app, ["validate", "--tree", "kafka/overlays/prod/topics.yaml", "kafka/topics.yaml"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "kafka/: valid: 1 topic, 0 ACLs, 0 quotas, 0 SCRAM users, 0 broker config sets, 0 cluster profiles",
        "kafka/ (prod): valid: 1 topic, 0 ACLs, 0 quotas, 0 SCRAM users, 0 broker config sets, 0 cluster profiles",
    ]
    (repo / "kafka" / "overlays" / "prod" / "topics.yaml").write_text(
        "apiVersion: kafka-reconciler/v1\nkind: Topic\nmetadata: {name: orders.state}\nspec: {partitions: -1}\n",
        encoding="utf-8",
    )
    broken = runner.invoke(app, ["validate", "--tree", "kafka/overlays/prod/topics.yaml"])
    assert broken.exit_code == 1
    assert "kafka/overlays/prod/topics.yaml:4:" in broken.output


def test_root_names_trees_below_the_top_level(repo: Path) -> None:
    (repo / "envs" / "dev").mkdir(parents=True)
    (repo / "envs" / "dev" / "d.yaml").write_text(DEFAULTS, encoding="utf-8")
    (repo / "envs" / "dev" / "t.yaml").write_text(topic_text("1", name="x"), "utf-8")
    (repo / "envs" / "prod").mkdir()
    (repo / "envs" / "prod" / "t.yaml").write_text(topic_text("1", name="x"), "utf-8")
    # Without --root, envs/ would be one tree: prod's topic would see dev's defaults and two 'x' topics clash.
    one = runner.invoke(app, ["validate", "--tree", "envs/dev/t.yaml"])
    assert one.exit_code == 1
    split = runner.invoke(app, ["validate", "--tree", "--root", "envs/dev", "--root", "envs/prod", "envs/dev/t.yaml"])
    assert split.exit_code == 0, split.output
    assert split.stdout.startswith("envs/dev/: valid: 1 topic")


@pytest.mark.parametrize(
    ("name", "text", "manifest"),
    [
        (".pre-commit-config.yaml", "repos:\n  - repo: local\n    hooks: [{id: x}]\n", False),
        (".github/workflows/ci.yml", "name: ci\non: [push]\njobs: {}\n", False),
        ("k8s.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", False),
        ("strimzi.yaml", "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\n", False),
        ("flow.yaml", "{apiVersion: kafka-reconciler/v1, kind: Topic}\n", True),
        ("second-doc.yaml", "kind: Other\n---\napiVersion: 'kafka-reconciler/v1'\nkind: Acl\n", True),
        ("typo.yaml", "apiVersion: kafka-reconcilr/v1\nkind: Topic\n", True),
        ("no-api.yaml", "kind: Topic\nmetadata: {name: a}\n", True),
    ],
)
def test_which_yaml_files_are_manifests(tmp_path: Path, name: str, text: str, manifest: bool) -> None:
    from reconciler.manifests import tree

    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    assert tree.is_manifest(path) is manifest


def test_yaml_that_is_not_a_manifest_is_skipped_with_a_note(repo: Path) -> None:
    (repo / ".pre-commit-config.yaml").write_text("repos: []\n", encoding="utf-8")
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "ci.yml").write_text("on: push\njobs: {}\n", encoding="utf-8")
    (repo / "top.yaml").write_text(
        topic_text("3", name="top.level").replace("  defaults: compacted\n", "") + "  replicationFactor: 1\n",
        encoding="utf-8",
    )
    files = [".pre-commit-config.yaml", ".github/workflows/ci.yml", "top.yaml", "kafka/topics.yaml"]
    result = runner.invoke(app, ["validate", "--tree", *files])
    assert result.exit_code == 0, result.output
    assert (
        "skipped 2 files that are not kafka-reconciler manifests (no apiVersion: kafka-reconciler/...): "
        ".pre-commit-config.yaml, .github/workflows/ci.yml"
    ) in result.stdout
    assert "valid: 1 topic" in result.stdout  # top.yaml, validated without the config beside it
    only_others = runner.invoke(app, ["validate", "--tree", ".pre-commit-config.yaml"])
    assert only_others.exit_code == 0 and "skipped 1 file" in only_others.stdout

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

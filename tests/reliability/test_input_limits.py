"""Input past the parsers' limits: deep YAML nesting and deep or huge-number plan files are plain refusals.

The CLI runs in a subprocess, as an operator runs it: a crash of the C YAML parser would kill the process
(exit 139, no message), which an in-process test could not even report.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reconciler.base import errors, fileio
from reconciler.manifests import fullyaml, yamlio
from reconciler.manifests.depth import too_deep
from reconciler.snapshot import files
from tests.support.live import cli

HEADER = "apiVersion: kafka-reconciler/v1\nkind: Topic\nmetadata: {name: orders}\nspec:\n  partitions: 3\n"
DEEP = {
    "flow sequences": HEADER + "  configs: " + "[" * 30_000 + "\n",
    "flow mappings": HEADER + "  configs: " + "{a: " * 25_000 + "\n",
    "closed flow mappings": HEADER + "  configs:\n    x: " + "{a: " * 30_000 + "1" + "}" * 30_000 + "\n",
    "compact block sequences": HEADER + "  configs:\n    x:\n    " + "- " * 30_000 + "a\n",
}
# Where each file's 65th level starts (1-based line, column). The document is level 1, spec 2, configs 3: the
# 63rd '[' or '{a: ' after "  configs: " (column 12), or under "x" (level 4) the 62nd '{a: ' or '- '.
TOO_DEEP_AT = {
    "flow sequences": (6, 12 + 62),
    "flow mappings": (6, 12 + 62 * 4),
    "closed flow mappings": (7, 8 + 61 * 4),
    "compact block sequences": (8, 5 + 61 * 2),
}


@pytest.mark.parametrize("shape", sorted(DEEP))
@pytest.mark.parametrize("command", ["validate", "plan"])
def test_deep_nesting_is_refused_with_its_position(shape: str, command: str, tmp_path: Path) -> None:
    """Regression: 30,000 '[' killed validate and plan with SIGSEGV; 25,000 '{a:' took 53 s to refuse."""
    path = tmp_path / "deep.yaml"
    path.write_text(DEEP[shape], encoding="utf-8")
    args = [command, str(path)] + (["--bootstrap-server", "127.0.0.1:1"] if command == "plan" else [])
    result = cli(args, timeout=60)
    assert result.returncode == 1, result.stderr[-500:]
    line, column = TOO_DEEP_AT[shape]
    assert f"{path}:{line}:{column}: error: nesting deeper than {yamlio.MAX_DEPTH} levels" in result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


def test_convert_refuses_deep_nesting_too(tmp_path: Path) -> None:
    """Regression: ``convert`` reads other tools' YAML with the pure parser: "internal error: RecursionError"."""
    path = tmp_path / "topics.yaml"
    path.write_text("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nspec: " + "[" * 5_000 + "\n")
    result = cli(["convert", "--from", "strimzi", str(path), "--out", str(tmp_path / "out")], timeout=60)
    assert result.returncode == 1, result.stderr[-500:]
    assert f"error: {path}:3:{7 + yamlio.MAX_DEPTH - 1}: nesting deeper than {yamlio.MAX_DEPTH} levels" in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("pure", [False, True], ids=["libyaml", "pure-python"])
@pytest.mark.parametrize("shape", sorted(DEEP))
def test_deep_nesting_is_refused_before_the_parser_composes_it(
    shape: str, pure: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refusal comes from the event stream: the recursive composer is never reached."""

    def compose_all(text: str, *, pure: bool) -> None:
        raise AssertionError("composed a document nested too deeply")

    monkeypatch.setattr(fullyaml, "compose_all", compose_all)
    monkeypatch.setattr(yamlio, "HAVE_C_PARSER", not pure)
    path = tmp_path / "deep.yaml"
    path.write_text(DEEP[shape], encoding="utf-8")
    diags: list[errors.Diagnostic] = []
    assert yamlio.read_documents(path, display="deep.yaml", env={}, diags=diags) == []
    assert [(d.line, d.column, d.message) for d in diags] == [
        (*TOO_DEEP_AT[shape], f"nesting deeper than {yamlio.MAX_DEPTH} levels")
    ]


def test_nesting_at_the_limit_and_long_lines_still_load(tmp_path: Path) -> None:
    """The cheap bound sends a long line to the event pass, which finds nothing wrong; 64 levels are allowed."""
    at_limit = HEADER + "  replicationFactor: 1\n  configs:\n    x: " + "[" * 61 + "1" + "]" * 61 + "\n"
    long_label = at_limit.replace("{name: orders}", "{name: orders, labels: {note: '" + "x" * 5_000 + "'}}")
    for text in (at_limit, long_label):
        assert too_deep(text, pure=False, limit=yamlio.MAX_DEPTH) is None
        assert too_deep(text, pure=True, limit=yamlio.MAX_DEPTH) is None
    over = at_limit.replace("[" * 61 + "1" + "]" * 61, "[" * 62 + "1" + "]" * 62)
    (tmp_path / "over.yaml").write_text(over, encoding="utf-8")
    diags: list[errors.Diagnostic] = []
    yamlio.read_documents(tmp_path / "over.yaml", display="over.yaml", env={}, diags=diags)
    assert [d.message for d in diags] == [f"nesting deeper than {yamlio.MAX_DEPTH} levels"]


def test_a_chain_of_merge_keys_counts_as_nesting(tmp_path: Path) -> None:
    """Regression: 3,000 chained merges gave "YAML syntax error: maximum recursion depth exceeded"."""
    lines = ["anchors:", "  a0: &a0 {k: v}"]
    lines += [f"  a{i}: &a{i}\n    <<: *a{i - 1}" for i in range(1, 3_000)]
    (tmp_path / "m.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    diags: list[errors.Diagnostic] = []
    yamlio.read_documents(tmp_path / "m.yaml", display="m.yaml", env={}, diags=diags)
    assert [d.format() for d in diags] == [
        f"m.yaml:2:15: error: nesting deeper than {yamlio.MAX_DEPTH} levels (at anchors.a62.k)"
    ]


PLANS = {
    "nested 100,000 deep": ("[" * 100_000 + "]" * 100_000, f"nests deeper than {fileio.MAX_JSON_DEPTH} levels"),
    "nested 500 deep": (
        '{"format": "kafka-reconciler/plan", "x": ' + "[" * 500 + "]" * 500 + "}",
        f"nests deeper than {fileio.MAX_JSON_DEPTH} levels",
    ),
    "a 5,000-digit number": (
        '{"format": "kafka-reconciler/plan", "format_version": ' + "9" * 5_000 + "}",
        "holds a number of 5000 digits",
    ),
}


@pytest.mark.parametrize("case", sorted(PLANS))
def test_plan_files_past_the_json_limits_are_refused_by_name(case: str, tmp_path: Path) -> None:
    """Regression: these printed 'internal error: RecursionError' and 'internal error: ValueError'."""
    text, reason = PLANS[case]
    path = tmp_path / "plan.json"
    path.write_text(text, encoding="utf-8")
    for args in (["apply", "--plan", str(path), "--auto-approve"], ["show", str(path)]):
        result = cli(args, timeout=60)
        assert result.returncode == 1, result.stderr[-500:]
        assert f"error: {path}: refused: the plan file {reason}" in result.stderr
        assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def test_snapshot_files_past_the_json_limits_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "live.json"
    path.write_text('{"topics": ' + "1" * 5_000 + "}", encoding="utf-8")
    with pytest.raises(errors.SnapshotError, match="refused: the snapshot holds a number of 5000 digits"):
        files.read_snapshot(path)


# --------------------------------------------------------------------------- work, not only bytes
def config_keys_file(keys: int) -> str:
    """One topic whose configs hold ``keys`` made-up keys, each with a 40-character value."""
    body = "".join(f"    custom.config.key.{i:07d}: value-number-{i:07d}-padding-padding-pad\n" for i in range(keys))
    return HEADER + "  replicationFactor: 1\n  configs:\n" + body


def test_a_file_of_too_many_nodes_is_refused_in_seconds(tmp_path: Path) -> None:
    """Regression: 47 MB of 413,000 config keys (under the 50 MiB cap) ran past 300 s at 570 MB RSS."""
    path = tmp_path / "huge.yaml"
    path.write_text(config_keys_file(300_000), encoding="utf-8")  # 600,000 nodes, 25 MB
    result = cli(["validate", str(path)], timeout=60)  # a bound on the run, not a timing: refusals take seconds
    assert result.returncode == 1, result.stderr[-500:]
    limit = f"{yamlio.MAX_NODES:,}"
    # 17 nodes come before the first key (the document, its 4 keys and values, metadata's and spec's entries),
    # then 2 per key: the (MAX_NODES + 1)th node is the value of key number (MAX_NODES - 18) // 2, at column 32.
    key = (yamlio.MAX_NODES - 18) // 2
    assert f"{path}:{8 + key}:32: error: more than {limit}" in result.stderr
    assert f"error: more than {limit} YAML nodes (keys, values and collections) in one file" in result.stderr
    assert "split it into several files" in result.stderr


def test_a_mapping_of_too_many_keys_is_refused_before_validation(tmp_path: Path) -> None:
    """Each unknown config key cost about a millisecond of validation: 20,000 of them took 11 to 27 s."""
    path = tmp_path / "crowded.yaml"
    path.write_text(config_keys_file(20_000), encoding="utf-8")
    result = cli(["validate", str(path)], timeout=60)
    assert result.returncode == 1, result.stderr[-500:]
    lines = result.stderr.strip().splitlines()
    assert lines == [
        f"{path}:8:5: error: a mapping of 20,000 keys, over the limit of 10,000 (at spec.configs); "
        "hint: no manifest needs that many; the document is skipped"
    ]


def test_convert_locates_a_control_character(tmp_path: Path) -> None:
    """Regression: convert (the pure parser) reported #x7f with the file name only."""
    path = tmp_path / "topics.yaml"
    path.write_text("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nmetadata: {name: a\x7f}\n")
    result = cli(["convert", "--from", "strimzi", str(path), "--out", str(tmp_path / "out")], timeout=60)
    assert result.returncode == 1, result.stderr[-500:]
    assert f"error: {path}:3:19: YAML syntax error: unacceptable character #x007f" in result.stderr
    assert not (tmp_path / "out").exists()


def test_paths_that_cannot_be_read_are_skipped_with_a_warning_naming_them(tmp_path: Path) -> None:
    """Regression: a symlink loop and a symlink to /dev/zero were skipped silently."""
    root = tmp_path / "manifests"
    (root / "team").mkdir(parents=True)
    (root / "topic.yaml").write_text(HEADER + "  replicationFactor: 1\n")
    (root / "loop.yaml").symlink_to("loop.yaml")
    (root / "zero.yaml").symlink_to("/dev/zero")
    (root / "gone.yaml").symlink_to("nowhere.yaml")
    (root / "team" / "up").symlink_to("..")
    os.mkfifo(root / "pipe.yaml")
    result = cli(["validate", str(root)], timeout=60)
    assert result.returncode == 0, result.stderr
    assert "valid: 1 topic" in result.stdout
    assert result.stderr.strip().splitlines() == [
        f"{root}/gone.yaml: warning: skipped: a dangling symlink (its target does not exist)",
        f"{root}/loop.yaml: warning: skipped: a symlink loop",
        f"{root}/pipe.yaml: warning: skipped: not a regular file (a device, FIFO or socket)",
        f"{root}/team/up: warning: skipped: a symlink to an ancestor directory (a loop), not followed",
        f"{root}/zero.yaml: warning: skipped: a symlink to /dev/zero, which is not a regular file",
    ]
    named = cli(["validate", str(root / "zero.yaml")], timeout=60)
    assert named.returncode == 1
    assert f"{root}/zero.yaml: error: not a manifest file: a symlink to /dev/zero" in named.stderr

"""Input past the parsers' limits: deep YAML nesting and deep or huge-number plan files are plain refusals.

The CLI runs in a subprocess, as an operator runs it: a crash of the C YAML parser would kill the process
(exit 139, no message), which an in-process test could not even report.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.base import errors, fileio
from reconciler.manifests import fullyaml, yamlio
from reconciler.manifests.depth import too_deep
from reconciler.model import state
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
        state.read_snapshot(path)

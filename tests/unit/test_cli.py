"""The command line offline: validate, plan against a snapshot, show, exit codes, and no tracebacks."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.model import state
from reconciler.snapshot import files

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
runner = CliRunner()

TOPICS_YAML = """\
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {name: orders}
spec:
  partitions: 3
  replicationFactor: 1
  configs:
    retention.ms: 7d
---
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {name: payments}
spec:
  partitions: 1
  replicationFactor: 1
"""


def _snapshot(tmp_path: Path, *, topics: dict[str, state.TopicState]) -> Path:
    live = state.ClusterState(
        cluster_id="test-cluster",
        controller_id=1,
        brokers=(state.Broker(1, "127.0.0.1", 9092, None),),
        topics=topics,
    )
    path = tmp_path / "live.json"
    files.write_snapshot(live, path)
    return path


def _manifests(tmp_path: Path, text: str = TOPICS_YAML) -> Path:
    path = tmp_path / "manifests"
    path.mkdir()
    (path / "topics.yaml").write_text(text, encoding="utf-8")
    return path


def test_validate_examples_is_clean() -> None:
    result = runner.invoke(app, ["validate", str(EXAMPLES / "platform")])
    assert result.exit_code == 0, result.output
    assert "valid: 8 topics" in result.output


def test_validate_reports_position_and_exit_1(tmp_path: Path) -> None:
    path = _manifests(tmp_path, TOPICS_YAML.replace("partitions: 3", "partitions: 0"))
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    assert f"{path / 'topics.yaml'}:5:" in result.output
    assert "Traceback" not in result.output


def test_validate_json_format_lists_diagnostics(tmp_path: Path) -> None:
    path = _manifests(tmp_path, TOPICS_YAML.replace("retention.ms", "retention.msx"))
    result = runner.invoke(app, ["validate", str(path), "--format", "json"])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["valid"] is False
    [diag] = [d for d in doc["diagnostics"] if d["severity"] == "error"]
    assert diag["line"] == 8
    assert "retention.ms" in (diag["hint"] or diag["message"])


def test_plan_against_snapshot_with_detailed_exitcode(tmp_path: Path) -> None:
    manifests = _manifests(tmp_path)
    snap = _snapshot(
        tmp_path,
        topics={"orders": state.TopicState("orders", ((1,), (1,), (1,)), configs={"retention.ms": "604800000"})},
    )
    out = tmp_path / "plan.json"
    result = runner.invoke(
        app, ["plan", str(manifests), "--live-state", str(snap), "--out", str(out), "--detailed-exitcode"]
    )
    assert result.exit_code == 2, result.output
    assert "+ topic/payments" in result.stdout
    assert not any(f"{symbol} topic/orders" in result.stdout for symbol in "+~-!")
    assert "Plan: 1 to create, 0 to update, 0 to delete." in result.stdout
    assert out.stat().st_mode & 0o077 == 0

    shown = runner.invoke(app, ["show", str(out), "--format", "json"])
    assert shown.exit_code == 0
    assert [c["address"] for c in json.loads(shown.stdout)["changes"]] == ["topic/payments"]
    markdown = runner.invoke(app, ["show", str(out), "--format", "markdown"])
    assert markdown.exit_code == 0
    assert "1 to create" in markdown.stdout


def test_plan_without_changes_exits_0(tmp_path: Path) -> None:
    manifests = _manifests(tmp_path)
    snap = _snapshot(
        tmp_path,
        topics={
            "orders": state.TopicState("orders", ((1,), (1,), (1,)), configs={"retention.ms": "604800000"}),
            "payments": state.TopicState("payments", ((1,),)),
        },
    )
    result = runner.invoke(app, ["plan", str(manifests), "--live-state", str(snap), "--detailed-exitcode"])
    assert result.exit_code == 0, result.output
    assert "No changes" in result.stdout


def test_blocked_partition_decrease_counts_as_changes(tmp_path: Path) -> None:
    manifests = _manifests(tmp_path)
    snap = _snapshot(
        tmp_path,
        topics={
            "orders": state.TopicState("orders", ((1,),) * 5, configs={"retention.ms": "604800000"}),
            "payments": state.TopicState("payments", ((1,),)),
        },
    )
    result = runner.invoke(app, ["plan", str(manifests), "--live-state", str(snap), "--detailed-exitcode"])
    assert result.exit_code == 2
    assert "! topic/orders" in result.stdout
    assert "1 blocked" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "missing-plan.json"], "cannot read plan"),
        (["plan", "{manifests}", "--live-state", "missing.json"], "cannot read snapshot"),
        (["plan", "{manifests}", "--live-state", "{garbage}"], "invalid JSON"),
        (["apply", "--plan", "{garbage}", "--auto-approve"], "not valid JSON"),
        (["plan", "{manifests}", "--bootstrap-server", "not a server"], "not of the form host:port"),
    ],
)
def test_errors_are_one_line_without_traceback(tmp_path: Path, args: list[str], message: str) -> None:
    manifests = _manifests(tmp_path)
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json", encoding="utf-8")
    argv = [a.format(manifests=manifests, garbage=garbage) for a in args]
    result = runner.invoke(app, argv)
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_tampered_plan_is_refused(tmp_path: Path) -> None:
    manifests = _manifests(tmp_path)
    snap = _snapshot(tmp_path, topics={})
    out = tmp_path / "plan.json"
    assert runner.invoke(app, ["plan", str(manifests), "--live-state", str(snap), "--out", str(out)]).exit_code == 0
    doc = json.loads(out.read_text())
    doc["changes"][0]["after"]["partitions"] = 99
    out.write_text(json.dumps(doc))
    result = runner.invoke(app, ["show", str(out)])
    assert result.exit_code == 1
    assert "checksum mismatch" in result.output


def test_fleet_plan_over_snapshots_reports_an_unreadable_cluster_as_partial(tmp_path: Path) -> None:
    _manifests(tmp_path)
    _snapshot(tmp_path, topics={"orders": state.TopicState("orders", ((1,), (1,), (1,)))})
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(
        "defaults: {manifests: ./manifests}\n"
        "clusters:\n"
        "  - {name: lab, snapshot: ./live.json}\n"
        "  - {name: gone, snapshot: ./missing.json}\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = runner.invoke(app, ["fleet", "plan", str(fleet), "--out", str(out), "--quiet"])
    assert result.exit_code == 3, result.output
    assert "lab: 1 to create, 1 to update, 0 to delete, 0 blocked" in result.stdout
    assert "gone: " in result.stdout
    saved = runner.invoke(app, ["show", str(out / "lab" / "plan.json"), "--format", "json"])
    assert saved.exit_code == 0
    assert {c["address"] for c in json.loads(saved.stdout)["changes"]} == {"topic/orders", "topic/payments"}


def test_convert_kafka_gitops_then_refuses_non_empty_directory(tmp_path: Path) -> None:
    sample = Path(__file__).resolve().parents[1] / "fixtures" / "convert" / "kafka-gitops" / "state.yaml"
    out = tmp_path / "converted"
    first = runner.invoke(app, ["convert", "--from", "kafka-gitops", str(sample), "--out", str(out)])
    assert first.exit_code == 0, first.output
    assert (out / "CONVERSION.md").is_file()
    assert runner.invoke(app, ["validate", str(out)]).exit_code == 0
    second = runner.invoke(app, ["convert", "--from", "kafka-gitops", str(sample), "--out", str(out)])
    assert second.exit_code == 1
    assert "Traceback" not in second.output


def test_library_warnings_logged_after_a_command_returned_still_reach_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """kafka-python logs from its own thread, possibly after the command ended; those records must not hit
    the stream the command ran with (closed by then) and print "--- Logging error ---" tracebacks."""
    manifest = tmp_path / "t.yaml"
    manifest.write_text(TOPICS_YAML)
    snap = _snapshot(tmp_path, topics={})
    result = runner.invoke(app, ["plan", str(manifest), "--live-state", str(snap), "-v"])
    assert result.exit_code == 0, result.output

    logging.getLogger("kafka.net.selector").warning("late warning")
    err = capsys.readouterr().err
    assert "Logging error" not in err
    assert "late warning" in err


def test_library_log_lines_are_hidden_without_verbose(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The tool names connection failures itself; kafka-python's own lines appear only with -v."""
    manifest = tmp_path / "t.yaml"
    manifest.write_text(TOPICS_YAML)
    snap = _snapshot(tmp_path, topics={})
    result = runner.invoke(app, ["plan", str(manifest), "--live-state", str(snap)])
    assert result.exit_code == 0, result.output

    logging.getLogger("kafka.net.manager").warning("library warning")
    logging.getLogger("reconciler").warning("tool warning")
    err = capsys.readouterr().err
    assert "library warning" not in err
    assert "tool warning" in err


@pytest.mark.parametrize(
    "args",
    [
        ["plan", "kafka/", "--bogus-opt", "--detailed-exitcode"],
        ["diff", "a.json", "b.json", "--detailed-exitcode", "--bogus-opt"],
        ["apply", "--plan", "plan.json", "--format", "yaml"],
        ["validate"],
        ["fleet", "plan", "fleet.yaml", "--bogus-opt"],
        ["--bogus-opt", "plan", "kafka/"],
        ["plna", "kafka/"],
        ["show", "plan.json", "--format", "html"],
    ],
    ids=[
        "plan-typo",
        "diff-typo",
        "bad-choice",
        "missing-argument",
        "fleet-typo",
        "app-typo",
        "unknown-command",
        "show",
    ],
)
def test_usage_errors_exit_1_never_2_which_means_changes(args: list[str]) -> None:
    """A drift job running ``plan --detailed-exitcode`` must not read a mistyped option as drift (exit 2)."""
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert "Usage: kafka-reconciler" in result.output and "Error:" in result.output


@pytest.mark.parametrize(
    ("args", "suggested"),
    [
        (["plan", "kafka/", "--bogus"], ""),
        (["schema", "--bogus"], ""),
        (["plan", "kafka/", "--outt"], " (Possible options: --out)"),
        (["plan", "kafka/", "--detailed-exitcod"], " (Possible options: --detailed-exitcode)"),
        (["apply", "--auto-aprove"], " (Possible options: --auto-approve)"),
    ],
)
def test_a_mistyped_option_suggests_only_close_matches(args: list[str], suggested: str) -> None:
    """``--bogus`` is close to no option of ``plan``: nothing is suggested (it was "--out, --verbose")."""
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == f"Error: No such option: {args[-1]}{suggested}"


def test_diff_accepts_no_color_like_every_command(tmp_path: Path) -> None:
    snap = _snapshot(tmp_path, topics={})
    result = runner.invoke(app, ["diff", str(snap), str(snap), "--no-color", "--detailed-exitcode"])
    assert result.exit_code == 0, result.output
    for command in (["validate", str(tmp_path)], ["plan", str(tmp_path)], ["show", "p.json"]):
        assert "--no-color" in runner.invoke(app, [*command[:1], "--help"]).stdout

"""The command line as a terminal user meets it: colour switches, help text, plurals, and apply on a real TTY.

The TTY tests drive ``kafka-reconciler apply`` through a pseudo-terminal with pexpect, stdout redirected to a
file as in ``apply > log``: the confirmation question must still reach the user (it goes to stderr), and a secret
that cannot be resolved must be reported before the question is asked. No broker is needed: the user declines,
or the missing secret stops the command, before any connection is made.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reconciler.cli import app
from reconciler.model import state
from reconciler.snapshot import files

runner = CliRunner()
ESC = "\x1b["

MANIFESTS = """\
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {name: orders}
spec: {partitions: 3, replicationFactor: 1}
---
apiVersion: kafka-reconciler/v1
kind: ScramUser
metadata: {name: payments}
spec:
  mechanism: SCRAM-SHA-512
  iterations: 8192
  passwordFrom: {env: PAYMENTS_TEST_SCRAM_PASSWORD}
"""


@pytest.fixture
def saved_plan(tmp_path: Path) -> Path:
    """A plan that creates one topic and one SCRAM user (password from $PAYMENTS_TEST_SCRAM_PASSWORD)."""
    manifests = tmp_path / "kafka"
    manifests.mkdir()
    (manifests / "all.yaml").write_text(MANIFESTS, encoding="utf-8")
    snap = tmp_path / "live.json"
    live = state.ClusterState("c1", 1, (state.Broker(1, "127.0.0.1", 9092, None),), topics={}, scram_users={})
    files.write_snapshot(live, snap)
    out = tmp_path / "plan.json"
    result = runner.invoke(app, ["plan", str(manifests), "--live-state", str(snap), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        ([], {}, False),  # not a terminal: plain
        ([], {"FORCE_COLOR": "1"}, True),  # a CI log asked for colour
        ([], {"FORCE_COLOR": "0"}, False),
        (["--no-color"], {"FORCE_COLOR": "1"}, False),
        ([], {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    ],
)
def test_plan_colour_follows_force_color_no_color_and_the_flag(
    saved_plan: Path, args: list[str], env: dict[str, str], coloured: bool
) -> None:
    clean = {"FORCE_COLOR": None, "NO_COLOR": None, **env}
    result = runner.invoke(app, ["show", str(saved_plan), *args], env=clean)
    assert result.exit_code == 0, result.output
    assert (ESC in result.stdout) is coloured
    assert "+ topic/orders" in re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)


def test_global_no_color_flag_also_works(saved_plan: Path) -> None:
    result = runner.invoke(app, ["--no-color", "show", str(saved_plan)], env={"FORCE_COLOR": "1", "NO_COLOR": None})
    assert result.exit_code == 0 and ESC not in result.stdout


def test_compact_plan_has_one_line_per_resource(saved_plan: Path) -> None:
    result = runner.invoke(app, ["show", str(saved_plan), "--compact"])
    assert result.exit_code == 0
    changes = [line for line in result.stdout.splitlines() if line.startswith("  + ")]
    assert changes == ["  + topic/orders", "  + scram_user/payments"]


@pytest.mark.parametrize("command", ["validate", "plan", "show", "snapshot", "apply", "comment", "import", "convert"])
def test_help_names_values_not_python_types(command: str) -> None:
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for python in ("<str>", "<path>", "<list[", "<float>", "<int", "{paths}", "{plan_file}", "None "):
        assert python not in result.stdout, f"{command} --help shows {python!r}"


def test_apply_help_shows_paths_and_format_choices() -> None:
    result = runner.invoke(app, ["apply", "--help"], env={"COLUMNS": "200"})
    assert "Usage: kafka-reconciler apply [OPTIONS] [PATH...]" in result.stdout
    assert "--format <text|json>" in result.stdout
    assert "--plan FILE" in result.stdout and "--timeout SECONDS" in result.stdout
    bad = runner.invoke(app, ["apply", "--plan", "x.json", "--format", "yaml"])
    assert bad.exit_code == 1 and "yaml" in bad.output  # a usage error, never 2 ("changes present")


def test_main_help_documents_colour_and_debug() -> None:
    result = runner.invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert "--no-color" in result.stdout and "KAFKA_RECONCILER_DEBUG" in result.stdout


def test_counts_use_singular_and_plural(tmp_path: Path) -> None:
    manifests = tmp_path / "kafka"
    manifests.mkdir()
    (manifests / "all.yaml").write_text(MANIFESTS, encoding="utf-8")
    result = runner.invoke(app, ["validate", str(manifests)])
    assert result.exit_code == 0, result.output
    assert "valid: 1 topic, 0 ACLs, 0 quotas, 1 SCRAM user, 0 broker config sets, 0 cluster profiles" in result.stdout


# ------------------------------------------------------------------------------------------ apply on a TTY
pexpect = pytest.importorskip("pexpect", reason="pexpect (a dev dependency) drives the pseudo-terminal")


def _spawn_apply(tmp_path: Path, plan_file: Path, env: dict[str, str]) -> tuple[Any, Path]:
    """``kafka-reconciler apply --plan PLAN > stdout.txt`` on a pseudo-terminal; returns the child and the file."""
    stdout_file = tmp_path / "stdout.txt"
    command = (
        f"{shlex.quote(sys.executable)} -m reconciler apply --plan {shlex.quote(str(plan_file))} "
        f"--bootstrap-server 127.0.0.1:9 > {shlex.quote(str(stdout_file))}"
    )
    base = {k: v for k, v in os.environ.items() if k != "PAYMENTS_TEST_SCRAM_PASSWORD"}
    child = pexpect.spawn(
        "/bin/sh", ["-c", command], env={**base, "NO_COLOR": "1", **env}, encoding="utf-8", timeout=30
    )
    return child, stdout_file


def test_apply_of_a_saved_plan_on_a_tty_does_not_ask(tmp_path: Path, saved_plan: Path) -> None:
    """The saved plan was reviewed when it was made (as terraform apply PLANFILE): apply goes on to the cluster
    without a question (here none listens, so it fails connecting). The question of ``apply PATHS`` on a terminal
    is tested against a broker in tests/integration/test_apply_saved_plan.py."""
    child, stdout_file = _spawn_apply(tmp_path, saved_plan, {"PAYMENTS_TEST_SCRAM_PASSWORD": "s3cret-value"})
    child.expect(pexpect.EOF)
    child.close()
    assert "Apply these changes?" not in child.before
    assert child.exitstatus == 1  # the connection, not an answer, ended it
    written = stdout_file.read_text(encoding="utf-8")
    assert "+ scram_user/payments" in written  # the plan itself went to stdout
    assert "s3cret-value" not in written + child.before


def test_apply_on_a_tty_reports_a_missing_secret_before_asking(tmp_path: Path, saved_plan: Path) -> None:
    child, _ = _spawn_apply(tmp_path, saved_plan, {})
    child.expect(pexpect.EOF)
    child.close()
    shown = child.before
    assert "PAYMENTS_TEST_SCRAM_PASSWORD is not set" in shown
    assert "Apply these changes?" not in shown
    assert child.exitstatus == 1


def test_plan_warns_naming_a_secret_variable_that_is_not_set(tmp_path: Path, saved_plan: Path) -> None:
    """apply refuses a plan whose SCRAM password variable is unset; plan says so first, naming the variable."""
    snap = tmp_path / "live.json"  # written by the saved_plan fixture
    args = ["plan", str(tmp_path / "kafka"), "--live-state", str(snap)]
    unset = runner.invoke(app, args, env={"PAYMENTS_TEST_SCRAM_PASSWORD": None})
    assert unset.exit_code == 0, unset.output
    assert "warning: SCRAM user 'payments': password reference env:PAYMENTS_TEST_SCRAM_PASSWORD: environment " in (
        unset.stderr
    )
    assert "PAYMENTS_TEST_SCRAM_PASSWORD is not set; apply refuses this plan until it is there" in unset.stderr
    present = runner.invoke(app, args, env={"PAYMENTS_TEST_SCRAM_PASSWORD": "s3cret-value"})
    assert present.exit_code == 0 and "PAYMENTS_TEST_SCRAM_PASSWORD" not in present.stderr
    assert "s3cret-value" not in present.output


PROFILE = """\
apiVersion: kafka-reconciler/v1
kind: Cluster
metadata: {name: staging}
spec:
  bootstrapServers: ["127.0.0.1:9"]
"""


def test_a_connection_error_names_the_only_profile_the_connection_came_from(tmp_path: Path) -> None:
    """No flag names a cluster, so the manifests' only profile is used: the error says so (nothing listens on 9)."""
    manifests = tmp_path / "kafka"
    manifests.mkdir()
    (manifests / "all.yaml").write_text(MANIFESTS + "---\n" + PROFILE, encoding="utf-8")
    env = {"KAFKA_BOOTSTRAP_SERVERS": None, "PAYMENTS_TEST_SCRAM_PASSWORD": "s3cret-value"}
    result = runner.invoke(app, ["plan", str(manifests), "--timeout", "5"], env=env)
    assert result.exit_code == 1, result.output
    assert "error: cannot connect to Kafka at 127.0.0.1:9 (PLAINTEXT), from Cluster profile 'staging', the only " in (
        result.stderr
    )
    assert "internal error" not in result.stderr

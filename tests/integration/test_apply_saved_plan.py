"""A saved plan against the manifests it came from, on a real broker, through the shipped GitHub action's script.

The action plans (``plan --out plan.json``) with ``retention.ms: 42d``; then the manifests change to ``49d``.
Its ``apply`` passes the manifests with ``--plan``: apply plans them again, sees they no longer produce the saved
plan and refuses (exit 1) with the topic untouched; after a new plan, apply sets 49d. A plan made now asks on a
terminal (answering no writes nothing); a saved plan is applied without a question (as ``terraform apply``).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kafka.admin import NewTopic

from tests.kafka.cluster import KafkaCluster
from tests.support.action import run_script
from tests.support.integration import describe_topics, topic_configs
from tests.support.manifest_texts import topic_documents

pytestmark = pytest.mark.kafka
DAY_MS = 86_400_000


def _write(work: Path, name: str, days: int) -> None:
    (work / "kafka").mkdir(parents=True, exist_ok=True)
    text = topic_documents({name: (12, 1, {"retention.ms": f"{days}d", "cleanup.policy": "delete"})})
    (work / "kafka" / "topics.yaml").write_text(text, encoding="utf-8")


def _action(work: Path, tmp_path: Path, *, command: str, bootstrap: str) -> subprocess.CompletedProcess[str]:
    """The action's run step as the runner runs it, with the installed ``kafka-reconciler``, outside a PR."""
    script = tmp_path / "step.sh"
    script.write_text(run_script(), encoding="utf-8")
    bindir = Path(sys.executable).parent
    assert (bindir / "kafka-reconciler").exists(), "the project must be installed (make venv)"
    env = {
        "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
        "HOME": os.environ.get("HOME", str(tmp_path)),
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
        "GITHUB_EVENT_NAME": "push",
        "INPUT_COMMAND": command,
        "INPUT_MANIFESTS": "kafka/",
        "INPUT_CLUSTER": "prod-eu",
        "INPUT_PROFILE": "",
        "INPUT_ENVIRONMENT": "",
        "INPUT_PLAN_FILE": "plan.json",
        "INPUT_COMMENT": "false",
        "INPUT_CLOSE_DRIFT_ISSUE": "true",
        "INPUT_FAIL_ON_DRIFT": "false",
        "INPUT_ARGS": f"--bootstrap-server {bootstrap}",
        "NO_COLOR": "1",
        **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"},
    }
    bash = shutil.which("bash")
    assert bash is not None
    return subprocess.run(
        [bash, "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_action_refuses_a_saved_plan_the_changed_manifests_no_longer_produce(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name = f"{topic_prefix}orders"
    with kafka_single.admin_session() as admin:
        admin.create_topics([NewTopic(name, 12, 1, topic_configs={"retention.ms": str(7 * DAY_MS)})])
    work = tmp_path / "repo"
    _write(work, name, 42)
    planned = _action(work, tmp_path, command="plan", bootstrap=kafka_single.bootstrap)
    assert planned.returncode == 0, planned.stdout + planned.stderr
    assert "retention.ms" in planned.stdout and (work / "plan.json").exists()

    _write(work, name, 49)  # the manifests change after the plan was reviewed
    refused = _action(work, tmp_path, command="apply", bootstrap=kafka_single.bootstrap)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "the manifests no longer produce this saved plan, so it is not applied" in refused.stderr
    assert f"topic/{name} (topic config) is planned differently now" in refused.stderr
    assert str(49 * DAY_MS) in refused.stderr and str(42 * DAY_MS) in refused.stderr
    assert topic_configs(kafka_single, name)["retention.ms"] == str(7 * DAY_MS)  # nothing written

    replanned = _action(work, tmp_path, command="plan", bootstrap=kafka_single.bootstrap)
    assert replanned.returncode == 0, replanned.stdout + replanned.stderr
    applied = _action(work, tmp_path, command="apply", bootstrap=kafka_single.bootstrap)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert topic_configs(kafka_single, name)["retention.ms"] == str(49 * DAY_MS)


pexpect = pytest.importorskip("pexpect", reason="pexpect (a dev dependency) drives the pseudo-terminal")


def _spawn(args: str, *, cwd: Path) -> Any:
    command = f"cd {shlex.quote(str(cwd))} && exec {shlex.quote(sys.executable)} -m reconciler {args}"
    return pexpect.spawn("/bin/sh", ["-c", command], env={**os.environ, "NO_COLOR": "1"}, encoding="utf-8", timeout=180)


def test_a_plan_made_now_is_confirmed_on_a_terminal_and_a_saved_plan_is_not(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name = f"{topic_prefix}fresh"
    _write(tmp_path, name, 3)
    conn = f"--bootstrap-server {kafka_single.bootstrap}"

    asked = _spawn(f"apply kafka/ {conn}", cwd=tmp_path)
    asked.expect_exact("Apply these changes? Only 'yes' will be accepted to approve:")
    asked.sendline("y")  # Terraform's habit: only the word approves
    asked.expect_exact("Apply cancelled (the answer was not 'yes'); nothing was written.")
    asked.expect(pexpect.EOF)
    asked.close()
    assert asked.exitstatus == 1
    assert describe_topics(kafka_single, [name]) == {}

    saved = tmp_path / "plan.json"
    made = subprocess.run(
        [sys.executable, "-m", "reconciler", "plan", "kafka/", *conn.split(), "--out", str(saved)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    applied = _spawn(f"apply --plan {shlex.quote(str(saved))} {conn}", cwd=tmp_path)
    applied.expect(pexpect.EOF)
    applied.close()
    assert "Apply these changes?" not in applied.before
    assert applied.exitstatus == 0, applied.before
    assert describe_topics(kafka_single, [name]) == {name: 12}


def _owned_with_one_delete(tmp_path: Path, cluster: KafkaCluster, prefix: str) -> tuple[str, str]:
    """Manifests under ``tmp_path/kafka`` that create one topic and, owning ``prefix``, delete another; the names."""
    name, doomed = f"{prefix}kept", f"{prefix}old"
    with cluster.admin_session() as admin:
        admin.create_topics([NewTopic(doomed, 1, 1)])
    _write(tmp_path, name, 3)
    ownership = "apiVersion: kafka-reconciler/v1\nkind: Ownership\nmetadata: {name: own}\n"
    ownership += f"spec:\n  topics:\n    - prefix: {prefix}\n  delete: {{topic: true}}\n"
    (tmp_path / "kafka" / "ownership.yaml").write_text(ownership, encoding="utf-8")
    return name, doomed


DELETE_QUESTION = "Apply these changes? It deletes 1 resource. Only 'yes' will be accepted to approve:"


@pytest.mark.parametrize(("key", "label"), [("\x03", "Ctrl-C"), ("\x04", "Ctrl-D")])
def test_ctrl_c_or_ctrl_d_at_the_question_cancels_the_apply(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path, key: str, label: str
) -> None:
    name, doomed = _owned_with_one_delete(tmp_path, kafka_single, topic_prefix)
    asked = _spawn(f"apply kafka/ --bootstrap-server {kafka_single.bootstrap}", cwd=tmp_path)
    asked.expect_exact(DELETE_QUESTION)
    asked.send(key)
    asked.expect_exact("Apply cancelled; nothing was written.")
    asked.expect(pexpect.EOF)
    asked.close()
    assert asked.exitstatus == 1, label
    assert "internal error" not in asked.before and "Abort" not in asked.before
    assert describe_topics(kafka_single, [name, doomed]) == {doomed: 1}  # nothing created, nothing deleted


def test_the_word_yes_approves_a_plan_that_deletes(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name, doomed = _owned_with_one_delete(tmp_path, kafka_single, topic_prefix)
    asked = _spawn(f"apply kafka/ --bootstrap-server {kafka_single.bootstrap}", cwd=tmp_path)
    asked.expect_exact(DELETE_QUESTION)
    asked.sendline("yes")
    asked.expect(pexpect.EOF)
    asked.close()
    assert asked.exitstatus == 0, asked.before
    assert describe_topics(kafka_single, [name, doomed]) == {name: 12}


def test_on_a_terminal_the_report_table_groups_alike_rows_beyond_a_screenful(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    names = [f"{topic_prefix}many{i:02d}" for i in range(40)]
    (tmp_path / "kafka").mkdir()
    text = topic_documents({n: (1, 1, {}) for n in names})
    (tmp_path / "kafka" / "topics.yaml").write_text(text, encoding="utf-8")
    command = f"cd {shlex.quote(str(tmp_path))} && exec {shlex.quote(sys.executable)} -m reconciler apply kafka/ "
    command += f"--bootstrap-server {kafka_single.bootstrap} --auto-approve"
    applied = pexpect.spawn(
        "/bin/sh",
        ["-c", command],
        env={**os.environ, "NO_COLOR": "1"},
        encoding="utf-8",
        timeout=180,
        dimensions=(24, 200),
    )
    applied.expect(pexpect.EOF)
    applied.close()
    assert applied.exitstatus == 0, applied.before
    shown = applied.before
    assert f"40 resources: topic/{names[0]}, topic/{names[1]}, topic/{names[2]}" in shown
    assert "alike rows grouped; --format json lists each" in shown
    assert describe_topics(kafka_single, names) == dict.fromkeys(names, 1)

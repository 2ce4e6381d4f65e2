"""The tool itself SIGKILLed mid-apply (a cancelled CI job): the next apply finishes the work, nothing is lost
or duplicated, and the plan after it is empty."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from kafka.admin import NewTopic
from kafka.errors import KafkaError

from tests.kafka.cluster import KafkaCluster
from tests.support.live import REPO, cli, topic_configs, topics_state
from tests.support.manifest_texts import topic_documents
from tests.support.polling import eventually


@pytest.mark.parametrize("when", ["topic create: ", "topic config: "])
def test_apply_killed_mid_phase_then_rerun(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path, when: str
) -> None:
    existing = {f"{topic_prefix}e{i:03d}": (1, 1, {"retention.ms": "3600000"}) for i in range(100)}
    new = {f"{topic_prefix}n{i:03d}": (1, 1, {"retention.ms": "7200000"}) for i in range(200)}
    with kafka_single.admin_session() as admin:
        admin.create_topics([NewTopic(n, 1, 1) for n in existing])
    eventually(
        lambda: len(topics_state(kafka_single, topic_prefix)) == 100,
        what="the 100 existing topics",
        retry_on=(KafkaError,),
    )
    (tmp_path / "m.yaml").write_text(topic_documents(existing | new))
    target = ["--bootstrap-server", kafka_single.bootstrap]

    proc = subprocess.Popen(
        [sys.executable, "-m", "reconciler", "apply", str(tmp_path), "--auto-approve", *target],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith(when):
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL, "".join(seen)

    after_kill = topics_state(kafka_single, topic_prefix)
    assert set(existing) <= set(after_kill)  # nothing lost
    rerun = cli(["apply", str(tmp_path), "--auto-approve", *target])
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    final = cli(["plan", str(tmp_path), "--detailed-exitcode", *target])
    assert final.returncode == 0, final.stdout
    assert topics_state(kafka_single, topic_prefix) == {n: 1 for n in existing | new}
    configs = topic_configs(kafka_single, existing | new)
    assert {n: c.get("retention.ms") for n, c in configs.items()} == {
        n: spec[2]["retention.ms"] for n, spec in (existing | new).items()
    }
    print(f"\nkilled at {when!r}: {len(after_kill) - 100} of 200 new topics existed; the re-run finished the rest")

"""Two applies against the same cluster at the same time (two CLI processes): neither crashes, the cluster
ends in the desired state, and the one that lost the race says so (already exists, or a stale plan)."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

from reconciler.apply import ApplyOptions, Outcome, apply_plan
from reconciler.apply.apply_report import ApplyReport
from reconciler.base import errors
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import desired
from tests.kafka.cluster import KafkaCluster
from tests.support.live import REPO, cli, plan_now, settings, topic_configs, topics_state
from tests.support.manifest_texts import topic_documents

# On every Kafka version: in ZooKeeper mode the loser's create is answered TOPIC_ALREADY_EXISTS before Metadata
# shows the winner's topic.
pytestmark = pytest.mark.every_version
LOSER_WORDS = (
    "TOPIC_ALREADY_EXISTS",
    "the cluster changed since the plan was made",
    "No changes",
    "another apply holds this cluster's apply lock",
)


def start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "reconciler", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )


@pytest.mark.parametrize("mode", ["plan-and-apply", "same-saved-plan"])
def test_two_applies_at_once(kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path, mode: str) -> None:
    specs = {f"{topic_prefix}c{i:02d}": (2, 1, {"retention.ms": "3600000"}) for i in range(40)}
    (tmp_path / "m.yaml").write_text(topic_documents(specs))
    target = ["--bootstrap-server", kafka_single.bootstrap]
    if mode == "plan-and-apply":
        args = ["apply", str(tmp_path), "--auto-approve", "--format", "json", *target]
    else:
        saved = cli(["plan", str(tmp_path), "--out", str(tmp_path / "plan.json"), *target])
        assert saved.returncode == 0, saved.stderr
        args = ["apply", "--plan", str(tmp_path / "plan.json"), "--auto-approve", "--format", "json", *target]
    procs = [start(args), start(args)]
    outs = [p.communicate(timeout=180) for p in procs]
    codes = [p.returncode for p in procs]
    print(f"\n{mode}: exit codes {codes}", [o[1][-200:] for o in outs])
    for (stdout, stderr), code in zip(outs, codes, strict=True):
        assert "Traceback" not in stdout + stderr and "internal error" not in stderr, stderr
        assert code in (0, 1, 3), (code, stderr)
        if code:
            assert any(w in stdout + stderr for w in LOSER_WORDS), (stdout, stderr)
    assert 0 in codes, outs  # one of them did the work
    assert topics_state(kafka_single, topic_prefix) == {n: 2 for n in specs}
    assert {n: c.get("retention.ms") for n, c in topic_configs(kafka_single, specs).items()} == {
        n: "3600000" for n in specs
    }
    again = cli(["plan", str(tmp_path), "--detailed-exitcode", *target])
    assert again.returncode == 0, again.stdout + again.stderr


def test_two_applies_of_the_same_plan_at_the_same_instant(kafka_single: KafkaCluster, topic_prefix: str) -> None:
    """Both processes planned before either wrote (a barrier makes the race certain)."""
    wanted = desired.DesiredState(
        topics={
            f"{topic_prefix}r{i:02d}": desired.DesiredTopic(
                f"{topic_prefix}r{i:02d}", 2, 1, {"retention.ms": "3600000"}
            )
            for i in range(40)
        }
    )
    barrier = threading.Barrier(2)
    reports: list[ApplyReport | Exception] = []

    def one() -> None:
        with KafkaAdapter(settings(kafka_single)) as adapter:
            p = plan_now(adapter, wanted)
            barrier.wait(timeout=60)
            try:
                reports.append(apply_plan(p, adapter, options=ApplyOptions(deadline_s=60)))
            except errors.ReconcilerError as exc:
                reports.append(exc)

    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(reports) == 2
    summary = [r.counts() if isinstance(r, ApplyReport) else f"{type(r).__name__}: {r}"[:120] for r in reports]
    print(f"\nsame instant: {summary}")
    done = [r for r in reports if isinstance(r, ApplyReport)]
    assert done, summary
    for r in reports:
        if not isinstance(r, ApplyReport):
            assert isinstance(r, errors.StalePlan) and r.exit_code == 1
        else:
            # The loser's creates answer TOPIC_ALREADY_EXISTS; it reads the winner's topics back, finds them
            # exactly as planned, and reports them unchanged: nothing failed, nothing left to do.
            assert r.exit_code == 0, r.to_json()
            assert {i.outcome for i in r.items} <= {Outcome.APPLIED, Outcome.UNCHANGED}, r.to_json()
    created = Counter(i.name for r in done for i in r.items if i.outcome is Outcome.APPLIED)
    assert created == dict.fromkeys(wanted.topics, 1)  # each topic created by exactly one of the two
    with KafkaAdapter(settings(kafka_single)) as adapter:
        assert plan_now(adapter, wanted).actionable == ()

"""Ctrl-C in the middle of an apply, on a real broker through a slow network: the command line in its own process.

300 topic creates of 10 configs each (3,600 metadata records) go in several CreateTopics (the first carries at most
``limits.FIRST_REQUEST_RECORDS``, the next what the controller committed in ``ANSWER_EVERY_S``), then 5 topic config
changes in a later phase. The tool reaches the broker through ``tests.support.faultproxy``, which holds each read of an
answer (``LATENCY_S``) once the first CreateTopics went through, so a request is still in flight when the test acts.
The test sends SIGINT once a progress line says the first request was answered (it synchronises on that line, not
on a sleep):

- once: the apply sends nothing new, waits for the answer in flight, writes its report (exit 130) naming what was
  applied and what was not started; the topics the report calls applied are exactly those the broker holds, and
  no config was changed;
- twice (the second after the first was acknowledged): the process ends at once (exit 130) saying that the outcome
  of the requests in flight is unknown, without a report.
"""

from __future__ import annotations

import json
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka.admin import NewTopic

from reconciler.apply.lock import LockRequest
from reconciler.base import interrupt
from reconciler.fleet import load_fleet
from reconciler.fleet.applying import run_fleet_apply
from tests.kafka.cluster import KafkaCluster
from tests.kafka.kinds import proxied_node
from tests.support.faultproxy import CREATE_TOPICS, FaultProxy
from tests.support.integration import ownership, write_manifests
from tests.support.live import cli, topic_configs, topics_state
from tests.support.manifest_texts import topic_documents
from tests.support.polling import eventually
from tests.support.running import Running

pytestmark = pytest.mark.kafka

TOPICS = 300
CONFIGS = 5
OLD, NEW = "3600000", "7200000"
LATENCY_S = 3.0  # each read of an answer: a CreateTopics answer of 80 topics (their resolved configs) takes several
ANSWERED = re.compile(rf"^topic create: (\d+)/{TOPICS} answered$")
# 10 configs: 12 records a topic, so that the write needs several requests without thousands of partitions.
CONFIGS_EACH = {
    "retention.ms": "3600000",
    "retention.bytes": "1073741824",
    "segment.ms": "3600000",
    "segment.bytes": "104857600",
    "max.message.bytes": "1048588",
    "delete.retention.ms": "86400000",
    "file.delete.delay.ms": "60000",
    "message.timestamp.type": "CreateTime",
    "compression.type": "producer",
    "min.compaction.lag.ms": "0",
}


@pytest.fixture(scope="module")
def proxy() -> Iterator[FaultProxy]:
    with FaultProxy() as started:
        yield started


@pytest.fixture(scope="module")
def behind_proxy(proxy: FaultProxy) -> Iterator[KafkaCluster]:
    """A node the tool reaches only through ``proxy`` (the test reads it directly)."""
    cluster = proxied_node(proxy)
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def slow(proxy: FaultProxy) -> Iterator[FaultProxy]:
    proxy.set(latency_s=LATENCY_S, latency_from_api=CREATE_TOPICS)
    yield proxy
    proxy.set()


def manifests(directory: Path, prefix: str, cluster: KafkaCluster) -> Path:
    """300 topics to create, and 5 existing topics whose retention.ms changes (a later phase)."""
    with cluster.admin_session() as admin:
        admin.create_topics([NewTopic(n, 1, 1, topic_configs={"retention.ms": OLD}) for n in changed(prefix)])
    specs: dict[str, tuple[int, int, dict[str, str]]] = {
        f"{prefix}{i:03d}": (1, 1, dict(CONFIGS_EACH)) for i in range(TOPICS)
    }
    specs |= {n: (1, 1, {"retention.ms": NEW}) for n in changed(prefix)}
    return write_manifests(directory, ownership(prefix) + "\n---\n" + topic_documents(specs))


def changed(prefix: str) -> list[str]:
    return [f"{prefix}cfg{i}" for i in range(CONFIGS)]


def started_apply(root: Path, proxy: FaultProxy) -> Running:
    run = Running(["apply", str(root), "--bootstrap-server", proxy.address, "--auto-approve", "--timeout", "280"])
    eventually(lambda: first_answered(run) or run.proc.poll() is not None, what="progress", timeout=240)
    assert first_answered(run), run.lines[-30:]  # not ended before: its progress is what the test waited for
    return run


def first_answered(run: Running) -> int:
    """How many topic creates the first answered request carried (0 before it is answered)."""
    found = (ANSWERED.match(line) for line in list(run.lines))
    return next((int(m.group(1)) for m in found if m), 0)


def outcomes(report: str) -> dict[str, str]:
    """Resource address -> outcome, from the plain report's item lines."""
    found: dict[str, str] = {}
    for line in report.splitlines():
        m = re.match(r"^(applied|skipped|failed|unknown|not sent)\s+.*?\s(topic/\S+)", line)
        if m:
            found[m.group(2)] = m.group(1)
    return found


def retentions(cluster: KafkaCluster, prefix: str) -> set[str | None]:
    return {c.get("retention.ms") for c in topic_configs(cluster, changed(prefix)).values()}


def test_the_first_ctrl_c_stops_new_writes_and_the_report_matches_the_cluster(
    behind_proxy: KafkaCluster, slow: FaultProxy, topic_prefix: str, tmp_path: Path
) -> None:
    run = started_apply(manifests(tmp_path / "m", topic_prefix, behind_proxy), slow)
    sent_at = time.monotonic()
    run.proc.send_signal(signal.SIGINT)
    code, stdout, stderr = run.finish()
    print(f"\nexit {code} {time.monotonic() - sent_at:.1f}s after Ctrl-C; first request: {first_answered(run)} topics")

    assert code == 130, stdout + stderr
    assert interrupt.FIRST in stderr, stderr
    assert "Traceback" not in stdout + stderr
    items = outcomes(stdout)
    assert len(items) == TOPICS + CONFIGS, stdout
    applied = {a.removeprefix("topic/") for a, o in items.items() if o == "applied"}
    not_started = {a.removeprefix("topic/") for a, o in items.items() if o == "not sent"}
    assert set(items.values()) == {"applied", "not sent"}, stdout  # each one known: sent and answered, or not sent
    assert len(applied) >= first_answered(run) and set(changed(topic_prefix)) <= not_started, stdout
    assert len(not_started) > CONFIGS, stdout  # a later CreateTopics was not sent, nor the config phase
    note = (
        f"interrupted (Ctrl-C): {len(applied)} of {TOPICS + CONFIGS} change(s) applied, {len(not_started)} not started"
    )
    assert note in stdout, stdout
    print(note)
    assert "run plan" in stdout
    # What the report calls applied is what the broker holds, and nothing it did not start.
    eventually(
        lambda: set(topics_state(behind_proxy, topic_prefix)) - set(changed(topic_prefix)) == applied,
        what="the broker holding exactly the topics reported applied",
    )
    assert retentions(behind_proxy, topic_prefix) == {OLD}


def test_a_second_ctrl_c_exits_at_once_saying_the_outcome_in_flight_is_unknown(
    behind_proxy: KafkaCluster, slow: FaultProxy, topic_prefix: str, tmp_path: Path
) -> None:
    run = started_apply(manifests(tmp_path / "m", topic_prefix, behind_proxy), slow)
    run.proc.send_signal(signal.SIGINT)
    eventually(lambda: run.said("interrupt received"), what="the first Ctrl-C acknowledged", timeout=30)
    run.proc.send_signal(signal.SIGINT)  # while the second CreateTopics is still in flight (its answer is slow)
    code, stdout, stderr = run.finish(timeout=60)

    assert code == 130, stdout + stderr
    assert interrupt.SECOND in stderr, stderr
    assert "Traceback" not in stdout + stderr
    assert "note: interrupted" not in stdout and not outcomes(stdout), stdout  # no report: it ended at once
    assert len(topics_state(behind_proxy, topic_prefix)) >= first_answered(run) + CONFIGS  # the answered ones exist
    assert retentions(behind_proxy, topic_prefix) == {OLD}


def test_a_fleet_apply_interrupted_starts_no_further_cluster_and_exits_130(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    """Ctrl-C during a fleet apply (the flag the first SIGINT sets, ``interrupt.request``): a cluster not started yet
    is not started (``skipped``), nothing is written to it, and the run exits 130 with its summary written."""
    write_manifests(
        tmp_path / "manifests", ownership(topic_prefix) + "\n---\n" + topic_documents({f"{topic_prefix}a": (1, 1, {})})
    )
    fleet_file = tmp_path / "fleet.yaml"
    fleet_file.write_text(
        f"defaults: {{manifests: manifests}}\nclusters:\n  - {{name: one, bootstrap: '{kafka_single.bootstrap}'}}\n"
    )
    out = tmp_path / "out"
    planned = cli(["fleet", "plan", str(fleet_file), "--out", str(out), "--quiet"])
    assert planned.returncode in (0, 2), planned.stdout + planned.stderr
    with interrupt.handling():  # clears the flag when it ends
        interrupt.request()
        result = run_fleet_apply(load_fleet(fleet_file, env={}), out_dir=out, cluster_lock=LockRequest())

    [one] = result.clusters
    assert (one.status, one.reason) == ("skipped", "not started: the run was interrupted (Ctrl-C)")
    assert result.interrupted and result.exit_code == 130
    assert json.loads((out / "apply-summary.json").read_text())["clusters"][0]["status"] == "skipped"
    assert topics_state(kafka_single, topic_prefix) == {}

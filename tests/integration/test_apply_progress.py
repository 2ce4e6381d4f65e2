"""Apply progress on a real broker: a phase sent in several requests advances as each request is answered.

The controller's record limit is lowered for the test (20 records: ten one-partition topics, two records each, per
CreateTopics) so that 30 topic creates take three requests without creating thousands of partitions; the
progress events must say 10, 20 and 30 answered, the first before any item of the phase is reported done, and the
broker must hold every topic afterwards.

With the shipped limits, 1,000 topic creates of one partition (2,000 records, one request by the record limit
alone) go first in a request of at most 1,000 records (``limits.FIRST_REQUEST_RECORDS``: 500 topics), then in
requests sized by how fast the controller answered, so ``kafka-reconciler apply`` run without a terminal prints an
intermediate progress line (``topic create: 500/1000 answered``) before the phase's end.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reconciler import planner
from reconciler.apply import ApplyOptions, apply_plan
from reconciler.apply.apply_report import Outcome
from reconciler.apply.events import ApplyEvent, EventKind
from reconciler.connection.settings import DEFAULT_REQUEST_TIMEOUT_MS
from reconciler.kafka import limits
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.model import desired, plans
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.support.integration import describe_topics
from tests.support.manifest_texts import topic_documents

pytestmark = pytest.mark.kafka


def test_topic_create_progress_advances_per_answered_request(
    kafka_single: KafkaCluster, topic_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_RECORDS_PER_REQUEST", 20)
    names = [f"{topic_prefix}p{i:02d}" for i in range(30)]
    wanted = desired.DesiredState(topics={n: desired.DesiredTopic(n, 1, 1) for n in names})
    events: list[ApplyEvent] = []
    with KafkaAdapter(kafka_single.connection_settings(request_timeout_ms=DEFAULT_REQUEST_TIMEOUT_MS)) as adapter:
        p = planner.plan(wanted, adapter.read_state(kinds=frozenset({Kind.TOPIC})))
        report = apply_plan(p, adapter, options=ApplyOptions(deadline_s=120), events=events.append)
        creates = adapter.request_counts.get("CreateTopics", 0)

    assert [i.outcome for i in report.items] == [Outcome.APPLIED] * 30
    assert creates == 3
    create = [e for e in events if e.phase is plans.Phase.TOPIC_CREATE]
    answered = [(e.done, e.total) for e in create if e.kind is EventKind.ANSWERED]
    assert answered == [(10, 30), (20, 30), (30, 30)]
    kinds = [e.kind for e in create]
    assert kinds.index(EventKind.ANSWERED) < kinds.index(EventKind.ITEM_DONE)
    assert describe_topics(kafka_single, names) == dict.fromkeys(names, 1)


def test_the_cli_prints_intermediate_progress_for_a_thousand_topic_creates(
    kafka_single: KafkaCluster, topic_prefix: str, tmp_path: Path
) -> None:
    names = [f"{topic_prefix}c{i:04d}" for i in range(1000)]
    (tmp_path / "kafka").mkdir()
    (tmp_path / "kafka" / "topics.yaml").write_text(topic_documents({n: (1, 1, {}) for n in names}), encoding="utf-8")
    args = ["apply", "kafka/", "--bootstrap-server", kafka_single.bootstrap, "--auto-approve"]
    done = subprocess.run(
        [sys.executable, "-m", "reconciler", *args], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )

    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("topic create:")]
    assert lines[0] == "topic create: 1000 items"
    assert lines[1] == "topic create: 500/1000 answered"  # the first request: 1,000 records
    steps = [int(line.split()[2].split("/")[0]) for line in lines[1:-1]]  # then each answer but the last
    assert steps == sorted(set(steps)) and all(line.endswith("/1000 answered") for line in lines[1:-1])
    assert lines[-1].startswith("topic create: done in ") and lines[-1].endswith("(1000 applied)")
    assert describe_topics(kafka_single, names) == dict.fromkeys(names, 1)

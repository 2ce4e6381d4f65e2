"""Apply progress on a real broker: a phase sent in several requests advances as each request is answered.

The controller's record limit is lowered for the test (20 records: ten one-partition topics, two records each, per
CreateTopics) so that 30 topic creates take three requests without creating thousands of partitions; the
progress events must say 10, 20 and 30 answered, the first before any item of the phase is reported done, and the
broker must hold every topic afterwards.
"""

from __future__ import annotations

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

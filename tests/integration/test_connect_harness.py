"""The test harness's Kafka Connect worker: a real distributed worker that answers, with real plugins loaded."""

from __future__ import annotations

from tests.kafka.connect import FILE_SINK, FILE_SOURCE, MIRROR_SOURCE, ConnectWorker


def test_the_worker_answers_with_the_file_and_mirror_plugins(connect_worker: ConnectWorker) -> None:
    assert connect_worker.healthy()
    classes = {p["class"] for p in connect_worker.rest("GET", "/connector-plugins")}
    assert {FILE_SOURCE, FILE_SINK, MIRROR_SOURCE} <= classes
    assert connect_worker.start_seconds is not None and connect_worker.start_seconds < 90
    assert "ERROR" not in connect_worker.log_tail(400)

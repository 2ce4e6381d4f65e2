"""Reading Spark's event log: the planning job's tasks are found by job group, and overlaps are counted right."""

from __future__ import annotations

import json
from pathlib import Path

from tests.spark import events


def _task_end(stage: int, start: int, end: int, executor: str, reason: str = "Success") -> dict[str, object]:
    """A task the executor worked on from ``start`` to ``end``; the driver saw it finish 30 ms later."""
    return {
        "Event": "SparkListenerTaskEnd",
        "Stage ID": stage,
        "Task End Reason": {"Reason": reason},
        "Task Info": {"Launch Time": start, "Finish Time": end + 30, "Executor ID": executor, "Host": "127.0.0.1"},
        "Task Metrics": {
            "Executor Deserialize Time": 2,
            "Executor Run Time": end - start - 3,
            "Result Serialization Time": 1,
        },
    }


def test_tasks_of_the_planning_group_and_their_peak_overlap(tmp_path: Path) -> None:
    log = [
        {"Event": "SparkListenerJobStart", "Job ID": 0, "Stage IDs": [0], "Properties": {}},  # the probe
        {"Event": "SparkListenerJobStart", "Job ID": 1, "Stage IDs": [1],
         "Properties": {"spark.jobGroup.id": "kafka-reconciler-plan-abc"}},
        _task_end(0, 0, 50, "driver"),
        _task_end(1, 100, 200, "0"),
        _task_end(1, 110, 150, "1"),
        _task_end(1, 150, 300, "1"),  # starts as the previous one ends: not an overlap with it
        _task_end(1, 160, 170, "0", reason="TaskKilled"),
    ]  # fmt: skip
    (tmp_path / "app-1").write_text("\n".join(json.dumps(e) for e in log) + "\n")
    tasks = events.group_tasks(events.read_events(tmp_path), group_prefix="kafka-reconciler-plan")
    assert [(t.stage, t.executor, t.succeeded) for t in tasks] == [
        (1, "0", True), (1, "1", True), (1, "1", True), (1, "0", False)
    ]  # fmt: skip
    assert events.max_concurrency(tasks) == 3  # 100-200, 150-300 and 160-170 overlap at 160
    assert events.max_concurrency(tasks[:3]) == 2
    assert (events.busy_ms(tasks[:3]), events.span_ms(tasks[:3])) == (290, 200)
    assert events.max_concurrency([]) == 0 and events.span_ms([]) == 0
    legacy = {**_task_end(1, 0, 10, "0"), "Task Metrics": None}  # no metrics: the driver's finish time
    (tmp_path / "app-1").write_text(json.dumps(log[1]) + "\n" + json.dumps(legacy) + "\n")
    assert [t.finished_ms for t in events.group_tasks(events.read_events(tmp_path), group_prefix="kafka")] == [40]

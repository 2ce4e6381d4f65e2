"""Read Spark's own JSON event log: which tasks a job group ran, where, and how many at the same time.

Spark writes one JSON object per line under ``<spark.eventLog.dir>`` (one file, or a folder of rolled
files, per application) when ``spark.eventLog.enabled`` is true (``spark.eventLog.compress=false``
keeps it plain text; the log is complete once the session stops). A fleet run tags its planning job with a job group
(``reconciler.fleet.spark.JOB_GROUP_PREFIX``); ``SparkListenerJobStart`` names the job's stages and
its properties, and each ``SparkListenerTaskEnd`` gives a task's launch time (ms), the executor's
time spent on it (deserialization, run, result serialization) and its executor. A task's interval is
its launch plus that time; ``max_concurrency`` sweeps those intervals.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any


@dataclasses.dataclass(frozen=True, slots=True)
class TaskRun:
    """One finished task attempt of a stage."""

    stage: int
    launched_ms: int
    finished_ms: int
    executor: str
    host: str
    succeeded: bool


def _log_files(log_dir: Path) -> list[Path]:
    # A plain log is one file per application; a rolling one (Spark 4's default) is a folder
    # ``eventlog_v2_<app>`` of ``events_<n>_<app>`` files beside an empty ``appstatus`` marker.
    files = [p for p in log_dir.rglob("*") if p.is_file() and p.stat().st_size > 0]
    return sorted(p for p in files if not p.name.startswith((".", "appstatus")))


def read_events(log_dir: Path) -> list[dict[str, Any]]:
    """Every event of every (uncompressed) event log file under ``log_dir``."""
    events: list[dict[str, Any]] = []
    for path in _log_files(log_dir):
        with path.open(encoding="utf-8") as handle:
            events.extend(json.loads(line) for line in handle if line.strip())
    return events


def group_tasks(events: Iterable[dict[str, Any]], *, group_prefix: str) -> list[TaskRun]:
    """The task attempts of the jobs whose job group starts with ``group_prefix``."""
    events = list(events)
    stages: set[int] = set()
    for e in events:
        if e.get("Event") == "SparkListenerJobStart":
            group = str((e.get("Properties") or {}).get("spark.jobGroup.id") or "")
            if group.startswith(group_prefix):
                stages.update(int(s) for s in e.get("Stage IDs", []))
    out = []
    for e in events:
        if e.get("Event") != "SparkListenerTaskEnd" or int(e.get("Stage ID", -1)) not in stages:
            continue
        info = e["Task Info"]
        out.append(
            TaskRun(
                stage=int(e["Stage ID"]),
                launched_ms=int(info["Launch Time"]),
                finished_ms=_executor_end(info, e.get("Task Metrics") or {}),
                executor=str(info["Executor ID"]),
                host=str(info["Host"]),
                succeeded=(e.get("Task End Reason") or {}).get("Reason") == "Success",
            )
        )
    return out


def _executor_end(info: dict[str, Any], metrics: dict[str, Any]) -> int:
    # "Finish Time" is when the driver has handled the task's result, which can be after the executor
    # has already started its next task in the freed slot; the executor's own times end the task where
    # its slot was freed: launch + deserialization + run + result serialization.
    if "Executor Run Time" not in metrics:
        return int(info["Finish Time"])
    parts = ("Executor Deserialize Time", "Executor Run Time", "Result Serialization Time")
    return int(info["Launch Time"]) + sum(int(metrics.get(k, 0)) for k in parts)


def max_concurrency(tasks: Iterable[TaskRun]) -> int:
    """The largest number of tasks running at one instant (a task ending at t does not overlap one starting at t)."""
    edges = sorted([(t.launched_ms, 1) for t in tasks] + [(t.finished_ms, -1) for t in tasks])
    running = peak = 0
    for _, step in edges:  # at equal times the end (-1) sorts before the start (+1)
        running += step
        peak = max(peak, running)
    return peak


def busy_ms(tasks: Iterable[TaskRun]) -> int:
    """The sum of the tasks' run times (task-milliseconds)."""
    return sum(t.finished_ms - t.launched_ms for t in tasks)


def span_ms(tasks: Iterable[TaskRun]) -> int:
    """From the first task's launch to the last task's finish."""
    runs = list(tasks)
    return max(t.finished_ms for t in runs) - min(t.launched_ms for t in runs) if runs else 0

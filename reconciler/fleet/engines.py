"""The engines' side of a fleet run: progress events, loading each manifest set once, and running the chosen
engine (``local`` in this process, ``spark`` on a session started here or given) over the clusters' tasks.

``produce`` returns the clusters' outcomes as they come (the local engine's lazily); what is done with them
(plans written, summary, history) is ``runner``'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from reconciler.fleet import local, planning, sources, spec

Engine = Literal["local", "spark"]


@dataclasses.dataclass(frozen=True, slots=True)
class FleetEvent:
    """A progress report: ``stage`` is ``load``, ``read``, ``plan``, ``unreadable`` or ``write``."""

    stage: str
    message: str
    cluster: str | None = None
    rows: int = 0


Progress = Callable[[FleetEvent], None]


def emit(progress: Progress | None, event: FleetEvent) -> None:
    if progress is not None:
        progress(event)


def load(
    fleet: spec.FleetSpec, *, env: Mapping[str, str] | None, progress: Progress | None
) -> tuple[dict[str, sources.DesiredSet], list[sources.ClusterTask], list[planning.ClusterOutcome]]:
    """Each distinct manifest set loaded once; a task per cluster whose manifests loaded, a failed outcome
    (reported) per cluster whose did not."""
    emit(progress, FleetEvent("load", f"loading manifests for {len(fleet.clusters)} cluster(s)"))
    desired_sets = sources.load_desired(fleet.clusters, env=env)
    tasks: list[sources.ClusterTask] = []
    failed: list[planning.ClusterOutcome] = []
    for cluster in fleet.clusters:
        loaded = sources.placed_set(cluster, desired_sets[sources.desired_key(cluster)], desired_sets)
        if loaded.desired is None:
            failed.append(
                planning.ClusterOutcome(cluster=cluster.name, status=planning.STATUS_FAILED, reason=loaded.error)
            )
            emit(progress, FleetEvent("unreadable", f"{cluster.name}: {loaded.error}", cluster=cluster.name))
            continue
        tasks.append(sources.make_task(cluster, loaded))
    return desired_sets, tasks, failed


@dataclasses.dataclass(frozen=True)
class SparkChoice:
    """Where the spark engine runs: a given ``session`` (left running), else a new one on ``master`` with ``conf``."""

    master: str | None
    session: Any
    conf: Mapping[str, str] | None


def produce(
    tasks: list[sources.ClusterTask],
    desired_sets: Mapping[str, sources.DesiredSet],
    *,
    engine: Engine,
    spark: SparkChoice,
    read_concurrency: int | None,
    deadline_at: float | None,
    progress: Progress | None,
) -> Iterable[planning.ClusterOutcome]:
    """The clusters' outcomes from the chosen engine (the local engine's as they come)."""
    if engine == "spark" and tasks:
        from reconciler.fleet import spark as spark_engine

        def on_progress(done: int, total: int) -> None:
            emit(progress, FleetEvent("plan", f"{done} of {total} Spark task(s) finished"))

        session = spark.session or spark_engine.session(spark.master, conf=spark.conf, deadline_at=deadline_at)
        try:
            emit(
                progress,
                FleetEvent("load", f"Spark on {session.sparkContext.master}: {len(tasks)} cluster task(s)"),
            )
            return spark_engine.run_spark(
                tasks,
                desired_sets,
                spark=session,
                max_parallel=read_concurrency,
                deadline_at=deadline_at,
                on_progress=on_progress,
            )
        finally:
            if spark.session is None:
                spark_engine.stop(session)

    def on_read(name: str, rows: int) -> None:
        emit(progress, FleetEvent("read", f"read {name} ({rows} live rows)", cluster=name, rows=rows))

    return local.run_local(
        tasks,
        desired_sets,
        on_read=on_read,
        read_ahead=read_concurrency or local.READ_AHEAD,
        deadline_at=deadline_at,
    )

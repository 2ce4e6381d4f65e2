"""``run_fleet_plan``: plan every cluster of a fleet with one engine and write the plans and the summary.

Steps: load each distinct manifest set once; make one task per cluster; let the engine read live
state, join and plan; write ``<out_dir>/<cluster>/plan.json`` (the single-cluster plan format, so
``show`` and ``apply --plan`` take it) and the summary files. A cluster whose manifests are invalid
or whose live state cannot be read is reported with the reason and the result is ``partial``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from reconciler import errors, state
from reconciler.fleet import local, planning, report, sources, spec

Engine = Literal["local", "spark"]


@dataclasses.dataclass(frozen=True, slots=True)
class FleetEvent:
    """A progress report: ``stage`` is ``load``, ``read``, ``plan``, ``unreadable`` or ``write``."""

    stage: str
    message: str
    cluster: str | None = None
    rows: int = 0


Progress = Callable[[FleetEvent], None]


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterResult:
    """One cluster's line of the result."""

    name: str
    status: str  # planned, unreadable, failed
    reason: str | None
    plan_path: Path | None
    counts: Mapping[str, int]


@dataclasses.dataclass(frozen=True, slots=True)
class FleetResult:
    """What a fleet plan produced; ``partial`` when any cluster could not be planned (CLI exit code 3)."""

    engine: str
    clusters: tuple[ClusterResult, ...]
    summary: Mapping[str, Any]
    outputs: tuple[Path, ...]
    notes: tuple[str, ...]
    rows: int
    seconds: float

    @property
    def partial(self) -> bool:
        return any(c.status != planning.STATUS_PLANNED for c in self.clusters)

    @property
    def has_changes(self) -> bool:
        return any(c.counts.get(a) for c in self.clusters for a in ("create", "update", "delete"))

    @property
    def exit_code(self) -> int:
        return 3 if self.partial else 0


def _emit(progress: Progress | None, event: FleetEvent) -> None:
    if progress is not None:
        progress(event)


def _write_plan(out_dir: Path, outcome: planning.ClusterOutcome) -> Path | None:
    if outcome.plan_json is None:
        return None
    directory = out_dir / outcome.cluster
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "plan.json"
    state.write_private_file(path, outcome.plan_json)
    return path


def run_fleet_plan(
    fleet: spec.FleetSpec,
    *,
    engine: Engine = "local",
    master: str | None = None,
    out_dir: Path,
    progress: Progress | None = None,
    spark_session: Any = None,
    spark_conf: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
) -> FleetResult:
    """Plan every cluster of ``fleet`` and write plans and summary under ``out_dir``.

    ``engine="spark"`` runs on ``master`` (default ``local[*]``), or on ``spark_session`` when given
    (it is then left running). ``env`` feeds ``${VAR}`` in the manifests (default: the process environment).
    """
    if engine not in ("local", "spark"):
        raise errors.ConfigError(f"unknown engine {engine!r}: use local or spark")
    started = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    _emit(progress, FleetEvent("load", f"loading manifests for {len(fleet.clusters)} cluster(s)"))
    desired_sets = sources.load_desired(fleet.clusters, env=env)
    tasks: list[sources.ClusterTask] = []
    outcomes: list[planning.ClusterOutcome] = []
    for cluster in fleet.clusters:
        loaded = desired_sets[sources.desired_key(cluster)]
        if loaded.desired is None:
            outcomes.append(
                planning.ClusterOutcome(cluster=cluster.name, status=planning.STATUS_FAILED, reason=loaded.error)
            )
            _emit(progress, FleetEvent("unreadable", f"{cluster.name}: {loaded.error}", cluster=cluster.name))
            continue
        tasks.append(sources.make_task(cluster, loaded))

    def on_read(name: str, rows: int) -> None:
        _emit(progress, FleetEvent("read", f"read {name} ({rows} live rows)", cluster=name, rows=rows))

    session = None
    if engine == "spark" and tasks:
        from reconciler.fleet import spark as spark_engine

        session = spark_session or spark_engine.session(master, conf=spark_conf)
        _emit(progress, FleetEvent("load", f"Spark on {session.sparkContext.master}: {len(tasks)} cluster task(s)"))
        produced = spark_engine.run_spark(tasks, desired_sets, spark=session)
    else:
        produced = local.run_local(tasks, desired_sets, on_read=on_read)
    total_rows = 0
    plan_paths: dict[str, Path | None] = {}
    try:
        for outcome in produced:
            outcomes.append(outcome)
            total_rows += outcome.rows
            plan_paths[outcome.cluster] = _write_plan(out_dir, outcome)
            if outcome.status == planning.STATUS_PLANNED:
                _emit(
                    progress,
                    FleetEvent(
                        "plan", f"planned {outcome.cluster} ({outcome.rows} rows)", outcome.cluster, outcome.rows
                    ),
                )
            else:
                _emit(progress, FleetEvent("unreadable", f"{outcome.cluster}: {outcome.reason}", outcome.cluster))
    finally:
        if session is not None and spark_session is None:
            session.stop()
    summary = report.build_summary(outcomes, engine=engine)
    _emit(progress, FleetEvent("write", f"writing the summary to {out_dir}"))
    outputs, note = report.write_outputs(summary, out_dir)
    order = {c.name: i for i, c in enumerate(fleet.clusters)}
    counts = {c["name"]: c.get("counts", {}) for c in summary["clusters"]}
    results = tuple(
        ClusterResult(
            name=o.cluster,
            status=o.status,
            reason=o.reason,
            plan_path=plan_paths.get(o.cluster),
            counts=counts.get(o.cluster, {}),
        )
        for o in sorted(outcomes, key=lambda o: order.get(o.cluster, len(order)))
    )
    return FleetResult(
        engine=engine,
        clusters=results,
        summary=summary,
        outputs=tuple(outputs),
        notes=(note,) if note else (),
        rows=total_rows,
        seconds=time.perf_counter() - started,
    )

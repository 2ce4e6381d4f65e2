"""``run_fleet_plan``: plan every cluster of a fleet with one engine and write the plans and the summary.

Steps: load each distinct manifest set once; make one read task per cluster; let the engine (``engines``) read live
state, join and plan; write ``<out_dir>/<cluster>/plan.json`` (the single-cluster plan format, so
``show`` and ``apply --plan`` take it) and the summary files; remove the ``plan.json`` a previous
run left for a cluster this run did not plan. A cluster whose manifests are invalid, whose live
state cannot be read or that the run's deadline left unread is reported with the reason and the
result is ``partial``. Every run has an id and a UTC start time, written into every output.
"""

from __future__ import annotations

import dataclasses
import datetime
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from reconciler.base import errors
from reconciler.fleet import engines, history, lock, notify, outputs, planning, retry, sources, spec, summary

Engine = engines.Engine
FleetEvent = engines.FleetEvent
Progress = engines.Progress


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
    """What a fleet plan produced; ``partial`` when any cluster could not be planned (see ``exit_code``)."""

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
        """0 every cluster planned, 3 partial."""
        return 3 if self.partial else 0

    @property
    def detailed_exit_code(self) -> int:
        """0 complete without changes, 2 complete with changes, 3 partial without changes, 4 partial with changes."""
        return (3 if self.partial else 0) + (1 if self.partial else 2) * self.has_changes


class FleetRunFailed(errors.ConfigError):
    """The engine failed (Spark could not start, its executors cannot run this package, its job failed); the run
    was recorded as failed (summary, reports, history) before this was raised. ``result`` is what was written."""

    def __init__(self, message: str, result: FleetResult) -> None:
        super().__init__(message)
        self.result = result


def select_clusters(fleet: spec.FleetSpec, names: Sequence[str] | None) -> spec.FleetSpec:
    """The fleet restricted to ``names`` (in file order); unknown names raise ``ConfigError``."""
    if not names:
        return fleet
    known = {c.name for c in fleet.clusters}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise errors.ConfigError(
            f"--clusters names cluster(s) not in {fleet.source or 'the fleet file'}: {', '.join(unknown)}"
        )
    wanted = set(names)
    return dataclasses.replace(fleet, clusters=tuple(c for c in fleet.clusters if c.name in wanted))


def spark_conf(items: Sequence[str]) -> dict[str, str]:
    """Spark settings from ``--conf key=value`` items (a later key wins)."""
    settings: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise errors.ConfigError(f"--conf {item!r}: expected key=value, e.g. --conf spark.executor.memory=2g")
        settings[key.strip()] = value
    return settings


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
    read_concurrency: int | None = None,
    deadline_s: float | None = None,
    retry_failed: Path | None = None,
    keep_history: history.Retention | None = None,
    webhook: str | None = None,
) -> FleetResult:
    """Plan every cluster of ``fleet`` and write plans and summary under ``out_dir``.

    ``engine="spark"`` runs on ``master`` (default ``local[*]``) with ``spark_conf``, or on
    ``spark_session`` when given (it is then left running). ``env`` feeds ``${VAR}`` in the manifests
    (default: the process environment). ``read_concurrency`` bounds how many clusters are read at
    once (local default 8; Spark: the number of tasks, default one to four per executor core, each
    reading up to 8 of its clusters at once).
    ``deadline_s`` bounds the run: a cluster not yet read by then is reported ``skipped``.
    ``retry_failed`` (an earlier run's ``summary.json``) plans only the clusters that run could not
    plan; into that run's own folder, the others are carried over (``retry``). ``keep_history`` prunes
    ``history/`` after the run is added to it (default: keep every run). ``webhook`` (an http(s) URL) is told
    of new drift, resolved drift and a failed run (``notify``).
    """
    if webhook is not None:
        notify.check_url(webhook)
    _check_arguments(engine=engine, read_concurrency=read_concurrency, deadline_s=deadline_s)
    with lock.hold(out_dir, command=lock.command_line()):
        return _run(
            fleet,
            engine=engine,
            out_dir=out_dir,
            progress=progress,
            spark=engines.SparkChoice(master=master, session=spark_session, conf=spark_conf),
            env=env,
            read_concurrency=read_concurrency,
            deadline_s=deadline_s,
            retry_failed=retry_failed,
            keep_history=keep_history,
            webhook=webhook,
        )


def _run(
    fleet: spec.FleetSpec,
    *,
    engine: Engine,
    out_dir: Path,
    progress: Progress | None,
    spark: engines.SparkChoice,
    env: Mapping[str, str] | None,
    read_concurrency: int | None,
    deadline_s: float | None,
    retry_failed: Path | None,
    keep_history: history.Retention | None,
    webhook: str | None,
) -> FleetResult:
    """``run_fleet_plan`` once the folder is locked."""
    started = time.perf_counter()
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    run = summary.RunInfo(run_id=uuid.uuid4().hex, started_at=now, engine=engine)
    deadline_at = None if deadline_s is None else time.time() + deadline_s
    whole = fleet
    fleet, carried, retry_of = _retrying(whole, retry_failed=retry_failed, out_dir=out_dir, progress=progress)
    out_dir.mkdir(parents=True, exist_ok=True)
    desired_sets, tasks, unloaded = engines.load(fleet, env=env, progress=progress)
    outcomes: list[planning.ClusterOutcome] = [*carried, *unloaded]
    plan_paths: dict[str, Path | None] = {o.cluster: out_dir / o.cluster / "plan.json" for o in carried}
    failure: errors.ReconcilerError | None = None
    try:
        produced = engines.produce(
            tasks,
            desired_sets,
            engine=engine,
            spark=spark,
            read_concurrency=read_concurrency,
            deadline_at=deadline_at,
            progress=progress,
        )
        _write_plans(produced, out_dir=out_dir, outcomes=outcomes, plan_paths=plan_paths, progress=progress)
    except errors.ReconcilerError as exc:  # the engine failed (Spark could not start, ...): recorded, then raised
        failure = exc
        outcomes += _not_planned(tasks, outcomes, reason=f"not planned: the run failed: {exc}")
    run = dataclasses.replace(run, seconds=round(time.perf_counter() - started, 3))
    result = _record(
        outcomes,
        _Recorded(run=run, whole=whole, carried=carried, plan_paths=plan_paths, retry_of=retry_of, failure=failure),
        out_dir=out_dir,
        keep_history=keep_history,
        progress=progress,
        webhook=webhook,
    )
    if failure is not None:
        raise FleetRunFailed(f"{failure}; the failed run is recorded in {out_dir / 'summary.json'}", result)
    return result


@dataclasses.dataclass(frozen=True)
class _Recorded:
    """What a run did, to be written: its metadata (with the duration), the fleet, the outcomes carried over from
    the run retried, each cluster's plan file, and the engine's failure if any."""

    run: summary.RunInfo
    whole: spec.FleetSpec
    carried: Sequence[planning.ClusterOutcome]
    plan_paths: Mapping[str, Path | None]
    retry_of: str | None
    failure: errors.ReconcilerError | None


def _record(
    outcomes: list[planning.ClusterOutcome],
    done: _Recorded,
    *,
    out_dir: Path,
    keep_history: history.Retention | None,
    progress: Progress | None,
    webhook: str | None,
) -> FleetResult:
    """Remove what the run supersedes (a failed run supersedes nothing: the plan and apply files an earlier run
    wrote stay), write its summary files and history, tell the webhook, and make its result."""
    planned = {name for name, path in done.plan_paths.items() if path is not None}
    removed: list[str] = []
    superseded: list[str] = []
    kept: list[str] = []
    if done.failure is None:
        removed = outputs.remove_stale_plans(out_dir, planned)
        superseded = outputs.remove_apply_files(out_dir, kept={o.cluster for o in done.carried})
    else:
        kept = outputs.earlier_plans(out_dir, planned)
    failure = None if done.failure is None else str(done.failure)
    summary_doc = summary.build_summary(
        outcomes,
        run=done.run,
        stale_removed=removed,
        retry_of=done.retry_of,
        failure=failure,
        labels={c.name: dict(c.labels) for c in done.whole.clusters},
    )
    engines.emit(progress, FleetEvent("write", f"writing the summary to {out_dir}"))
    written, written_notes = summary.write_outputs(summary_doc, out_dir, retention=keep_history)
    notes = _notes(written_notes, removed=len(removed), carried=len(done.carried), retry_of=done.retry_of)
    if superseded:
        notes.append(f"removed {len(superseded)} apply file(s) about the plans this run replaced")
    if kept:
        notes.append(
            f"kept {len(kept)} plan file(s) an earlier run wrote for clusters this failed run did not plan "
            f"({', '.join(kept)}): not this run's, so fleet apply of this run does not apply them"
        )
    if webhook is not None:
        trend = history.trend(out_dir) if sources.parquet_available() else None
        told = notify.notify(webhook, summary_doc, trend, report=(out_dir / "report.html").resolve())
        notes += [told] if told else []
    return FleetResult(
        engine=done.run.engine,
        clusters=_results(outcomes, fleet=done.whole, summary_doc=summary_doc, plan_paths=done.plan_paths),
        summary=summary_doc,
        outputs=tuple(written),
        notes=tuple(notes),
        rows=sum(o.rows for o in outcomes),
        seconds=done.run.seconds or 0.0,
    )


def _not_planned(
    tasks: Sequence[sources.ClusterTask], outcomes: Sequence[planning.ClusterOutcome], *, reason: str
) -> list[planning.ClusterOutcome]:
    """A failed outcome for each task's cluster the engine gave no outcome for."""
    done = {o.cluster for o in outcomes}
    return [
        planning.ClusterOutcome(cluster=t.name, status=planning.STATUS_FAILED, reason=reason)
        for t in tasks
        if t.name not in done
    ]


def _write_plans(
    produced: Iterable[planning.ClusterOutcome],
    *,
    out_dir: Path,
    outcomes: list[planning.ClusterOutcome],
    plan_paths: dict[str, Path | None],
    progress: Progress | None,
) -> None:
    """Write each cluster's plan as its outcome comes: the outcome added to ``outcomes``, its plan file (``None``:
    none written) to ``plan_paths`` (both kept up to date, so that an engine failing midway loses nothing done)."""
    for outcome in produced:
        outcomes.append(outcome)
        plan_paths[outcome.cluster] = outputs.write_plan(out_dir, outcome)
        if outcome.status == planning.STATUS_PLANNED:
            engines.emit(
                progress,
                FleetEvent("plan", f"planned {outcome.cluster} ({outcome.rows} rows)", outcome.cluster, outcome.rows),
            )
        else:
            engines.emit(progress, FleetEvent("unreadable", f"{outcome.cluster}: {outcome.reason}", outcome.cluster))


def _retrying(
    whole: spec.FleetSpec, *, retry_failed: Path | None, out_dir: Path, progress: Progress | None
) -> tuple[spec.FleetSpec, list[planning.ClusterOutcome], str | None]:
    """``--retry-failed``: the clusters the earlier run did not plan, the outcomes it carries over, and its id
    (without it: every cluster, nothing carried over, no earlier run)."""
    if retry_failed is None:
        return whole, [], None
    previous = retry.load_previous(retry_failed)
    retry_of = str(previous["run"]["id"])
    fleet = retry.retry_selection(whole, previous)
    if not retry.same_folder(previous, out_dir):
        engines.emit(
            progress, FleetEvent("load", f"retrying {len(fleet.clusters)} cluster(s) run {retry_of} did not plan")
        )
        return fleet, [], retry_of
    applied = retry.applied_since(previous, out_dir)
    carried = retry.carried_outcomes(previous, fleet=whole, out_dir=out_dir, skip=applied)
    # into the same folder: every cluster whose plan is not carried over is planned again (not planned then,
    # applied since, or its plan file changed), so the folder again describes the whole fleet as it is now
    kept = {o.cluster for o in carried}
    fleet = dataclasses.replace(whole, clusters=tuple(c for c in whole.clusters if c.name not in kept))
    again = sorted(applied & {c.name for c in fleet.clusters})
    why = f" ({len(again)} applied since: {', '.join(again)})" if again else ""
    engines.emit(progress, FleetEvent("load", f"retrying {len(fleet.clusters)} cluster(s) of run {retry_of}{why}"))
    return fleet, carried, retry_of


def _notes(written: list[str], *, removed: int, carried: int, retry_of: str | None) -> list[str]:
    """What the run tells besides the clusters: the outputs' notes, stale plans removed, clusters carried over."""
    notes = list(written)
    if removed:
        notes.append(f"removed {removed} plan file(s) an earlier run left for clusters not planned now")
    if carried:
        notes.append(f"{carried} cluster(s) planned by run {retry_of} kept as they were")
    return notes


def _check_arguments(*, engine: str, read_concurrency: int | None, deadline_s: float | None) -> None:
    if engine not in ("local", "spark"):
        raise errors.ConfigError(f"unknown engine {engine!r}: use local or spark")
    if read_concurrency is not None and read_concurrency < 1:
        raise errors.ConfigError(f"read concurrency must be at least 1, got {read_concurrency}")
    if deadline_s is not None and deadline_s <= 0:
        raise errors.ConfigError(f"the run deadline must be positive, got {deadline_s} s")


def _results(
    outcomes: list[planning.ClusterOutcome],
    *,
    fleet: spec.FleetSpec,
    summary_doc: Mapping[str, Any],
    plan_paths: Mapping[str, Path | None],
) -> tuple[ClusterResult, ...]:
    """One result per cluster, in the fleet file's order, with its plan file and counts."""
    order = {c.name: i for i, c in enumerate(fleet.clusters)}
    counts = {c["name"]: c.get("counts", {}) for c in summary_doc["clusters"]}
    return tuple(
        ClusterResult(
            name=o.cluster,
            status=o.status,
            reason=o.reason,
            plan_path=plan_paths.get(o.cluster),
            counts=counts.get(o.cluster, {}),
        )
        for o in sorted(outcomes, key=lambda o: order.get(o.cluster, len(order)))
    )

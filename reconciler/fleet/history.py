"""The run history of a fleet output folder: each run's Parquet tables kept under ``history/``, and the trend.

``save_run`` copies the run's ``clusters.parquet`` and ``drift.parquet`` to
``history/<UTC time>-<run id>/`` (with the permissions the umask gives, like the summary files). ``trend`` reads
the last runs kept there: per run the clusters with changes and the drifted resources (those a plan would create,
update, delete or that are blocked), and the drift that is new or resolved since the last successful run (the
last run that did not fail: a failed run planned nothing, so comparing with it would leave every cluster out),
compared only over the clusters both runs planned (a cluster that was down is not "resolved"), with each
cluster's status in that run (what ``notify`` compares a cluster's status with) and the failed runs in between.
Needs pyarrow, as the Parquet files do.
"""

from __future__ import annotations

import dataclasses
import datetime
from pathlib import Path
from typing import Any

from reconciler.base import errors, fileio

HISTORY = "history"
TABLES = ("clusters.parquet", "drift.parquet")
TREND_RUNS = 30  # runs read for the trend chart
DriftKey = tuple[str, str, str]  # cluster, kind, name


@dataclasses.dataclass(frozen=True, slots=True)
class RunPoint:
    run_id: str
    run_at: str
    clusters_with_changes: int
    drifted: int
    status: str = "complete"  # complete, partial or failed (the run's summary status)
    planned: int = 0  # clusters planned
    total: int = 0  # clusters in the run


@dataclasses.dataclass(frozen=True, slots=True)
class Trend:
    """The runs in the folder (oldest first, the current one last) and what changed since the previous one."""

    runs: tuple[RunPoint, ...]
    previous: str | None  # "<run id> at <UTC start>" of the last successful run before the current one
    new: tuple[DriftKey, ...]
    resolved: tuple[DriftKey, ...]
    left_out: tuple[str, ...] = ()  # clusters of either run not planned by both: not compared
    statuses: tuple[tuple[str, str, str | None], ...] = ()  # (cluster, status, reason) in the previous run
    failed_since: tuple[str, ...] = ()  # "<run id> at <UTC start>" of the failed runs since the previous one


def save_run(out_dir: Path, run: dict[str, Any]) -> Path:
    """Keep this run's Parquet tables under ``history/``; returns the run's history folder."""
    # when the run ended, to the microsecond: folders sort in run order even for runs in the same second
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    folder = out_dir / HISTORY / f"{stamp}-{run['id']}"
    folder.mkdir(parents=True, exist_ok=True)
    for table in TABLES:
        fileio.write_file(folder / table, (out_dir / table).read_bytes())
    return folder


@dataclasses.dataclass(frozen=True, slots=True)
class Retention:
    """How much of ``history/`` to keep: the last ``runs`` runs, or the runs of the last ``days`` days."""

    runs: int | None = None
    days: int | None = None

    @classmethod
    def parse(cls, text: str) -> Retention:
        """``30`` (runs) or ``14d`` (days); ``ConfigError`` otherwise."""
        value = text.strip().lower()
        days = value.endswith("d")
        number = value[:-1] if days else value
        if not number.isdigit() or int(number) < 1:
            raise errors.ConfigError(
                f"--keep-history {text!r}: give a number of runs (e.g. 30) or of days (e.g. 14d), at least 1"
            )
        return cls(days=int(number)) if days else cls(runs=int(number))

    def describe(self) -> str:
        return f"the last {self.runs} run(s)" if self.runs is not None else f"the runs of the last {self.days} day(s)"


def _stamp(folder: Path) -> datetime.datetime | None:
    try:
        return datetime.datetime.strptime(folder.name.split("-", 1)[0], "%Y%m%dT%H%M%S%fZ").replace(
            tzinfo=datetime.timezone.utc
        )
    except ValueError:
        return None


def prune(out_dir: Path, retention: Retention, *, now: datetime.datetime | None = None) -> list[str]:
    """Remove the run folders of ``history/`` that ``retention`` does not keep (never the newest run, nor a folder
    not named like a run); the names removed, oldest first."""
    import shutil

    root = out_dir / HISTORY
    if not root.is_dir():
        return []
    runs = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink() and _stamp(p) is not None)
    if retention.runs is not None:
        gone = runs[: max(0, len(runs) - retention.runs)]
    else:
        assert retention.days is not None
        cutoff = (now or datetime.datetime.now(datetime.timezone.utc)) - datetime.timedelta(days=retention.days)
        gone = [p for p in runs[:-1] if (_stamp(p) or cutoff) < cutoff]
    for folder in gone:
        shutil.rmtree(folder)
    return [p.name for p in gone]


@dataclasses.dataclass(frozen=True, slots=True)
class _Run:
    """One kept run as ``trend`` reads it."""

    point: RunPoint
    planned: set[str]
    keys: set[DriftKey]
    names: set[str]
    statuses: tuple[tuple[str, str, str | None], ...]


def _read(folder: Path) -> _Run | None:
    import pyarrow.parquet as pq

    try:
        clusters = pq.read_table(str(folder / "clusters.parquet")).to_pylist()
        drift = pq.read_table(str(folder / "drift.parquet"), columns=["cluster", "kind", "name", "action"]).to_pylist()
    except (OSError, ValueError):  # a run folder someone pruned by hand, or a partial copy
        return None
    if not clusters:
        return None
    planned = {str(r["cluster"]) for r in clusters if r["status"] == "planned"}
    changed = {str(r["cluster"]) for r in clusters if any(r.get(a) for a in ("create", "update", "delete"))}
    keys = {(str(d["cluster"]), str(d["kind"]), str(d["name"])) for d in drift if d["action"] != "unmanaged"}
    first = clusters[0]
    run_at = first["run_at"].isoformat() if first.get("run_at") is not None else ""
    names = {str(r["cluster"]) for r in clusters}
    # runs kept before the run's status was recorded: partial when some cluster was not planned
    status = first.get("run_status") or ("complete" if planned == names else "partial")
    point = RunPoint(str(first["run_id"]), run_at, len(changed), len(keys), str(status), len(planned), len(names))
    statuses = {str(r["cluster"]): (str(r["status"]), r.get("reason")) for r in clusters}
    return _Run(point, planned, keys, names, tuple((c, st, why) for c, (st, why) in sorted(statuses.items())))


def trend(out_dir: Path, *, limit: int = TREND_RUNS) -> Trend | None:
    """The trend of the runs kept in ``out_dir/history`` (the current run last); ``None`` without any."""
    root = out_dir / HISTORY
    if not root.is_dir():
        return None
    read = [r for r in (_read(f) for f in sorted(p for p in root.iterdir() if p.is_dir())[-limit:]) if r is not None]
    if not read:
        return None
    runs = tuple(r.point for r in read)
    current = read[-1]
    earlier = [r for r in read[:-1] if r.point.status != "failed"]
    failed = tuple(f"{r.point.run_id} at {r.point.run_at}" for r in _failed_since(read))
    if not earlier:
        return Trend(runs, None, (), (), failed_since=failed)
    before = earlier[-1]
    both = before.planned & current.planned
    now = {k for k in current.keys if k[0] in both}
    then = {k for k in before.keys if k[0] in both}
    left_out = tuple(sorted((before.names | current.names) - both))
    previous = f"{before.point.run_id} at {before.point.run_at}"
    return Trend(
        runs,
        previous,
        tuple(sorted(now - then)),
        tuple(sorted(then - now)),
        left_out,
        statuses=before.statuses,
        failed_since=failed,
    )


def _failed_since(read: list[_Run]) -> list[_Run]:
    """The failed runs right before the current one (back to the last run that did not fail)."""
    failed: list[_Run] = []
    for run in reversed(read[:-1]):
        if run.point.status != "failed":
            break
        failed.insert(0, run)
    return failed

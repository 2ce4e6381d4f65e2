"""The fleet summary: counts by cluster, kind and action, unreadable clusters, the most drifted resources.

Each planned cluster's entry carries its plan's impact figures (``impact``: bytes and records deleted at once,
bytes copied, topics whose producers may fail), as do its ``clusters.parquet`` rows (``impact_*`` columns).
Written three ways from one summary document: ``summary.json`` (the document), Parquet tables
(``clusters.parquet``, ``drift.parquet``; needs pyarrow, which the ``spark`` extra installs; without
it they are skipped and the result says so), ``report.md`` for people, clusters sorted by drift, and
``report.html`` (``report_html``, with the trend of the runs kept in ``history/``).
Apart from the run's metadata (id, UTC start time, duration, engine; in every Parquet row too, with
the cluster id and the plan's checksum) the document depends only on the plans, so both engines
write the same summary for the same fleet. These files hold counts and resource names, nothing secret: they are
written with the permissions the umask gives, as other reports (the plans stay user-only).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from reconciler.base import fileio
from reconciler.fleet import history, planning, sources

SUMMARY_FORMAT = "kafka-reconciler/fleet-summary"
SUMMARY_VERSION = 1
TOP_DRIFTED = 25
ACTIONS = planning.ACTIONS
NO_KIND = "none"  # clusters.parquet's kind for a cluster whose plan has no kind (not planned, or nothing to compare)
CHANGE_ACTIONS = ("create", "update", "delete", "blocked")
# The plan's impact figures each clusters.parquet row carries (null when the plan has no impact).
IMPACT_COLUMNS = ("deletes_bytes", "deletes_records", "copies_bytes", "min_isr_topics")


@dataclasses.dataclass(frozen=True, slots=True)
class RunInfo:
    """What identifies one run in every output: a random id, its UTC start time and the engine."""

    run_id: str
    started_at: datetime.datetime  # timezone-aware, UTC
    engine: str
    seconds: float | None = None  # the run's duration, up to writing the summary

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"id": self.run_id, "started_at": self.started_at.isoformat(), "engine": self.engine}
        if self.seconds is not None:
            doc["duration_s"] = round(self.seconds, 3)
        return doc


def drift_score(cluster: Mapping[str, Any]) -> tuple[int, int]:
    """How far a cluster is from its manifests: changes wanted (create, update, delete, blocked), then
    resources differing; ``(-1, -1)`` for a cluster that was not planned."""
    counts = cluster.get("counts")
    if not counts:
        return (-1, -1)
    return (sum(int(counts[a]) for a in CHANGE_ACTIONS), int(cluster.get("resources_differing", 0)))


def by_drift(clusters: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Planned clusters most drifted first (ties by name), then the clusters that were not planned."""
    planned = [c for c in clusters if c.get("counts")]
    planned.sort(key=lambda c: (tuple(-n for n in drift_score(c)), c["name"]))
    return planned + sorted((c for c in clusters if not c.get("counts")), key=lambda c: c["name"])


def _cluster_entry(outcome: planning.ClusterOutcome) -> dict[str, Any]:
    """A cluster's line in the summary: its status and, when planned, its plan file, counts and findings."""
    entry: dict[str, Any] = {"name": outcome.cluster, "status": outcome.status, "reason": outcome.reason}
    digest = outcome.digest
    if digest is None:
        return entry
    entry.update(
        plan=f"{outcome.cluster}/plan.json",
        cluster_id=digest.cluster_id,
        plan_checksum=digest.checksum,
        counts=dict(digest.counts),
        by_kind={k: dict(v) for k, v in digest.by_kind.items()},
        warnings=digest.warnings,
        errors=digest.errors,
        resources_differing=outcome.differing,
    )
    if digest.impact is not None:
        entry["impact"] = digest.impact
    if outcome.planned_in is not None:
        entry["planned_in_run"] = outcome.planned_in
    return entry


def build_summary(
    outcomes: Sequence[planning.ClusterOutcome],
    *,
    run: RunInfo,
    stale_removed: Sequence[str] = (),
    retry_of: str | None = None,
    failure: str | None = None,
    labels: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, Any]:
    """The summary document; clusters in name order, so it does not depend on the engine's order.

    ``failure`` (the engine's error) makes the run ``failed`` (with ``error``); ``labels`` (cluster -> its
    ``fleet.yaml`` labels) go into each cluster's entry. Built from each outcome's ``digest`` (computed where
    the plan was made): no plan is parsed here.
    """
    clusters: list[dict[str, Any]] = []
    totals = dict.fromkeys(ACTIONS, 0)
    by_kind: dict[str, dict[str, int]] = {}
    drifted: list[dict[str, Any]] = []
    for outcome in sorted(outcomes, key=lambda o: o.cluster):
        clusters.append({**_cluster_entry(outcome), "labels": dict((labels or {}).get(outcome.cluster, {}))})
        digest = outcome.digest
        if digest is None:
            continue
        for action, n in digest.counts.items():
            totals[action] += n
        for kind, numbers in digest.by_kind.items():
            slot = by_kind.setdefault(kind, dict.fromkeys(ACTIONS, 0))
            for action, n in numbers.items():
                slot[action] += n
        for d in outcome.drift:
            drifted.append({"cluster": outcome.cluster, **d.to_dict()})
    drifted.sort(key=lambda d: (-d["attributes"], d["cluster"], d["kind"], d["name"]))
    unreadable = [{"name": c["name"], "status": c["status"], "reason": c["reason"]} for c in clusters if c["reason"]]
    with_changes = sum(
        1 for c in clusters if c.get("counts") and any(c["counts"][a] for a in ("create", "update", "delete"))
    )
    doc: dict[str, Any] = {
        "format": SUMMARY_FORMAT,
        "version": SUMMARY_VERSION,
        "run": run.to_dict(),
        "engine": run.engine,
        "status": "failed" if failure is not None else "partial" if unreadable else "complete",
        "changes": with_changes > 0,
        "clusters_total": len(clusters),
        "clusters_planned": sum(1 for c in clusters if c["status"] == planning.STATUS_PLANNED),
        "clusters_with_changes": with_changes,
        "totals": totals,
        "by_kind": dict(sorted(by_kind.items())),
        "unreadable": unreadable,
        "stale_plans_removed": list(stale_removed),
        "most_drifted": drifted[:TOP_DRIFTED],
        "clusters": clusters,
        "drift": drifted,
    }
    if retry_of is not None:
        doc["retry_of"] = retry_of
    if failure is not None:
        doc["error"] = failure
    return doc


def status_line(summary: Mapping[str, Any]) -> str:
    """The run's status for people: complete, PARTIAL, or FAILED with the error."""
    if summary["status"] == "failed":
        return f"FAILED: {summary.get('error')}"
    return "complete" if summary["status"] == "complete" else "PARTIAL: some clusters could not be planned"


def is_fleet_output(out_dir: Path) -> bool:
    """Whether ``out_dir`` holds the summary of an earlier fleet run."""
    try:
        doc = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and doc.get("format") == SUMMARY_FORMAT


def write_parquet_file(table: Any, path: Path) -> None:
    """``table`` to ``path`` with the umask's permissions (``fileio.write_file``), never through a symlink."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    fileio.write_file(path, sink.getvalue().to_pybytes())


def write_json(summary: dict[str, Any], path: Path) -> None:
    doc = {k: v for k, v in summary.items() if k != "drift"}
    fileio.write_file(path, json.dumps(doc, indent=2) + "\n")


def _cluster_rows(
    clusters: Sequence[Mapping[str, Any]], *, stamped: Callable[[str], dict[str, Any]]
) -> list[dict[str, Any]]:
    """``clusters.parquet``'s rows: one per cluster and kind (one ``NO_KIND`` row for a cluster without kinds)."""
    cluster_rows: list[dict[str, Any]] = []
    for c in clusters:
        figures = c.get("impact") or {}
        impact_cells = {f"impact_{k}": figures.get(k) for k in IMPACT_COLUMNS}
        counted = c.get("counts") is not None
        kinds = c.get("by_kind") or {NO_KIND: dict.fromkeys(ACTIONS, 0 if counted else None)}
        for kind, numbers in kinds.items():
            cluster_rows.append(
                {
                    "cluster": c["name"],
                    "status": c["status"],
                    "reason": c["reason"],
                    "kind": kind,
                    **numbers,
                    **impact_cells,
                    **stamped(c["name"]),
                }
            )
    return cluster_rows


def write_parquet(summary: dict[str, Any], out_dir: Path) -> list[Path]:
    """``clusters.parquet`` (one row per cluster and kind) and ``drift.parquet`` (one row per drifted resource)."""
    import pyarrow as pa

    run = summary["run"]
    run_at = datetime.datetime.fromisoformat(run["started_at"])
    meta = {c["name"]: (c.get("cluster_id"), c.get("plan_checksum")) for c in summary["clusters"]}

    def stamped(cluster: str) -> dict[str, Any]:
        cluster_id, checksum = meta.get(cluster, (None, None))
        return {
            "run_id": run["id"],
            "run_at": run_at,
            "run_seconds": run.get("duration_s"),
            "run_status": summary["status"],
            "engine": run["engine"],
            "cluster_id": cluster_id,
            "plan_checksum": checksum,
        }

    run_schema = [
        ("run_id", pa.string()),
        ("run_at", pa.timestamp("s", tz="UTC")),
        ("run_seconds", pa.float64()),
        ("run_status", pa.string()),
        ("engine", pa.string()),
        ("cluster_id", pa.string()),
        ("plan_checksum", pa.string()),
    ]
    cluster_rows = _cluster_rows(summary["clusters"], stamped=stamped)
    schema = pa.schema(
        [("cluster", pa.string()), ("status", pa.string()), ("reason", pa.string()), ("kind", pa.string())]
        + [(a, pa.int64()) for a in ACTIONS]
        + [(f"impact_{k}", pa.int64()) for k in IMPACT_COLUMNS]
        + run_schema
    )
    clusters_path = out_dir / "clusters.parquet"
    write_parquet_file(pa.Table.from_pylist(cluster_rows, schema=schema), clusters_path)
    drift_schema = pa.schema(
        [
            ("cluster", pa.string()),
            ("kind", pa.string()),
            ("name", pa.string()),
            ("action", pa.string()),
            ("attributes", pa.int64()),
            ("names", pa.list_(pa.string())),
            *run_schema,
        ]
    )
    drift_rows = [{**d, **stamped(d["cluster"])} for d in summary["drift"]]
    drift_path = out_dir / "drift.parquet"
    write_parquet_file(pa.Table.from_pylist(drift_rows, schema=drift_schema), drift_path)
    return [clusters_path, drift_path]


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(summary: dict[str, Any]) -> str:
    """The human report: status, per-cluster table, unreadable clusters, totals by kind, most drifted."""
    lines = ["# Kafka fleet plan", ""]
    planned, total = summary["clusters_planned"], summary["clusters_total"]
    status = status_line(summary)
    changes = "changes present" if summary["changes"] else "no changes"
    run = summary["run"]
    took = f" in {run['duration_s']:.1f} s" if "duration_s" in run else ""
    lines += [
        f"**Status:** {status}; {changes}. {planned} of {total} cluster(s) planned, "
        f"{summary['clusters_with_changes']} with changes (engine: {summary['engine']}).",
        "",
        f"Run `{run['id']}`, started {run['started_at']}{took}.",
        "",
    ]
    t = summary["totals"]
    lines += [
        f"**Fleet totals:** {t['create']} to create, {t['update']} to update, {t['delete']} to delete, "
        f"{t['blocked']} blocked, {t['unmanaged']} unmanaged, {t['unchanged']} unchanged.",
        "",
        "## Clusters (most drifted first)",
        "",
        "| Cluster | Status | + create | ~ update | - delete | ! blocked | unmanaged | unchanged | lint errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in by_drift(summary["clusters"]):
        n = c.get("counts")
        if n is None:
            lines.append(f"| {_cell(c['name'])} | {c['status']} | | | | | | | |")
            continue
        lines.append(
            f"| {_cell(c['name'])} | {c['status']} | {n['create']} | {n['update']} | {n['delete']} | "
            f"{n['blocked']} | {n['unmanaged']} | {n['unchanged']} | {c['errors']} |"
        )
    if summary["unreadable"]:
        lines += ["", "## Clusters not planned", ""]
        for u in summary["unreadable"]:
            lines.append(f"- **{_cell(u['name'])}** ({u['status']}): {_cell(u['reason'])}")
    if summary["by_kind"]:
        lines += ["", "## By kind", "", "| Kind | create | update | delete | blocked | unmanaged | unchanged |"]
        lines.append("|---|---:|---:|---:|---:|---:|---:|")
        for kind, n in summary["by_kind"].items():
            lines.append(
                f"| {kind} | {n['create']} | {n['update']} | {n['delete']} | {n['blocked']} | "
                f"{n['unmanaged']} | {n['unchanged']} |"
            )
    if summary["most_drifted"]:
        lines += ["", f"## Most drifted resources (top {TOP_DRIFTED})", ""]
        lines += ["| Cluster | Resource | Action | Attributes differing |", "|---|---|---|---:|"]
        for d in summary["most_drifted"]:
            names = ", ".join(d["names"][:5]) + (", ..." if d["attributes"] > 5 else "")
            detail = f"{d['attributes']} ({_cell(names)})" if names else str(d["attributes"])
            lines.append(
                f"| {_cell(d['cluster'])} | `{_cell(d['kind'] + '/' + d['name'])}` | {d['action']} | {detail} |"
            )
    lines += ["", "Plans: `<cluster>/plan.json` next to this report; `kafka-reconciler show` renders one.", ""]
    return "\n".join(lines)


def write_outputs(
    summary: dict[str, Any], out_dir: Path, *, retention: history.Retention | None = None
) -> tuple[list[Path], list[str]]:
    """Write every summary file, keep the run in ``history/`` (pruned to ``retention``, a ``history.Retention``)
    and write ``report.html`` with the trend; returns the paths written and notes (Parquet, and so the history,
    skipped; runs removed from the history)."""
    from reconciler.fleet import report_html

    written = [out_dir / "summary.json", out_dir / "report.md", out_dir / "report.html"]
    write_json(summary, written[0])
    fileio.write_file(written[1], render_markdown(summary))
    notes: list[str] = []
    trend = None
    if sources.parquet_available():
        written += write_parquet(summary, out_dir)
        history.save_run(out_dir, summary["run"])
        if retention is not None:
            pruned = history.prune(out_dir, retention)
            if pruned:
                notes.append(
                    f"removed {len(pruned)} run(s) from {out_dir / history.HISTORY} (kept {retention.describe()})"
                )
        trend = history.trend(out_dir)
    else:
        notes.append(
            "Parquet summary and run history skipped: pyarrow is not installed (pip install 'kafka-reconciler[spark]')"
        )
    fileio.write_file(written[2], report_html.render_html(summary, trend))
    return written, notes

"""The fleet summary: counts by cluster, kind and action, unreadable clusters, the most drifted resources.

Written three ways from one summary document: ``summary.json`` (the document), Parquet tables
(``clusters.parquet``, ``drift.parquet``; needs pyarrow, which the ``spark`` extra installs; without
it they are skipped and the result says so) and ``report.md`` for people. The document depends only
on the plans, so both engines write the same summary for the same fleet.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reconciler import plan as plan_model
from reconciler import state
from reconciler.fleet import planning, sources

SUMMARY_FORMAT = "kafka-reconciler/fleet-summary"
SUMMARY_VERSION = 1
TOP_DRIFTED = 25
ACTIONS = ("create", "update", "delete", "blocked", "unmanaged", "unchanged")


def _counts_by_kind(p: plan_model.Plan) -> dict[str, dict[str, int]]:
    """Per kind: distinct addresses per action (the plan summary's rules), unmanaged and unchanged."""
    kinds = sorted({c.kind for c in p.changes} | {u.kind for u in p.unmanaged} | set(p.unchanged))
    out: dict[str, dict[str, int]] = {}
    for kind in kinds:
        part = plan_model.Plan(
            cluster=p.cluster,
            changes=tuple(c for c in p.changes if c.kind == kind),
            unmanaged=tuple(u for u in p.unmanaged if u.kind == kind),
            unchanged={kind: p.unchanged.get(kind, 0)},
        ).summary()
        out[kind] = {a: int(getattr(part, a)) for a in ACTIONS}
    return out


def build_summary(outcomes: Sequence[planning.ClusterOutcome], *, engine: str) -> dict[str, Any]:
    """The summary document; clusters in name order, so it does not depend on the engine's order."""
    clusters: list[dict[str, Any]] = []
    totals = dict.fromkeys(ACTIONS, 0)
    by_kind: dict[str, dict[str, int]] = {}
    drifted: list[dict[str, Any]] = []
    for outcome in sorted(outcomes, key=lambda o: o.cluster):
        entry: dict[str, Any] = {"name": outcome.cluster, "status": outcome.status, "reason": outcome.reason}
        p = outcome.plan()
        if p is not None:
            summary = p.summary()
            counts = {a: int(getattr(summary, a)) for a in ACTIONS}
            kinds = _counts_by_kind(p)
            entry.update(
                plan=f"{outcome.cluster}/plan.json",
                cluster_id=p.cluster.cluster_id,
                counts=counts,
                by_kind=kinds,
                warnings=len(p.warnings),
                errors=sum(1 for w in p.warnings if w.severity == "error"),
                resources_differing=outcome.differing,
            )
            for action, n in counts.items():
                totals[action] += n
            for kind, numbers in kinds.items():
                slot = by_kind.setdefault(kind, dict.fromkeys(ACTIONS, 0))
                for action, n in numbers.items():
                    slot[action] += n
            for d in outcome.drift:
                drifted.append({"cluster": outcome.cluster, **d.to_dict()})
        clusters.append(entry)
    drifted.sort(key=lambda d: (-d["attributes"], d["cluster"], d["kind"], d["name"]))
    unreadable = [{"name": c["name"], "status": c["status"], "reason": c["reason"]} for c in clusters if c["reason"]]
    return {
        "format": SUMMARY_FORMAT,
        "version": SUMMARY_VERSION,
        "engine": engine,
        "status": "partial" if unreadable else "complete",
        "clusters_total": len(clusters),
        "clusters_planned": sum(1 for c in clusters if c["status"] == planning.STATUS_PLANNED),
        "clusters_with_changes": sum(
            1 for c in clusters if c.get("counts") and any(c["counts"][a] for a in ("create", "update", "delete"))
        ),
        "totals": totals,
        "by_kind": dict(sorted(by_kind.items())),
        "unreadable": unreadable,
        "most_drifted": drifted[:TOP_DRIFTED],
        "clusters": clusters,
        "drift": drifted,
    }


def write_json(summary: dict[str, Any], path: Path) -> None:
    doc = {k: v for k, v in summary.items() if k != "drift"}
    state.write_private_file(path, json.dumps(doc, indent=2) + "\n")


def write_parquet(summary: dict[str, Any], out_dir: Path) -> list[Path]:
    """``clusters.parquet`` (one row per cluster and kind) and ``drift.parquet`` (one row per drifted resource)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cluster_rows: list[dict[str, Any]] = []
    for c in summary["clusters"]:
        kinds = c.get("by_kind") or {None: dict.fromkeys(ACTIONS, None)}
        for kind, numbers in kinds.items():
            cluster_rows.append(
                {"cluster": c["name"], "status": c["status"], "reason": c["reason"], "kind": kind, **numbers}
            )
    schema = pa.schema(
        [("cluster", pa.string()), ("status", pa.string()), ("reason", pa.string()), ("kind", pa.string())]
        + [(a, pa.int64()) for a in ACTIONS]
    )
    clusters_path = out_dir / "clusters.parquet"
    pq.write_table(pa.Table.from_pylist(cluster_rows, schema=schema), str(clusters_path))
    drift_schema = pa.schema(
        [
            ("cluster", pa.string()),
            ("kind", pa.string()),
            ("name", pa.string()),
            ("action", pa.string()),
            ("attributes", pa.int64()),
            ("names", pa.list_(pa.string())),
        ]
    )
    drift_path = out_dir / "drift.parquet"
    pq.write_table(pa.Table.from_pylist(summary["drift"], schema=drift_schema), str(drift_path))
    return [clusters_path, drift_path]


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(summary: dict[str, Any]) -> str:
    """The human report: status, per-cluster table, unreadable clusters, totals by kind, most drifted."""
    lines = ["# Kafka fleet plan", ""]
    planned, total = summary["clusters_planned"], summary["clusters_total"]
    status = "complete" if summary["status"] == "complete" else "PARTIAL: some clusters could not be planned"
    lines += [
        f"**Status:** {status}. {planned} of {total} cluster(s) planned, "
        f"{summary['clusters_with_changes']} with changes (engine: {summary['engine']}).",
        "",
    ]
    t = summary["totals"]
    lines += [
        f"**Fleet totals:** {t['create']} to create, {t['update']} to update, {t['delete']} to delete, "
        f"{t['blocked']} blocked, {t['unmanaged']} unmanaged, {t['unchanged']} unchanged.",
        "",
        "## Clusters",
        "",
        "| Cluster | Status | + create | ~ update | - delete | ! blocked | unmanaged | unchanged | lint errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in summary["clusters"]:
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


def write_outputs(summary: dict[str, Any], out_dir: Path) -> tuple[list[Path], str | None]:
    """Write every summary file; returns the paths written and a note when Parquet was skipped."""
    written = [out_dir / "summary.json", out_dir / "report.md"]
    write_json(summary, written[0])
    state.write_private_file(written[1], render_markdown(summary))
    if not sources.parquet_available():
        return written, "Parquet summary skipped: pyarrow is not installed (pip install 'kafka-reconciler[spark]')"
    return written + write_parquet(summary, out_dir), None

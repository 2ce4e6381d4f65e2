"""``report.html``: the fleet report for people, one self-contained file (inline CSS and SVG, no script, no fetch).

Sections, what changed first: the run's status and totals; the trend across the runs kept in the folder's
``history`` (``report_trend``: clusters with changes and drifted resources per run, the clusters whose status
changed and the drift new or resolved since the last successful run); the clusters that were not planned, with
the reason; every cluster grouped by its labels, most drifted first, with a bar per cluster, a group open only
when it holds something new (new drift, a cluster whose status changed, an apply problem; on the first run any
drift or cluster not planned) and folded otherwise, so that at 500 clusters the page opens on what changed;
drift by kind (a stacked bar per kind); the most drifted resources. Every text from the plans is
HTML-escaped. Elements carry ``id``/``data-*`` attributes so that the report can be checked in a browser.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reconciler.base import fileio
from reconciler.fleet import history, notify, report_trend, sources, spec, summary

COLOURS = {"create": "#2e7d32", "update": "#f9a825", "delete": "#c62828", "blocked": "#6a1b9a"}
BAR_WIDTH = 240

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem;color:#222;max-width:70rem}
h1{margin-bottom:.2rem} h2{margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse} td,th{padding:.2rem .6rem;text-align:left;border-bottom:1px solid #eee}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.partial{color:#c62828;font-weight:bold} .complete{color:#2e7d32;font-weight:bold}
.legend span{display:inline-block;margin-right:1rem}
.sw{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem}
details summary{cursor:pointer;margin:.5rem 0} .muted{color:#777}
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _stacked_bar(counts: Mapping[str, int], *, scale: float, label: str) -> str:
    """An inline SVG bar: create, update, delete and blocked side by side, ``scale`` pixels per resource."""
    x = 0.0
    parts = []
    for action, colour in COLOURS.items():
        n = int(counts.get(action, 0))
        if not n:
            continue
        width = max(1.0, n * scale)
        parts.append(
            f'<rect x="{x:.1f}" y="2" width="{width:.1f}" height="14" fill="{colour}" data-action="{action}">'
            f"<title>{n} to {action}</title></rect>"
        )
        x += width
    return (
        f'<svg class="bar" width="{BAR_WIDTH + 4}" height="18" role="img" aria-label="{_e(label)}" '
        f'xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>'
    )


def _legend() -> str:
    items = "".join(f'<span><i class="sw" style="background:{c}"></i>{a}</span>' for a, c in COLOURS.items())
    return f'<p class="legend">{items}</p>'


APPLY_OK = ("applied", "validated", "no-changes")


def _apply_problem(name: str, applied: Mapping[str, Mapping[str, Any]] | None) -> bool:
    """Whether the apply of this run's plans did not do what the cluster's plan says (refused, unreachable, ...)."""
    return applied is not None and name in applied and str(applied[name]["status"]) not in APPLY_OK


def _apply_cell(name: str, applied: Mapping[str, Mapping[str, Any]] | None) -> str:
    """A cluster's apply result (linked to its apply report), or an empty cell before any apply."""
    if applied is None:
        return '<td class="apply muted">not applied</td>'
    entry = applied.get(name)
    if entry is None:
        return '<td class="apply muted" data-apply="">not in the apply</td>'
    status = str(entry["status"])
    text = _e(status)
    if entry.get("report"):
        text = f'<a class="apply-report" href="{_e(entry["report"])}">{text}</a>'
    title = f' title="{_e(entry["reason"])}"' if entry.get("reason") else ""
    colour = "bad" if _apply_problem(name, applied) else "ok"
    return f'<td class="apply {colour}" data-apply="{_e(status)}"{title}>{text}</td>'


def _cluster_row(c: Mapping[str, Any], scale: float, applied: Mapping[str, Mapping[str, Any]] | None) -> str:
    name = str(c["name"])
    plan = c.get("plan")
    link = f'<a class="plan" href="{_e(plan)}">{_e(name)}</a>' if plan else _e(name)
    n = c.get("counts")
    if n is None:
        numbers = f'<td colspan="6" class="muted">{_e(c["status"])}: {_e(c.get("reason") or "")}</td>'
    else:
        numbers = "".join(f'<td class="n">{int(n[a])}</td>' for a in ("create", "update", "delete", "blocked"))
        numbers += f'<td class="n">{int(c.get("resources_differing", 0))}</td>'
        numbers += f"<td>{_stacked_bar(n, scale=scale, label=f'drift of {name}')}</td>"
    return (
        f'<tr class="cluster" data-cluster="{_e(name)}" data-status="{_e(c["status"])}" '
        f'data-drift="{summary.drift_score(c)[0]}"><td>{link}</td>{numbers}{_apply_cell(name, applied)}</tr>'
    )


def _group_keys(clusters: Sequence[Mapping[str, Any]]) -> list[str]:
    """The label keys the clusters are grouped by: environment, team, region first, then any other, by name."""
    found = {k for c in clusters for k in (c.get("labels") or {})}
    rank = {k: i for i, k in enumerate(spec.LABEL_ORDER)}
    return sorted(found, key=lambda k: (rank.get(k, len(rank)), k))


def _groups(clusters: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> list[tuple[str, list[Mapping[str, Any]]]]:
    """Clusters by their label values, most drifted group first; within a group, most drifted first."""
    grouped: dict[tuple[str, ...], list[Mapping[str, Any]]] = {}
    for c in clusters:
        labels = c.get("labels") or {}
        grouped.setdefault(tuple(str(labels.get(k, "-")) for k in keys), []).append(c)

    def weight(members: list[Mapping[str, Any]]) -> tuple[int, int]:
        changed = sum(1 for m in members if summary.drift_score(m)[0] > 0)
        return (-sum(1 for m in members if not m.get("counts")), -changed)

    ordered = sorted(grouped.items(), key=lambda kv: (weight(kv[1]), kv[0]))
    return [
        (" · ".join(f"{k}={v}" for k, v in zip(keys, values, strict=True)) or "all clusters", summary.by_drift(m))
        for values, m in ordered
    ]


_HEAD = (
    "<tr><th>Cluster (plan)</th><th>+ create</th><th>~ update</th><th>- delete</th><th>! blocked</th>"
    "<th>resources differing</th><th>drift</th><th>apply</th></tr>"
)


def _news(doc: Mapping[str, Any], trend: history.Trend | None) -> tuple[set[str], set[str]] | None:
    """The clusters with new drift and those whose status changed since the last successful run (``None``: no run
    to compare with, so everything is new)."""
    if trend is None or trend.previous is None:
        return None
    drifted = {cluster for cluster, _, _ in trend.new}
    changed = {str(e["cluster"]) for entries in notify.status_changes(doc, trend).values() for e in entries}
    return drifted, changed


def _clusters(
    doc: Mapping[str, Any], applied_doc: Mapping[str, Any] | None, news: tuple[set[str], set[str]] | None
) -> str:
    """Every cluster, grouped by its labels; a group holding something new (``news``; without a run to compare with,
    drift or a cluster not planned) or an apply problem is open, the others folded."""
    clusters = doc["clusters"]
    applied = None
    if applied_doc is not None:
        applied = {str(c["name"]): c for c in applied_doc.get("clusters", [])}
    top = max((summary.drift_score(c)[0] for c in clusters), default=1)
    scale = BAR_WIDTH / max(1, top)
    keys = _group_keys(clusters)
    by = " / ".join(keys) if keys else "group"
    out = [f'<section id="clusters"><h2>Clusters by {_e(by)}, most drifted first</h2>', _legend()]
    if applied_doc is not None:
        kind = "dry run" if applied_doc.get("dry_run") else "apply"
        out.append(
            f'<p id="applied">Apply results: the {kind} of this run\'s plans started {_e(applied_doc["started_at"])} '
            f"({_e(applied_doc['status'])}).</p>"
        )
    for title, members in _groups(clusters, keys):
        changed = sum(1 for m in members if summary.drift_score(m)[0] > 0)
        missing = sum(1 for m in members if not m.get("counts"))
        bad = sum(1 for m in members if _apply_problem(str(m["name"]), applied))
        names = {str(m["name"]) for m in members}
        fresh = len(names & news[0]) if news else changed
        moved = len(names & news[1]) if news else missing
        opened = " open" if fresh or moved or bad else ""
        rows = "".join(_cluster_row(c, scale, applied) for c in members)
        notes = f"{len(members)} cluster(s), {changed} with changes" + (f", {missing} not planned" if missing else "")
        if news:
            notes += f", {fresh} with new drift" if fresh else ""
            notes += f", {moved} whose status changed" if moved else ""
        notes += f", {bad} not applied as planned" if bad else ""
        out.append(
            f'<details class="group" data-group="{_e(title)}" data-clusters="{len(members)}" '
            f'data-with-changes="{changed}" data-new="{fresh + moved}"{opened}><summary><b>{_e(title)}</b>: '
            f"{notes}</summary><table>{_HEAD}{rows}</table></details>"
        )
    out.append("</section>")
    return "".join(out)


def _by_kind(doc: Mapping[str, Any]) -> str:
    kinds = doc.get("by_kind") or {}
    if not kinds:
        return ""
    totals = {k: sum(int(v[a]) for a in COLOURS) for k, v in kinds.items()}
    scale = BAR_WIDTH / max(1, max(totals.values(), default=1))
    rows = "".join(
        f'<tr class="kind" data-kind="{_e(k)}" data-changes="{totals[k]}"><td>{_e(k)}</td>'
        + "".join(f'<td class="n">{int(v[a])}</td>' for a in (*COLOURS, "unmanaged", "unchanged"))
        + f"<td>{_stacked_bar(v, scale=scale, label=f'changes to {k}')}</td></tr>"
        for k, v in sorted(kinds.items(), key=lambda kv: (-totals[kv[0]], kv[0]))
    )
    return (
        '<section id="by-kind"><h2>Drift by kind</h2><table><tr><th>Kind</th><th>create</th><th>update</th>'
        f"<th>delete</th><th>blocked</th><th>unmanaged</th><th>unchanged</th><th>changes</th></tr>{rows}</table>"
        "</section>"
    )


def _unreadable(doc: Mapping[str, Any]) -> str:
    items = doc.get("unreadable") or []
    if not items:
        return ""
    rows = "".join(
        f'<li class="unreadable" data-cluster="{_e(u["name"])}"><b>{_e(u["name"])}</b> ({_e(u["status"])}): '
        f"{_e(u['reason'])}</li>"
        for u in items
    )
    return f'<section id="not-planned"><h2>Clusters not planned ({len(items)})</h2><ul>{rows}</ul></section>'


def _most_drifted(doc: Mapping[str, Any]) -> str:
    items = doc.get("most_drifted") or []
    if not items:
        return ""
    rows = "".join(
        f"<tr><td>{_e(d['cluster'])}</td><td><code>{_e(d['kind'])}/{_e(d['name'])}</code></td>"
        f'<td>{_e(d["action"])}</td><td class="n">{int(d["attributes"])}</td>'
        f"<td>{_e(', '.join(d['names'][:5]))}</td></tr>"
        for d in items
    )
    return (
        '<section id="most-drifted"><h2>Most drifted resources</h2><table><tr><th>Cluster</th><th>Resource</th>'
        f"<th>Action</th><th>Attributes differing</th><th>Which</th></tr>{rows}</table></section>"
    )


def render_html(doc: Mapping[str, Any], trend: history.Trend | None, applied: Mapping[str, Any] | None = None) -> str:
    """The whole report for one summary document, the folder's trend (``None``: no history available) and the
    apply of this run's plans (``apply-summary.json``; ``None``: not applied)."""
    run = doc["run"]
    partial = doc["status"] != "complete"
    status = summary.status_line(doc)
    took = f", {run['duration_s']:.1f} s" if "duration_s" in run else ""
    t = doc["totals"]
    head = (
        f'<h1>Kafka fleet plan</h1><p id="status" class="{"partial" if partial else "complete"}">{_e(status)}; '
        f"{'changes present' if doc['changes'] else 'no changes'}</p>"
        f"<p>{doc['clusters_planned']} of {doc['clusters_total']} cluster(s) planned, "
        f'{doc["clusters_with_changes"]} with changes. Run <code id="run-id">{_e(run["id"])}</code>, started '
        f"{_e(run['started_at'])}{_e(took)} ({_e(run['engine'])} engine).</p>"
        f'<p id="totals">Fleet totals: {t["create"]} to create, {t["update"]} to update, {t["delete"]} to delete, '
        f"{t['blocked']} blocked, {t['unmanaged']} unmanaged, {t['unchanged']} unchanged.</p>"
    )
    news = _news(doc, trend)
    body = head + report_trend.section(trend, doc) + _unreadable(doc) + _clusters(doc, applied, news) + _by_kind(doc)
    body += _most_drifted(doc)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>Kafka fleet plan {_e(run['id'][:12])}</title><style>{_CSS}</style></head>"
        f'<body>{body}<p class="muted">Plans: &lt;cluster&gt;/plan.json next to this report.</p></body></html>\n'
    )


def rewrite_after_apply(out_dir: Path, applied: Mapping[str, Any]) -> Path | None:
    """``report.html`` again, with the apply results of ``applied`` (an ``apply-summary.json`` document) beside the
    plans of the run it applied; ``None`` (nothing written) when the folder holds another run's summary."""
    try:
        doc = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if doc.get("run", {}).get("id") != applied.get("plan_run"):
        return None
    trend = history.trend(out_dir) if sources.parquet_available() else None
    path = out_dir / "report.html"
    fileio.write_file(path, render_html(doc, trend, applied))
    return path

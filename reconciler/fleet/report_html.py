"""``report.html``: the fleet report for people, one self-contained file (inline CSS and SVG, no script, no fetch).

Sections: the run's status and totals; the clusters most drifted first, with a bar per cluster and the
clusters without changes folded into one ``<details>``; drift by kind (a stacked bar per kind); the
clusters that were not planned, with the reason; the trend across the runs kept in the folder's
``history`` (``history``: clusters with changes and drifted resources per run, and the drift that is
new or resolved since the previous run); the most drifted resources. Every text from the plans is
HTML-escaped. Elements carry ``id``/``data-*`` attributes so that the report can be checked in a browser.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from reconciler.fleet import history, summary

COLOURS = {"create": "#2e7d32", "update": "#f9a825", "delete": "#c62828", "blocked": "#6a1b9a"}
BAR_WIDTH = 240
MAX_LISTED = 50  # new / resolved drift listed per direction

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


def _cluster_row(c: Mapping[str, Any], scale: float) -> str:
    n = c["counts"]
    numbers = "".join(f'<td class="n">{int(n[a])}</td>' for a in ("create", "update", "delete", "blocked"))
    bar = _stacked_bar(n, scale=scale, label=f"drift of {c['name']}")
    return (
        f'<tr class="cluster" data-cluster="{_e(c["name"])}" data-drift="{summary.drift_score(c)[0]}">'
        f'<td>{_e(c["name"])}</td>{numbers}<td class="n">{int(c.get("resources_differing", 0))}</td>'
        f"<td>{bar}</td></tr>"
    )


def _clusters(doc: Mapping[str, Any]) -> str:
    planned = [c for c in summary.by_drift(doc["clusters"]) if c.get("counts")]
    drifted = [c for c in planned if summary.drift_score(c)[0] > 0]
    quiet = [c for c in planned if summary.drift_score(c)[0] == 0]
    top = max((summary.drift_score(c)[0] for c in drifted), default=1)
    scale = BAR_WIDTH / max(1, top)
    head = (
        "<tr><th>Cluster</th><th>+ create</th><th>~ update</th><th>- delete</th><th>! blocked</th>"
        "<th>resources differing</th><th>drift</th></tr>"
    )
    out = ['<section id="clusters"><h2>Clusters, most drifted first</h2>', _legend()]
    if drifted:
        rows = "".join(_cluster_row(c, scale) for c in drifted)
        out.append(f'<table id="drifted">{head}{rows}</table>')
    else:
        out.append('<p id="no-drift">No planned cluster has changes.</p>')
    if quiet:
        names = ", ".join(_e(c["name"]) for c in quiet)
        rows = "".join(_cluster_row(c, scale) for c in quiet)
        out.append(
            f'<details id="unchanged"><summary>{len(quiet)} cluster(s) without changes</summary>'
            f'<p class="muted">{names}</p><table>{head}{rows}</table></details>'
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


def _trend_chart(runs: Sequence[history.RunPoint]) -> str:
    """Two series over the runs, oldest left: clusters with changes (bars) and drifted resources (line)."""
    width, height, pad = 640, 190, 30
    step = (width - 2 * pad) / max(1, len(runs))
    every = max(1, len(runs) // 10)  # at most about ten date labels
    top_c = max((r.clusters_with_changes for r in runs), default=0) or 1
    top_d = max((r.drifted for r in runs), default=0) or 1
    bars, points = [], []
    for i, r in enumerate(runs):
        x = pad + i * step
        h = (height - 2 * pad) * r.clusters_with_changes / top_c
        bars.append(
            f'<rect class="run" data-run="{_e(r.run_id)}" data-clusters-with-changes="{r.clusters_with_changes}" '
            f'data-drifted="{r.drifted}" x="{x + step * 0.15:.1f}" y="{height - pad - h:.1f}" '
            f'width="{step * 0.7:.1f}" height="{h:.1f}" fill="#90caf9"><title>{_e(r.run_at)}: '
            f"{r.clusters_with_changes} cluster(s) with changes, {r.drifted} drifted resource(s)</title></rect>"
        )
        y = height - pad - (height - 2 * pad) * r.drifted / top_d
        points.append(f"{x + step / 2:.1f},{y:.1f}")
        if i % every == 0 or i == len(runs) - 1:
            bars.append(
                f'<text x="{x + step / 2:.1f}" y="{height - pad + 14}" font-size="10" text-anchor="middle">'
                f"{_e(r.run_at[5:16].replace('T', ' '))}</text>"
            )
    line = f'<polyline points="{" ".join(points)}" fill="none" stroke="#c62828" stroke-width="2"/>'
    return (
        f'<svg id="trend-chart" width="{width}" height="{height}" role="img" xmlns="http://www.w3.org/2000/svg" '
        f'aria-label="drift across runs">{"".join(bars)}{line}'
        f'<text x="{pad}" y="14" font-size="11">bars: clusters with changes (max {top_c}); '
        f"line: drifted resources (max {top_d})</text></svg>"
    )


def _listing(title: str, ident: str, *, keys: Sequence[tuple[str, str, str]]) -> str:
    shown = "".join(f"<li>{_e(c)}: <code>{_e(k)}/{_e(n)}</code></li>" for c, k, n in keys[:MAX_LISTED])
    more = f"<li>and {len(keys) - MAX_LISTED} more</li>" if len(keys) > MAX_LISTED else ""
    return f'<div id="{ident}" data-count="{len(keys)}"><h3>{title} ({len(keys)})</h3><ul>{shown}{more}</ul></div>'


def _trend(trend: history.Trend | None) -> str:
    if trend is None:
        return '<section id="trend"><h2>Trend</h2><p class="muted">No run history (needs pyarrow).</p></section>'
    parts = ['<section id="trend"><h2>Trend across runs</h2>', _trend_chart(trend.runs)]
    if trend.previous is None:
        parts.append('<p id="first-run" class="muted">The first run in this folder: nothing to compare with.</p>')
    else:
        parts.append(f"<p>Since the previous run ({_e(trend.previous)}):</p>")
        parts.append(_listing("New drift", "new-drift", keys=trend.new))
        parts.append(_listing("Resolved drift", "resolved-drift", keys=trend.resolved))
    parts.append("</section>")
    return "".join(parts)


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


def render_html(doc: Mapping[str, Any], trend: history.Trend | None) -> str:
    """The whole report for one summary document and the folder's trend (``None``: no history available)."""
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
    body = head + _clusters(doc) + _unreadable(doc) + _by_kind(doc) + _trend(trend) + _most_drifted(doc)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>Kafka fleet plan {_e(run['id'][:12])}</title><style>{_CSS}</style></head>"
        f'<body>{body}<p class="muted">Plans: &lt;cluster&gt;/plan.json next to this report.</p></body></html>\n'
    )

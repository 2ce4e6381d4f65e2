"""The trend section of ``report.html``: a chart of the runs kept in ``history/`` and the drift new or resolved since
the last successful run (one self-contained inline SVG, no script).

The chart has the runs left to right, oldest first: a bar per run for the clusters with changes (left axis, with
its values), a line for the drifted resources (right axis, with its values), the run's start under every few bars
(to the second, with the start of the run id where two runs share a second: no two runs share a label). A partial
run's bar is amber and marked ``!``; a failed run (nothing planned) is a red ``✕`` at the baseline; each run's
``<title>`` says what it was. Below it, what changed since the last successful run (a failed run planned nothing:
it is named, not compared with): the clusters whose status changed (``notify.status_changes``), the drift new and
resolved, compared only over the clusters both runs planned, and the clusters left out of that comparison.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from reconciler.fleet import history, notify

MAX_LISTED = 50  # new / resolved drift listed per direction
WIDTH, HEIGHT, PAD_X, PAD_Y = 680, 220, 46, 30
STATUS_FILL = {"complete": "#90caf9", "partial": "#ffb74d", "failed": "#ef9a9a"}


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def ticks(top: int) -> list[int]:
    """Axis values from 0 to at least ``top``: 0, then up to four round steps."""
    if top <= 4:
        return list(range(max(1, top) + 1))
    raw = top / 4
    magnitude = 10 ** (len(str(int(raw))) - 1)
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    return list(range(0, step * (-(-top // step)) + 1, step))


def _axes(left: list[int], right: list[int]) -> list[str]:
    """Both y axes, their values and grid lines."""
    inner = HEIGHT - 2 * PAD_Y
    parts = [
        f'<line x1="{PAD_X}" y1="{PAD_Y}" x2="{PAD_X}" y2="{HEIGHT - PAD_Y}" stroke="#999"/>',
        f'<line x1="{WIDTH - PAD_X}" y1="{PAD_Y}" x2="{WIDTH - PAD_X}" y2="{HEIGHT - PAD_Y}" stroke="#999"/>',
        f'<line x1="{PAD_X}" y1="{HEIGHT - PAD_Y}" x2="{WIDTH - PAD_X}" y2="{HEIGHT - PAD_Y}" stroke="#999"/>',
    ]
    for value in left:
        y = HEIGHT - PAD_Y - inner * value / left[-1]
        parts.append(f'<line x1="{PAD_X}" y1="{y:.1f}" x2="{WIDTH - PAD_X}" y2="{y:.1f}" stroke="#eee"/>')
        parts.append(
            f'<text class="tick left" x="{PAD_X - 5}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{value}</text>'
        )
    for value in right:
        y = HEIGHT - PAD_Y - inner * value / right[-1]
        parts.append(
            f'<text class="tick right" x="{WIDTH - PAD_X + 5}" y="{y + 4:.1f}" font-size="10" fill="#c62828">'
            f"{value}</text>"
        )
    return parts


def _run_marks(r: history.RunPoint, *, x: float, step: float, h: float) -> list[str]:
    base = HEIGHT - PAD_Y
    what = (
        f"{r.run_at}: {r.status}, {r.planned} of {r.total} cluster(s) planned, {r.clusters_with_changes} with "
        f"changes, {r.drifted} drifted resource(s)"
    )
    parts = [
        f'<rect class="run {r.status}" data-run="{_e(r.run_id)}" data-status="{_e(r.status)}" '
        f'data-clusters-with-changes="{r.clusters_with_changes}" data-drifted="{r.drifted}" '
        f'x="{x + step * 0.15:.1f}" y="{base - h:.1f}" width="{step * 0.7:.1f}" height="{h:.1f}" '
        f'fill="{STATUS_FILL.get(r.status, "#90caf9")}"><title>{_e(what)}</title></rect>'
    ]
    if r.status == "partial":
        parts.append(
            f'<text class="mark partial" x="{x + step / 2:.1f}" y="{base - h - 3:.1f}" font-size="12" '
            f'font-weight="bold" fill="#e65100" text-anchor="middle">!<title>{_e(what)}</title></text>'
        )
    elif r.status == "failed":
        parts.append(
            f'<text class="mark failed" x="{x + step / 2:.1f}" y="{base - 3:.1f}" font-size="14" '
            f'font-weight="bold" fill="#c62828" text-anchor="middle">✕<title>{_e(what)}</title></text>'
        )
    return parts


def labels(runs: Sequence[history.RunPoint]) -> list[str]:
    """Each run's label under the chart: its UTC start to the second (``12-02 01:05:09``), and where two runs
    started in the same second, the start of its run id too."""
    stamps = [r.run_at[5:19].replace("T", " ") for r in runs]
    return [f"{s} {r.run_id[:6]}" if stamps.count(s) > 1 else s for s, r in zip(stamps, runs, strict=True)]


def chart(runs: Sequence[history.RunPoint]) -> str:
    """The two series over the runs, with both axes' values and the runs' dates."""
    step = (WIDTH - 2 * PAD_X) / max(1, len(runs))
    every = max(1, len(runs) // 8)  # at most about eight date labels
    left = ticks(max((r.clusters_with_changes for r in runs), default=0))
    right = ticks(max((r.drifted for r in runs), default=0))
    inner = HEIGHT - 2 * PAD_Y
    parts = _axes(left, right)
    named = labels(runs)
    points = []
    for i, r in enumerate(runs):
        x = PAD_X + i * step
        parts += _run_marks(r, x=x, step=step, h=inner * r.clusters_with_changes / left[-1])
        if r.status != "failed":
            points.append(f"{x + step / 2:.1f},{HEIGHT - PAD_Y - inner * r.drifted / right[-1]:.1f}")
        if i % every == 0 or i == len(runs) - 1:
            parts.append(
                f'<text class="date" x="{x + step / 2:.1f}" y="{HEIGHT - PAD_Y + 14}" font-size="10" '
                f'text-anchor="middle">{_e(named[i])}</text>'
            )
    parts.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="#c62828" stroke-width="2"/>')
    parts.append(
        f'<text x="{PAD_X}" y="14" font-size="11">clusters with changes (bars, left axis)</text>'
        f'<text x="{WIDTH - PAD_X}" y="14" font-size="11" fill="#c62828" text-anchor="end">'
        "drifted resources (line, right axis)</text>"
        f'<text x="{PAD_X}" y="{HEIGHT - 2}" font-size="10">run start (UTC)</text>'
    )
    return (
        f'<svg id="trend-chart" width="{WIDTH}" height="{HEIGHT}" role="img" xmlns="http://www.w3.org/2000/svg" '
        f'aria-label="drift across runs">{"".join(parts)}</svg>'
        '<p class="legend"><span><i class="sw" style="background:#90caf9"></i>complete run</span>'
        '<span><i class="sw" style="background:#ffb74d"></i>partial run (!: some clusters not planned)</span>'
        '<span><b style="color:#c62828">✕</b> failed run (nothing planned)</span></p>'
    )


def _listing(title: str, ident: str, *, keys: Sequence[tuple[str, str, str]]) -> str:
    shown = "".join(f"<li>{_e(c)}: <code>{_e(k)}/{_e(n)}</code></li>" for c, k, n in keys[:MAX_LISTED])
    more = f"<li>and {len(keys) - MAX_LISTED} more</li>" if len(keys) > MAX_LISTED else ""
    return f'<div id="{ident}" data-count="{len(keys)}"><h3>{title} ({len(keys)})</h3><ul>{shown}{more}</ul></div>'


def _left_out(names: Sequence[str]) -> str:
    if not names:
        return '<p id="left-out" data-count="0" class="muted">Every cluster of both runs was compared.</p>'
    return (
        f'<p id="left-out" data-count="{len(names)}">Left out of the comparison ({len(names)}), not planned by '
        f"both runs, so their drift is neither new nor resolved: {_e(', '.join(names))}.</p>"
    )


def _status_changes(doc: Mapping[str, Any], trend: history.Trend) -> str:
    """The clusters whose status changed since the last successful run, grouped by their status now."""
    groups = notify.status_changes(doc, trend)
    count = sum(len(entries) for entries in groups.values())
    if not groups:
        return f'<div id="status-changes" data-count="0"><h3>Clusters whose status changed ({count})</h3></div>'
    items = "".join(
        f'<li data-status="{_e(group)}"><b>{_e(group)}</b> ({len(entries)}): '
        + _e(", ".join(str(e["cluster"]) for e in entries[:MAX_LISTED]))
        + (f" and {len(entries) - MAX_LISTED} more" if len(entries) > MAX_LISTED else "")
        + "</li>"
        for group, entries in groups.items()
    )
    return (
        f'<div id="status-changes" data-count="{count}"><h3>Clusters whose status changed ({count})</h3>'
        f"<ul>{items}</ul></div>"
    )


def section(trend: history.Trend | None, doc: Mapping[str, Any] | None = None) -> str:
    """The trend section: the chart, then what changed since the last successful run (the clusters whose status
    changed, given the run's summary ``doc``; the drift new and resolved) and what was not compared."""
    if trend is None:
        return '<section id="trend"><h2>Trend</h2><p class="muted">No run history (needs pyarrow).</p></section>'
    parts = ['<section id="trend"><h2>Trend across runs</h2>', chart(trend.runs)]
    if trend.previous is None:
        parts.append(
            '<p id="first-run" class="muted">The first successful run in this folder: nothing to compare with.</p>'
        )
    else:
        failed = trend.failed_since
        after = f"; the {len(failed)} failed run(s) since, {', '.join(failed)}, planned nothing" if failed else ""
        parts.append(f'<p id="compared-with">Since the last successful run ({_e(trend.previous)}{_e(after)}):</p>')
        if doc is not None:
            parts.append(_status_changes(doc, trend))
        parts.append(_listing("New drift", "new-drift", keys=trend.new))
        parts.append(_listing("Resolved drift", "resolved-drift", keys=trend.resolved))
        parts.append(_left_out(trend.left_out))
    parts.append("</section>")
    return "".join(parts)

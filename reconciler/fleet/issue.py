"""The fleet's drift issue: one GitHub issue per fleet, kept up to date from a fleet plan folder, as ``drift-issue``
keeps one per cluster.

``report_fleet_drift`` reads the folder's ``summary.json`` and ``report.md`` and opens the issue when some
planned cluster drifts (a change to create, update or delete, or a blocked change), updates it while drift
remains (the report of the latest run as its body, cut to GitHub's size limit), and closes it when
``close_if_clean`` is set and a complete run finds no drift. A partial or failed run that finds no drift
leaves the issue as it is: the clusters it could not plan may still drift. The issue is found again by a
marker in its body (``marker``, apart from the clusters' own) under the drift label, through the same client as
``drift-issue`` (retries, rate limits, the token never shown).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from reconciler.base import errors, fileio
from reconciler.gitops import github
from reconciler.gitops.event import GitHubContext


def load(out_dir: Path) -> tuple[dict[str, Any], str]:
    """The folder's summary document and markdown report; ``ConfigError`` when it holds no fleet plan."""
    text = fileio.read_text(out_dir / "summary.json", what="fleet summary")
    try:
        doc = json.loads(text)
    except ValueError:
        raise errors.ConfigError(f"{out_dir / 'summary.json'} is not JSON") from None
    if not isinstance(doc, dict) or doc.get("format") != "kafka-reconciler/fleet-summary":
        raise errors.ConfigError(f"{out_dir / 'summary.json'} is not a fleet plan summary")
    return doc, fileio.read_text(out_dir / "report.md", what="fleet report")


def has_drift(doc: dict[str, Any]) -> bool:
    """Some planned cluster differs from its manifests (a change wanted, or blocked)."""
    return bool(doc.get("changes")) or bool(doc.get("totals", {}).get("blocked"))


def marker(name: str) -> str:
    """The hidden marker of the fleet's issue (apart from every cluster's ``drift-issue`` marker)."""
    return f"<!-- kafka-reconciler-drift: fleet={re.sub(r'[^A-Za-z0-9._-]', '_', name)} -->"


def title(name: str) -> str:
    return f"Kafka drift across fleet {name}"


def body(doc: dict[str, Any], markdown: str, *, name: str, run_url: str | None) -> str:
    """The issue's text: what differs across the fleet and what to do, or that it matches again."""
    run = doc["run"]
    if has_drift(doc):
        intro = (
            f"{doc['clusters_with_changes']} of the {doc['clusters_total']} cluster(s) of fleet `{name}` no longer "
            f"match their manifests (fleet plan run `{run['id']}`, {doc['status']}, started {run['started_at']}). "
            "Apply the run's plans with `kafka-reconciler fleet apply`, or change the manifests to describe the "
            "live state."
        )
        tail = "updated by every fleet drift check while drift remains"
    else:
        intro = f"Every cluster of fleet `{name}` matches its manifests again (run `{run['id']}`); closing."
        tail = "closed by the fleet drift check"
    footer = f"<sub>kafka-reconciler · fleet `{name}`" + (f" · [workflow run]({run_url})" if run_url else "")
    return f"{marker(name)}\n{intro}\n\n{markdown.rstrip()}\n\n---\n{footer} · {tail}</sub>\n"


def report_fleet_drift(
    out_dir: Path, *, name: str, close_if_clean: bool, ctx: GitHubContext, label: str = github.DRIFT_LABEL
) -> tuple[bool, github.IssueResult]:
    """Open, update or close the fleet's drift issue from the run in ``out_dir``; whether it drifts, and what
    was done."""
    doc, markdown = load(out_dir)
    drift = has_drift(doc)
    complete = doc.get("status") == "complete"
    result = github.upsert_drift_issue(
        title=title(name),
        body=body(doc, markdown, name=name, run_url=ctx.run_url),
        marker=marker(name),
        repo=ctx.repo,
        drift=drift,
        close_if_clean=close_if_clean and complete,
        label=label,
        token=ctx.token,
        api_url=ctx.api_url,
    )
    return drift, result

"""Telling people about a fleet run: a webhook on failed runs, changes of a cluster's status, new and resolved drift.

``events`` says what is worth telling after a run, each compared with the last successful run (the last that did
not fail; ``history.trend``): ``failed`` (the engine failed), ``recovered`` (the run before this one failed and
this one did not), ``cluster-status`` (a cluster whose status changed: now ``unreachable`` (its live state could
not be read), ``refused`` (the cluster refused the credentials or the rights to read it), ``failed`` (its
manifests are invalid), ``skipped`` (the run's deadline passed before it was read), or ``recovered`` (planned
again); on the first run in a folder, every cluster not planned), ``new-drift`` (resources a plan acts on that
the previous run did not report; on the first run in a folder, all of them) and ``resolved-drift`` (drift the
previous run reported that this run no longer finds), both compared over the clusters both runs planned. A run
with none of these sends nothing; a run with several sends one message with all of them.

``payload`` is one generic JSON document: a ``text`` field that Slack (and Mattermost, Teams workflows and
most chat tools' incoming webhooks) show as the message, and the facts as fields for anything else (run,
status, counts, the clusters whose status changed grouped by their new status, the drift new and resolved, the
clusters left out, the report's path). ``send`` POSTs it
with the standard library (``urllib``; the payload is one small request, no client library is needed),
bounded by a deadline, retried on 429 and 5xx a few times; a failure is reported back as a sentence, never
raised: a chat outage must not fail the nightly run. The URL usually holds a secret (Slack's does): it is
never printed, only its scheme and host.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reconciler import __version__
from reconciler.base import errors
from reconciler.fleet import history

FAILED, NEW, RESOLVED = "failed", "new-drift", "resolved-drift"
RECOVERED, STATUS = "recovered", "cluster-status"
# A cluster's status as told: from the summary's status, and for a cluster that could not be read, its reason.
PLANNED, UNREACHABLE, REFUSED = "planned", "unreachable", "refused"
STATUS_GROUPS = (UNREACHABLE, REFUSED, "failed", "skipped", RECOVERED)  # the order they are told in
# How the Kafka adapter words a refusal ("authentication failed at ...", "cannot authenticate to Kafka at ...",
# "..._AUTHORIZATION_FAILED"); a timeout's hint may name SASL or TLS without any refusal.
_REFUSAL = re.compile(r"authentication failed|cannot authenticate|authoriz|access denied", re.IGNORECASE)
MAX_LISTED = 50  # drift entries per direction in the payload
MAX_IN_TEXT = 5  # drift entries per direction in the text
ATTEMPTS = 3
TIMEOUT_S = 10.0


def check_url(url: str) -> str:
    """``url`` when it is an http(s) URL with a host; ``ConfigError`` (naming only scheme and host) otherwise."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise errors.ConfigError(f"--webhook must be an http(s) URL with a host, got one starting {parts.scheme}:")
    return url


def where(url: str) -> str:
    """What may be shown of the webhook URL: its scheme and host (the path and query often hold a secret)."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")


def current_drift(summary: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The (cluster, kind, name) the run's plans act on (unmanaged resources are not drift)."""
    return sorted(
        (str(d["cluster"]), str(d["kind"]), str(d["name"]))
        for d in summary.get("drift", [])
        if d["action"] != "unmanaged"
    )


def changes(summary: Mapping[str, Any], trend: history.Trend | None) -> tuple[list[Any], list[Any], list[str]]:
    """The drift new and resolved since the previous run, and the clusters left out of that comparison."""
    if trend is None or trend.previous is None:  # the first run in this folder: everything it found is news
        return current_drift(summary), [], []
    return list(trend.new), list(trend.resolved), list(trend.left_out)


def condition(status: str, reason: str | None) -> str:
    """What a cluster's summary status tells: ``planned``, ``unreachable``/``refused`` (not read: the cluster could
    not be reached, or refused the credentials or the rights), ``failed`` or ``skipped``."""
    if status == "unreadable":
        return REFUSED if reason and _REFUSAL.search(reason) else UNREACHABLE
    return status


def status_changes(summary: Mapping[str, Any], trend: history.Trend | None) -> dict[str, list[dict[str, Any]]]:
    """The clusters whose status differs from the last successful run's, grouped by their status now
    (``recovered``: planned again); on the first run in the folder, every cluster that was not planned."""
    before = {c: condition(status, reason) for c, status, reason in (trend.statuses if trend else ())}
    groups: dict[str, list[dict[str, Any]]] = {}
    for cluster in summary["clusters"]:
        name, now = str(cluster["name"]), condition(cluster["status"], cluster.get("reason"))
        then = before.get(name)
        if now == PLANNED:
            if then is not None and then != PLANNED:
                groups.setdefault(RECOVERED, []).append({"cluster": name, "was": then})
        elif now != then:
            entry = {"cluster": name, "reason": cluster.get("reason")}
            groups.setdefault(now, []).append({**entry, "was": then} if then else entry)
    return {g: groups[g] for g in (*STATUS_GROUPS, *sorted(set(groups) - set(STATUS_GROUPS))) if g in groups}


def events(summary: Mapping[str, Any], trend: history.Trend | None) -> list[str]:
    """What is worth telling about this run (empty: nothing to send)."""
    if summary["status"] == "failed":
        return [FAILED]
    new, resolved, _ = changes(summary, trend)
    found = [RECOVERED] if trend is not None and trend.failed_since else []
    found += [STATUS] if status_changes(summary, trend) else []
    return found + [e for e, there in ((NEW, new), (RESOLVED, resolved)) if there]


def _lines(title: str, keys: Sequence[Sequence[str]]) -> list[str]:
    shown = [f"• {c}: {k}/{n}" for c, k, n in keys[:MAX_IN_TEXT]]
    more = [f"• and {len(keys) - MAX_IN_TEXT} more"] if len(keys) > MAX_IN_TEXT else []
    return [f"{title} ({len(keys)}):", *shown, *more] if keys else []


def _status_lines(groups: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[str]:
    lines = []
    for group, entries in groups.items():
        lines.append(f"{group.capitalize()} ({len(entries)}):")
        for e in entries[:MAX_IN_TEXT]:
            was = f" (was {e['was']})" if e.get("was") and group != RECOVERED else ""
            why = f": {e['reason']}" if e.get("reason") else f" (was {e['was']})" if group == RECOVERED else ""
            lines.append(f"• {e['cluster']}{was}{why}")
        if len(entries) > MAX_IN_TEXT:
            lines.append(f"• and {len(entries) - MAX_IN_TEXT} more")
    return lines


def _text(
    summary: Mapping[str, Any],
    found: Sequence[str],
    changed: tuple[list[Any], list[Any], list[str]],
    *,
    trend: history.Trend | None,
) -> str:
    run = summary["run"]
    head = f"Kafka fleet plan {run['id'][:12]} ({run['started_at']})"
    if FAILED in found:
        return f"{head} FAILED: {summary.get('error')}"
    new, resolved, left_out = changed
    lines = [
        f"{head}: {summary['status']}, {summary['clusters_planned']} of {summary['clusters_total']} cluster(s) "
        f"planned, {summary['clusters_with_changes']} with changes."
    ]
    if RECOVERED in found and trend is not None:
        lines.append(f"Recovered: the run before this one failed ({', '.join(trend.failed_since)}).")
    if trend is not None and trend.previous is not None and (trend.failed_since or STATUS in found):
        lines.append(f"Compared with the last successful run, {trend.previous}.")
    lines += [*_status_lines(status_changes(summary, trend)), *_lines("New drift", new)]
    lines += _lines("Resolved drift", resolved)
    if left_out:
        lines.append(f"Not compared (not planned by both runs): {', '.join(left_out[:20])}")
    return "\n".join(lines)


def payload(
    summary: Mapping[str, Any], trend: history.Trend | None, *, report: Path, found: Sequence[str]
) -> dict[str, Any]:
    """The JSON the webhook receives: ``text`` for chat tools, the facts as fields for anything else."""
    changed = changes(summary, trend)
    new, resolved, left_out = changed

    def listed(keys: Sequence[Sequence[str]]) -> list[dict[str, str]]:
        return [{"cluster": c, "kind": k, "name": n} for c, k, n in keys[:MAX_LISTED]]

    doc: dict[str, Any] = {
        "text": _text(summary, found, changed, trend=trend),
        "source": "kafka-reconciler fleet plan",
        "events": list(found),
        "run": dict(summary["run"]),
        "status": summary["status"],
        "clusters_total": summary["clusters_total"],
        "clusters_planned": summary["clusters_planned"],
        "clusters_with_changes": summary["clusters_with_changes"],
        "compared_with": trend.previous if trend is not None else None,
        "failed_since": list(trend.failed_since) if trend is not None else [],
        "status_changes": {} if FAILED in found else status_changes(summary, trend),
        "new_drift": listed(new),
        "new_drift_count": len(new),
        "resolved_drift": listed(resolved),
        "resolved_drift_count": len(resolved),
        "left_out": left_out,
        "report": str(report),
    }
    if summary.get("error"):
        doc["error"] = summary["error"]
    return doc


def send(url: str, body: Mapping[str, Any], *, timeout_s: float = TIMEOUT_S) -> str | None:
    """POST ``body`` as JSON; ``None`` when the endpoint accepted it (2xx), else what went wrong (host only).

    Up to ``ATTEMPTS`` tries on 429, 5xx and connection errors, 1 s then 2 s apart, all within ``timeout_s``.
    """
    data = json.dumps(body).encode("utf-8")
    headers = {"Content-Type": "application/json", "User-Agent": f"kafka-reconciler/{__version__}"}
    deadline = time.monotonic() + timeout_s
    problem = "not sent"
    for attempt in range(ATTEMPTS):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        request = urllib.request.Request(url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=left) as answer:
                answer.read()
                return None
        except urllib.error.HTTPError as exc:
            problem = f"HTTP {exc.code}"
            if exc.code != 429 and exc.code < 500:
                break
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            problem = f"no answer ({type(reason).__name__})"
        pause = min(2.0**attempt, deadline - time.monotonic())
        if attempt + 1 < ATTEMPTS and pause > 0:
            time.sleep(pause)
    return f"webhook to {where(url)} failed: {problem}"


def notify(url: str, summary: Mapping[str, Any], trend: history.Trend | None, *, report: Path) -> str | None:
    """Send the webhook if the run has something to tell; a note for the run's output (``None``: nothing sent)."""
    found = events(summary, trend)
    if not found:
        return None
    failure = send(url, payload(summary, trend, report=report, found=found))
    return failure or f"webhook to {where(url)}: sent ({', '.join(found)})"

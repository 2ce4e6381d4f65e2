"""Keeps one plan comment per cluster on a pull request, and one open drift issue per cluster, up to date.

Each comment or issue carries a hidden HTML marker naming the cluster; a later run finds it by that
marker and edits it in place instead of adding another. Bodies are capped at GitHub's 65,536-character
limit: a longer body is cut at a line boundary, open code fences and ``<details>`` blocks are closed,
and a note says how much was left out. The markers, the size guard and the duplicate-free create
serve GitLab merge-request notes (``gitlab``) as well.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from reconciler.base import errors
from reconciler.gitops.client import DEFAULT_API_URL, ApiError, GitHubClient, GitHubError, RestClient

MAX_BODY_CHARS = 65_536
DRIFT_LABEL = "kafka-drift"
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_TRUNCATION_NOTE = (
    "\n\n> **Note:** this text was cut to fit {product}'s {limit:,}-character limit; {omitted:,} characters were "
    "left out. The full plan is in the job log and in the plan artifact.\n"
)

__all__ = [
    "DEFAULT_API_URL",
    "DRIFT_LABEL",
    "MAX_BODY_CHARS",
    "CommentResult",
    "GitHubClient",
    "GitHubError",
    "IssueResult",
    "comment_marker",
    "create_once",
    "drift_marker",
    "find_marked",
    "fit_body",
    "upsert_drift_issue",
    "upsert_pr_comment",
    "with_marker",
]


@dataclass(frozen=True, slots=True)
class CommentResult:
    """What ``upsert_pr_comment`` did, and the comment's id and web address."""

    action: Literal["created", "updated", "unchanged"]
    id: int
    url: str


@dataclass(frozen=True, slots=True)
class IssueResult:
    """What ``upsert_drift_issue`` did; ``number``/``url`` are ``None`` when no issue exists."""

    action: Literal["created", "updated", "unchanged", "closed", "none"]
    number: int | None
    url: str | None


# ---------------------------------------------------------------------------------------------- markers
def _safe_name(cluster: str) -> str:
    """A cluster name that cannot end the HTML comment early or span lines."""
    name = re.sub(r"[\s<>]+", "_", cluster.strip()) or "default"
    return name.replace("--", "-_")


def comment_marker(cluster: str) -> str:
    """The hidden marker identifying the plan comment of ``cluster`` on a pull request."""
    return f"<!-- kafka-reconciler: cluster={_safe_name(cluster)} -->"


def drift_marker(cluster: str) -> str:
    """The hidden marker identifying the drift issue of ``cluster``."""
    return f"<!-- kafka-reconciler-drift: cluster={_safe_name(cluster)} -->"


# ---------------------------------------------------------------------------------------------- size limit
def _units(text: str) -> int:
    """Length in UTF-16 code units: never less than ``len``, so a body under this limit is under GitHub's."""
    return len(text.encode("utf-16-le")) // 2


def _closers(kept: str) -> str:
    """Closing text for a code fence or ``<details>`` blocks left open by a cut."""
    closing = ""
    fences = sum(1 for line in kept.splitlines() if line.lstrip().startswith("```"))
    if fences % 2:
        closing += "\n```"
    open_details = len(re.findall(r"<details\b", kept, re.IGNORECASE)) - len(
        re.findall(r"</details\s*>", kept, re.IGNORECASE)
    )
    closing += "\n</details>" * max(0, open_details)
    return closing


def fit_body(body: str, *, limit: int = MAX_BODY_CHARS, product: str = "GitHub") -> str:
    """``body`` unchanged when it fits in ``limit`` characters, else its first part plus a truncation note.

    ``product`` names whose limit it is in that note.
    """
    if _units(body) <= limit:
        return body
    reserve = _units(_TRUNCATION_NOTE.format(product=product, limit=limit, omitted=len(body))) + 64
    budget = max(0, limit - reserve)
    kept = body[:budget]
    while _units(kept) > budget:
        kept = kept[: len(kept) - (_units(kept) - budget)]  # each character is at least one unit
    if "\n" in kept:
        kept = kept[: kept.rindex("\n")]
    note = _TRUNCATION_NOTE.format(product=product, limit=limit, omitted=len(body) - len(kept))
    result = kept + _closers(kept) + note
    while _units(result) > limit:  # only reachable with absurdly small limits
        kept = kept[: len(kept) // 2]
        result = kept + _closers(kept) + note
    return result


# ---------------------------------------------------------------------------------------------- comments
def _check_repo(repo: str) -> str:
    if not _REPO.match(repo or ""):
        raise errors.ConfigError(f"repository must be OWNER/NAME (e.g. acme/kafka-config), got {repo!r}")
    return repo


def _client(client: GitHubClient | None, token: str, api_url: str) -> GitHubClient:
    return client if client is not None else GitHubClient(token=token, api_url=api_url)


def with_marker(body: str, marker: str) -> str:
    """``body`` starting with ``marker`` unless it already carries it."""
    return body if marker in body else f"{marker}\n{body}"


CREATE_ATTEMPTS = 3


def create_once(
    api: RestClient, path: str, payload: dict[str, Any], recheck: Callable[[], dict[str, Any] | None]
) -> dict[str, Any]:
    """POST ``payload``; after a server error, look for the item first so a retry never makes a duplicate."""
    for attempt in range(CREATE_ATTEMPTS):
        try:
            created = api.request("POST", path, body=payload).body
            return dict(created)
        except ApiError as exc:
            if exc.status < 500 or attempt == CREATE_ATTEMPTS - 1:
                raise
        api.backoff(attempt)
        found = recheck()
        if found is not None:
            return found
    raise AssertionError("unreachable")  # pragma: no cover


def upsert_pr_comment(
    *,
    body: str,
    marker: str,
    pr_number: int,
    repo: str,
    token: str = "",
    api_url: str = DEFAULT_API_URL,
    client: GitHubClient | None = None,
) -> CommentResult:
    """Create the pull request's comment carrying ``marker``, or edit it in place if one exists.

    The marker is prepended to ``body`` when absent. The first comment containing the marker is the
    one edited; an identical body is left alone (``unchanged``). Raises ``GitHubError`` on API failure.
    """
    _check_repo(repo)
    if pr_number <= 0:
        raise errors.ConfigError(f"pull request number must be positive, got {pr_number}")
    gh = _client(client, token, api_url)
    text = fit_body(with_marker(body, marker))
    comments = f"repos/{repo}/issues/{pr_number}/comments"
    existing = find_marked(gh.paginate(comments), marker)
    if existing is None:
        created = create_once(gh, comments, {"body": text}, lambda: find_marked(gh.paginate(comments), marker))
        return CommentResult("created", int(created["id"]), str(created.get("html_url", "")))
    if existing.get("body") == text:
        return CommentResult("unchanged", int(existing["id"]), str(existing.get("html_url", "")))
    updated = gh.request("PATCH", f"repos/{repo}/issues/comments/{existing['id']}", body={"body": text}).body
    return CommentResult("updated", int(updated["id"]), str(updated.get("html_url", "")))


def find_marked(items: Any, marker: str) -> dict[str, Any] | None:
    """The first item whose ``body`` contains ``marker``."""
    for item in items:
        if marker in (item.get("body") or ""):
            return dict(item)
    return None


# ---------------------------------------------------------------------------------------------- drift issue
def upsert_drift_issue(
    *,
    title: str,
    body: str,
    marker: str,
    repo: str,
    drift: bool,
    close_if_clean: bool = False,
    label: str = DRIFT_LABEL,
    token: str = "",
    api_url: str = DEFAULT_API_URL,
    client: GitHubClient | None = None,
) -> IssueResult:
    """Keep one open issue (labelled ``label``, carrying ``marker``) describing the drift of one cluster.

    With ``drift`` true the open issue is updated, or created with the label. With ``drift`` false an
    open issue is closed when ``close_if_clean`` is set and left alone otherwise; none is created.
    """
    _check_repo(repo)
    gh = _client(client, token, api_url)
    text = fit_body(with_marker(body, marker))

    def find_open() -> dict[str, Any] | None:
        issues = (
            item
            for item in gh.paginate(f"repos/{repo}/issues", {"state": "open", "labels": label})
            if "pull_request" not in item  # the issues endpoint lists pull requests too
        )
        return find_marked(issues, marker)

    existing = find_open()
    if existing is None:
        if not drift:
            return IssueResult("none", None, None)
        created = create_once(gh, f"repos/{repo}/issues", {"title": title, "body": text, "labels": [label]}, find_open)
        return IssueResult("created", int(created["number"]), str(created.get("html_url", "")))
    number, url = int(existing["number"]), str(existing.get("html_url", ""))
    if not drift:
        if not close_if_clean:
            return IssueResult("unchanged", number, url)
        gh.request(
            "PATCH",
            f"repos/{repo}/issues/{number}",
            body={"state": "closed", "state_reason": "completed", "body": text},
        )
        return IssueResult("closed", number, url)
    if existing.get("body") == text and existing.get("title") == title:
        return IssueResult("unchanged", number, url)
    gh.request("PATCH", f"repos/{repo}/issues/{number}", body={"title": title, "body": text})
    return IssueResult("updated", number, url)

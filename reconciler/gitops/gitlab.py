"""Keeps one plan note per cluster on a GitLab merge request up to date, over GitLab's REST API v4.

The note carries the same hidden marker as the GitHub plan comment; a later run finds it among the
merge request's notes (every page, system notes skipped) and edits it in place. Bodies are capped at
GitLab's 1,000,000-character note limit with the same cut as on GitHub. The transport is the shared
``RestClient`` with GitLab's ``PRIVATE-TOKEN`` header and GitLab's advice on failures.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

from reconciler.base import errors
from reconciler.gitops.client import ApiError, RestClient
from reconciler.gitops.github import CommentResult, create_once, find_marked, fit_body, with_marker

DEFAULT_API_URL = "https://gitlab.com/api/v4"
MAX_NOTE_CHARS = 1_000_000
TOKEN_HINT = "a project or personal access token with the api scope; CI_JOB_TOKEN cannot write notes"
_SEGMENT = r"[A-Za-z0-9_.][A-Za-z0-9_.+-]*"
_PROJECT_PATH = re.compile(rf"^{_SEGMENT}(/{_SEGMENT})+$")

__all__ = [
    "DEFAULT_API_URL",
    "MAX_NOTE_CHARS",
    "GitLabClient",
    "GitLabError",
    "project_id",
    "upsert_mr_note",
]


class GitLabError(ApiError):
    """A GitLab API call failed; ``status`` is the HTTP status (0 when the server was not reached)."""


class GitLabClient(RestClient):
    """The GitLab REST API v4: ``PRIVATE-TOKEN`` header, rate limits answered with 429 and ``Retry-After``."""

    product = "GitLab"
    default_api_url = DEFAULT_API_URL
    missing_token = f"no GitLab token: set GITLAB_TOKEN ({TOKEN_HINT})"
    error_class = GitLabError
    advice = {
        400: "GitLab rejected the request {where} (HTTP 400).",
        401: f"GitLab rejected the token (HTTP 401) for {{where}}: check GITLAB_TOKEN ({TOKEN_HINT}).",
        403: (
            "GitLab refused {where} (HTTP 403): the token needs the api scope (read_api is not enough) and "
            "a role on the project that may comment on merge requests."
        ),
        404: (
            "GitLab found nothing at {where} (HTTP 404): check the project (--project or CI_PROJECT_ID) and the "
            "merge request iid (--mr or CI_MERGE_REQUEST_IID), and that the token can see the project."
        ),
        422: "GitLab rejected the request {where} (HTTP 422).",
    }

    def auth_headers(self) -> dict[str, str]:
        return {"Accept": "application/json", "PRIVATE-TOKEN": self._token}


def project_id(project: str) -> str:
    """The project as the API addresses it: a numeric id as is, a path (``group/sub/name``) URL-encoded.

    An already encoded path (``group%2Fname``) is accepted too.
    """
    value = urllib.parse.unquote((project or "").strip()).strip("/")
    if value.isdigit() and int(value) > 0:
        return value
    if _PROJECT_PATH.match(value):
        return urllib.parse.quote(value, safe="")
    raise errors.ConfigError(
        f"GitLab project must be a numeric id or a path like group/name (URL-encoded: group%2Fname), got {project!r}"
    )


def upsert_mr_note(
    *,
    body: str,
    marker: str,
    project: str,
    mr_iid: int,
    token: str = "",
    api_url: str = DEFAULT_API_URL,
    mr_url: str = "",
    client: GitLabClient | None = None,
) -> CommentResult:
    """Create the merge request's note carrying ``marker``, or edit it in place if one exists.

    The marker is prepended to ``body`` when absent. The first non-system note containing the marker
    is the one edited; an identical body is left alone (``unchanged``). ``mr_url`` (the merge request's
    web page) makes the result's ``url`` point at the note. Raises ``GitLabError`` on API failure.
    """
    pid = project_id(project)
    if mr_iid <= 0:
        raise errors.ConfigError(f"merge request iid must be positive, got {mr_iid}")
    api = client if client is not None else GitLabClient(token=token, api_url=api_url)
    text = fit_body(with_marker(body, marker), limit=MAX_NOTE_CHARS, product="GitLab")
    notes = f"projects/{pid}/merge_requests/{mr_iid}/notes"

    def find() -> dict[str, Any] | None:
        listing = api.paginate(notes, {"sort": "asc"})
        return find_marked((note for note in listing if note.get("system") is not True), marker)

    def link(note_id: object) -> str:
        return f"{mr_url.rstrip('/')}#note_{note_id}" if mr_url else ""

    existing = find()
    if existing is None:
        created = create_once(api, notes, {"body": text}, find)
        return CommentResult("created", int(created["id"]), link(created["id"]))
    note_id = int(str(existing["id"]))
    if existing.get("body") == text:
        return CommentResult("unchanged", note_id, link(note_id))
    updated = api.request("PUT", f"{notes}/{note_id}", body={"body": text}).body
    return CommentResult("updated", int(updated["id"]), link(updated["id"]))

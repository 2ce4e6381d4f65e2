"""A local HTTP server implementing the GitLab REST v4 merge-request note endpoints the tool uses, for tests.

The real API is unreachable from the test machines, so the merge-request note code is checked against
this server: list notes (paged with ``Link`` and ``X-Next-Page`` headers, page size capped by
``max_per_page``, ``sort`` honoured), create a note, update a note. A project is addressed by its
numeric id or its URL-encoded path, as on GitLab. It checks the ``PRIVATE-TOKEN`` header (401
``{"message": "401 Unauthorized"}`` otherwise), rejects notes over 1,000,000 characters (HTTP 400),
records every request, and can be told to fail the next matching requests (see ``fake_api``).
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

from tests.support.fake_api import Answer, FakeApi

GITLAB_NOTE_LIMIT = 1_000_000


class FakeGitLab(FakeApi):
    """Start with ``with FakeGitLab(token="t", project="acme/kafka-config") as gl:``; API URL is ``gl.api_url``."""

    auth_header = "PRIVATE-TOKEN"
    unauthorized = (401, {}, {"message": "401 Unauthorized"})

    def __init__(
        self,
        *,
        token: str,
        project: str = "acme/kafka-config",
        project_id: int = 4242,
        max_per_page: int = 100,
        link_headers: bool = True,
        next_page_headers: bool = True,
    ) -> None:
        super().__init__(token=token, default_per_page=20, max_per_page=max_per_page, link_headers=link_headers)
        self.project = project
        self.project_id = project_id
        self.next_page_headers = next_page_headers
        self.notes: dict[int, list[dict[str, Any]]] = {}

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/v4"

    def expected_auth(self) -> str:
        return self.token

    # ---------------------------------------------------------------------------------- test setup
    def add_note(self, mr_iid: int, body: str, *, author: str = "someone", system: bool = False) -> dict[str, Any]:
        with self._lock:
            return self._new_note(mr_iid, body, author, system)

    def _new_note(self, mr_iid: int, body: str, author: str, system: bool) -> dict[str, Any]:
        note = {
            "id": self._id(),
            "body": body,
            "author": {"username": author},
            "system": system,
            "noteable_type": "MergeRequest",
            "noteable_iid": mr_iid,
        }
        self.notes.setdefault(mr_iid, []).append(note)
        return note

    # ---------------------------------------------------------------------------------- endpoints
    def _serve(self, method: str, path: str, query: dict[str, str], body: Any) -> Answer:
        m = re.fullmatch(r"/api/v4/projects/([^/]+)/merge_requests/(\d+)/notes(?:/(\d+))?", path)
        if not m or urllib.parse.unquote(m.group(1)) not in (self.project, str(self.project_id)):
            return 404, {}, {"message": "404 Project Not Found"}
        iid, note_id = int(m.group(2)), m.group(3)
        if isinstance(body, dict) and len(str(body.get("body") or "")) > GITLAB_NOTE_LIMIT:
            return 400, {}, {"message": {"body": [f"is too long (maximum is {GITLAB_NOTE_LIMIT} characters)"]}}
        notes = self.notes.get(iid, [])
        if method == "GET" and note_id is None:
            ordered = notes if query.get("sort", "desc") == "asc" else list(reversed(notes))
            return self._page(path, query, ordered)
        if method == "POST" and note_id is None:
            if not isinstance(body, dict) or not body.get("body"):
                return 400, {}, {"message": "400 Bad request - body is missing"}
            return 201, {}, self._new_note(iid, body["body"], "project_4242_bot", False)
        if method == "PUT" and note_id is not None:
            for note in notes:
                if note["id"] == int(note_id):
                    note["body"] = body["body"]
                    return 200, {}, note
            return 404, {}, {"message": "404 Note Not Found"}
        return 405, {}, {"message": "405 Method Not Allowed"}

    def _page_headers(self, *, page: int, last: int, per_page: int, total: int) -> dict[str, str]:
        if not self.next_page_headers:
            return {}
        return {
            "X-Page": str(page),
            "X-Per-Page": str(per_page),
            "X-Next-Page": str(page + 1) if page < last else "",
            "X-Total": str(total),
        }

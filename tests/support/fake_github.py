"""A local HTTP server implementing the few GitHub REST endpoints the tool uses, for tests.

The real API is unreachable from the test machines, so the comment and drift-issue code is checked
against this server: issue comments (list with pagination and ``Link`` headers, create, update) and
issues (list filtered by state and label, create, update). It checks the ``Authorization`` header,
rejects bodies over 65,536 characters as GitHub does (HTTP 422), records every request, and can be
told to fail the next matching requests (e.g. 500 twice, or 403 with ``Retry-After``); that plumbing
lives in ``fake_api``.
"""

from __future__ import annotations

import re
from typing import Any

from tests.support.fake_api import Answer, FakeApi, Recorded

GITHUB_BODY_LIMIT = 65_536

__all__ = ["GITHUB_BODY_LIMIT", "FakeGitHub", "Recorded"]


class FakeGitHub(FakeApi):
    """Start with ``with FakeGitHub(token="t") as gh:``; point the client at ``gh.url``."""

    def __init__(self, *, token: str, default_per_page: int = 30, link_headers: bool = True) -> None:
        super().__init__(token=token, default_per_page=default_per_page, link_headers=link_headers)
        self.comments: dict[tuple[str, int], list[dict[str, Any]]] = {}
        self.issues: dict[str, list[dict[str, Any]]] = {}

    # ---------------------------------------------------------------------------------- test setup
    def add_comment(self, repo: str, number: int, body: str, *, user: str = "someone") -> dict[str, Any]:
        with self._lock:
            return self._new_comment(repo, number, body, user)

    def add_issue(
        self, repo: str, *, title: str, body: str, labels: list[str], pull_request: bool = False
    ) -> dict[str, Any]:
        with self._lock:
            issue = self._new_issue(repo, title, body, labels)
            if pull_request:
                issue["pull_request"] = {"url": f"{self.url}/repos/{repo}/pulls/{issue['number']}"}
            return issue

    # ---------------------------------------------------------------------------------- state
    def _new_comment(self, repo: str, number: int, body: str, user: str) -> dict[str, Any]:
        cid = self._id()
        comment = {
            "id": cid,
            "body": body,
            "user": {"login": user},
            "html_url": f"https://github.example/{repo}/pull/{number}#issuecomment-{cid}",
        }
        self.comments.setdefault((repo, number), []).append(comment)
        return comment

    def _new_issue(self, repo: str, title: str, body: str, labels: list[str]) -> dict[str, Any]:
        existing = self.issues.setdefault(repo, [])
        number = len(existing) + 1
        issue = {
            "id": self._id(),
            "number": number,
            "title": title,
            "body": body,
            "state": "open",
            "labels": [{"name": name} for name in labels],
            "html_url": f"https://github.example/{repo}/issues/{number}",
        }
        existing.append(issue)
        return issue

    # ---------------------------------------------------------------------------------- endpoints
    def _serve(self, method: str, path: str, query: dict[str, str], body: Any) -> Answer:
        if isinstance(body, dict) and len(str(body.get("body") or "")) > GITHUB_BODY_LIMIT:
            return (
                422,
                {},
                {
                    "message": "Validation Failed",
                    "errors": [
                        {"field": "body", "code": "custom", "message": "body is too long (maximum is 65536 characters)"}
                    ],
                },
            )
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)/comments", path)
        if m and method == "GET":
            return self._page(path, query, self.comments.get((m.group(1), int(m.group(2))), []))
        if m and method == "POST":
            return 201, {}, self._new_comment(m.group(1), int(m.group(2)), body["body"], "github-actions[bot]")
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/comments/(\d+)", path)
        if m and method == "PATCH":
            for comments in self.comments.values():
                for comment in comments:
                    if comment["id"] == int(m.group(2)):
                        comment["body"] = body["body"]
                        return 200, {}, comment
            return 404, {}, {"message": "Not Found"}
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues", path)
        if m and method == "GET":
            wanted = set(filter(None, query.get("labels", "").split(",")))
            state = query.get("state", "open")
            found = [
                i
                for i in self.issues.get(m.group(1), [])
                if (state == "all" or i["state"] == state) and wanted <= {lab["name"] for lab in i["labels"]}
            ]
            return self._page(path, query, found)
        if m and method == "POST":
            return 201, {}, self._new_issue(m.group(1), body["title"], body.get("body", ""), body.get("labels", []))
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)", path)
        if m and method == "PATCH":
            for issue in self.issues.get(m.group(1), []):
                if issue["number"] == int(m.group(2)):
                    issue.update({k: v for k, v in body.items() if k in ("title", "body", "state", "state_reason")})
                    return 200, {}, issue
        return 404, {}, {"message": "Not Found"}

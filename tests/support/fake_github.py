"""A local HTTP server implementing the few GitHub REST endpoints the tool uses, for tests.

The real API is unreachable from the test machines, so the comment and drift-issue code is checked
against this server: issue comments (list with pagination and ``Link`` headers, create, update) and
issues (list filtered by state and label, create, update). It checks the ``Authorization`` header,
rejects bodies over 65,536 characters as GitHub does (HTTP 422), records every request, and can be
told to fail the next matching requests (e.g. 500 twice, or 403 with ``Retry-After``).
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

GITHUB_BODY_LIMIT = 65_536


@dataclasses.dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    authorization: str | None
    body: Any


@dataclasses.dataclass
class _Failure:
    method: str
    path_pattern: str
    status: int
    headers: dict[str, str]
    body: Any
    remaining: int
    after: bool


class FakeGitHub:
    """Start with ``with FakeGitHub(token="t") as gh:``; point the client at ``gh.url``."""

    def __init__(self, *, token: str, default_per_page: int = 30, link_headers: bool = True) -> None:
        self.token = token
        self.default_per_page = default_per_page
        self.link_headers = link_headers
        self.requests: list[Recorded] = []
        self.comments: dict[tuple[str, int], list[dict[str, Any]]] = {}
        self.issues: dict[str, list[dict[str, Any]]] = {}
        self._failures: list[_Failure] = []
        self._next_id = 1000
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    # ---------------------------------------------------------------------------------- lifecycle
    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # ---------------------------------------------------------------------------------- test setup
    def fail_next(
        self,
        *,
        method: str,
        path_pattern: str,
        status: int,
        times: int = 1,
        headers: dict[str, str] | None = None,
        body: Any = None,
        after: bool = False,
    ) -> None:
        """Answer the next ``times`` requests matching ``method`` and the regex ``path_pattern`` with an error.

        With ``after`` the request is carried out first and the error reported anyway, as when a proxy
        times out on a request the API completed.
        """
        self._failures.append(
            _Failure(
                method, path_pattern, status, headers or {}, body or {"message": f"injected {status}"}, times, after
            )
        )

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

    def calls(self, method: str | None = None) -> list[Recorded]:
        return [r for r in self.requests if method is None or r.method == method]

    # ---------------------------------------------------------------------------------- state
    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

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

    # ---------------------------------------------------------------------------------- HTTP
    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                fake._dispatch(self, "GET")

            def do_POST(self) -> None:
                fake._dispatch(self, "POST")

            def do_PATCH(self) -> None:
                fake._dispatch(self, "PATCH")

        return Handler

    def _dispatch(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        split = urllib.parse.urlsplit(handler.path)
        query = dict(urllib.parse.parse_qsl(split.query))
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        with self._lock:
            self.requests.append(Recorded(method, split.path, query, handler.headers.get("Authorization"), body))
            status, headers, payload = self._answer(method, split.path, query, body)
        data = json.dumps(payload).encode("utf-8")
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json; charset=utf-8")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def _answer(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, dict[str, str], Any]:
        for failure in self._failures:
            if failure.remaining > 0 and failure.method == method and re.search(failure.path_pattern, path):
                failure.remaining -= 1
                if failure.after:
                    self._serve(method, path, query, body)
                return failure.status, failure.headers, failure.body
        return self._serve(method, path, query, body)

    def _serve(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, dict[str, str], Any]:
        if self.token and self._auth_bad():
            return 401, {}, {"message": "Bad credentials"}
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

    def _auth_bad(self) -> bool:
        return self.requests[-1].authorization != f"Bearer {self.token}"

    def _page(self, path: str, query: dict[str, str], items: list[dict[str, Any]]) -> tuple[int, dict[str, str], Any]:
        per_page = int(query.get("per_page", self.default_per_page))
        page = int(query.get("page", 1))
        chunk = items[(page - 1) * per_page : page * per_page]
        headers: dict[str, str] = {}
        last = max(1, -(-len(items) // per_page))
        if self.link_headers and last > 1:
            links = []
            if page < last:
                links.append(f'<{self._page_url(path, query, page + 1)}>; rel="next"')
                links.append(f'<{self._page_url(path, query, last)}>; rel="last"')
            if page > 1:
                links.append(f'<{self._page_url(path, query, 1)}>; rel="first"')
                links.append(f'<{self._page_url(path, query, page - 1)}>; rel="prev"')
            headers["Link"] = ", ".join(links)
        return 200, headers, chunk

    def _page_url(self, path: str, query: dict[str, str], page: int) -> str:
        return f"{self.url}{path}?{urllib.parse.urlencode({**query, 'page': page})}"

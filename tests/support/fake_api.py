"""The plumbing shared by the local fake REST servers used in tests: HTTP, token check, recording, failures, paging.

``FakeGitHub`` and ``FakeGitLab`` subclass ``FakeApi`` and implement ``_serve`` for their few
endpoints. The base records every request, checks the auth header on each one, can be told to fail
the next matching requests (e.g. 500 twice, or 429 with ``Retry-After``), and pages list answers
with ``Link`` headers (plus whatever ``_page_headers`` adds).
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, TypeVar

Answer = tuple[int, dict[str, str], Any]
_Fake = TypeVar("_Fake", bound="FakeApi")


@dataclasses.dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    authorization: str | None  # the value of the server's auth header
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


class FakeApi:
    """Start with ``with Subclass(token="t") as api:``; point the client at ``api.url``."""

    auth_header: ClassVar[str] = "Authorization"
    unauthorized: ClassVar[Answer] = (401, {}, {"message": "Bad credentials"})

    def __init__(
        self, *, token: str, default_per_page: int = 30, max_per_page: int = 100, link_headers: bool = True
    ) -> None:
        self.token = token
        self.default_per_page = default_per_page
        self.max_per_page = max_per_page
        self.link_headers = link_headers
        self.requests: list[Recorded] = []
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

    def __enter__(self: _Fake) -> _Fake:
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

    def calls(self, method: str | None = None) -> list[Recorded]:
        return [r for r in self.requests if method is None or r.method == method]

    # ---------------------------------------------------------------------------------- for subclasses
    def expected_auth(self) -> str:
        """The auth header value a request must carry."""
        return f"Bearer {self.token}"

    def _serve(self, method: str, path: str, query: dict[str, str], body: Any) -> Answer:
        raise NotImplementedError

    def _page_headers(self, *, page: int, last: int, per_page: int, total: int) -> dict[str, str]:
        return {}

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

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

            def do_PUT(self) -> None:
                fake._dispatch(self, "PUT")

        return Handler

    def _dispatch(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        split = urllib.parse.urlsplit(handler.path)
        query = dict(urllib.parse.parse_qsl(split.query))
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        with self._lock:
            self.requests.append(Recorded(method, split.path, query, handler.headers.get(self.auth_header), body))
            status, headers, payload = self._answer(method, split.path, query, body)
        data = json.dumps(payload).encode("utf-8")
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json; charset=utf-8")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def _answer(self, method: str, path: str, query: dict[str, str], body: Any) -> Answer:
        for failure in self._failures:
            if failure.remaining > 0 and failure.method == method and re.search(failure.path_pattern, path):
                failure.remaining -= 1
                if failure.after:
                    self._checked(method, path, query, body)
                return failure.status, failure.headers, failure.body
        return self._checked(method, path, query, body)

    def _checked(self, method: str, path: str, query: dict[str, str], body: Any) -> Answer:
        if self.token and self.requests[-1].authorization != self.expected_auth():
            return self.unauthorized
        return self._serve(method, path, query, body)

    def _page(self, path: str, query: dict[str, str], items: list[dict[str, Any]]) -> Answer:
        per_page = min(int(query.get("per_page", self.default_per_page)), self.max_per_page)
        page = int(query.get("page", 1))
        chunk = items[(page - 1) * per_page : page * per_page]
        last = max(1, -(-len(items) // per_page))
        headers = self._page_headers(page=page, last=last, per_page=per_page, total=len(items))
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

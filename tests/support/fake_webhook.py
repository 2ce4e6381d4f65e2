"""A local HTTP endpoint standing in for a chat webhook (Slack's incoming webhooks and the like), for tests.

Records every POST (path and JSON body) and answers 200 ``ok``, or the statuses it was told to answer first
(``fail_next(500, 500)``: two server errors, then success).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeWebhook:
    """``with FakeWebhook() as hook:``; post to ``hook.url`` (a path with a secret-looking token)."""

    SECRET_PATH = "/services/T000/B000/s3cr3t-t0ken"

    def __init__(self) -> None:
        self.posts: list[tuple[str, Any]] = []
        self.answers: list[int] = []
        self._lock = threading.Lock()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"null")
                with hook._lock:
                    hook.posts.append((self.path, body))
                    status = hook.answers.pop(0) if hook.answers else 200
                self.send_response(status)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"ok" if status == 200 else b"no")

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self.SECRET_PATH}"

    def fail_next(self, *statuses: int) -> None:
        with self._lock:
            self.answers.extend(statuses)

    def bodies(self) -> list[Any]:
        with self._lock:
            return [body for _, body in self.posts]

    def __enter__(self) -> FakeWebhook:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

"""An HTTP relay on 127.0.0.1 that asks for HTTP basic auth in front of a server that has none.

The test Schema Registry (Apicurio Registry 2.4) can check credentials only through an OpenID Connect server
(Keycloak), which cannot run here; ``BasicAuthGate`` stands in front of it and answers as Confluent's registry does
with basic auth on (``401``, ``{"error_code": 401, "message": "Unauthorized"}``) unless a request carries the one
``Authorization: Basic ...`` header of ``username``/``password``; a request that does is forwarded to ``upstream``
unchanged (``http.client``, one upstream connection per request) and its answer relayed. ``headers`` keeps the
``Authorization`` header of every request seen (``None`` when absent), so a test can check what was sent.
"""

from __future__ import annotations

import base64
import http.client
import http.server
import json
import threading
from typing import Any


class BasicAuthGate:
    """Listens on a free port; ``url`` is its address (with ``path`` kept: the upstream's API prefix)."""

    def __init__(self, upstream: tuple[str, int], *, username: str, password: str) -> None:
        self.upstream = upstream
        self.expected = "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()
        self.headers: list[str | None] = []
        self.refused = 0
        gate = self
        lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _answer(self, status: int, raw: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                given = self.headers.get("Authorization")
                with lock:
                    gate.headers.append(given)
                if given != gate.expected:
                    with lock:
                        gate.refused += 1
                    raw = json.dumps({"error_code": 401, "message": "Unauthorized"}).encode()
                    self._answer(401, raw, "application/json")
                    return
                conn = http.client.HTTPConnection(*gate.upstream, timeout=60)
                try:
                    skip = ("host", "connection", "authorization")
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in skip}
                    conn.request(self.command, self.path, body=body, headers=headers)
                    answer = conn.getresponse()
                    self._answer(answer.status, answer.read(), answer.getheader("Content-Type") or "application/json")
                finally:
                    conn.close()

            do_GET = do_PUT = do_POST = do_DELETE = _forward

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

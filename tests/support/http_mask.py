"""An HTTP relay on 127.0.0.1 in front of Kafka Connect's REST API that masks secret values in configs it returns.

Some Connect distributions answer a placeholder instead of a secret's value in ``GET /connectors/{name}/config``
(and the other answers that carry a connector's config). This relay forwards every request to the real worker
(``http.client``, one upstream connection per request) and, in the JSON answer of a ``GET``, replaces the value of
each config key in ``keys`` by ``mask`` wherever a connector config appears: ``/connectors?expand=info`` (each
``info.config``), ``/connectors/{name}`` (``config``) and ``/connectors/{name}/config``. Everything else is relayed
unchanged. Built on ``http.server`` (it must read and rewrite whole answers, not bytes).
"""

from __future__ import annotations

import http.client
import http.server
import json
import threading
import urllib.parse
from collections.abc import Iterable
from typing import Any

MASK = "[hidden]"


class MaskingRelay:
    """Listens on a free port; ``url`` is its address, forwarding to the worker at ``upstream`` (host, port)."""

    def __init__(self, upstream: tuple[str, int], keys: Iterable[str], *, mask: str = MASK) -> None:
        self.upstream = upstream
        self.keys = frozenset(keys)
        self.mask = mask
        relay = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                conn = http.client.HTTPConnection(*relay.upstream, timeout=60)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                    conn.request(self.command, self.path, body=body, headers=headers)
                    answer = conn.getresponse()
                    raw = answer.read()
                    if self.command == "GET" and answer.status == 200 and raw:
                        raw = relay.rewrite(self.path, raw)
                    self.send_response(answer.status)
                    self.send_header("Content-Type", answer.getheader("Content-Type") or "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                finally:
                    conn.close()

            do_GET = do_PUT = do_POST = do_DELETE = do_PATCH = _forward

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()

    def _masked(self, config: Any) -> Any:
        if not isinstance(config, dict):
            return config
        return {k: self.mask if k in self.keys else v for k, v in config.items()}

    def rewrite(self, path: str, raw: bytes) -> bytes:
        """The answer to ``GET path`` with the values of ``keys`` masked in every connector config it holds."""
        parts = urllib.parse.urlsplit(path).path.strip("/").split("/")
        doc = json.loads(raw)
        if parts == ["connectors"] and isinstance(doc, dict):
            for entry in doc.values():
                if isinstance(entry, dict) and isinstance(entry.get("info"), dict):
                    entry["info"]["config"] = self._masked(entry["info"].get("config"))
        elif len(parts) == 2 and parts[0] == "connectors" and isinstance(doc, dict):
            doc["config"] = self._masked(doc.get("config"))
        elif len(parts) == 3 and parts[0] == "connectors" and parts[2] == "config":
            doc = self._masked(doc)
        return json.dumps(doc).encode()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

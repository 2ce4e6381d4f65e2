"""A small JSON-over-HTTP client for Kafka Connect's REST API: keep-alive, deadline, fail-over, counts, no secrets.

Written on the standard library's ``http.client`` rather than a dependency: the REST API needs only JSON requests
with basic auth and TLS, and ``http.client`` gives what ``urllib`` does not, a kept-alive connection per thread
(a plan or an apply sends hundreds of requests to the same worker; each new connection would cost a TCP and TLS
handshake). TLS comes from ``reconciler.kafka.tls``, so the Connect cluster takes the same store formats (PEM,
PKCS12, JKS) as the brokers.

Every request carries the caller's deadline (``time.monotonic()`` seconds): its socket timeout is the smaller of
the request bound and the time left, and nothing is sent once it has passed. The URLs are tried in order; a URL
that cannot be reached is skipped for the next; a request sent whose answer was lost (the connection reset or timed
out after the request went out) may have been carried out, and its error says so (``ConnectError.answer_lost``).
A ``409 Conflict`` (a rebalance in progress) is retried with a short back-off until the deadline, but not one saying
the connector already exists (a create's answer, final). Error messages name the method, path and Connect's
message, never a header or a body sent (a connector config holds secrets).
"""

from __future__ import annotations

import base64
import collections
import http.client
import json
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Sequence
from typing import Any

from reconciler.base import errors
from reconciler.connection.settings import Secret

DEFAULT_REQUEST_TIMEOUT_S = 30.0
CONFLICT_BACKOFF_S = (0.25, 0.5, 1.0, 2.0)


class ConnectError(errors.ReconcilerError):
    """Kafka Connect refused a request or could not be reached in time; ``status`` is the HTTP status (0: none)."""

    def __init__(self, message: str, *, status: int = 0, answer_lost: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.answer_lost = answer_lost  # sent, no answer: Connect may have carried it out

    @property
    def unreachable(self) -> bool:
        return self.status == 0


class ConnectClient:
    """JSON requests to one Kafka Connect cluster; thread-safe (one kept-alive connection per thread and URL)."""

    def __init__(
        self,
        urls: Sequence[str],
        *,
        username: str | None = None,
        password: Secret | None = None,
        ssl_context: ssl.SSLContext | None = None,
        request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S,
    ) -> None:
        if not urls:
            raise errors.ConfigError("the Connect cluster has no REST URL")
        self.urls = tuple(u.rstrip("/") for u in urls)
        for url in self.urls:
            parts = urllib.parse.urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise errors.ConfigError(f"Connect REST URL {url!r} is not http(s)://host:port")
        self._auth = None
        if username is not None and password is not None:
            token = base64.b64encode(f"{username}:{password.reveal()}".encode()).decode()
            self._auth = Secret(f"Basic {token}")
        self._ssl = ssl_context
        self.request_timeout_s = request_timeout_s
        self._local = threading.local()
        self._lock = threading.Lock()
        self._preferred = 0
        self.request_count = 0
        self.request_counts: collections.Counter[str] = collections.Counter()

    # ---------------------------------------------------------------------------------------- requests
    def request(self, method: str, path: str, body: Any = None, *, deadline: float, what: str | None = None) -> Any:
        """Send one request (retrying 409 until ``deadline``); the decoded JSON answer (``None`` for none)."""
        attempt = 0
        while True:
            status, answer = self._send(method, path, body, deadline=deadline)
            if status == 409 and not _exists(answer) and time.monotonic() + CONFLICT_BACKOFF_S[0] < deadline:
                pause = CONFLICT_BACKOFF_S[min(attempt, len(CONFLICT_BACKOFF_S) - 1)]
                time.sleep(max(0.0, min(pause, deadline - time.monotonic())))
                attempt += 1
                continue
            if 200 <= status < 300:
                return answer
            raise ConnectError(f"{what or f'{method} {_path_only(path)}'}: {_message(status, answer)}", status=status)

    def _send(self, method: str, path: str, body: Any, *, deadline: float) -> tuple[int, Any]:
        payload = None if body is None else json.dumps(body).encode()
        headers = {"Accept": "application/json", "Content-Type": "application/json"}
        if self._auth is not None:
            headers["Authorization"] = self._auth.reveal()
        last: str | None = None
        lost = False
        order = [*range(self._preferred, len(self.urls)), *range(0, self._preferred)]
        for index in order:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            with self._lock:
                self.request_count += 1
                self.request_counts[f"{method} {_api(path)}"] += 1
            try:
                return self._exchange(index, method, path, payload, headers, timeout=min(left, self.request_timeout_s))
            except _AnswerLost as exc:
                self._drop(index)
                last, lost = f"{self.urls[index]}: {_reason(exc.cause)}", True
            except (OSError, http.client.HTTPException) as exc:
                self._drop(index)
                last = f"{self.urls[index]}: {_reason(exc)}"
        where = f"{method} {_path_only(path)}"
        if last is None:
            raise ConnectError(f"{where}: the deadline passed before Kafka Connect answered", answer_lost=lost)
        if lost and method != "GET":  # a write may have been carried out: the error must not say otherwise
            raise ConnectError(f"{where}: sent, but Kafka Connect's answer was lost ({last})", answer_lost=True)
        raise ConnectError(f"{where}: Kafka Connect could not be reached ({last})", answer_lost=lost)

    def _exchange(
        self, index: int, method: str, path: str, payload: bytes | None, headers: dict[str, str], *, timeout: float
    ) -> tuple[int, Any]:
        conn = self._connection(index, timeout)
        prefix = urllib.parse.urlsplit(self.urls[index]).path
        conn.request(method, prefix + path, body=payload, headers=headers)
        try:
            response = conn.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as exc:
            raise _AnswerLost(exc) from exc
        if index != self._preferred and response.status < 500:
            self._preferred = index
        try:
            return response.status, (json.loads(raw) if raw else None)
        except ValueError:
            return response.status, raw.decode(errors="replace")[:200]

    def _connection(self, index: int, timeout: float) -> http.client.HTTPConnection:
        pool: dict[int, http.client.HTTPConnection] = self._local.__dict__.setdefault("pool", {})
        conn = pool.get(index)
        if conn is None:
            parts = urllib.parse.urlsplit(self.urls[index])
            if parts.scheme == "https":
                context = self._ssl or ssl.create_default_context()
                conn = http.client.HTTPSConnection(parts.hostname or "", parts.port or 443, context=context)
            else:
                conn = http.client.HTTPConnection(parts.hostname or "", parts.port or 80)
            pool[index] = conn
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        return conn

    def _drop(self, index: int) -> None:
        pool: dict[int, http.client.HTTPConnection] = self._local.__dict__.get("pool", {})
        conn = pool.pop(index, None)
        if conn is not None:
            conn.close()

    def close(self) -> None:
        """Close this thread's connections (other threads' close when their thread ends)."""
        for index in list(self._local.__dict__.get("pool", {})):
            self._drop(index)


def _exists(answer: Any) -> bool:
    """Whether a 409 says the connector already exists (a create's conflict, final) rather than a rebalance."""
    return isinstance(answer, dict) and "already exists" in str(answer.get("message", ""))


class _AnswerLost(Exception):
    """The request was written, then its answer did not come (reset, closed, timed out)."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _api(path: str) -> str:
    """The endpoint a path calls, without names: ``/connectors/{name}/config``."""
    parts = urllib.parse.urlsplit(path).path.strip("/").split("/")
    if len(parts) >= 2 and parts[0] in ("connectors", "connector-plugins"):
        parts[1] = "{name}"
    return "/" + "/".join(parts)


def _path_only(path: str) -> str:
    return urllib.parse.unquote(urllib.parse.urlsplit(path).path)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "timed out"
    if isinstance(exc, ssl.SSLError):
        return f"TLS: {exc.reason or exc}"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    return type(exc).__name__ if not str(exc) else str(exc)[:200]


def _message(status: int, answer: Any) -> str:
    if isinstance(answer, dict) and isinstance(answer.get("message"), str):
        return f"HTTP {status}: {answer['message'].splitlines()[0][:300]}"
    return f"HTTP {status}"

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
While another URL is left to try, connecting to a URL not heard from yet, and a read's first answer from it, are
bounded by ``FAILOVER_S`` rather than the request timeout; a URL that accepted and did not answer in that time is
remembered for the rest of the process (``_UNRESPONSIVE``) and tried last.

A kept-alive connection the worker closed while idle (Connect closes idle connections after a minute or more, e.g.
while a person reads the plan at the prompt) is checked before reuse, as urllib3's pool does (readable while idle:
the worker closed it), and replaced; a request that still fails on a reused connection before any answer came is
sent once more on a fresh one where that cannot apply a write twice: a read, or a write that failed while being
sent (a worker that closed the connection did not read it).
The client sends and answers (``exchange``: the status and decoded JSON); what an answer means, and which answers
are sent again (409 during a rebalance, 429, 5xx), is the port's (``reconciler.connect.port``). Error messages name
the method, path and Connect's message, never a header or a body sent (a connector config holds secrets).
"""

from __future__ import annotations

import base64
import collections
import http.client
import json
import select
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
FAILOVER_S = 10.0  # connecting, and a read's first answer, from a URL not heard from while another URL is left
_UNRESPONSIVE: set[str] = set()  # URLs that accepted and sent nothing within FAILOVER_S: tried last from then on
_HEARD: set[str] = set()  # URLs that answered in this process


class ConnectError(errors.ReconcilerError):
    """Kafka Connect refused a request or could not be reached in time; ``status`` is the HTTP status (0: none)."""

    def __init__(self, message: str, *, status: int = 0, answer_lost: bool = False, sent: bool = True) -> None:
        super().__init__(message)
        self.status = status
        self.answer_lost = answer_lost  # sent, no answer: Connect may have carried it out
        self.sent = sent  # False: no URL took the request (none could be connected to, or the deadline came first)

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
        service: str = "Kafka Connect",
        cluster: str = "the Connect cluster",
    ) -> None:
        """``service`` names the server in errors ("Kafka Connect could not be reached"), ``cluster`` in its
        configuration errors: another REST API on this client (``reconciler.registry_access.http``) names its own."""
        if not urls:
            raise errors.ConfigError(f"{cluster} has no REST URL")
        self.urls = tuple(u.rstrip("/") for u in urls)
        for url in self.urls:
            parts = urllib.parse.urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise errors.ConfigError(f"{cluster}'s REST URL {url!r} is not http(s)://host:port")
        self.service = service
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
    def exchange(self, method: str, path: str, body: Any = None, *, deadline: float) -> tuple[int, Any]:
        """One request, bounded, counted and failed over: the HTTP status and decoded answer (``ConnectError`` only
        when no answer came). The errors raised name the client's ``service``."""
        return self._send(method, path, body, deadline=deadline)

    def _send(self, method: str, path: str, body: Any, *, deadline: float) -> tuple[int, Any]:
        payload = None if body is None else json.dumps(body).encode()
        headers = {"Accept": "application/json", "Content-Type": "application/json"}
        if self._auth is not None:
            headers["Authorization"] = self._auth.reveal()
        last: str | None = None
        lost = sent = False
        order = [*range(self._preferred, len(self.urls)), *range(0, self._preferred)]
        order.sort(key=lambda i: self.urls[i] in _UNRESPONSIVE)  # stable: the preferred order otherwise
        for n, index in enumerate(order):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            url, timeout = self.urls[index], min(left, self.request_timeout_s)
            # Another URL left to try: one not heard from yet gets a short bound to connect (and, a read, to answer).
            quick = min(timeout, FAILOVER_S) if n < len(order) - 1 and url not in _HEARD else None
            with self._lock:
                self.request_count += 1
                self.request_counts[f"{method} {_api(path)}"] += 1
            try:
                answer = self._exchange(index, method, path, payload, headers, timeout=timeout, quick=quick)
            except _AnswerLost as exc:
                self._drop(index)
                last, lost, sent = f"{url}: {_reason(exc.cause)}", True, True
                if quick is not None and method == "GET" and _reason(exc.cause) == "timed out":
                    _UNRESPONSIVE.add(url)
                    last, lost = f"{url}: no answer within {quick:g}s", False  # a read: nothing in doubt
            except _NotConnected as exc:
                self._drop(index)
                last = f"{url}: {_reason(exc.cause)}"
                if quick is not None and isinstance(exc.cause, (socket.timeout, TimeoutError)):
                    _UNRESPONSIVE.add(url)
            except (OSError, http.client.HTTPException) as exc:
                self._drop(index)
                last, sent = f"{url}: {_reason(exc)}", True
            else:
                _HEARD.add(url)
                _UNRESPONSIVE.discard(url)
                return answer
        where = f"{method} {path_only(path)}"
        if last is None:
            raise ConnectError(
                f"{where}: the deadline passed before {self.service} answered", answer_lost=lost, sent=sent
            )
        if lost and method != "GET":  # a write may have been carried out: the error must not say otherwise
            raise ConnectError(f"{where}: sent, but {self.service}'s answer was lost ({last})", answer_lost=True)
        raise ConnectError(f"{where}: {self.service} could not be reached ({last})", answer_lost=lost, sent=sent)

    def _exchange(
        self,
        index: int,
        method: str,
        path: str,
        payload: bytes | None,
        headers: dict[str, str],
        *,
        timeout: float,
        quick: float | None = None,
    ) -> tuple[int, Any]:
        """One request on this thread's connection to URL ``index``; on a reused connection that fails before any
        answer came, once more on a fresh one where that cannot apply a write twice (see the module docstring)."""
        try:
            conn, reused = self._connection(index, timeout, quick=quick)
        except (OSError, http.client.HTTPException) as exc:
            raise _NotConnected(exc) from exc
        prefix = urllib.parse.urlsplit(self.urls[index]).path
        try:
            conn.request(method, prefix + path, body=payload, headers=headers)
        except (OSError, http.client.HTTPException):
            if not reused:
                raise
            self._drop(index)  # the worker closed it and did not read the request: send it on a fresh connection
            return self._exchange(index, method, path, payload, headers, timeout=timeout, quick=quick)
        if quick is not None and method == "GET" and conn.sock is not None:
            conn.sock.settimeout(quick)  # a read's first answer byte: the short bound too
        try:
            response = conn.getresponse()
            if conn.sock is not None:
                conn.sock.settimeout(timeout)
            raw = response.read()
        except (OSError, http.client.HTTPException) as exc:
            if reused and method == "GET" and isinstance(exc, _CLOSED):
                self._drop(index)  # a read: sending it again cannot change anything
                return self._exchange(index, method, path, payload, headers, timeout=timeout, quick=quick)
            raise _AnswerLost(exc) from exc
        if index != self._preferred and response.status < 500:
            self._preferred = index
        try:
            return response.status, (json.loads(raw) if raw else None)
        except ValueError:
            return response.status, raw.decode(errors="replace")[:200]

    def _connection(
        self, index: int, timeout: float, *, quick: float | None = None
    ) -> tuple[http.client.HTTPConnection, bool]:
        """This thread's kept-alive connection to URL ``index``, connected (within ``quick`` when given), and whether
        it was kept from an earlier request; one the worker closed while it was idle is replaced first."""
        pool: dict[int, http.client.HTTPConnection] = self._local.__dict__.setdefault("pool", {})
        conn = pool.get(index)
        if conn is not None and conn.sock is not None and _dropped(conn.sock):
            self._drop(index)
            conn = None
        if conn is None:
            parts = urllib.parse.urlsplit(self.urls[index])
            if parts.scheme == "https":
                context = self._ssl or ssl.create_default_context()
                conn = http.client.HTTPSConnection(parts.hostname or "", parts.port or 443, context=context)
            else:
                conn = http.client.HTTPConnection(parts.hostname or "", parts.port or 80)
            pool[index] = conn
        conn.timeout = timeout if quick is None else quick
        reused = conn.sock is not None
        if not reused:
            conn.connect()
        conn.sock.settimeout(timeout)
        return conn, reused

    def _drop(self, index: int) -> None:
        pool: dict[int, http.client.HTTPConnection] = self._local.__dict__.get("pool", {})
        conn = pool.pop(index, None)
        if conn is not None:
            conn.close()

    def close(self) -> None:
        """Close this thread's connections (other threads' close when their thread ends)."""
        for index in list(self._local.__dict__.get("pool", {})):
            self._drop(index)


_CLOSED = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)  # closed before any answer byte


def _dropped(sock: socket.socket) -> bool:
    """Whether an idle kept-alive connection was closed by the worker: readable with no request outstanding (the
    end of the stream, or bytes nobody asked for), as urllib3's ``is_connection_dropped`` checks before reuse."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class _NotConnected(Exception):
    """No connection could be made (refused, timed out, TLS): the request was not sent."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


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


def path_only(path: str) -> str:
    return urllib.parse.unquote(urllib.parse.urlsplit(path).path)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "timed out"
    if isinstance(exc, ssl.SSLError):
        return f"TLS: {exc.reason or exc}"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    return type(exc).__name__ if not str(exc) else str(exc)[:200]


def answer_message(status: int, answer: Any) -> str:
    if isinstance(answer, dict) and isinstance(answer.get("message"), str):
        return f"HTTP {status}: {answer['message'].splitlines()[0][:300]}"
    return f"HTTP {status}"

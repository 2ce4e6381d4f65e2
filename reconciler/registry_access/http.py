"""``HttpTransport``: the Schema Registry port's requests over the project's HTTP layer (``ConnectClient``).

The registry speaks JSON over HTTP(S) with basic auth, as Kafka Connect does, so the port reuses Connect's client
(``reconciler.connect.http.ConnectClient.exchange``): one kept-alive connection per thread and URL, the command's
deadline on every request, fail-over between URLs, answers lost after sending told apart from URLs not reached.
This module adds what differs: errors are ``RegistryError`` and name the registry, and requests are counted by
endpoint without subject names (``requests.endpoint``). The credentials go into the ``Authorization`` header
only: ``repr``, errors and counts never hold them.
"""

from __future__ import annotations

import collections
import ssl
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from reconciler.base.secret import Secret
from reconciler.connect.http import DEFAULT_REQUEST_TIMEOUT_S, ConnectClient, ConnectError
from reconciler.registry import requests as rq
from reconciler.registry.port import RegistryError

SERVICE = "the Schema Registry"


class HttpTransport:
    """Sends ``requests.Request``s to one registry (several URLs: fail-over in order); thread-safe."""

    def __init__(
        self,
        urls: Sequence[str],
        *,
        username: str | None = None,
        password: Secret | None = None,
        ssl_context: ssl.SSLContext | None = None,
        request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S,
    ) -> None:
        self._client = ConnectClient(
            urls,
            username=username,
            password=password,
            ssl_context=ssl_context,
            request_timeout_s=request_timeout_s,
            service=SERVICE,
            cluster=SERVICE,
        )
        self.urls = self._client.urls
        self.request_timeout_s = request_timeout_s
        self._lock = threading.Lock()
        self.request_counts: collections.Counter[str] = collections.Counter()

    def __repr__(self) -> str:
        return f"HttpTransport({', '.join(self.urls)})"

    @property
    def request_count(self) -> int:
        return sum(self.request_counts.values())

    def counts(self) -> Mapping[str, int]:
        with self._lock:
            return dict(self.request_counts)

    def exchange(self, request: rq.Request, *, deadline: float) -> tuple[int, Any]:
        with self._lock:
            self.request_counts[request.endpoint] += 1
        try:
            return self._client.exchange(request.method, request.path, request.body, deadline=deadline)
        except ConnectError as exc:
            raise RegistryError(str(exc), status=exc.status, answer_lost=exc.answer_lost) from None

    def close(self) -> None:
        self._client.close()

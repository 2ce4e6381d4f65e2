"""An HTTP relay on 127.0.0.1 in front of Kafka Connect's REST API that answers ``409 Conflict`` to writes.

Each request from a client is read whole (request line, headers, ``Content-Length`` body). While ``conflicts`` is
above zero (or ``always`` is set), a request whose method is ``POST``, ``PUT`` or ``DELETE`` is not forwarded: the
relay answers it itself with the status and message a Connect worker sends while its group rebalances, and counts
it in ``answered``; ``conflicts`` counts down. Every other request is forwarded unchanged and the worker's answer
relayed back byte for byte (the client sends its next request only after the whole answer, so bytes from the
worker between two requests belong to the first one). Each connection is one daemon thread that checks ``closed``
at least every ``POLL_S``.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket

from tests.support.http_relay import POLL_S, Relay

WRITES = ("POST", "PUT", "DELETE")
MESSAGE = "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"


def _conflict() -> bytes:
    body = json.dumps({"error_code": 409, "message": MESSAGE}).encode()
    head = f"HTTP/1.1 409 Conflict\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


def _split(buffer: bytes) -> tuple[bytes, bytes] | None:
    """The first whole request in ``buffer`` and what follows it, or ``None`` while it is incomplete."""
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        return None
    length = 0
    for line in buffer[:end].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    total = end + 4 + length
    if len(buffer) < total:
        return None
    return buffer[:total], buffer[total:]


class ConflictingRelay(Relay):
    """Listens on a free port; ``url`` is its address, forwarding to ``upstream`` (host, port)."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.conflicts = 0
        self.always = False
        self.answered: list[str] = []  # "METHOD /path" of each request answered 409
        self.forwarded: list[str] = []
        super().__init__(upstream)

    def _refuse(self, request: bytes) -> bool:
        line = request.split(b"\r\n", 1)[0].decode(errors="replace")
        method, _, rest = line.partition(" ")
        what = f"{method} {rest.rsplit(' ', 1)[0]}"
        with self._lock:
            if method in WRITES and (self.always or self.conflicts > 0):
                self.conflicts = max(0, self.conflicts - 1)
                self.answered.append(what)
                return True
            self.forwarded.append(what)
            return False

    def _relay(self, client: socket.socket) -> None:
        with contextlib.ExitStack() as stack:
            stack.enter_context(client)
            upstream = stack.enter_context(socket.create_connection(self.upstream, timeout=10))
            pending = b""
            while not self.closed:
                ready, _, _ = select.select([client, upstream], [], [], POLL_S)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    if sock is upstream:
                        client.sendall(data)
                        continue
                    pending += data
                    while (whole := _split(pending)) is not None:
                        request, pending = whole
                        if self._refuse(request):
                            client.sendall(_conflict())
                        else:
                            upstream.sendall(request)

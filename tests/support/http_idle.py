"""A TCP relay on 127.0.0.1 in front of an HTTP server that closes kept-alive connections left idle, as a real
Kafka Connect worker does after a minute or more (here after ``idle_s``, so a test need not wait that long).

Bytes are forwarded both ways unchanged. A client connection on which nothing has moved either way for ``idle_s``
since the server's last answer (never while a request waits for its answer) is closed on both sides, and
``idle_closed`` counts it once both are closed; the client hears of it only when it next uses the connection (the
end of the stream, or a reset on write).
"""

from __future__ import annotations

import contextlib
import select
import socket
import time

from tests.support.http_relay import POLL_S, Relay


class IdleCloser(Relay):
    """Listens on a free port (``url``), forwarding to ``upstream`` (host, port); closes connections idle ``idle_s``."""

    def __init__(self, upstream: tuple[str, int], *, idle_s: float) -> None:
        self.idle_s = idle_s
        self.idle_closed = 0
        super().__init__(upstream)

    def _relay(self, client: socket.socket) -> None:
        if self._forward(client):
            with self._lock:  # counted once both sockets are closed: the client can tell from here on
                self.idle_closed += 1

    def _forward(self, client: socket.socket) -> bool:
        """Forward until either side closes (``False``) or nothing moved for ``idle_s`` (``True``); both sockets are
        closed on return."""
        with contextlib.ExitStack() as stack:
            stack.enter_context(client)
            upstream = stack.enter_context(socket.create_connection(self.upstream, timeout=10))
            moved, asked = time.monotonic(), False  # asked: a request sent that the server has not begun to answer
            while not self.closed:
                ready, _, _ = select.select([client, upstream], [], [], min(POLL_S, self.idle_s))
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return False
                    (upstream if sock is client else client).sendall(data)
                    moved, asked = time.monotonic(), sock is client
                if not ready and not asked and time.monotonic() - moved >= self.idle_s:
                    return True  # the server ends a kept-alive connection idle since its last answer
        return False

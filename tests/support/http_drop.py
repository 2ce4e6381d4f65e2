"""A TCP relay on 127.0.0.1 in front of an HTTP server that can lose the answers to writes.

Bytes are forwarded both ways unchanged. While ``drop_writes`` is above zero, the answer to a request whose line
starts with ``POST``/``PUT``/``DELETE`` is swallowed and both sockets are closed once the server has started to
answer (so the server did carry the request out; the client sees the connection closed without an answer), and
``drop_writes`` counts down; with ``then_silent`` the relay then swallows every answer (``drop_all``: a server gone
silent). Each
connection is one daemon thread that checks ``closed`` at least every ``POLL_S``.
"""

from __future__ import annotations

import contextlib
import select
import socket

from tests.support.http_relay import POLL_S, Relay

WRITES = (b"POST ", b"PUT ", b"DELETE ")


class AnswerDropper(Relay):
    """Listens on a free port; ``url`` is its address, forwarding to ``upstream`` (host, port)."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.drop_writes = 0
        self.drop_all = False
        self.then_silent = False
        self.dropped = 0
        super().__init__(upstream)

    def _drop(self, request: bytes) -> bool:
        with self._lock:
            if self.drop_all:
                self.dropped += 1
                return True
            if self.drop_writes > 0 and request.startswith(WRITES):
                self.drop_writes -= 1
                self.dropped += 1
                self.drop_all = self.then_silent and self.drop_writes == 0
                return True
            return False

    def _relay(self, client: socket.socket) -> None:
        with contextlib.ExitStack() as stack:
            stack.enter_context(client)
            upstream = stack.enter_context(socket.create_connection(self.upstream, timeout=10))
            request = b""
            while not self.closed:
                ready, _, _ = select.select([client, upstream], [], [], POLL_S)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    if sock is client:
                        if data[:8].split(b" ")[0].isalpha():
                            request = data  # a new request line (keep-alive connections carry several)
                        upstream.sendall(data)
                    elif self._drop(request):
                        return  # the server answered: the request was carried out; the client hears nothing
                    else:
                        client.sendall(data)

"""The listening half of the HTTP relays on 127.0.0.1 that tests put in front of a real server.

``Relay`` listens on a free port (``url``), connects each accepted client to ``upstream`` (host, port) on its own
daemon thread, and leaves what happens to the bytes to a subclass's ``_relay``; ``close`` stops accepting, and each
connection's loop checks ``closed`` at least every ``POLL_S``. Used by ``http_drop`` (answers lost after the server
acted) and ``http_conflict`` (writes answered 409 by the relay).
"""

from __future__ import annotations

import socket
import threading

POLL_S = 0.2


class Relay:
    """Listens on a free port; ``url`` is its address, forwarding to ``upstream`` (host, port)."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.closed = False
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(POLL_S)
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self._server.accept()
            except OSError:
                continue
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.closed = True
        self._server.close()

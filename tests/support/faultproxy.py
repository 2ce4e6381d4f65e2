"""A TCP fault proxy on 127.0.0.1 between the tool and a real broker: latency per read, stall or reset mid-answer.

The proxy forwards bytes both ways and reads the Kafka framing as they pass (a request is ``int32 size, int16
api_key, ...``; a connection's answers come back in request order), so a fault can target the answer to one API:

- ``latency_s``: every read of the broker's answers is held that long before it is forwarded (a slow network that
  still answers); with ``latency_from_api`` only once a request of that API key has gone through (any connection).
- ``cut_api``/``cut_after_bytes``/``cut``: after that many bytes of the answer to a request of that API key,
  ``"reset"`` aborts both sockets (the client sees a connection reset) or ``"stall"`` stops forwarding and keeps the
  connection open (the client hears nothing more). ``cuts_left`` bounds how many answers are cut (then it forwards).

Faults can be changed while connections run. Every thread is a daemon that checks the proxy's closed flag at least
every ``POLL_S``; ``close`` ends them all within a bound. ``seen`` counts requests per API key, ``cuts`` the answers
cut. A broker's advertised address must be the proxy's for the client to stay behind it (``kinds.proxied_node``).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import socket
import struct
import threading
from collections.abc import Callable
from typing import Literal

POLL_S = 0.2
CREATE_TOPICS = 19
METADATA = 3
DESCRIBE_CONFIGS = 32


@dataclasses.dataclass
class Faults:
    """What the proxy does to the answers it forwards (see the module docstring)."""

    latency_s: float = 0.0
    latency_from_api: int | None = None
    cut_api: int | None = None
    cut_after_bytes: int = 0
    cut: Literal["reset", "stall"] | None = None
    cuts_left: int = 1


class _Frames:
    """Splits a byte stream at Kafka frame boundaries (a 4-byte size, then that many bytes)."""

    def __init__(self) -> None:
        self._head = b""
        self._left = 0  # bytes of the current frame's body still to come

    def pieces(self, data: bytes, on_start: Callable[[bytes], None]) -> list[bytes]:
        """``data`` cut where frames begin; ``on_start(first bytes of the body)`` runs as each frame's size is
        complete, before the piece that holds that size is returned (so the piece counts for the new frame)."""
        out: list[bytes] = []
        i = 0
        while i < len(data):
            if self._left:
                take = min(self._left, len(data) - i)
                self._left -= take
                out.append(data[i : i + take])
                i += take
                continue
            chunk = data[i : i + 4 - len(self._head)]
            self._head += chunk
            i += len(chunk)
            if len(self._head) == 4:
                (self._left,) = struct.unpack(">i", self._head)
                self._head = b""
                on_start(data[i : i + 2])
            out.append(chunk)
        return out


class FaultProxy:
    """Listens on 127.0.0.1 (a free port) and forwards each connection to ``upstream()``'s (host, port)."""

    def __init__(self, upstream: Callable[[], tuple[str, int]] | None = None) -> None:
        self.upstream = upstream
        self.faults = Faults()
        self.seen: collections.Counter[int] = collections.Counter()
        self.cuts = 0
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._latency_on = threading.Event()
        self._sockets: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(POLL_S)
        self.port = int(self._server.getsockname()[1])
        self._spawn(self._accept)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def set(self, **faults: object) -> None:
        """Replace the faults (fields of ``Faults``); latency gated on an API waits for that API again."""
        with self._lock:
            self.faults = Faults(**faults)  # type: ignore[arg-type]
            self.cuts = 0
            self._latency_on.clear()

    def close(self) -> None:
        self._closed.set()
        for sock in [self._server, *self._sockets]:
            with contextlib.suppress(OSError):
                sock.close()
        for thread in self._threads:
            thread.join(timeout=5 * POLL_S + 2)

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------ internals
    def _spawn(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True, name="fault-proxy")
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if self.upstream is None:
                client.close()
                continue
            try:
                server = socket.create_connection(self.upstream(), timeout=5)
            except OSError:
                client.close()
                continue
            for sock in (client, server):
                sock.settimeout(POLL_S)
                self._sockets.append(sock)
            apis: collections.deque[int] = collections.deque()
            self._spawn(self._requests, client, server, apis)
            self._spawn(self._answers, server, client, apis)

    def _recv(self, sock: socket.socket) -> bytes | None:
        """The next bytes, ``b""`` at end of stream, ``None`` when the proxy closed."""
        while not self._closed.is_set():
            try:
                return sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                return b""
        return None

    def _requests(self, client: socket.socket, server: socket.socket, apis: collections.deque[int]) -> None:
        frames = _Frames()

        def started(head: bytes) -> None:
            (api,) = struct.unpack(">h", head.ljust(2, b"\xff"))
            apis.append(api)
            with self._lock:
                self.seen[api] += 1
                if self.faults.latency_from_api == api:
                    self._latency_on.set()

        while data := self._recv(client):
            frames.pieces(data, started)
            if not self._send(server, data):
                break
        _shut(client, server)

    def _latency(self) -> float:
        with self._lock:
            f = self.faults
            gated = f.latency_from_api is not None and not self._latency_on.is_set()
            return 0.0 if gated else f.latency_s

    def _answers(self, server: socket.socket, client: socket.socket, apis: collections.deque[int]) -> None:
        frames = _Frames()
        current: list[int] = [-1]  # the API key of the answer being forwarded
        into = [0]  # bytes of that answer forwarded so far

        def started(_: bytes) -> None:
            current[0] = apis.popleft() if apis else -1
            into[0] = 0

        while data := self._recv(server):
            if (delay := self._latency()) and self._closed.wait(delay):
                break
            for piece in frames.pieces(data, started):
                cut = self._cut_point(current[0], into[0], len(piece))
                if cut is not None:
                    self._send(client, piece[:cut])
                    self._apply_cut(client, server)
                    return
                into[0] += len(piece)
                if not self._send(client, piece):
                    _shut(client, server)
                    return
        _shut(client, server)

    def _cut_point(self, api: int, done: int, size: int) -> int | None:
        """Where in the next ``size`` bytes of an answer to ``api`` (``done`` already forwarded) to cut, if at all."""
        with self._lock:
            f = self.faults
            if f.cut is None or f.cut_api != api or f.cuts_left <= 0 or done + size <= f.cut_after_bytes:
                return None
            f.cuts_left -= 1
            self.cuts += 1
            return max(0, f.cut_after_bytes - done)

    def _apply_cut(self, client: socket.socket, server: socket.socket) -> None:
        if self.faults.cut == "reset":
            for sock in (client, server):
                _reset(sock)
            return
        while not self._closed.wait(POLL_S):  # stall: hold both connections open, forward nothing more
            pass

    def _send(self, sock: socket.socket, data: bytes) -> bool:
        view = memoryview(data)
        while view and not self._closed.is_set():
            try:
                sent = sock.send(view)
            except TimeoutError:
                continue
            except OSError:
                return False
            view = view[sent:]
        return not view


def _shut(*socks: socket.socket) -> None:
    for sock in socks:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _reset(sock: socket.socket) -> None:
    """Close ``sock`` with an RST (SO_LINGER 0): the peer reads ``connection reset by peer``."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    except OSError:
        pass

"""A listening socket that never answers: a peer that accepts connections (the kernel's backlog) and stays silent.

Tests of bounded waits point a command at it to check that the command's deadline, not the peer, ends the wait.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator


@contextlib.contextmanager
def black_hole() -> Iterator[str]:
    """``127.0.0.1:PORT`` of a socket that accepts connections and never answers, for as long as the block runs."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        yield f"127.0.0.1:{server.getsockname()[1]}"

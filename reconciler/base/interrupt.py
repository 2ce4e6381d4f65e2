"""Ctrl-C during an apply, as Terraform treats it: the first stops new writes, the second exits at once.

Killing an apply between a request and its answer leaves the cluster holding writes nobody reported. So while an
apply runs, the command installs ``handling``: the first SIGINT only sets a process-wide flag (``requested``) and
says so; the apply sends no new request once it sees the flag (``reconciler.apply.engine`` before each phase,
``reconciler.kafka.limits`` between the requests of a phase, the retry loop before a retry), waits for the answers
in flight (each bounded by the apply's deadline), resolves lost ones by reading and writes its report. A second
SIGINT ends the process at once (exit 130), saying that the outcome of the requests in flight is unknown.

The flag is process-wide (a fleet apply's clusters all stop sending) and is cleared when ``handling`` ends.
Outside ``handling`` Ctrl-C keeps Python's behaviour (``KeyboardInterrupt``: nothing was written yet).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType

EXIT_INTERRUPTED = 130
INTERRUPTED = "INTERRUPTED"  # the error name of a change not sent because the apply was interrupted

FIRST = (
    "interrupt received: sending nothing new; waiting for the answers in flight, then writing the report "
    "(Ctrl-C again to exit at once)"
)
SECOND = (
    "interrupted again: exiting at once; the outcome of the requests in flight is unknown: run plan to see what "
    "the cluster holds"
)

_flag = threading.Event()


def requested() -> bool:
    """Whether Ctrl-C was pressed while ``handling`` was in force: send nothing new."""
    return _flag.is_set()


def request() -> None:
    """Ask the running apply to stop sending (what the first Ctrl-C does)."""
    _flag.set()


def _say(text: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"\n{text}\n")
        sys.stderr.flush()


@contextlib.contextmanager
def handling(*, say: Callable[[str], None] = _say, exit_now: Callable[[int], object] = os._exit) -> Iterator[None]:
    """SIGINT within the block: first ``request()`` and ``say(FIRST)``; then ``say(SECOND)`` and exit 130 at once.

    Only the main thread may install a signal handler: elsewhere the block runs without one (a library caller
    running an apply in a worker thread keeps its own handling). The flag is cleared when the block ends.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_sigint(_signum: int, _frame: FrameType | None) -> None:
        if not _flag.is_set():
            request()
            say(FIRST)
            return
        say(SECOND)
        exit_now(EXIT_INTERRUPTED)

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        _flag.clear()

"""A listener told how many items each answered write request carried, for progress that advances per answer.

The adapter cuts a big write (1,000 topic creates) into requests it sends one after the other
(``reconciler.kafka.limits``); only it knows when each is answered, and the apply engine, which draws progress,
only sees the call return once every request is answered. ``listening(callback)`` installs ``callback`` for the
calls made inside the ``with`` block (a context variable: the same thread and the tasks it starts); ``answered(n)``
is what the adapter calls after each answer. Without a listener it does nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator

_listener: contextvars.ContextVar[Callable[[int], None] | None] = contextvars.ContextVar(
    "reconciler_answers_listener", default=None
)


def answered(items: int) -> None:
    """A request carrying ``items`` items was answered (whatever each item's outcome)."""
    listener = _listener.get()
    if listener is not None:
        listener(items)


@contextlib.contextmanager
def listening(callback: Callable[[int], None]) -> Iterator[None]:
    """Call ``callback(items)`` for every answered request within the block."""
    token = _listener.set(callback)
    try:
        yield
    finally:
        _listener.reset(token)

"""Polling with a deadline: the one way a test waits for an effect that reaches the brokers asynchronously.

Kafka applies ACLs, configs, quotas, SCRAM credentials and new topics asynchronously: a write is answered before
every broker (or every later read) shows it. A test never sleeps a fixed time for that; it calls ``eventually``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar("T")


def eventually(
    check: Callable[[], T | None],
    *,
    what: str,
    timeout: float = 20.0,
    interval: float = 0.2,
    retry_on: tuple[type[Exception], ...] = (),
) -> T:
    """Call ``check`` until it returns a truthy value, and return that value.

    Fails the test (``pytest.fail``) once ``timeout`` seconds have passed without one, naming ``what`` and the
    last result or error. ``check`` is called at least once and again every ``interval`` seconds. An exception of
    a type in ``retry_on`` (a broker that was just killed, a login not yet accepted) counts as "not yet"; any
    other exception, an ``AssertionError`` from ``check`` included, propagates at once.
    """
    deadline = time.monotonic() + timeout
    last: object = None
    while True:
        try:
            result = check()
        except retry_on as exc:
            last = exc
        else:
            if result:
                return result
            last = result
        if time.monotonic() >= deadline:
            pytest.fail(f"timed out after {timeout:.0f}s waiting for {what}; last: {repr(last)[:500]}")
        time.sleep(interval)

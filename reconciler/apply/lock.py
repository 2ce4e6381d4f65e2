"""The seam between an apply and the cluster's apply lock: what a command wants of it, what the engine needs of it.

The engine takes the lock after the plan is decoded and before its first read (the stale check of a second apply
then sees the first apply's writes), and releases it when the report is ready. The lock itself lives with the port
that reaches the cluster (``reconciler.kafka.lock``: a group only applying processes join; ``LockingPort``). A
command says what it wants (``LockRequest``: how long to wait, ``--no-lock``), bound to its adapter (``Lock``); a
test hands the engine anything of that shape.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Protocol

NO_LOCK_NOTE = (
    "applied without the cluster's apply lock (--no-lock): another apply at the same time would not have been "
    "kept apart from this one; run plan to check what the cluster holds"
)


class HeldLock(Protocol):
    """A lock this process holds until ``release``."""

    def lost(self) -> str | None:
        """A sentence for the report when the lock was lost while held, else ``None``."""

    def release(self) -> None:
        """Give the lock up; bounded, never raises."""


class LockingPort(Protocol):
    """A port that can take the cluster's apply lock (``KafkaAdapter.apply_lock``)."""

    def apply_lock(
        self, *, plan: str, wait_s: float, deadline_s: float, on_wait: Callable[[str], None] | None = None
    ) -> HeldLock: ...


@dataclasses.dataclass(frozen=True, kw_only=True)
class LockRequest:
    """The apply lock a command wants: waited for up to ``wait_s`` (``--lock-timeout``), or not taken (``skip``:
    ``--no-lock``, which the report notes). ``plan`` names the plan in the holder's record; ``on_wait`` is told once,
    naming the holder, when the lock is held by another and waited for."""

    wait_s: float = 0.0
    skip: bool = False
    plan: str = "a plan made now"
    on_wait: Callable[[str], None] | None = None

    def bound(self, port: LockingPort) -> Lock:
        return Lock(request=self, port=port)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Lock:
    """A ``LockRequest`` bound to the port of the cluster it locks: what ``ApplyOptions.lock`` holds."""

    request: LockRequest
    port: LockingPort

    def take(self, left_s: float) -> HeldLock | None:
        """The lock, held (``None`` with ``--no-lock``), waiting at most the request's ``wait_s`` and never past
        ``left_s`` (what is left of the apply's deadline); raises before any write when it cannot be taken."""
        if self.request.skip:
            return None
        r = self.request
        return self.port.apply_lock(plan=r.plan, wait_s=r.wait_s, deadline_s=left_s, on_wait=r.on_wait)

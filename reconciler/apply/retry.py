"""Which broker errors are worth retrying, and how long to wait before the next attempt.

``RetryPolicy`` is pure: capped exponential backoff with full jitter, floored by the broker's
``throttle_time_ms`` when it asks the client to slow down. ``Deadline`` bounds the total time of an
apply. Both take their clock, sleep and random source as arguments so tests can drive them.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable

# Errors after which re-sending the same item may succeed. Authorization, invalid-config and
# already-exists errors are deliberately absent: repeating them cannot help.
RETRIABLE_ERRORS = frozenset(
    {
        "NOT_CONTROLLER",
        "REQUEST_TIMED_OUT",
        "LEADER_NOT_AVAILABLE",
        "NETWORK_EXCEPTION",
        "THROTTLING_QUOTA_EXCEEDED",
        "NOT_LEADER_OR_FOLLOWER",
        "NOT_LEADER_FOR_PARTITION",
        "COORDINATOR_NOT_AVAILABLE",
        "BROKER_NOT_AVAILABLE",
        "KAFKA_STORAGE_ERROR",
        # Raised by the adapter when a whole request could not be sent or answered.
        "CONNECTION_ERROR",
    }
)

# A create or delete that timed out may still complete on the controller: poll before resending.
MAY_HAVE_COMPLETED = frozenset({"REQUEST_TIMED_OUT"})


def is_retriable(error_name: str | None) -> bool:
    """True when the named broker error is transient."""
    return error_name is not None and error_name in RETRIABLE_ERRORS


@dataclasses.dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Capped exponential backoff with full jitter.

    Attempt ``n`` (0-based, counting retries) waits a uniformly random time in
    ``[0, min(cap_s, base_s * multiplier**n)]``, but never less than the broker's throttle time.
    ``max_attempts`` counts every send, the first one included.
    """

    base_s: float = 0.2
    cap_s: float = 5.0
    multiplier: float = 2.0
    max_attempts: int = 8

    def __post_init__(self) -> None:
        if self.base_s <= 0 or self.cap_s < self.base_s or self.multiplier < 1 or self.max_attempts < 1:
            raise ValueError("retry policy needs 0 < base_s <= cap_s, multiplier >= 1 and max_attempts >= 1")

    def ceiling(self, retry: int) -> float:
        """The upper bound of the wait before retry number ``retry`` (0-based)."""
        return min(self.cap_s, self.base_s * self.multiplier ** max(retry, 0))

    def delay(self, retry: int, *, rand: Callable[[], float], throttle_time_ms: int | None = None) -> float:
        """Seconds to wait before retry ``retry``; ``rand`` returns a float in ``[0, 1)``."""
        jittered = self.ceiling(retry) * rand()
        floor = max(throttle_time_ms or 0, 0) / 1000.0
        return max(jittered, floor)

    def should_retry(self, *, attempts_made: int, error_name: str | None) -> bool:
        """True when ``error_name`` is transient and attempts remain."""
        return is_retriable(error_name) and attempts_made < self.max_attempts


@dataclasses.dataclass(slots=True)
class Deadline:
    """A bound on the total time of one apply, measured with an injectable monotonic clock."""

    total_s: float
    clock: Callable[[], float] = time.monotonic
    started: float = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def remaining(self) -> float:
        return max(0.0, self.total_s - (self.clock() - self.started))

    def expired(self) -> bool:
        return self.remaining() <= 0.0


@dataclasses.dataclass(frozen=True, slots=True)
class Pacer:
    """The side effects the retry loop needs: a sleep function and a random source."""

    sleep: Callable[[float], None] = time.sleep
    rand: Callable[[], float] = random.random

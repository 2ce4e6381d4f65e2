"""How many writes to send a Kafka Connect worker at a time: a limit that grows while more writes a second come
back, halves when the worker pushes back.

Measured on a 4.3.1 worker (docs/benchmarks.md): the herder applies config writes one after another (about 55-65 ms
each), but the time around each request (HTTP, JSON, the config topic's round trip, the client's own work)
overlaps, so 100 PUTs take about half as long 8 at a time as one at a time; once the herder is busy all the time,
more concurrency only lengthens each answer (a latency signal would read that queue as overload and shrink to 2).
So the signal is throughput, as a hill climb (additive increase, multiplicative decrease on push-back, as TCP's
congestion window):

* the limit starts at ``START``; each window of ``limit`` answered writes measures writes answered per second;
  while a window beats the best rate so far by ``GAIN``, the limit grows by a quarter (at least one), up to
  ``CEILING``; a window that does not (the worker is busy all the time) goes back to the limit that reached the
  best; held there, each window's rate becomes the one to beat (the worker's pace changes with its load), and
  after ``PROBE_AFTER`` windows a step up is tried again (one window of small samples is noisy: a climb stopped by
  one slow window would stay stopped);
* a refusal that asks to come back later (409 during a rebalance, 429, 500, 502-504) halves the limit, down to
  ``FLOOR``; the refused request is sent again after a back-off (``backoff``), within the command's deadline.

Thread-safe: every write request holds a ``slot()`` while it is outstanding; a back-off is slept outside it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

START, FLOOR, CEILING = 8, 1, 32
GAIN = 1.05
PROBE_AFTER = 2  # windows held at the best limit before a step up is tried again
BACKOFF_S = (0.1, 0.25, 0.5, 1.0, 2.0)
RETRIED = frozenset({409, 429, 500, 502, 503, 504})  # 409: a rebalance (not "already exists"); 429; 5xx


class WritePace:
    """The adaptive limit on outstanding writes (see the module docstring); ``peak``: the highest limit reached."""

    def __init__(
        self,
        *,
        start: int = START,
        floor: int = FLOOR,
        ceiling: int = CEILING,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not floor <= start <= ceiling:
            raise ValueError(f"the start {start} must lie between the floor {floor} and the ceiling {ceiling}")
        self.floor, self.ceiling, self.clock = floor, ceiling, clock
        self.limit = self.peak = start
        self.outstanding = self.most_outstanding = 0
        self.refusals = 0
        self._window_began: float | None = None
        self._in_window = 0
        self._best: tuple[float, int] | None = None  # (writes answered per second, the limit that reached it)
        self._held = 0  # windows at the best limit since the last step up
        self._cond = threading.Condition()

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one of the ``limit`` write slots while a request is outstanding (waits for one to be free)."""
        with self._cond:
            while self.outstanding >= self.limit:
                self._cond.wait()
            self.outstanding += 1
            self.most_outstanding = max(self.most_outstanding, self.outstanding)
        try:
            yield
        finally:
            with self._cond:
                self.outstanding -= 1
                self._cond.notify_all()

    def answered(self) -> None:
        """A write got its final answer: at the end of each window, climb, hold or step back (module docstring)."""
        with self._cond:
            now = self.clock()
            if self._window_began is None:
                self._window_began = now
                return
            self._in_window += 1
            if self._in_window < max(4, self.limit):
                return
            rate = self._in_window / max(now - self._window_began, 1e-6)
            self._window_began, self._in_window = now, 0
            if self._best is None or rate > self._best[0] * GAIN:
                self._best, self._held = (rate, self.limit), 0
                self._step_up()
            elif self.limit != self._best[1]:  # a step up that did not pay: back to the best limit
                self.limit, self._held = self._best[1], 0
            else:  # at the best limit: its rate now is the one to beat; after PROBE_AFTER windows, try a step up
                self._best, self._held = (rate, self.limit), self._held + 1
                if self._held >= PROBE_AFTER:
                    self._held = 0
                    self._step_up()
            self._cond.notify_all()

    def _step_up(self) -> None:
        self.limit = min(self.ceiling, self.limit + max(1, self.limit // 4))
        self.peak = max(self.peak, self.limit)

    def refused(self, status: int) -> None:
        """The worker asked to come back later (``status`` in ``RETRIED``): halve the limit."""
        with self._cond:
            self.refusals += 1
            self._window_began, self._in_window, self._best = None, 0, None  # climb again from the halved limit
            self.limit = max(self.floor, self.limit // 2)
            self._cond.notify_all()

    @staticmethod
    def backoff(attempt: int) -> float:
        """Seconds to wait before sending a refused request again (``attempt``: 0 for the first retry)."""
        return BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]

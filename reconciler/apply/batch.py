"""Send one phase's items as batched requests, re-sending only the items that failed transiently.

``ApplyContext`` carries what every phase needs (adapter, options, deadline, event sink, the
addresses that failed so far). ``send_batched`` runs the retry loop of one phase: one request for
all pending items, then for the retriable failures only, until they succeed, fail for good, run out
of attempts, or the apply's deadline passes. A create or delete that timed out, or whose answer was lost
(connection reset or stalled), may have completed on the controller, so the caller can supply a probe that
checks (over Metadata) before resending.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from reconciler import ports as rest_ports
from reconciler.apply import retry
from reconciler.apply.events import ApplyEvent, EventKind, EventSink
from reconciler.base import answers, errors, interrupt
from reconciler.connection.settings import Secret
from reconciler.kafka.port import AdminPort, ItemResultLike
from reconciler.kinds import registry
from reconciler.model import plans
from reconciler.model.kinds import Kind

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")
R = TypeVar("R")

CONNECTION_ERROR = "CONNECTION_ERROR"
REQUEST_FAILED = "REQUEST_FAILED"
NOT_SENT = "NOT_SENT"  # the time limit came before the request could be sent (``errors.DeadlineReached``)
# Failures after which a write with a probe is looked up on the cluster before it is sent again.
_PROBE_FIRST = retry.MAY_HAVE_COMPLETED | {CONNECTION_ERROR}
_LOST_BUT_DONE = "its answer was lost; the cluster, read afterwards, shows it applied"


@dataclasses.dataclass(frozen=True, slots=True)
class Result:
    """The final answer for one item after retries (adapter results are copied into this)."""

    ok: bool
    error_code: int | None = None
    error_name: str | None = None
    message: str | None = None
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    attempts: int = 1
    note: str | None = None


def result_of(item: ItemResultLike, *, attempts: int, note: str | None = None) -> Result:
    if item.ok:
        return Result(ok=True, extra=dict(item.extra or {}), attempts=attempts, note=note)
    return Result(
        ok=False,
        error_code=item.error_code,
        error_name=item.error_name,
        message=item.message,
        extra=dict(item.extra or {}),
        attempts=attempts,
        note=note,
    )


@dataclasses.dataclass(slots=True)
class ApplyContext:
    """Shared state of one apply run."""

    adapter: AdminPort
    policy: retry.RetryPolicy
    pacer: retry.Pacer
    deadline: retry.Deadline
    events: EventSink
    dry_run: bool
    notes: list[str] = dataclasses.field(default_factory=list)
    still_moving: list[str] = dataclasses.field(default_factory=list)
    throttle_rate: int | None = None
    secrets: dict[str, Secret] = dataclasses.field(default_factory=dict, repr=False)
    environ: Mapping[str, str] | None = dataclasses.field(default=None, repr=False)
    # (address, config key) -> a sensitive value the plan holds redacted, read once from the manifests
    revealed: Mapping[tuple[str, str], Secret] = dataclasses.field(default_factory=dict, repr=False)
    # The REST ports the command opened, by name (``reconciler.ports``): those the plan's changes are written through.
    ports: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    # The last part of the deadline, in which nothing is written: kept for reading what a lost answer left in doubt.
    reserve_s: float = 0.0

    def writes_left(self) -> float:
        """Seconds left to send (and wait for) writes: the deadline's remainder less the part kept for reading."""
        return max(0.0, self.deadline.remaining() - self.reserve_s)

    def config_value(self, address: str, key: str, value: str) -> str | Secret:
        """``value`` as sent: a redacted one replaced by the manifests' value (``secrets_at_write.reveal_redacted``)."""
        return self.revealed[(address, key)] if value == plans.REDACTED else value

    def emit(self, event: ApplyEvent) -> None:
        self.events(event)

    def port(self, kind: Kind) -> Any:
        """The port ``kind`` is written through, as the command opened it (``None``: it opened none)."""
        return self.ports.get(registry.spec(kind).port)

    def sent(self) -> tuple[int, dict[str, int]]:
        """The requests sent so far, in all and per API: the Kafka adapter's, and the REST requests of the ports it
        holds (``reconciler.ports.sent``: Kafka Connect's ``GET /connectors``, the registry's ``POST
        /subjects/{subject}/versions``, ...)."""
        counts = dict(self.adapter.request_counts)
        total, by_api = rest_ports.sent(self.ports)
        counts.update(by_api)
        return self.adapter.request_count + total, counts

    def answering(self, phase: plans.Phase, total: int, run: Callable[[], R]) -> R:
        """``run()``, with an ``ANSWERED`` event of ``phase`` as each of its write requests is answered: how many of
        the phase's ``total`` items have been answered so far (never past ``total``: a retried item is answered
        again). A phase sent in several requests then advances per answer, not only at its end."""
        answered = 0

        def on_answer(items: int) -> None:
            nonlocal answered
            answered = min(total, answered + items)
            self.emit(ApplyEvent(EventKind.ANSWERED, phase=phase, done=answered, total=total))

        with answers.listening(on_answer):
            return run()

    def settle(self, check: Callable[[], list[T]], *, settle_s: float, poll_s: float) -> list[T]:
        """Call ``check`` (a read-back returning what is not yet as wanted) until it returns nothing or
        ``settle_s`` (at most the apply's remaining time) has passed; its last answer. Brokers learn of a
        change from the metadata log a moment after the controller accepted it."""
        settle_until = self.deadline.clock() + min(settle_s, self.deadline.remaining())
        while True:
            left = check()
            if not left or self.deadline.clock() + poll_s > settle_until:
                return left
            self.pacer.sleep(poll_s)


Call = Callable[[list[K]], Sequence[ItemResultLike]]
Probe = Callable[[list[K]], set[K]]


@dataclasses.dataclass(slots=True)
class _Pending(Generic[K]):
    attempts: int = 0
    timed_out: bool = False
    answer_lost: bool = False
    throttled: int = 0


def _match(
    keys: list[K], results: Sequence[ItemResultLike], key_of: Callable[[ItemResultLike], K]
) -> dict[K, ItemResultLike]:
    """Pair results with the keys sent: by key (``key_of``, a result's typed key) when the adapter echoes it, else by
    position."""
    by_key: dict[K, ItemResultLike] = {}
    wanted = set(keys)
    for r in results:
        k = key_of(r)
        if k in wanted:
            by_key[k] = r
    if len(by_key) < len(keys) and len(results) == len(keys):
        for k, r in zip(keys, results, strict=True):
            by_key.setdefault(k, r)
    return by_key


def _request_failed(exc: errors.ReconcilerError) -> Result:
    """The error every item of a request that failed as a whole gets (its attempts are filled in per item)."""
    name = getattr(exc, "error_name", None) or (
        CONNECTION_ERROR if isinstance(exc, errors.ConnectionFailed) else REQUEST_FAILED
    )
    if getattr(exc, "retriable", False) or isinstance(exc, errors.ConnectionFailed):
        name = name if retry.is_retriable(name) else CONNECTION_ERROR
    return Result(ok=False, error_code=getattr(exc, "error_code", None), error_name=name, message=str(exc))


def _done(outcome: Result, st: _Pending[K], *, already_done_after_timeout: frozenset[str]) -> Result | None:
    """The item's final success: answered ok, or an error saying an earlier attempt (timed out or whose answer
    was lost) went through; ``None`` when the item is not done."""
    if outcome.ok:
        note = "completed after an earlier attempt timed out" if st.timed_out else None
        return dataclasses.replace(outcome, note=note)
    if st.timed_out and outcome.error_name in already_done_after_timeout:
        return Result(ok=True, attempts=st.attempts, note="completed after an earlier attempt timed out")
    if st.answer_lost and outcome.error_name in already_done_after_timeout:
        return Result(ok=True, attempts=st.attempts, note="completed by an earlier attempt whose answer was lost")
    return None


def _probe_timed_out(
    timed_out: list[K], *, probe_done: Probe[K], state: Mapping[K, _Pending[K]], final: dict[K, Result]
) -> list[K]:
    """Ask which timed-out keys went through (final successes); the others, to send again. When that cannot be
    read, none is sent again: each stays in doubt with its last answer, for ``lost`` to read again."""
    try:
        done = probe_done(timed_out)
    except errors.ReconcilerError as exc:
        for k in timed_out:
            final[k] = dataclasses.replace(final[k], note=f"not sent again: looking it up failed ({exc})")
        return []
    again: list[K] = []
    for k in timed_out:
        if k in done:
            note = "completed after the request timed out" if state[k].timed_out else _LOST_BUT_DONE
            final[k] = Result(ok=True, attempts=state[k].attempts, note=note)
        else:
            again.append(k)
    return again


_UNANSWERED = Result(ok=False, error_name=CONNECTION_ERROR, message="the broker did not answer for this item")


def _not_sent(keys: list[K], why: str, *, state: Mapping[K, _Pending[K]], final: dict[K, Result]) -> dict[K, Result]:
    """The request for ``keys`` was not sent (the time limit came first): a key never sent is ``NOT_SENT``; a key sent
    before keeps its last answer (an answer lost stays in doubt, for ``lost`` to resolve by reading)."""
    for k in keys:
        if state[k].attempts == 0:
            final[k] = Result(ok=False, error_name=NOT_SENT, message=why, attempts=0)
        else:
            final[k] = dataclasses.replace(final[k], note=f"not sent again: {why}")
    return final


def _give_up(keys: list[K], *, final: dict[K, Result]) -> None:
    """The apply's deadline comes before the next round: each key keeps its last answer, with why it stopped."""
    for k in keys:
        last = final[k]
        final[k] = dataclasses.replace(
            last, note=f"gave up after {last.attempts} attempt(s): the apply deadline was reached"
        )


def _interrupted(keys: list[K], *, final: dict[K, Result]) -> bool:
    """Whether Ctrl-C came (``reconciler.base.interrupt``): then nothing is sent again, each key keeps its last
    answer, noted."""
    if not interrupt.requested():
        return False
    for k in keys:
        final[k] = dataclasses.replace(final[k], note="not sent again: the apply was interrupted (Ctrl-C)")
    return True


def send_batched(
    ctx: ApplyContext,
    *,
    phase: plans.Phase,
    keys: Sequence[K],
    call: Call[K],
    key_of: Callable[[ItemResultLike], K] = lambda r: r.key,
    probe_done: Probe[K] | None = None,
    already_done_after_timeout: frozenset[str] = frozenset(),
) -> dict[K, Result]:
    """Send ``keys`` through ``call`` (one batched request per round) with retries; a final result per key.

    ``probe_done`` is asked which timed-out keys actually completed. An error in
    ``already_done_after_timeout`` (``TOPIC_ALREADY_EXISTS`` for a create) on a key that timed out
    earlier means the earlier attempt went through, and counts as success.
    """
    state: dict[K, _Pending[K]] = {k: _Pending() for k in keys}
    final: dict[K, Result] = {}
    pending = list(keys)
    round_no = 0
    while pending:
        throttle_ms = 0
        try:
            raw = call(pending)
            answered = _match(pending, raw, key_of)
        except errors.DeadlineReached as exc:  # nothing of this round was sent
            return _not_sent(pending, str(exc), state=state, final=final)
        except errors.ReconcilerError as exc:
            # The whole request failed: every pending item gets the request's error.
            answered = {}
            unanswered = _request_failed(exc)
            throttle_ms = int(getattr(exc, "throttle_time_ms", 0) or 0)
        else:
            unanswered = _UNANSWERED
        retry_keys: list[K] = []
        timed_out: list[K] = []
        for k in pending:
            st = state[k]
            st.attempts += 1
            item = answered.get(k)
            outcome = (
                dataclasses.replace(unanswered, attempts=st.attempts)
                if item is None
                else result_of(item, attempts=st.attempts)
            )
            finished = _done(outcome, st, already_done_after_timeout=already_done_after_timeout)
            if finished is not None:
                final[k] = finished
                continue
            if outcome.error_name == "THROTTLING_QUOTA_EXCEEDED":
                throttle_ms = max(throttle_ms, int(outcome.extra.get("throttle_time_ms") or 0))
                # The broker asked us to slow down, not to give up: a throttled attempt does not use up the
                # item's attempts; the apply's deadline bounds how long it keeps waiting.
                st.throttled += 1
            if ctx.policy.should_retry(attempts_made=st.attempts - st.throttled, error_name=outcome.error_name):
                # A lost connection leaves the outcome unknown: the write may have gone through.
                st.answer_lost = st.answer_lost or outcome.error_name == CONNECTION_ERROR
                if outcome.error_name in _PROBE_FIRST and probe_done is not None:
                    st.timed_out = st.timed_out or outcome.error_name in retry.MAY_HAVE_COMPLETED
                    timed_out.append(k)  # read the cluster before sending again
                else:
                    retry_keys.append(k)
                final[k] = outcome  # provisional: replaced when a later attempt answers
            else:
                final[k] = outcome
        if timed_out and probe_done is not None:
            retry_keys += _probe_timed_out(timed_out, probe_done=probe_done, state=state, final=final)
        if not retry_keys or _interrupted(retry_keys, final=final):
            break
        delay = ctx.policy.delay(round_no, rand=ctx.pacer.rand, throttle_time_ms=throttle_ms)
        if delay >= ctx.writes_left():
            _give_up(retry_keys, final=final)
            break
        errors_seen = ", ".join(sorted({str(final[k].error_name) for k in retry_keys}))
        message = f"retrying {len(retry_keys)} item(s) in {delay:.1f}s ({errors_seen})"
        ctx.emit(ApplyEvent(EventKind.RETRY, phase=phase, total=len(retry_keys), message=message))
        ctx.pacer.sleep(delay)
        round_no += 1
        pending = retry_keys
    return final

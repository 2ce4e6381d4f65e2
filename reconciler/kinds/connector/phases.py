"""The connector kind's apply phases (their ``run`` parts) and its read before writing (``read_to_apply``): deletes
(before topic deletes) and writes (after topics and ACLs), with read-back.

Each connector's requests depend on the live connector read before the writes, so nothing already as declared is
sent (an identical config PUT restarts the connector): a missing connector is created in its declared state (or
stopped, its kept offsets reset through Connect's offsets API, then put in its state); a config that differs is PUT
whole; a state that differs is changed (pause, resume, stop); for a connector declared running, what Connect still
reports FAILED is restarted (``restart?includeTasks=true&onlyFailed=true``), after those writes. How many writes
are outstanding at a time is the port's write pace (``reconciler.connect.pace``: it grows while the worker answers
more writes a second and halves when it pushes back); each request carries the apply's deadline (writes end before
the part kept for the read-back) and a 409 (a rebalance), 429 or 5xx is sent again within it. Secrets are resolved
just before sending, and compared by digest.

The read-back is part of the phase: each round reads every connector in one request (``GET
/connectors?expand=info&expand=status``), plus, at once and ``READ_PARALLEL`` at a time, the task configs of the
connectors whose new config Connect has not yet been seen to run (``restart``), until each one and each
of its tasks is in the declared state, bounded by the apply's deadline, and says what it waits for. A connector or
task that FAILED after the write is reported as failed with the first line of its trace (the apply is partial,
exit 3).

A write whose answer was lost (the worker died or the connection reset after it went out) may have been carried out:
it is read back with the others, its config compared with the one sent: applied if Connect shows it as declared,
failed with how it differs if not (a create not listed after ``LOST_GRACE_S``). A write sent (answered or not) is
unknown when Connect could not be read until the deadline; one whose first request reached no worker is not sent.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from reconciler.apply import decoded, outcomes, stopping
from reconciler.apply.apply_report import ItemOutcome
from reconciler.apply.batch import ApplyContext, Result
from reconciler.base import errors, interrupt
from reconciler.connect import secrets as connect_secrets
from reconciler.connect.http import ConnectError
from reconciler.connect.port import ConnectPort
from reconciler.connection import secrets as secret_refs
from reconciler.kinds.connector import restart, watch, writes
from reconciler.model import desired, payloads, state
from reconciler.model.kinds import Kind

DEFAULT_DEADLINE_S = 300.0  # as engine.DEFAULT_DEADLINE_S: the bound of the read before the writes
LOST_GRACE_S = 5.0  # how long a create whose answer was lost may take to be listed before it counts as not done
LOST_NOTE = "its answer was lost; Kafka Connect, read afterwards, shows it as declared"
Check = watch.Check


def secret_keys(ops: Iterable[decoded.Operation], wanted: desired.DesiredState | None) -> dict[str, set[str]]:
    """Per connector, the keys read as secrets (digests, never values): those the plan's payloads and the
    manifests name. The same keys as at plan time, so the live views (and fingerprints) compare."""
    keys: dict[str, set[str]] = {}
    for op in ops:
        for side in (op.change.before, op.change.after):
            if isinstance(side, payloads.ConnectorPayload):
                keys.setdefault(op.name, set()).update(side.secrets)
    for name, c in (wanted.connectors if wanted is not None else {}).items():
        keys.setdefault(name, set()).update(c.secrets)
    return keys


def with_connectors(
    live: state.ClusterState, connect: ConnectPort | None, *, keys: Mapping[str, Iterable[str]], deadline: float
) -> state.ClusterState:
    """``live`` with the Connect cluster's connectors read (one request)."""
    if connect is None:
        raise errors.ConfigError(
            "the plan changes connectors, but no Kafka Connect cluster is configured (connect: in the Cluster "
            "profile); nothing was written"
        )
    found = connect.read_connectors(deadline=deadline, secret_keys=keys)
    return dataclasses.replace(live, connect=state.ConnectState(url=connect.url, connectors=found))


def read_to_apply(
    live: state.ClusterState,
    ops: decoded.Operations,
    *,
    port: ConnectPort | None,
    wanted: desired.DesiredState | None,
    deadline_s: float | None,
    covered: object = None,
) -> state.ClusterState:
    """``live`` with the Connect cluster's connectors when the plan changes connectors or a Connect cluster was
    opened (one request): the read the checks before writing (staleness, scope) and the writes compare with (the
    connector kind's ``read_to_apply``; ``covered``, the plan's scope, adds nothing: every connector is read)."""
    mine = ops.of(Kind.CONNECTOR)
    if not mine and port is None:
        return live
    keys = secret_keys(mine, wanted)
    limit = DEFAULT_DEADLINE_S if deadline_s is None else deadline_s
    return with_connectors(live, port, keys=keys, deadline=time.monotonic() + limit)


def _deadline(ctx: ApplyContext) -> float:
    return time.monotonic() + ctx.deadline.remaining()


def _port(ctx: ApplyContext) -> ConnectPort:
    port: ConnectPort | None = ctx.port(Kind.CONNECTOR)
    if port is None:
        raise errors.ConfigError("no Kafka Connect cluster is configured (connect: in the Cluster profile)")
    return port


def _config(ctx: ApplyContext, w: writes.WriteConnector, *, masking: bool) -> dict[str, str]:
    """The whole config to send: declared values and each secret resolved now (never kept or shown); on a worker
    that masks values (``masking``), with the digests of its secrets recorded (``connect.secrets.record``)."""
    out = dict(w.config)
    for key, ref in w.secrets.items():
        kind, _, where = ref.partition(":")
        found = desired.SecretRef(env=where) if kind == "env" else desired.SecretRef(file=where)
        out[key] = secret_refs.resolve(found, what=f"connector {w.name}: {key}", environ=ctx.environ)
    return connect_secrets.record(w.name, out, w.secrets) if masking else out


class _Counted:
    """``port`` counting the requests it answered: the steps of one connector's write that went through."""

    def __init__(self, port: ConnectPort) -> None:
        self.port, self.answered = port, 0

    def __getattr__(self, name: str) -> Any:
        call = getattr(self.port, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            found = call(*args, **kwargs)
            self.answered += 1
            return found

        return counted


@dataclasses.dataclass(frozen=True)
class _Attempt:
    """How a connector's writes went: ``ok`` (answered), else failed; ``lost``: a write's answer was lost, so it
    may have been carried out (the read-back tells); ``config``: what was sent, secrets in clear (never shown)."""

    ok: bool
    message: str
    lost: bool = False
    config: Mapping[str, str] = dataclasses.field(default_factory=dict, repr=False)
    changed: Mapping[str, str] | None = dataclasses.field(default=None, repr=False)  # a config written: new values
    written_at: float = 0.0
    restarted: bool = False  # what Connect reported FAILED was restarted
    sent: bool = True  # False: the first request never reached Connect (no connection, or the time limit came)


def _attempt(
    ctx: ApplyContext, op: decoded.Operation, have: state.ConnectorState | None, *, masking: bool = False
) -> _Attempt:
    w = op.request
    assert isinstance(w, writes.WriteConnector)
    config: dict[str, str] = {}
    if not ctx.dry_run and interrupt.requested():  # nothing new is sent after Ctrl-C
        return _Attempt(False, stopping.CONNECTOR_UNSENT)
    port = _Counted(_port(ctx))
    try:
        config = _config(ctx, w, masking=masking)
        if ctx.dry_run:
            found = _port(ctx).validate(w.name, config, deadline=_deadline(ctx), secret_keys=w.secrets)
            why = "; ".join(f"{k}: {m}" if k else m for k, m in found) or "Connect's validate: no error"
            return _Attempt(not found, why)
        written = have is not None and not connect_secrets.same_config(w.name, config, have.config, w.secrets)
        deadline = time.monotonic() + ctx.writes_left()  # writes end before the part kept for the read-back
        message = writes.write_one(cast(ConnectPort, port), w, config, have, deadline=deadline)
        changed = restart.touched(config, have.config, w.secrets) if have and written else None
        again = bool(writes.restarted(w, have))
        return _Attempt(True, message, config=config, changed=changed, written_at=ctx.deadline.clock(), restarted=again)
    except ConnectError as exc:
        lost = exc.answer_lost and not ctx.dry_run
        changed = restart.touched(config, have.config, w.secrets) if lost and have else None
        at, sent = ctx.deadline.clock(), exc.sent or port.answered > 0  # not sent: its first request reached none
        return _Attempt(False, str(exc), lost=lost, config=config, changed=changed, written_at=at, sent=sent)
    except errors.ReconcilerError as exc:
        return _Attempt(False, str(exc))


def run_write(ctx: ApplyContext, ops: Sequence[decoded.Operation], *, live: state.ClusterState) -> list[ItemOutcome]:
    """The ``CONNECTOR`` phase: concurrent writes, then the read-back until each connector is as declared."""
    have = {} if live.connect is None else live.connect.connectors
    masking = any(connect_secrets.masks(c.config) for c in have.values())  # the worker masks secret values
    at_start = _port(ctx).request_count
    threads = max(1, min(_port(ctx).pace.ceiling, len(ops)))  # the pace bounds the writes outstanding among them
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="connect") as pool:
        answers = list(pool.map(lambda op: _attempt(ctx, op, have.get(op.name), masking=masking), ops))
    if ctx.dry_run:
        return [
            outcomes.client_check(op.change, None if a.ok else a.message) for op, a in zip(ops, answers, strict=True)
        ]
    checks = {op.name: _check(ctx, op, a) for op, a in zip(ops, answers, strict=True) if a.ok or a.lost}
    problems, unread = watch.poll(ctx, checks, what="connectors") if checks else ({}, set())
    sent_requests = _port(ctx).request_count - at_start
    ctx.notes.append(
        f"connectors: {sent_requests} Kafka Connect REST request(s) for {len(ops)} connector(s), read-back included"
    )
    out = []
    for op, a in zip(ops, answers, strict=True):
        if (a.ok or a.lost) and op.name in unread:  # sent; Connect unreadable since: nobody can tell what it holds
            told = "it runs as declared" if a.ok else "it was carried out"
            why = f"{a.message}; Kafka Connect could not be read afterwards to tell whether {told}"
            out.append(
                outcomes.unknown(op.change, error_name="ANSWER_LOST" if a.lost else "NOT_READ_BACK", message=why)
            )
        elif not a.sent:
            out.append(outcomes.not_sent(op.change, f"not sent: {a.message}"))
        elif not (a.ok or a.lost):
            name = interrupt.INTERRUPTED if a.message is stopping.CONNECTOR_UNSENT else "CONNECT_REQUEST_FAILED"
            out.append(outcomes.failed(op.change, error_name=name, message=a.message))
        elif op.name in problems:
            why = f"{a.message}; not applied: {problems[op.name]}" if a.lost else problems[op.name]
            item = outcomes.failed(op.change, error_name="CONNECTOR_NOT_CONVERGED", message=why)
            written = a.ok or (a.lost and "FAILED" in problems[op.name])  # Connect holds it, then it FAILED
            out.append(dataclasses.replace(item, details={**item.details, "written": True}) if written else item)
        else:
            out.append(
                outcomes.from_result(
                    op.change, Result(ok=True, message=LOST_NOTE if a.lost else a.message), dry_run=False
                )
            )
    return out


def run_delete(ctx: ApplyContext, ops: Sequence[decoded.Operation], *, live: state.ClusterState) -> list[ItemOutcome]:
    """The ``CONNECTOR_DELETE`` phase: delete each connector and wait until Connect no longer lists it."""
    if ctx.dry_run:
        return [outcomes.client_check(op.change, None) for op in ops]

    def one(op: decoded.Operation) -> str | None:
        if interrupt.requested():  # nothing new is sent after Ctrl-C
            return stopping.CONNECTOR_UNSENT
        try:
            _port(ctx).delete(op.name, deadline=_deadline(ctx))
        except errors.ReconcilerError as exc:
            return str(exc)
        return None

    threads = max(1, min(_port(ctx).pace.ceiling, len(ops)))  # the pace bounds the deletes outstanding among them
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="connect") as pool:
        failures = dict(zip((op.name for op in ops), pool.map(one, ops), strict=True))
    gone = [op for op in ops if failures[op.name] is None]
    left = watch.poll(ctx, {op.name: _gone for op in gone}, what="connector deletes")[0] if gone else {}
    out = []
    for op in ops:
        why = failures[op.name] or left.get(op.name)
        if why is not None:
            name = interrupt.INTERRUPTED if why is stopping.CONNECTOR_UNSENT else "CONNECT_REQUEST_FAILED"
            out.append(outcomes.failed(op.change, error_name=name, message=why))
        else:
            note = "deleted; Connect keeps its offsets (a connector created under this name resumes from them)"
            out.append(outcomes.from_result(op.change, Result(ok=True, message=note), dry_run=False))
    return out


def _gone(c: state.ConnectorState | None) -> tuple[bool, str | None]:
    return (c is None, None if c is None else "still listed by Connect")


def _check(ctx: ApplyContext, op: decoded.Operation, a: _Attempt) -> Check:
    """The read-back's check of a connector whose write was answered (or lost)."""
    assert isinstance(op.request, writes.WriteConnector)
    check = watch.declared(op.request)
    if a.changed is not None and op.request.state != "stopped":
        check = _after_restart(ctx, op.name, a, check)
    elif a.restarted:
        check = restart.after_failed_restart(
            check,
            restarted_at=a.written_at,
            clock=ctx.deadline.clock,
            remaining=ctx.deadline.remaining,
            last_round_s=2 * watch.MAX_POLL_S,
        )
    if a.lost:
        until = ctx.deadline.clock() + LOST_GRACE_S
        check = watch.as_sent(op.request, a.config, check, until=until, clock=ctx.deadline.clock)
    return check


def _after_restart(ctx: ApplyContext, name: str, a: _Attempt, check: Check) -> Check:
    assert a.changed is not None
    return restart.after_restart(
        check,
        changed=a.changed,
        task_configs=lambda: _port(ctx).task_configs(name, deadline=_deadline(ctx)),
        written_at=a.written_at,
        clock=ctx.deadline.clock,
        remaining=ctx.deadline.remaining,
        last_round_s=2 * watch.MAX_POLL_S,
    )

"""The connector phases' read-back: what counts as a connector in its declared state, and the poll that waits for it.

``poll`` reads every connector in one request a round (``GET /connectors?expand=info&expand=status``) and runs
each pending connector's check on what it read; the checks of one round run together, ``READ_PARALLEL`` at a
time, because a check may send a request of its own (the task configs of a connector whose new config Connect has
not yet been seen to run, ``restart``). Rounds come ``FIRST_POLL_S`` apart, growing to ``MAX_POLL_S``
(one request watches every connector, so rounds are cheap), until every check settles or the apply's deadline
comes. ``declared`` is the check of a connector written as declared, ``as_sent`` that of a write whose answer was
lost. With several Kafka Connect clusters a round settles the connectors of those that answered; those of one that
did not wait for it (``multi.PartialRead``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor

from reconciler.apply.batch import ApplyContext
from reconciler.apply.events import ApplyEvent, EventKind
from reconciler.base import errors
from reconciler.connect import multi
from reconciler.connect import secrets as connect_secrets
from reconciler.connect.port import ConnectPort
from reconciler.kinds.connector import writes
from reconciler.model import state
from reconciler.model.kinds import Kind

READ_PARALLEL = 8  # task-config reads of one read-back round at a time
FIRST_POLL_S, MAX_POLL_S = 0.1, 0.25  # one request a round watches every connector
TASK_STATES = {"running": "RUNNING", "paused": "PAUSED"}
# A read-back check of one connector: (settled, problem); settled without a problem is converged.
Check = Callable[[state.ConnectorState | None], tuple[bool, str | None]]


def _port(ctx: ApplyContext) -> ConnectPort:
    port: ConnectPort | None = ctx.port(Kind.CONNECTOR)
    if port is None:
        raise errors.ConfigError("no Kafka Connect cluster is configured (connect: in the Cluster profile)")
    return port


def declared(w: writes.WriteConnector) -> Check:
    def check(c: state.ConnectorState | None) -> tuple[bool, str | None]:
        """(settled, problem): settled with no problem is converged; a FAILED connector or task settles at once."""
        if c is None:
            return False, "not listed by Connect yet"
        failed = [t for t in c.tasks if t.state == "FAILED"]
        if c.state == "FAILED" or failed:
            where = "the connector" if c.state == "FAILED" else f"task {failed[0].id}"
            trace = c.trace if c.state == "FAILED" else failed[0].trace
            return True, f"{where} FAILED after the write" + (f": {trace}" if trace else "")
        if c.state.lower() != w.state:
            return False, f"Connect reports {c.state}, waiting for {w.state.upper()}"
        wanted = TASK_STATES.get(w.state)
        if wanted is None:  # stopped: Connect shuts its tasks down
            return (not c.tasks, None if not c.tasks else f"{len(c.tasks)} task(s) still listed")
        if w.state == "paused" and not c.tasks:  # created paused: Connect starts no task until it is resumed
            return True, None
        pending = [t for t in c.tasks if t.state != wanted]
        if not c.tasks or pending:
            return False, f"waiting for every task to be {wanted} ({len(c.tasks) - len(pending)} of {len(c.tasks)})"
        return True, None

    return check


def as_sent(
    w: writes.WriteConnector,
    config: Mapping[str, str],
    check: Check,
    *,
    until: float,
    clock: Callable[[], float],
) -> Check:
    """``check`` of a write whose answer was lost: Connect must also hold the config sent, and a connector still
    not listed at ``until`` was not created."""

    def lost(c: state.ConnectorState | None) -> tuple[bool, str | None]:
        if c is None:
            return (True, "Kafka Connect does not list it") if clock() > until else (False, "not listed by Connect yet")
        if not connect_secrets.same_config(w.name, config, c.config, ()):
            return True, "Kafka Connect holds another config"
        return check(c)

    return lost


def poll(ctx: ApplyContext, checks: Mapping[str, Check], *, what: str) -> tuple[dict[str, str], set[str]]:
    """Read every connector (one request a round) until each check settles or the deadline passes; the problems,
    and the connectors still pending when the last read failed (Connect unreadable: nobody can tell)."""
    started, interval = ctx.deadline.clock(), FIRST_POLL_S
    unread: set[str] = set()
    pending = dict(checks)
    problems: dict[str, str] = {}
    last: dict[str, str] = {}
    waiting: set[str] = set()
    with ThreadPoolExecutor(max_workers=READ_PARALLEL, thread_name_prefix="connect-read") as pool:
        while pending:
            found, last, waiting = _round(ctx, pool, pending, problems, last)
            _progress(ctx, len(checks), len(checks) - len(pending), started=started, what=what)
            if not pending:
                break
            if ctx.deadline.remaining() <= interval:
                for name in pending:
                    problems[name] = f"not as declared when the apply's deadline came: {last.get(name)}"
                unread = set(pending) if found is None else waiting & set(pending)
                break
            ctx.pacer.sleep(interval)
            interval = min(MAX_POLL_S, interval * 1.5)
    return problems, unread


def _round(
    ctx: ApplyContext,
    pool: ThreadPoolExecutor,
    pending: dict[str, Check],
    problems: dict[str, str],
    last: dict[str, str],
) -> tuple[Mapping[str, state.ConnectorState] | None, dict[str, str], set[str]]:
    """One round: read every connector, run the pending checks on it (settled ones leave ``pending``, with their
    problem); what was read (``None``: Connect could not be read), why each one still pending is, and those of a
    Connect cluster of several that could not be read this round (their checks wait for it)."""
    waiting: set[str] = set()
    try:
        found = _port(ctx).read_connectors(deadline=time.monotonic() + ctx.deadline.remaining())
    except multi.PartialRead as exc:  # several Connect clusters, some not read: settle what the others show
        found = exc.found
        waiting = {name for name in pending if name.partition("/")[0] in exc.unread}
        last.update({name: f"could not be read back: {exc}" for name in waiting})
    except errors.ReconcilerError as exc:
        return None, {name: f"could not be read back: {exc}" for name in pending}, waiting
    checked = {name: check for name, check in pending.items() if name not in waiting}
    for name, (settled, why) in _verdicts(pool, checked, found):  # a check may read task configs: run together
        if settled:
            del pending[name]
            if why is not None:
                problems[name] = why
        else:
            last[name] = why or "not as declared yet"
    return found, last, waiting


def _verdicts(
    pool: ThreadPoolExecutor, pending: Mapping[str, Check], found: Mapping[str, state.ConnectorState]
) -> list[tuple[str, tuple[bool, str | None]]]:
    """Each pending check on the connectors read, run together (a check may read the connector's task configs)."""
    return list(pool.map(lambda item: (item[0], item[1](found.get(item[0]))), list(pending.items())))


def _progress(ctx: ApplyContext, total: int, done: int, *, started: float, what: str) -> None:
    elapsed = ctx.deadline.clock() - started
    text = f"{what}: {done} of {total} in their declared state after {elapsed:.0f}s"
    ctx.emit(ApplyEvent(EventKind.VERIFYING, total=total, done=done, message=text))

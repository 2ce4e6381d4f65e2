"""Execute a plan: pre-write checks, then each phase as one batched request, then a convergence read-back.

``apply_plan`` is the library entry point. It decodes the plan once into typed operations (``decoded``): one path,
plan file -> typed operations -> requests (the phase runners) -> outcomes -> read-back of the same operations
(``readback``, ``verify``). Before any write it reads the affected resources once, refuses a plan for another
cluster, a stale plan, an impossible plan, a plan that would lock the tool's own principal out, and a plan whose
SCRAM password references or redacted config values do not resolve (each secret is read once, there). Phases run
in the plan's order (deletes before adds); requests are not transactional (KIP-4), so independent items
go ahead after a failure and only the dependants of a failed item are skipped. After the phases it
reads the affected resources back and reports whether the cluster converged.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from reconciler.apply import (
    access,
    decoded,
    guard,
    lost,
    outcomes,
    port_reads,
    preflight,
    readback,
    retry,
    secrets_at_write,
    stopping,
)
from reconciler.apply import lock as apply_lock
from reconciler.apply.apply_report import ApplyReport, ItemOutcome, NotConverged, Outcome, PhaseReport
from reconciler.apply.batch import ApplyContext
from reconciler.apply.events import ApplyEvent, EventKind, EventSink, discard
from reconciler.base import errors, interrupt, scrubbing
from reconciler.connection.settings import Secret
from reconciler.kafka.port import AdminPort
from reconciler.kinds import registry
from reconciler.model import plans, state
from reconciler.model.desired import DesiredState

DEFAULT_DEADLINE_S = 300.0
DEADLINE_PER_UNIT_S = 0.03


class Runner(Protocol):
    """A phase's runner (``PhaseSpec.run`` of the kind writing in it): one outcome per operation it is given."""

    def __call__(
        self, ctx: ApplyContext, ops: Sequence[decoded.Operation], *, live: state.ClusterState
    ) -> list[ItemOutcome]: ...


@dataclasses.dataclass(frozen=True, slots=True)
class ApplyOptions:
    """How to apply.

    ``principal`` is the ACL principal the tool connects as (``User:<name>``); when ``None`` it is
    derived from the adapter's connection settings. ``deadline_s`` bounds the whole apply, waits and
    retries included; ``None`` scales it with the work (``default_deadline_s``). ``replication_throttle``
    (bytes/s) throttles reassignment traffic while it runs.
    ``settle_s`` bounds how long the read-back keeps re-reading resources that have not converged yet (brokers
    learn of changes asynchronously); ``None`` waits as long as the work needs (``readback``), within
    ``deadline_s``. ``desired`` (the manifests' state) supplies sensitive config values,
    which a plan holds only redacted. ``timeout_given_s`` is the ``--timeout`` the command was given when planning
    took part of it (``deadline_s`` is then what planning left): messages about the deadline name that figure.
    """

    dry_run: bool = False
    deadline_s: float | None = None
    allow_self_lockout: bool = False
    principal: str | None = None
    check_staleness: bool = True
    verify: bool = True
    replication_throttle: int | None = None
    retry_policy: retry.RetryPolicy = dataclasses.field(default_factory=retry.RetryPolicy)
    pacer: retry.Pacer = dataclasses.field(default_factory=retry.Pacer)
    clock: Callable[[], float] = time.monotonic
    environ: Mapping[str, str] | None = dataclasses.field(default=None, repr=False)
    settle_s: float | None = None
    desired: DesiredState | None = dataclasses.field(default=None, repr=False)
    # The REST ports the plan's changes are written through, by name (``reconciler.ports.to_apply``).
    ports: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    timeout_given_s: float | None = None
    lock: apply_lock.Lock | None = None  # the cluster's apply lock, taken before the first read; None: no lock
    # Whether Ctrl-C asked the apply to send nothing new (``reconciler.base.interrupt``).
    interrupted: Callable[[], bool] = interrupt.requested


def default_deadline_s(changes: Sequence[plans.Change]) -> float:
    """The apply's deadline when none is given: ``DEFAULT_DEADLINE_S`` plus ``DEADLINE_PER_UNIT_S`` per partition
    created or added and per other change (``readback.work_units``): 300 s for a few changes, 10 minutes for 10,000
    new one-partition topics, a large create's writes and read-back included."""
    return DEFAULT_DEADLINE_S + DEADLINE_PER_UNIT_S * readback.work_units(changes)


def _delta(after: Mapping[str, int], before: Mapping[str, int]) -> dict[str, int]:
    return {api: n - before.get(api, 0) for api, n in after.items() if n - before.get(api, 0)}


def _read(adapter: AdminPort, ops: decoded.Operations, *, principals: Sequence[str | None] = ()) -> state.ClusterState:
    """A targeted read of the resources ``ops`` touch (and, for ACLs, the bindings of ``principals``)."""
    kinds = frozenset(op.change.kind for op in ops.items)
    return adapter.read_state(kinds=kinds, scope=ops.read_scope(principals=principals))


def _verify_read(adapter: AdminPort, ops: decoded.Operations) -> state.ClusterState:
    """The read-back's read of ``ops``: only the resources not converged yet, and of their topics only the config
    keys written (``decoded.Operations.verify_scope``)."""
    kinds = frozenset(op.change.kind for op in ops.items)
    return adapter.read_state(kinds=kinds, scope=ops.verify_scope())


def apply_plan(
    p: plans.Plan,
    adapter: AdminPort,
    *,
    options: ApplyOptions,
    events: EventSink | None = None,
    operations: decoded.Operations | None = None,
) -> ApplyReport:
    """Carry out ``p`` through ``adapter``; see the module docstring. Raises before any write, never after.
    ``operations``: ``p`` as ``decoded.decode`` returned it to the caller (decoded here when not given)."""
    sink = events or discard
    started = options.clock()
    # The apply's deadline runs from here, its first read included, and bounds every wait on the cluster.
    total_s = default_deadline_s(p.actionable) if options.deadline_s is None else options.deadline_s
    deadline = retry.Deadline(total_s, clock=options.clock)
    adapter.limit_waits(total_s, named_s=options.timeout_given_s, reserve_s=stopping.reserve_s(total_s))
    requests_at_start = adapter.request_count
    counts_at_start = dict(adapter.request_counts)
    ops = decoded.decode(p) if operations is None else operations  # the checks below read the operations
    changes = ops.changes
    blocked = [outcomes.blocked(c) for c in p.blocked]
    if not changes:
        return _nothing_to_send(p, blocked=blocked, dry_run=options.dry_run)

    own = options.principal or guard.connection_principal(adapter)  # the connection's principal, found once
    # The lock comes before the first read: a second apply's stale check then sees what the first one wrote.
    held, refused = stopping.take_lock(None if options.dry_run else options.lock, deadline.remaining())
    try:
        live, revealed, secrets = _before_writing(p, adapter, ops, own=own, options=options, lock_refused=refused)
        ctx = _context(adapter, options, deadline=deadline, events=sink, secrets=secrets, revealed=revealed)
        items, phases = _run_phases(ctx, ops, live, interrupted=options.interrupted)
        stopped = options.interrupted()  # Ctrl-C: not read back (the note says to run plan)
        verified = _converged(ctx, ops, items, options=options, stopped=stopped)
        converged, not_converged, unverified = verified
        unlocked = options.lock is not None and options.lock.request.skip and not options.dry_run
        ctx.notes += stopping.notes(items, deadline=deadline, given_s=options.timeout_given_s, stopped=stopped)
        ctx.notes += stopping.lock_notes(held, unlocked=unlocked)
    finally:
        if held is not None:
            held.release()
    items += blocked

    total = adapter.request_count - requests_at_start
    return ApplyReport(
        cluster_id=live.cluster_id,
        dry_run=options.dry_run,
        items=tuple(items),
        phases=tuple(phases),
        converged=converged,
        not_converged=tuple(not_converged),
        still_moving=tuple(ctx.still_moving),
        requests=total,
        duration_s=options.clock() - started,
        notes=tuple(ctx.notes),
        requests_by_api=_delta(adapter.request_counts, counts_at_start),
        unverified=unverified,
        interrupted=stopped or options.interrupted(),
    )


def _nothing_to_send(p: plans.Plan, *, blocked: list[ItemOutcome], dry_run: bool) -> ApplyReport:
    """The report of a plan without a change to send; a blocked change still leaves the cluster different from
    the manifests (exit 3)."""
    return ApplyReport(
        cluster_id=p.cluster.cluster_id,
        dry_run=dry_run,
        items=tuple(blocked),
        phases=(),
        converged=None if blocked else True,
        requests=0,
    )


def _before_writing(
    p: plans.Plan,
    adapter: AdminPort,
    ops: decoded.Operations,
    *,
    own: str | None,
    options: ApplyOptions,
    lock_refused: errors.GrantMissing | None = None,
) -> tuple[state.ClusterState, secrets_at_write.Revealed, dict[str, Secret]]:
    """Every check before the first write, in order; each refuses the apply (exit 1, nothing written). The plan was
    decoded before (``decoded.decode``: its shape, findings and every value, before anything was read). Returns the
    live state read, the sensitive config values and the SCRAM passwords, each read once here. ``lock_refused``
    (the apply lock's right is missing) refuses last, or is named with the other missing rights."""
    # 1. Read the resources the plan touches (and, for ACLs, the bindings of the principals the guard weighs).
    live = port_reads.with_ports(_read(adapter, ops, principals=(own, guard.ANY_PRINCIPAL)), ops, options)
    # 2. The plan was made for this cluster.
    preflight.check_cluster(p, live)
    # 3. It is current: no resource it changes, and nothing in its scope, moved since it was made.
    if options.check_staleness:
        preflight.check_fresh(ops.changes, live)
        preflight.check_scope(p, port_reads.scope_reader(adapter, ops, options, doc=p.scope))
    # 4. It does not take from the connection's principal a right it needs to keep managing.
    if not options.allow_self_lockout:
        guard.check(adapter, ops, own=own, live=live, principal_given=options.principal is not None)
    # 5. The sensitive config values it holds redacted are declared in the manifests at hand.
    reveal = None if options.desired is None else secrets_at_write.declared_values(options.desired)
    revealed = secrets_at_write.reveal_redacted(ops.items, reveal=reveal)
    if options.dry_run:
        return live, revealed, {}
    # 6. Every SCRAM password it sets resolves; 7. the principal holds the rights the writes and read-back need.
    secrets = secrets_at_write.resolve_secrets(ops.items, environ=options.environ)
    throttled = options.replication_throttle is not None
    try:
        access.check_access(
            adapter, ops.changes, principal=own, live=live, throttled=throttled, read_back=options.verify
        )
    except access.MissingAccess as exc:
        if lock_refused is None:
            raise
        raise stopping.with_lock_grant(exc, lock_refused) from None
    if lock_refused is not None:
        raise lock_refused
    return live, revealed, secrets


def _converged(
    ctx: ApplyContext, ops: decoded.Operations, items: Sequence[ItemOutcome], *, options: ApplyOptions, stopped: bool
) -> tuple[bool | None, list[NotConverged], tuple[str, ...]]:
    """Whether the cluster converged (the read-back of what was applied), what did not, and a right it lacked; not
    known (``None``) after a dry run, without a read-back, or when Ctrl-C stopped the apply (``stopped``)."""
    applied = [op for op, o in zip_outcomes(ops.items, items) if o.outcome is Outcome.APPLIED]
    if options.dry_run or stopped or (applied and not options.verify):
        return None, [], ()
    if not applied:
        return not any(i.outcome.is_problem for i in items), [], ()
    if ctx.deadline.remaining() <= stopping.SPENT_S:
        return False, [NotConverged("(read-back)", "not read back: the apply's time limit was reached first")], ()
    return _verify(ctx, applied, settle_s=options.settle_s)


def _context(
    adapter: AdminPort,
    options: ApplyOptions,
    *,
    deadline: retry.Deadline,
    events: EventSink,
    secrets: dict[str, Secret],
    revealed: Mapping[tuple[str, str], Secret],
) -> ApplyContext:
    """What every phase shares: the port, the retry policy and pacing, the run's deadline, events and secrets."""
    return ApplyContext(
        adapter=adapter,
        policy=options.retry_policy,
        pacer=options.pacer,
        deadline=deadline,
        events=events,
        dry_run=options.dry_run,
        secrets=secrets,
        environ=options.environ,
        throttle_rate=options.replication_throttle,
        revealed=revealed,
        ports=options.ports,
        reserve_s=stopping.reserve_s(deadline.total_s),  # the last part of the deadline, kept for reading back
    )


def _verify(
    ctx: ApplyContext, applied: list[decoded.Operation], *, settle_s: float | None
) -> tuple[bool | None, list[NotConverged], tuple[str, ...]]:
    """The read-back of the applied operations: converged, what did not, and a right that kept it from checking."""
    try:
        not_converged, why = readback.read_back(
            ctx,
            applied,
            read=lambda pending: _verify_read(ctx.adapter, decoded.Operations(tuple(pending))),
            limit_s=settle_s,
        )
    except errors.ReconcilerError as exc:
        # Convergence cannot be confirmed, so the apply does not count as complete (exit 3).
        right = readback.missing_right(exc)
        if right is None:
            return False, [NotConverged("(read-back)", f"the read-back after the apply failed: {exc}")], ()
        ctx.notes.append(
            f"applied, not verified: the read-back was refused ({right}); grant it, then run plan to check"
        )
        return None, [], (right,)
    if why is not None:
        ctx.notes.append(
            f"{len(not_converged)} resource(s) did not converge: {why}. What the controller accepted may "
            "still show later (KIP-4): run plan again to check, or allow more time with --read-back-timeout"
        )
    return not not_converged, not_converged, ()


def zip_outcomes(
    ops: Sequence[decoded.Operation], items: Sequence[ItemOutcome]
) -> list[tuple[decoded.Operation, ItemOutcome]]:
    """Pair each operation with its outcome (one outcome per operation, matched on phase and address)."""
    by_key = {(i.phase, i.address): i for i in items}
    return [(op, by_key[key]) for op in ops if (key := (op.change.phase, op.address)) in by_key]


def _run_phase(
    ctx: ApplyContext, phase: plans.Phase, send: Sequence[decoded.Operation], live: state.ClusterState
) -> list[ItemOutcome]:
    """One phase; a whole-request failure outside the retry loop (a wait, a throttle) fails the phase's items."""
    try:  # the time limit, before or while it sends: ``stopping``
        run = _runner(phase)
        return stopping.run_phase(ctx, phase, send, lambda: run(ctx, send, live=live))
    except errors.ReconcilerError as exc:
        name = getattr(exc, "error_name", None) or "REQUEST_FAILED"
        return [outcomes.failed(op.change, error_name=name, message=str(exc), dry_run=ctx.dry_run) for op in send]
    except Exception as exc:  # a defect of the tool: this phase ends, the report is still written (exit 3)
        shown = scrubbing.scrub(f"{type(exc).__name__}: {exc}", _secret_values(ctx))
        message = (
            f"the tool failed while carrying out this phase ({shown}); what reached the cluster is unknown: "
            "run plan to see, and report this as a bug"
        )
        return [
            outcomes.failed(op.change, error_name="INTERNAL_ERROR", message=message, dry_run=ctx.dry_run) for op in send
        ]


def _runner(phase: plans.Phase) -> Runner:
    """The runner the declaration of ``phase`` names (imported the first time a plan holds the phase)."""
    run: Runner = registry.phase(phase)[1].run.get()
    return run


def _secret_values(ctx: ApplyContext) -> list[str]:
    """Every secret apply holds (SCRAM passwords, revealed config values), to keep them out of a failure message."""
    return [s.reveal() for s in (*ctx.secrets.values(), *ctx.revealed.values())]


def _run_phases(
    ctx: ApplyContext, ops: decoded.Operations, live: state.ClusterState, *, interrupted: Callable[[], bool]
) -> tuple[list[ItemOutcome], list[PhaseReport]]:
    failures: dict[tuple[plans.Phase, str], str] = {}
    items: list[ItemOutcome] = []
    phases: list[PhaseReport] = []
    for phase in sorted({op.change.phase for op in ops.items}):
        batch = [op for op in ops.items if op.change.phase is phase]
        if interrupted():  # Ctrl-C: no phase starts after it
            items += sorted((stopping.not_started(op.change) for op in batch), key=lambda o: o.address)
            continue
        ctx.emit(ApplyEvent(EventKind.PHASE_STARTED, phase=phase, total=len(batch)))
        t0 = ctx.deadline.clock()
        at_start = ctx.sent()  # Kafka's requests and the REST ports'
        send: list[decoded.Operation] = []
        done: list[ItemOutcome] = []
        for op in batch:
            skipped = outcomes.skipped(op.change, failures)
            if skipped is None:
                send.append(op)
            else:
                done.append(skipped)
        if send:
            done += _run_phase(ctx, phase, send, live)
            done = lost.resolve(
                ctx, send, done, read=lambda doubtful: _verify_read(ctx.adapter, decoded.Operations(tuple(doubtful)))
            )
            done = stopping.unsent(done, [op.change for op in send])  # Ctrl-C came before its request: not started
        done.sort(key=lambda o: o.address)
        for o in done:
            if o.outcome.is_problem:
                failures[(phase, o.address)] = o.error_name or o.outcome.value
            ctx.emit(
                ApplyEvent(EventKind.ITEM_DONE, phase=phase, address=o.address, outcome=o.outcome, total=len(batch))
            )
        items += done
        elapsed = ctx.deadline.clock() - t0
        now = ctx.sent()
        requests, by_api = now[0] - at_start[0], _delta(now[1], at_start[1])
        phases.append(
            PhaseReport(phase=phase, duration_s=elapsed, requests=requests, items=len(batch), requests_by_api=by_api)
        )
        ctx.emit(ApplyEvent(EventKind.PHASE_FINISHED, phase=phase, total=len(batch), duration_s=elapsed))
    return items, phases

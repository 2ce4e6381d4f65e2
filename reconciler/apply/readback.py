"""The read-back after the writes: re-read what has not converged yet, with backoff, as long as the work needs.

Brokers learn of a change from the metadata log after the controller accepted it, and what the controller
accepted (or a create whose answer timed out, KIP-4) may show only later: a single broker creating 12,000
partition logs shows the last new topics a minute or more after CreateTopics answered. So the read-back does
not stop at a fixed time. It re-reads the resources that do not match yet (a targeted read, shrinking as they
converge), waiting 0.5 s between reads at first and 1.5 times longer each time up to 5 s, and stops when

- every resource converged, and every broker's own metadata shows the topics created, deleted or grown, and every
  broker's own authorizer (DescribeAcls) the ACL bindings created or deleted (brokers learn of them from the
  controller at different moments, in ZooKeeper mode through UpdateMetadata and ZooKeeper's ACL change notices, and
  a later plan may ask any of them; a one-broker cluster is asked nothing more);
- nothing more converged for ``window_s(applied)``: 15 s plus 20 ms per partition created or added and per
  other applied change (15 s for a few changes, 3.6 minutes for 10,000 new topics); except while every config
  write not converged still reads as the values from before it (``verify.behind``): the broker has not applied a
  write the controller accepted, and only the deadline ends that wait;
- or the read-back deadline passed: ``limit_s`` (``--read-back-timeout``), and never past the apply's own
  deadline (``--timeout``).

What did not converge is reported per resource (how it differs) with the reason the read-back stopped. A read the
brokers refuse for lack of rights is not a failure to converge: the apply reports its changes applied, not verified,
naming the missing right (``missing_right``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from reconciler.apply import decoded, verify
from reconciler.apply.apply_report import NotConverged
from reconciler.apply.batch import ApplyContext
from reconciler.apply.events import ApplyEvent, EventKind
from reconciler.base import interrupt
from reconciler.model import payloads, plans, state

BASE_S = 15.0
PER_UNIT_S = 0.02
FIRST_POLL_S = 0.5
MAX_POLL_S = 5.0
BACKOFF = 1.5

Read = Callable[[Sequence[decoded.Operation]], state.ClusterState]


def missing_right(exc: Exception) -> str | None:
    """The right a read-back refused for authorization lacks (``grant OP on RESOURCE to PRINCIPAL`` when the read
    named it, else the broker's error), or ``None`` when the read failed for another reason."""
    name = str(getattr(exc, "error_name", None) or "")
    if not name.endswith("AUTHORIZATION_FAILED"):
        return None
    text = str(exc)
    at = text.find("grant ")
    return text[at:].split(";")[0].strip() if at >= 0 else name


def work_units(applied: Sequence[plans.Change]) -> int:
    """Partitions created or added, plus one per other applied change."""
    units = 0
    for c in applied:
        after, before = c.after, c.before
        if not isinstance(after, payloads.TopicPayload):
            units += 1
        elif c.phase is plans.Phase.TOPIC_CREATE:
            units += len(after.assignment or ()) or after.partitions or 1
        elif c.phase is plans.Phase.PARTITIONS:
            had = before.partitions if isinstance(before, payloads.TopicPayload) else None
            units += max(1, (after.partitions or 0) - (had or 0))
        else:
            units += 1
    return units


def window_s(applied: Sequence[plans.Change]) -> float:
    """How long the read-back keeps going while nothing more converges."""
    return BASE_S + PER_UNIT_S * work_units(applied)


def read_back(
    ctx: ApplyContext, applied: Sequence[decoded.Operation], *, read: Read, limit_s: float | None
) -> tuple[list[NotConverged], str | None]:
    """What has not converged when the read-back stops, and why it stopped (``None`` when all converged)."""
    clock = ctx.deadline.clock
    started = clock()
    remaining = ctx.deadline.remaining()
    cap = remaining if limit_s is None else min(limit_s, remaining)
    which = "--read-back-timeout" if limit_s is not None and limit_s <= remaining else "the apply's --timeout"
    window = window_s([op.change for op in applied])
    pending = list(applied)
    poll = FIRST_POLL_S
    last_progress = started
    ctx.emit(status(applied, pending, elapsed_s=None))
    while True:
        live = read(pending)
        missing = verify.not_converged(pending, live)
        if not missing:  # converged where it was read: every broker a later plan may ask must show it too
            missing = _lagging(ctx, pending)
        still = {m.address for m in missing}
        if len(still) < len(pending):
            last_progress = clock()
        pending = [op for op in pending if op.address in still]  # the next read asks only for these
        # A config write whose resource still shows its values from before is not an outcome to give up on after the
        # window: the broker has not applied the accepted write yet. Only the read-back deadline ends that wait.
        lag = bool(pending) and all(verify.behind(op, live) for op in pending)
        now = clock()
        ctx.emit(status(applied, pending, elapsed_s=now - started))
        if not missing:
            return [], None
        if now >= started + cap:
            if lag:
                return _still_before(missing), (
                    f"the read-back deadline was reached after {now - started:.0f} s ({which}) while the broker "
                    "still showed the values from before the change (its metadata lags, or another writer set them "
                    "back)"
                )
            return missing, f"the read-back deadline was reached after {now - started:.0f} s ({which})"
        if now >= last_progress + window and not lag:
            return missing, f"nothing more converged in the last {window:.0f} s"
        if interrupt.requested():  # Ctrl-C: the report is written now, with what the reads showed so far
            return missing, "the read-back was interrupted (Ctrl-C) before they showed"
        # The last read falls on the deadline or the end of the window, not a backoff step before it.
        end = started + cap if lag else min(started + cap, last_progress + window)
        ctx.pacer.sleep(max(0.0, min(poll, end - now)))
        poll = min(MAX_POLL_S, poll * BACKOFF)


def _still_before(missing: Sequence[NotConverged]) -> list[NotConverged]:
    return [NotConverged(m.address, f"{m.detail} (the value from before the change)") for m in missing]


def _lagging(ctx: ApplyContext, pending: Sequence[decoded.Operation]) -> list[NotConverged]:
    """The topics and ACL bindings of ``pending`` that some broker's own metadata or authorizer does not show as
    wanted yet."""
    wanted = verify.expected_topics(pending)
    lagging = verify.lagging(wanted, ctx.adapter.topic_views(sorted(wanted))) if wanted else []
    bindings = verify.expected_acls(pending)
    if bindings:
        views = ctx.adapter.acl_views(sorted({b.principal for b in bindings}))
        lagging += verify.acl_lagging(bindings, views)
    return lagging


def status(
    applied: Sequence[decoded.Operation], pending: Sequence[decoded.Operation], *, elapsed_s: float | None
) -> ApplyEvent:
    """The read-back's status line, ``verifying 1,100 changes: 940 converged, waiting for 160 (acl 160) after 12s``;
    ``elapsed_s`` is ``None`` before the first read."""
    total, left = len(applied), len(pending)
    head = f"verifying {total:,} change{'' if total == 1 else 's'}"
    if elapsed_s is None:
        text = f"{head}: reading them back"
    elif not left:
        text = f"{head}: all converged in {elapsed_s:.1f}s"
    else:
        kinds = Counter(str(op.change.kind) for op in pending)
        waiting = ", ".join(f"{kind} {n:,}" for kind, n in sorted(kinds.items()))
        text = f"{head}: {total - left:,} converged, waiting for {left:,} ({waiting}) after {elapsed_s:.0f}s"
    return ApplyEvent(EventKind.VERIFYING, total=total, done=total - left, message=text)

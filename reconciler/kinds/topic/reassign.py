"""The topic kind's phase runner for partition reassignments (replication-factor changes), with an optional throttle.

The runner submits every partition's target replica list in one AlterPartitionReassignments
request, then polls ListPartitionReassignments until none of them is moving or the apply deadline
passes, emitting progress events. With a throttle it first sets
``leader/follower.replication.throttled.rate`` on the brokers involved and the throttled-replica
lists on each topic, and removes them once the data has moved (it leaves them in place, and says so,
when partitions are still moving at the deadline). A removal the broker refuses is named in the report's
notes; an accepted one is read back until the brokers no longer show it, so a plan made right after the
apply does not find the throttle as an undeclared topic config.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reconciler.apply import dryrun, outcomes
from reconciler.apply.apply_report import ItemOutcome
from reconciler.apply.batch import ApplyContext, Result, send_batched
from reconciler.apply.decoded import Operation
from reconciler.apply.events import ApplyEvent, EventKind
from reconciler.base import errors, interrupt
from reconciler.kafka.port import ItemResultLike
from reconciler.kinds.topic.apply import Reassign
from reconciler.model import payloads, plans, state
from reconciler.model.kinds import Kind

POLL_S = 1.0
THROTTLE_SETTLE_S = 15.0
THROTTLE_POLL_S = 0.5
RATE_KEYS = ("leader.replication.throttled.rate", "follower.replication.throttled.rate")
REPLICA_KEYS = ("leader.replication.throttled.replicas", "follower.replication.throttled.replicas")

Targets = dict[tuple[str, int], tuple[int, ...]]
ConfigChanges = dict[tuple[str, str], list[payloads.ConfigOp]]  # (resource type, name) -> ops


def partition_key(topic: str, partition: int) -> str:
    """The adapter's result key of a partition: ``orders:3``."""
    return f"{topic}:{partition}"


def _throttle_ops(targets: Targets, live: state.ClusterState, *, rate: int) -> ConfigChanges:
    """Broker rates plus per-topic throttled replica lists (current replicas lead, new replicas follow)."""
    topics = live.topics or {}
    leaders: dict[str, list[str]] = {}
    followers: dict[str, list[str]] = {}
    brokers: set[int] = set()
    for (topic, p), target in sorted(targets.items()):
        current = topics[topic].assignment[p] if topic in topics and p < topics[topic].partitions else ()
        brokers |= set(current) | set(target)
        leaders.setdefault(topic, []).extend(f"{p}:{b}" for b in current)
        followers.setdefault(topic, []).extend(f"{p}:{b}" for b in target if b not in current)
    ops: ConfigChanges = {
        ("BROKER", str(b)): [payloads.ConfigOp.set(k, str(rate)) for k in RATE_KEYS] for b in sorted(brokers)
    }
    for topic in sorted(leaders):
        ops[("TOPIC", topic)] = [
            payloads.ConfigOp.set(REPLICA_KEYS[0], ",".join(leaders[topic]) or "*"),
            payloads.ConfigOp.set(REPLICA_KEYS[1], ",".join(followers[topic]) or "*"),
        ]
    return ops


def _removal(ops: ConfigChanges) -> ConfigChanges:
    return {res: [payloads.ConfigOp.delete(op.key) for op in lst] for res, lst in ops.items()}


def _moving(ctx: ApplyContext, wanted: Iterable[tuple[str, int]]) -> set[tuple[str, int]]:
    ongoing = ctx.adapter.list_partition_reassignments()
    return {(r.topic, r.partition) for r in ongoing} & set(wanted)


def run_reassign(ctx: ApplyContext, ops: Sequence[Operation], *, live: state.ClusterState) -> list[ItemOutcome]:
    out: list[ItemOutcome] = []
    per_change = {op.name: (op.change, op.want(Reassign).targets) for op in ops}
    if ctx.dry_run:
        return _dry_run(ops, live=live)
    targets: Targets = {(t, p): r for t, (_, tgt) in per_change.items() for p, r in tgt.items()}
    if not targets:
        nothing = Result(ok=True, attempts=0)
        return out + [outcomes.from_result(c, nothing, dry_run=False) for c, _ in per_change.values()]
    throttle = _throttle_ops(targets, live, rate=ctx.throttle_rate) if ctx.throttle_rate else {}
    if throttle:
        ctx.adapter.incremental_alter_configs(throttle, validate_only=False)
    answers = send_batched(
        ctx,
        phase=plans.Phase.REASSIGN,
        keys=[partition_key(t, p) for t, p in targets],
        call=lambda keys: ctx.adapter.alter_partition_reassignments(
            {(t, p): r for (t, p), r in targets.items() if partition_key(t, p) in set(keys)}
        ),
    )
    submitted = {(t, p) for t, p in targets if answers[partition_key(t, p)].ok}
    moving = _wait(ctx, submitted)
    if throttle and not moving:
        answers_removal = ctx.adapter.incremental_alter_configs(_removal(throttle), validate_only=False)
        _confirm_throttle_removed(ctx, answers_removal, topics={t for t, _ in targets})
    elif throttle:
        ctx.notes.append("replication throttle left in place: partitions are still moving; re-run apply to finish")
    ctx.still_moving.extend(partition_key(t, p) for t, p in sorted(moving))
    for name, (c, tgt) in per_change.items():
        failed = [answers[partition_key(name, p)] for p in tgt if not answers[partition_key(name, p)].ok]
        out.append(_outcome(c, partitions=len(tgt), failed=failed, still=sorted(p for (t, p) in moving if t == name)))
    return out


def _dry_run(ops: Sequence[Operation], *, live: state.ClusterState) -> list[ItemOutcome]:
    """A dry run's outcomes: each target assignment checked against the live brokers and partitions."""
    out: list[ItemOutcome] = []
    broker_ids = {b.id for b in live.brokers}
    topics = live.topics or {}
    for op in ops:
        name, c, wanted = op.name, op.change, op.want(Reassign).targets
        planned = op.want(Reassign).partitions
        # Partitions added earlier in the same plan do not exist yet in a dry run.
        partitions = topics[name].partitions if name in topics and planned <= topics[name].partitions else None
        problem = dryrun.check_reassignment(topic=name, targets=wanted, brokers=broker_ids, partitions=partitions)
        out.append(outcomes.client_check(c, problem))
    return out


def _outcome(c: plans.Change, *, partitions: int, failed: list[Result], still: list[int]) -> ItemOutcome:
    """A topic's outcome: refused when any partition was, failed when some still move at the deadline, else done."""
    if failed:
        first = failed[0]
        msg = f"{len(failed)} of {partitions} partition(s) refused: {first.message or first.error_name}"
        result = Result(
            ok=False, error_code=first.error_code, error_name=first.error_name, message=msg, attempts=first.attempts
        )
        return outcomes.from_result(c, result, dry_run=False)
    if still:
        return outcomes.failed(
            c,
            error_name="REASSIGNMENT_IN_PROGRESS",
            message=f"partitions {still} were still moving at the apply deadline",
        )
    return outcomes.from_result(c, Result(ok=True, attempts=1), dry_run=False)


def _confirm_throttle_removed(ctx: ApplyContext, answers: Sequence[ItemResultLike], *, topics: set[str]) -> None:
    """Note a refused throttle removal; otherwise re-read the topics until no throttled-replica list shows."""
    refused = [a for a in answers if a.error_code]
    if refused:
        first = refused[0]
        ctx.notes.append(
            f"replication throttle not removed from {', '.join(a.key for a in refused)}: "
            f"{first.error_name}: {first.message or 'no message'}; the next plan shows it, re-run apply to remove it"
        )
        return

    def still_shown() -> list[str]:
        now = ctx.adapter.read_state(kinds=frozenset({Kind.TOPIC}), scope=state.ReadScope(topics=frozenset(topics)))
        return sorted(n for n, t in (now.topics or {}).items() if set(REPLICA_KEYS) & set(t.configs))

    try:
        left = ctx.settle(still_shown, settle_s=THROTTLE_SETTLE_S, poll_s=THROTTLE_POLL_S)
    except errors.ReconcilerError as exc:
        ctx.notes.append(f"could not read back the replication throttle's removal: {exc}")
        return
    if left:
        ctx.notes.append(
            f"the brokers still showed the replication throttle on {', '.join(left)} "
            f"{THROTTLE_SETTLE_S:g} s after its removal was accepted; the next plan may show it"
        )


def _wait(ctx: ApplyContext, submitted: set[tuple[str, int]]) -> set[tuple[str, int]]:
    """Poll until nothing submitted is moving or the deadline passes; the partitions still moving."""
    if not submitted:
        return set()
    moving = _moving(ctx, submitted)
    while moving and ctx.deadline.remaining() > POLL_S and not interrupt.requested():  # Ctrl-C: stop waiting
        ctx.emit(
            ApplyEvent(
                EventKind.WAITING,
                phase=plans.Phase.REASSIGN,
                total=len(submitted),
                done=len(submitted) - len(moving),
                message=f"{len(moving)} of {len(submitted)} partition(s) still moving",
            )
        )
        ctx.pacer.sleep(POLL_S)
        moving = _moving(ctx, submitted)
    return moving

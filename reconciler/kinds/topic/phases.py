"""The topic kind's phase runners: delete, create, add partitions (its config phase runs with apply's config runner,
``reconciler.apply.resource_phases.run_configs``; its reassignments with ``reconciler.kinds.topic.reassign``).

Each runner sends its phase as one batched call (the adapter splits it under the controller's limits), with
retries of transient failures, and returns one outcome per change. Deletion is asynchronous in
Kafka: after deleting, the runner waits until the names are gone so a re-create in the same apply
does not collide. A create or delete that timed out is checked over Metadata before it is resent.
A create refused with ``TOPIC_ALREADY_EXISTS`` for a name that was free when the plan was made lost a
race with another writer: the topic is read back, and if it is exactly what the plan declares the change
is reported ``unchanged`` (nothing left to do), otherwise failed with the differences.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from reconciler.apply import outcomes, verify
from reconciler.apply.apply_report import ItemOutcome, Outcome
from reconciler.apply.batch import ApplyContext, send_batched
from reconciler.apply.decoded import AddPartitions, CreateTopic, Operation
from reconciler.base import errors
from reconciler.connection.settings import Secret
from reconciler.kafka import results
from reconciler.model import plans, state
from reconciler.model.kinds import Kind

PROBE_WAIT_S = 10.0


def _present(ctx: ApplyContext, names: list[str], *, timeout_s: float) -> set[str]:
    """Names that exist, waiting up to ``timeout_s`` for them to appear."""
    missing = ctx.adapter.wait_topics_present(names, timeout_s=max(0.0, timeout_s))
    return set(names) - set(missing or ())


def _absent(ctx: ApplyContext, names: list[str], *, timeout_s: float) -> set[str]:
    """Names that are gone, waiting up to ``timeout_s`` for them to disappear."""
    remaining = ctx.adapter.wait_topics_absent(names, timeout_s=max(0.0, timeout_s))
    return set(names) - set(remaining or ())


def run_delete(ctx: ApplyContext, ops: Sequence[Operation], *, live: state.ClusterState) -> list[ItemOutcome]:
    by_name = {op.name: op.change for op in ops}
    if ctx.dry_run:
        topics = live.topics or {}
        out = []
        for c in by_name.values():
            t = topics.get(c.name)
            problem = None
            if t is None:
                problem = f"topic {c.name} does not exist"
            elif t.internal:
                problem = f"topic {c.name} is internal"
            out.append(outcomes.client_check(c, problem))
        return out
    answers = send_batched(
        ctx,
        phase=plans.Phase.TOPIC_DELETE,
        keys=list(by_name),
        call=lambda names: ctx.adapter.delete_topics(names),
        probe_done=lambda names: _absent(ctx, names, timeout_s=min(PROBE_WAIT_S, ctx.deadline.remaining())),
        already_done_after_timeout=frozenset({"UNKNOWN_TOPIC_OR_PARTITION"}),
    )
    deleted = [n for n, r in answers.items() if r.ok]
    gone = _absent(ctx, deleted, timeout_s=ctx.deadline.remaining()) if deleted else set()
    out = []
    for name, change in by_name.items():
        r = answers[name]
        item = outcomes.from_result(change, r, dry_run=False)
        if r.ok and name not in gone:
            ctx.notes.append(f"topic {name}: deletion accepted but the name was still present at the deadline")
            item = outcomes.failed(
                change,
                error_name="DELETION_IN_PROGRESS",
                message="the broker accepted the deletion but the topic was still present at the apply deadline",
            )
        out.append(item)
    return out


def _spec(ctx: ApplyContext, op: Operation) -> results.TopicSpec:
    """The CreateTopics entry of ``op``, with each redacted config value read from the manifests."""
    create = op.want(CreateTopic)
    configs = {k: ctx.config_value(op.address, k, v) for k, v in create.configs.items()}
    shown = {k: v.reveal() if isinstance(v, Secret) else v for k, v in configs.items()}
    if create.assignment:
        return results.TopicSpec(name=op.name, assignment=create.assignment, configs=shown)
    return results.TopicSpec(
        name=op.name, partitions=create.partitions, replication_factor=create.replication_factor, configs=shown
    )


def run_create(ctx: ApplyContext, ops: Sequence[Operation], *, live: state.ClusterState) -> list[ItemOutcome]:
    out: list[ItemOutcome] = []
    specs = {op.name: _spec(ctx, op) for op in ops}
    by_name = {op.name: op.change for op in ops}
    declared = {op.name: sorted(op.want(CreateTopic).configs) for op in ops}
    existing = set(live.topics or {})
    answers = send_batched(
        ctx,
        phase=plans.Phase.TOPIC_CREATE,
        keys=list(specs),
        call=lambda names: ctx.adapter.create_topics([specs[n] for n in names], validate_only=ctx.dry_run),
        probe_done=None
        if ctx.dry_run
        else (lambda names: _present(ctx, names, timeout_s=min(PROBE_WAIT_S, ctx.deadline.remaining()))),
        already_done_after_timeout=frozenset({"TOPIC_ALREADY_EXISTS"}),
    )
    for name, change in by_name.items():
        r = answers[name]
        details: dict[str, Any] = {}
        if ctx.dry_run:
            for key in ("partitions", "replication_factor"):
                if key in r.extra:
                    details[key] = r.extra[key]
            resolved = r.extra.get("configs")
            if resolved:
                details["resolved_configs"] = dict(resolved)
                details["declared_configs"] = declared[name]
            if not r.ok and r.error_name == "TOPIC_ALREADY_EXISTS" and name in existing:
                # Re-create after a delete in the same plan: the name is only free once the delete has run.
                note = "not validated by the broker: the name stays taken until this plan's delete runs"
                out.append(dataclasses.replace(outcomes.client_check(change, None), message=note))
                continue
        out.append(outcomes.from_result(change, r, dry_run=ctx.dry_run, details=details))
    raced = [
        op
        for op in ops
        if not ctx.dry_run
        and not answers[op.name].ok
        and answers[op.name].error_name == "TOPIC_ALREADY_EXISTS"
        and op.name not in existing
    ]
    if raced:
        out = _judge_raced_creates(ctx, out, raced)
    # No wait for the new topics' leaders here: no later phase of this apply needs them, and the read-back
    # at the end re-reads until they show (see readback).
    return out


def _judge_raced_creates(ctx: ApplyContext, out: list[ItemOutcome], raced: list[Operation]) -> list[ItemOutcome]:
    """Outcomes for creates another writer beat: ``unchanged`` where the topic is exactly as planned."""
    names = {op.name for op in raced}
    addresses = {op.address for op in raced}
    try:
        # The broker said they exist, but (ZooKeeper mode) the winner's topics can take a moment to be listed.
        _present(ctx, sorted(names), timeout_s=PROBE_WAIT_S)
        now = ctx.adapter.read_state(kinds=frozenset({Kind.TOPIC}), scope=state.ReadScope(topics=frozenset(names)))
    except errors.ReconcilerError as exc:
        ctx.notes.append(f"could not read back {len(names)} topic(s) another writer created: {exc}")
        return out
    differs = {m.address: m.detail for m in verify.not_converged(raced, now)}
    for op in raced:
        topic = (now.topics or {}).get(op.name)
        declared = set(op.want(CreateTopic).configs)
        extra = sorted(set(topic.configs) - declared) if topic is not None else []
        if extra and op.address not in differs:
            differs[op.address] = f"also sets {', '.join(extra)}"
    judged = []
    for item in out:
        if item.address not in addresses:
            judged.append(item)
        elif item.address in differs:
            note = f"another writer created it after the plan was made, and it differs: {differs[item.address]}"
            judged.append(dataclasses.replace(item, message=f"{item.message}; {note}; run plan again"))
        else:
            note = "another writer created it after the plan was made, exactly as planned; nothing left to do"
            judged.append(
                dataclasses.replace(item, outcome=Outcome.UNCHANGED, error_code=None, error_name=None, message=note)
            )
    return judged


def run_partitions(ctx: ApplyContext, ops: Sequence[Operation], *, live: state.ClusterState) -> list[ItemOutcome]:
    adds = {op.name: op.want(AddPartitions) for op in ops}
    now = {name: t.partitions for name, t in (live.topics or {}).items()}
    placed = {n: [list(r) for r in a.assignment] for n, a in adds.items() if a.assignment}
    answers = send_batched(
        ctx,
        phase=plans.Phase.PARTITIONS,
        keys=list(adds),
        call=lambda names: ctx.adapter.create_partitions(
            {n: adds[n].total for n in names},
            assignments={n: placed[n] for n in names if n in placed} or None,
            current={n: now[n] for n in names if n in now},
            validate_only=ctx.dry_run,
        ),
    )
    return [outcomes.from_result(op.change, answers[op.name], dry_run=ctx.dry_run) for op in ops]

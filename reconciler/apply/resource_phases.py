"""The config phase runner every config kind's declaration names (topics, broker configs, group configs,
client-metrics subscriptions): their ``AlterConfigs`` writes in one batched IncrementalAlterConfigs request, with
retries of transient failures, sent with validateOnly in a dry run. The other Kafka kinds' runners are in their own
places (``reconciler.kinds.<kind>``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from reconciler.apply import outcomes
from reconciler.apply.apply_report import ItemOutcome
from reconciler.apply.batch import ApplyContext, send_batched
from reconciler.apply.decoded import AlterConfigs, Operation
from reconciler.model import payloads, state


def config_ops(ctx: ApplyContext, op: Operation) -> list[payloads.ConfigOp]:
    """The IncrementalAlterConfigs entries of ``op``: exactly its typed config operations, a redacted value replaced
    by the one read from the manifests."""
    return [
        dataclasses.replace(c, value=ctx.config_value(op.address, c.key, c.value)) if isinstance(c.value, str) else c
        for c in op.want(AlterConfigs).ops
    ]


def run_configs(ctx: ApplyContext, ops: Sequence[Operation], *, live: state.ClusterState) -> list[ItemOutcome]:
    """A config phase (TOPIC_CONFIG, BROKER_CONFIG, ...): one IncrementalAlterConfigs request for all resources."""
    items = {(op.want(AlterConfigs).resource_type, op.name): (op, config_ops(ctx, op)) for op in ops}
    answers = send_batched(
        ctx,
        phase=ops[0].change.phase,
        keys=list(items),
        call=lambda keys: ctx.adapter.incremental_alter_configs(
            {k: items[k][1] for k in keys}, validate_only=ctx.dry_run
        ),
        key_of=lambda r: r.target,  # the (resource type, name) the adapter answers for, typed
    )
    return [outcomes.from_result(op.change, answers[k], dry_run=ctx.dry_run) for k, (op, _) in items.items()]

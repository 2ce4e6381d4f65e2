"""The client quota kind's apply parts: the decoder of a quota entity's change, the runner of the QUOTA phase (one
batched AlterClientQuotas, sent with validateOnly in a dry run) and the check of an applied quota against the quotas
read back. ``WriteQuota`` is shared in ``reconciler.apply.decoded``: the targeted read names its entities."""

from __future__ import annotations

from collections.abc import Sequence

from reconciler.apply import bounds, decoded, outcomes
from reconciler.apply.apply_report import ItemOutcome
from reconciler.apply.batch import ApplyContext, send_batched
from reconciler.apply.decoded import CannotDecode, Operation, WriteQuota
from reconciler.model import payloads, plans, state


def write_quota(c: plans.Change) -> WriteQuota:
    had = decoded.payload_of(c, c.before, payloads.QuotaPayload)
    wants = None if c.action is plans.Action.DELETE else decoded.payload_of(c, c.after, payloads.QuotaPayload)
    entities = {p.entity for p in (had, wants) if p is not None}
    if len(entities) != 1:
        raise CannotDecode(
            f"{c.address}: the plan names {'no' if not entities else 'two'} quota entit{'y' if not entities else 'ies'}"
        )
    entity = entities.pop()
    if entity.address != c.address:
        raise CannotDecode(f"{c.address}: the change's quota entity is {entity.address}, not the change's address")
    before = {} if had is None else dict(had.values)
    after = {} if wants is None else dict(wants.values)
    values: dict[str, float | None] = {k: float(v) for k, v in after.items()}
    values.update({k: None for k in before if k not in after})
    bounds.quota(entity, values)
    return WriteQuota(entity, values)


def run_quotas(ctx: ApplyContext, ops: Sequence[Operation], *, live: state.ClusterState) -> list[ItemOutcome]:
    items = {op.want(WriteQuota).entity.address: (op, op.want(WriteQuota)) for op in ops}
    answers = send_batched(
        ctx,
        phase=plans.Phase.QUOTA,
        keys=list(items),
        call=lambda keys: ctx.adapter.alter_client_quotas(
            {items[k][1].entity: items[k][1].values for k in keys}, validate_only=ctx.dry_run
        ),
    )
    return [outcomes.from_result(op.change, answers[k], dry_run=ctx.dry_run) for k, (op, _) in items.items()]


def quota_applied(op: Operation, live: state.ClusterState) -> list[str]:
    wanted = op.want(WriteQuota)
    have = dict((live.quotas or {}).get(wanted.entity, {}))
    want = {k: v for k, v in wanted.values.items() if v is not None}
    return [] if have == want else [f"values are {have}, wanted {want}"]

"""Phase runners for configs, ACLs, client quotas and SCRAM credentials.

Each runner sends its phase as one batched request with retries of transient failures. Requests
with a validateOnly flag (IncrementalAlterConfigs, AlterClientQuotas) are sent with it in a dry run;
ACLs and SCRAM credentials are checked client-side instead (see ``reconciler.apply.dryrun``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from typing import Any

from reconciler.apply import dryrun, outcomes
from reconciler.apply.apply_report import ItemOutcome
from reconciler.apply.batch import ApplyContext, send_batched
from reconciler.apply.decoded import AlterConfigs, Operation, WriteAcl, WriteQuota, WriteScram
from reconciler.kafka import results
from reconciler.kafka.port import ItemResultLike
from reconciler.model import payloads, plans, state


def config_ops(ctx: ApplyContext, op: Operation) -> list[payloads.ConfigOp]:
    """The IncrementalAlterConfigs entries of ``op``: exactly its typed config operations, a redacted value replaced
    by the one read from the manifests."""
    return [
        dataclasses.replace(c, value=ctx.config_value(op.address, c.key, c.value)) if isinstance(c.value, str) else c
        for c in op.want(AlterConfigs).ops
    ]


def run_configs(ctx: ApplyContext, ops: Sequence[Operation], *, live: state.ClusterState) -> list[ItemOutcome]:
    """TOPIC_CONFIG and BROKER_CONFIG: one IncrementalAlterConfigs request for all resources."""
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


def run_acls(ctx: ApplyContext, ops: Sequence[Operation], *, live: state.ClusterState) -> list[ItemOutcome]:
    """ACL_DELETE (exact-match filters) or ACL_CREATE, one request each."""
    items: dict[Hashable, tuple[Operation, state.AclBinding]] = {
        op.want(WriteAcl).binding.address: (op, op.want(WriteAcl).binding) for op in ops
    }
    if ctx.dry_run:
        out = []
        seen: set[state.AclBinding] = set()
        for op, binding in items.values():
            problem = dryrun.check_acl(binding, seen=seen)
            if (
                problem is None
                and op.change.action is plans.Action.DELETE
                and live.acls is not None
                and binding not in live.acls
            ):
                problem = "the binding does not exist"
            out.append(outcomes.client_check(op.change, problem))
        return out
    deleting = ops[0].change.phase is plans.Phase.ACL_DELETE
    answers = send_batched(
        ctx,
        phase=ops[0].change.phase,
        keys=list(items),
        call=lambda keys: (ctx.adapter.delete_acls if deleting else ctx.adapter.create_acls)(
            [items[k][1] for k in keys]
        ),
    )
    return [outcomes.from_result(op.change, answers[k], dry_run=False) for k, (op, _) in items.items()]


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


def _one_per_user(raw: Sequence[ItemResultLike]) -> list[ItemResultLike]:
    """An upsert and a deletion for the same user answer separately; keep the first failure, else one success."""
    chosen: dict[Any, ItemResultLike] = {}
    for r in raw:
        if r.key not in chosen or (chosen[r.key].ok and not r.ok):
            chosen[r.key] = r
    return list(chosen.values())


def run_scram(ctx: ApplyContext, ops: Sequence[Operation], *, live: state.ClusterState) -> list[ItemOutcome]:
    """Upserts and deletions of SCRAM credentials in one AlterUserScramCredentials request."""
    items = {op.name: (op, op.want(WriteScram)) for op in ops}
    if ctx.dry_run:
        out = []
        for op, wanted in items.values():
            problems = [
                dryrun.check_scram(
                    user=wanted.user,
                    mechanism=mechanism,
                    iterations=iterations,
                    password=wanted.password,
                    upsert=True,
                    environ=ctx.environ,
                )
                for mechanism, iterations in sorted(wanted.upserts.items())
            ]
            problems += [
                dryrun.check_scram(
                    user=wanted.user, mechanism=m, iterations=0, password=None, upsert=False, environ=ctx.environ
                )
                for m in wanted.deletions
            ]
            out.append(outcomes.client_check(op.change, "; ".join(p for p in problems if p) or None))
        return out

    def call(keys: list[str]) -> Sequence[ItemResultLike]:
        upserts = []
        deletions = []
        for k in keys:
            wanted = items[k][1]
            deletions += [results.ScramDeletion(user=wanted.user, mechanism=m) for m in wanted.deletions]
            upserts += [
                results.ScramUpsert(user=wanted.user, mechanism=m, iterations=n, password=ctx.secrets[wanted.user])
                for m, n in sorted(wanted.upserts.items())
            ]
        return _one_per_user(ctx.adapter.alter_scram_credentials(upserts=upserts, deletions=deletions))

    answers = send_batched(ctx, phase=plans.Phase.SCRAM, keys=list(items), call=call)
    return [outcomes.from_result(op.change, answers[k], dry_run=False) for k, (op, _) in items.items()]

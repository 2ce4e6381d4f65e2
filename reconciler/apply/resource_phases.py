"""Phase runners for configs, ACLs, client quotas and SCRAM credentials.

Each runner sends its phase as one batched request with retries of transient failures. Requests
with a validateOnly flag (IncrementalAlterConfigs, AlterClientQuotas) are sent with it in a dry run;
ACLs and SCRAM credentials are checked client-side instead (see ``reconciler.apply.dryrun``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from reconciler.apply import dryrun, outcomes, translate
from reconciler.apply.apply_report import ItemOutcome
from reconciler.apply.batch import ApplyContext, send_batched
from reconciler.apply.ports import ItemResultLike
from reconciler.kafka import results
from reconciler.model import plans, state


def _translate_each(
    changes: Sequence[plans.Change],
    ctx: ApplyContext,
    build: Callable[[plans.Change], Any],
    key: Callable[[plans.Change], Hashable],
) -> tuple[dict[Hashable, tuple[plans.Change, Any]], list[ItemOutcome]]:
    ok: dict[Hashable, tuple[plans.Change, Any]] = {}
    bad: list[ItemOutcome] = []
    for c in changes:
        try:
            ok[key(c)] = (c, build(c))
        except (translate.CannotTranslate, KeyError, ValueError, TypeError) as exc:
            bad.append(outcomes.failed(c, error_name="INVALID_PLAN", message=str(exc), dry_run=ctx.dry_run))
    return ok, bad


def run_configs(ctx: ApplyContext, changes: Sequence[plans.Change], *, live: state.ClusterState) -> list[ItemOutcome]:
    """TOPIC_CONFIG and BROKER_CONFIG: one IncrementalAlterConfigs request for all resources."""

    def key(c: plans.Change) -> Hashable:
        if c.phase is plans.Phase.BROKER_CONFIG:
            return translate.config_resource("BROKER", translate.broker_resource(c))
        return translate.config_resource("TOPIC", c.name)

    items, out = _translate_each(changes, ctx, lambda c: translate.config_ops(c, ctx.reveal), key)
    if not items:
        return out
    answers = send_batched(
        ctx,
        phase=changes[0].phase,
        keys=list(items),
        call=lambda keys: ctx.adapter.incremental_alter_configs(
            {translate.config_target(str(k)): items[k][1] for k in keys}, validate_only=ctx.dry_run
        ),
    )
    out += [outcomes.from_result(c, answers[k], dry_run=ctx.dry_run) for k, (c, _) in items.items()]
    return out


def run_acls(ctx: ApplyContext, changes: Sequence[plans.Change], *, live: state.ClusterState) -> list[ItemOutcome]:
    """ACL_DELETE (exact-match filters) or ACL_CREATE, one request each."""
    items, out = _translate_each(changes, ctx, translate.acl_binding, lambda c: translate.acl_binding(c).address)
    if ctx.dry_run:
        seen: set[state.AclBinding] = set()
        for c, binding in items.values():
            problem = dryrun.check_acl(binding, seen=seen)
            if (
                problem is None
                and c.action is plans.Action.DELETE
                and live.acls is not None
                and binding not in live.acls
            ):
                problem = "the binding does not exist"
            out.append(outcomes.client_check(c, problem))
        return out
    if not items:
        return out
    bindings = {k: b for k, (_, b) in items.items()}
    deleting = changes[0].phase is plans.Phase.ACL_DELETE
    answers = send_batched(
        ctx,
        phase=changes[0].phase,
        keys=list(items),
        call=lambda keys: (ctx.adapter.delete_acls if deleting else ctx.adapter.create_acls)(
            [bindings[k] for k in keys]
        ),
    )
    out += [outcomes.from_result(c, answers[k], dry_run=False) for k, (c, _) in items.items()]
    return out


def run_quotas(ctx: ApplyContext, changes: Sequence[plans.Change], *, live: state.ClusterState) -> list[ItemOutcome]:
    items, out = _translate_each(
        changes,
        ctx,
        lambda c: (translate.quota_entity(c), translate.quota_values(c)),
        lambda c: translate.quota_entity(c).address,
    )
    if not items:
        return out
    answers = send_batched(
        ctx,
        phase=plans.Phase.QUOTA,
        keys=list(items),
        call=lambda keys: ctx.adapter.alter_client_quotas(dict(items[k][1] for k in keys), validate_only=ctx.dry_run),
    )
    out += [outcomes.from_result(c, answers[k], dry_run=ctx.dry_run) for k, (c, _) in items.items()]
    return out


def _one_per_user(raw: Sequence[ItemResultLike]) -> list[ItemResultLike]:
    """An upsert and a deletion for the same user answer separately; keep the first failure, else one success."""
    chosen: dict[Any, ItemResultLike] = {}
    for r in raw:
        if r.key not in chosen or (chosen[r.key].ok and not r.ok):
            chosen[r.key] = r
    return list(chosen.values())


def run_scram(ctx: ApplyContext, changes: Sequence[plans.Change], *, live: state.ClusterState) -> list[ItemOutcome]:
    """Upserts and deletions of SCRAM credentials in one AlterUserScramCredentials request."""
    items, out = _translate_each(changes, ctx, translate.scram_change, lambda c: c.name)
    if ctx.dry_run:
        for c, wanted in items.values():
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
            out.append(outcomes.client_check(c, "; ".join(p for p in problems if p) or None))
        return out
    if not items:
        return out

    def call(keys: list[Hashable]) -> Sequence[ItemResultLike]:
        upserts = []
        deletions = []
        for k in keys:
            wanted: translate.ScramChange = items[k][1]
            deletions += [results.ScramDeletion(user=wanted.user, mechanism=m) for m in wanted.deletions]
            upserts += [
                results.ScramUpsert(user=wanted.user, mechanism=m, iterations=n, password=ctx.secrets[wanted.user])
                for m, n in sorted(wanted.upserts.items())
            ]
        return _one_per_user(ctx.adapter.alter_scram_credentials(upserts=upserts, deletions=deletions))

    answers = send_batched(ctx, phase=plans.Phase.SCRAM, keys=list(items), call=call)
    out += [outcomes.from_result(c, answers[k], dry_run=False) for k, (c, _) in items.items()]
    return out

"""The SCRAM user kind's apply parts: the decoder of a user's credential change, the runner of the SCRAM phase (one
batched AlterUserScramCredentials of upserts and deletions; checked client-side in a dry run, the request having no
validateOnly flag: ``reconciler.apply.dryrun``) and the check of an applied change against the credentials read
back. ``WriteScram`` is shared in ``reconciler.apply.decoded``: apply resolves its password before the first write
(``reconciler.apply.secrets_at_write``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reconciler.apply import bounds, decoded, dryrun, outcomes
from reconciler.apply.apply_report import ItemOutcome
from reconciler.apply.batch import ApplyContext, send_batched
from reconciler.apply.decoded import CannotDecode, Operation, WriteScram
from reconciler.kafka import results
from reconciler.kafka.port import ItemResultLike
from reconciler.model import payloads, plans, state


def write_scram(c: plans.Change) -> WriteScram:
    had = decoded.payload_of(c, c.before, payloads.ScramPayload)
    wants = decoded.payload_of(c, c.after, payloads.ScramPayload)
    before = {} if had is None else dict(had.credentials)
    after = {} if wants is None or c.action is plans.Action.DELETE else dict(wants.credentials)
    if c.action is not plans.Action.DELETE and not after:
        raise CannotDecode(f"{c.address}: the plan names no credential to set")
    deletions = tuple(sorted(m for m in before if m not in after))
    bounds.scram(c.name, after, deletions)
    return WriteScram(
        user=c.name, upserts=after, deletions=deletions, password=None if wants is None else wants.password
    )


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


def scram_applied(op: Operation, live: state.ClusterState) -> list[str]:
    wanted = op.want(WriteScram)
    creds = {cr.mechanism: cr.iterations for cr in (live.scram_users or {}).get(wanted.user, ())}
    problems = [f"the {m} credential still exists" for m in wanted.deletions if m in creds]
    for mechanism, iterations in sorted(wanted.upserts.items()):
        if mechanism not in creds:
            problems.append(f"no {mechanism} credential")
        elif creds[mechanism] != iterations:
            problems.append(f"{mechanism} has {creds[mechanism]} iterations, wanted {iterations}")
    return problems

"""The ACL kind's apply parts: the decoder of a binding change, the runner of its two phases (ACL_DELETE, then
ACL_CREATE after every other Kafka write) and the check of an applied binding against the ACLs read back.

Each phase is one batched request with retries of transient failures. The ACL requests have no validateOnly flag:
a dry run checks each binding client-side instead (``reconciler.apply.dryrun``). ``WriteAcl`` is shared in
``reconciler.apply.decoded``: the self-lockout check, the targeted read and the authorizers' read-back look inside it.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from reconciler.apply import bounds, decoded, dryrun, outcomes
from reconciler.apply.apply_report import ItemOutcome
from reconciler.apply.batch import ApplyContext, send_batched
from reconciler.apply.decoded import CannotDecode, Operation, WriteAcl
from reconciler.model import payloads, plans, state


def write_acl(c: plans.Change) -> WriteAcl:
    found = decoded.payload_of(c, c.before if c.action is plans.Action.DELETE else c.after, payloads.AclPayload)
    if found is None:
        raise CannotDecode(f"{c.address}: the plan does not describe the binding")
    if found.binding.address != c.address:
        raise CannotDecode(f"{c.address}: the change's binding is {found.binding.address}, not the change's address")
    bounds.acl(found.binding)
    return WriteAcl(found.binding)


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


def acl_applied(op: Operation, live: state.ClusterState) -> list[str]:
    present = live.acls is not None and op.want(WriteAcl).binding in live.acls
    if op.change.action is plans.Action.DELETE:
        return ["the binding still exists"] if present else []
    return [] if present else ["the binding does not exist"]

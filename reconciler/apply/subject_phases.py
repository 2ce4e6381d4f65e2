"""The Schema Registry subject phases of apply: levels, modes and new versions (``SCHEMA_SUBJECT``, before the
topics and connectors that use them) and deletes (``SCHEMA_SUBJECT_DELETE``, after the topics they served), each
carried out by the kind's apply (``reconciler.kinds.schema_subject.apply``: referenced subjects first, each write
read back, a lost answer resolved by reading) through the registry the command opened (``ApplyContext.port``).

Before the writes, the subjects the plan changes are read (``read_to_apply``): the live view the staleness check
compares with the plan's fingerprints, and the state the kind's apply orders its steps by."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

from reconciler.apply import decoded, outcomes, subject_ops
from reconciler.apply.apply_report import ItemOutcome
from reconciler.apply.batch import ApplyContext, Result
from reconciler.base import errors
from reconciler.kinds.schema_subject import apply as subject_apply
from reconciler.kinds.schema_subject import views
from reconciler.model import state
from reconciler.model.kinds import Kind
from reconciler.planner import scope
from reconciler.registry.port import RegistryPort

DEFAULT_DEADLINE_S = 300.0  # as engine.DEFAULT_DEADLINE_S: the bound of the read before the writes
NO_REGISTRY = (
    "the plan changes Schema Registry subjects, but no registry is configured (schemaRegistry: in the Cluster "
    "profile, or SCHEMA_REGISTRY_URL); nothing was written"
)


def read_to_apply(
    live: state.ClusterState,
    ops: decoded.Operations,
    *,
    port: RegistryPort | None,
    wanted: object = None,
    deadline_s: float | None,
    covered: scope.Scope | None = None,
) -> state.ClusterState:
    """``live`` with the subjects the plan changes read from the registry (nothing when it changes none), and, for
    the scope check (``covered``: the plan's scope, when it covers subjects), every subject in the plan's scope: the
    declared ones and the listed ones its rules own, as the plan read them (the kind's ``read_to_apply``)."""
    mine = ops.of(Kind.SCHEMA_SUBJECT)
    scoped = covered is not None and Kind.SCHEMA_SUBJECT in covered.kinds
    if not mine and not (scoped and port is not None):
        return live
    if port is None:
        raise errors.ConfigError(NO_REGISTRY)
    names = {op.name for op in mine}
    if covered is not None and scoped:
        names |= covered.declared.get(Kind.SCHEMA_SUBJECT, frozenset())
        if covered.owns_undeclared(Kind.SCHEMA_SUBJECT):
            listed = views.listed(port, deadline=time.monotonic() + DEFAULT_DEADLINE_S)
            names |= {s for s in listed if covered.has(Kind.SCHEMA_SUBJECT, s)}
    modes = {op.name for op in mine if op.change.after is not None and getattr(op.change.after, "mode", None)}
    limit = DEFAULT_DEADLINE_S if deadline_s is None else deadline_s
    found = views.read(port, names, modes=modes, deadline=time.monotonic() + limit)
    return dataclasses.replace(live, schema_subjects=found)


def run(ctx: ApplyContext, ops: Sequence[decoded.Operation], *, live: state.ClusterState) -> list[ItemOutcome]:
    """One subject phase: the kind's ordered writes, each read back; one outcome per change."""
    if ctx.dry_run:  # the registry's own check ran at plan time: nothing more to ask without writing
        return [outcomes.client_check(op.change, None) for op in ops]
    registry: RegistryPort | None = ctx.port(Kind.SCHEMA_SUBJECT)
    if registry is None:
        raise errors.ConfigError(NO_REGISTRY)
    have = live.schema_subjects
    if have is None:
        raise errors.ConfigError("the subjects the plan changes were not read before writing; nothing was written")
    changes = [_write(op).change for op in ops]
    deadline = time.monotonic() + ctx.writes_left()
    done = subject_apply.apply(changes, have, registry=registry, deadline=deadline)
    steps: dict[str, list[subject_apply.Outcome]] = {}
    for o in done:
        steps.setdefault(o.subject, []).append(o)
    out = []
    for op in ops:
        mine = steps.get(op.name, [])
        bad = [o for o in mine if not o.ok]
        said = "; ".join(f"{o.what}: {o.detail}" for o in (bad or mine) if o.detail)
        if bad and not any(o.sent for o in bad):
            out.append(outcomes.not_sent(op.change, said))
        elif bad:
            out.append(outcomes.failed(op.change, error_name="REGISTRY_WRITE_FAILED", message=said))
        else:
            out.append(outcomes.from_result(op.change, Result(ok=True, message=said or None), dry_run=False))
    return out


def _write(op: decoded.Operation) -> subject_ops.WriteSubject:
    """The subject write of ``op`` (``decode`` made it one for each change of these phases)."""
    if not isinstance(op.request, subject_ops.WriteSubject):
        raise decoded.CannotDecode(op.problem or f"{op.address}: not a subject write")
    return op.request

"""The plan as apply reads it: each actionable change decoded once, before anything is read or written.

``decode(plan)`` refuses a plan that cannot be carried out as written (phases holding the wrong kind or
action, a change listed twice, error-level findings, change data that does not describe its resource),
naming every such change, and returns the ``Operations``: per change, what apply needs from it, typed.
The checks before writing (the targeted read's scope, the self-lockout guard, redacted values, SCRAM
secrets) read these operations; none of them goes back to a change's payload. The phase runners still
take the changes and translate each one as they send it (``reconciler.apply.translate``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from reconciler.apply import preflight, translate
from reconciler.model import payloads, plans, state
from reconciler.model.kinds import Kind


@dataclasses.dataclass(frozen=True, slots=True)
class Operation:
    """One actionable change and what apply reads from it: the ACL binding, the quota entity, the SCRAM
    credentials to set, and the config keys whose value the plan holds only redacted."""

    change: plans.Change
    binding: state.AclBinding | None = None
    entity: state.QuotaEntity | None = None
    scram: translate.ScramChange | None = None
    redacted: tuple[str, ...] = ()
    problem: str | None = None  # why the change cannot be carried out as written


@dataclasses.dataclass(frozen=True, slots=True)
class Operations:
    """The operations of a plan (or of part of one), in apply order."""

    items: tuple[Operation, ...]

    @property
    def changes(self) -> tuple[plans.Change, ...]:
        return tuple(op.change for op in self.items)

    def of(self, kind: Kind) -> tuple[Operation, ...]:
        return tuple(op for op in self.items if op.change.kind is kind)

    def names(self, kind: Kind) -> frozenset[str]:
        return frozenset(op.change.name for op in self.of(kind))

    def bindings(self, action: plans.Action) -> list[state.AclBinding]:
        """The ACL bindings the plan deletes (``DELETE``) or creates (``CREATE``)."""
        return [op.binding for op in self.of(Kind.ACL) if op.change.action is action and op.binding is not None]

    def read_scope(self, *, principals: Sequence[str | None] = ()) -> state.ReadScope:
        """What a targeted read of these operations asks for. ACL bindings are read per principal: those of
        the changed bindings plus ``principals`` (the tool's own and ``User:*``, which the self-lockout guard
        weighs). A kind holding a change whose resource cannot be named (a hand-edited plan) is read whole."""
        acls, quotas = self.of(Kind.ACL), self.of(Kind.QUOTA)
        acl_principals = None
        if all(op.binding is not None for op in acls):
            acl_principals = frozenset(op.binding.principal for op in acls if op.binding is not None)
            if acl_principals:
                acl_principals |= {p for p in principals if p}
        entities = None
        if all(op.entity is not None for op in quotas):
            entities = frozenset(op.entity for op in quotas if op.entity is not None)
        return state.ReadScope(
            topics=self.names(Kind.TOPIC),
            brokers=self.names(Kind.BROKER_CONFIG),
            principals=acl_principals,
            quota_entities=entities,
            scram_users=self.names(Kind.SCRAM_USER),
        )


def operation(c: plans.Change) -> Operation:
    """What apply reads from ``c``; ``problem`` says why it cannot be carried out as written, when it cannot."""
    unreadable = [p for p in (c.before, c.after) if isinstance(p, payloads.Unreadable)]
    if unreadable:
        return Operation(change=c, problem=f"{c.address}: {unreadable[0].problem}")
    found: dict[str, Any] = {}
    readers: list[tuple[str, Callable[[plans.Change], object]]] = [("redacted", _redacted)]
    if c.kind is Kind.ACL:
        readers.append(("binding", translate.acl_binding))
    elif c.kind is Kind.QUOTA:
        readers.append(("entity", translate.quota_entity))
    if c.phase is plans.Phase.SCRAM and c.action is not plans.Action.DELETE:
        readers.append(("scram", translate.scram_change))
    for field, read in readers:
        try:
            found[field] = read(c)
        except translate.CannotTranslate as exc:
            problem = str(exc)
        except KeyError as exc:
            problem = f"{c.address}: the change has no {exc} field"
        except (TypeError, ValueError, AttributeError):
            problem = f"{c.address}: the change's before/after data has the wrong shape"
        else:
            continue
        return dataclasses.replace(Operation(change=c, problem=problem), **found)
    return dataclasses.replace(Operation(change=c), **found)


def _redacted(c: plans.Change) -> tuple[str, ...]:
    return tuple(translate.redacted_keys(c))


def of_changes(changes: Iterable[plans.Change]) -> Operations:
    """The operations of ``changes``, in apply order, each with its ``problem`` if it has one."""
    return Operations(tuple(operation(c) for c in plans.sort_changes(changes)))


def decode(p: plans.Plan) -> Operations:
    """The plan's actionable changes as operations; ``preflight.ImpossiblePlan`` (nothing written) naming every
    change that cannot be carried out as written, ``preflight.PlanHasErrors`` for error-level findings."""
    preflight.check_shape(p)
    ops = of_changes(p.actionable)
    problems = [op.problem for op in ops.items if op.problem is not None]
    if problems:
        raise preflight.ImpossiblePlan(
            "the plan cannot be applied as written: " + preflight.name_list(problems) + "; nothing was written"
        )
    return ops

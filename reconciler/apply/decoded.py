"""The plan as apply reads it: each actionable change decoded once into a typed operation, before anything is read.

``decode(plan)`` refuses a plan that cannot be carried out as written (phases holding the wrong kind or action, a
change listed twice, error-level findings, change data that does not describe its resource), naming every such
change, and returns the ``Operations``: per change, the write it asks for, typed, built from the change's typed
payloads (``reconciler.model.payloads``) by the decoder its phase's declaration names (``PhaseSpec.decode``: each
kind's own, in its place under ``reconciler.kinds``, with the helpers below; the config entities' is shared here).
The write records apply's framework itself looks inside are kept here, shared by the kinds that write them:
``CreateTopic``, ``DeleteTopic``, ``AddPartitions`` (the read-back's scope and the topics every broker must list),
``AlterConfigs`` (every config kind's write, run by ``resource_phases.run_configs``), ``WriteAcl`` (the self-lockout
check, the targeted read), ``WriteQuota`` (the targeted read) and ``WriteScram`` (its password, resolved before the
first write). Everything after reads these operations: the checks before writing, the phase runners that turn them
into requests, and the read-back that verifies them. No later stage goes back to a change's payload, and none parses
the attribute names a plan shows. The operations are a value handed from stage to stage (load or prepare ->
``apply_plan``); nothing here keeps them between calls.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from reconciler.apply import bounds, preflight
from reconciler.apply.preflight import CannotDecode as CannotDecode  # raised by each decoder; its home is preflight
from reconciler.base import errors
from reconciler.kinds import registry
from reconciler.model import entities, payloads, plans, state
from reconciler.model.kinds import Kind


@dataclasses.dataclass(frozen=True, slots=True)
class CreateTopic:
    """A topic to create; ``configs`` values are Kafka strings, ``plan.REDACTED`` for one read from the manifests."""

    partitions: int | None
    replication_factor: int | None
    assignment: tuple[tuple[int, ...], ...] | None
    configs: Mapping[str, str]


@dataclasses.dataclass(frozen=True, slots=True)
class DeleteTopic:
    """The change's topic, to delete."""


@dataclasses.dataclass(frozen=True, slots=True)
class AddPartitions:
    """Grow the topic to ``total`` partitions from ``before``, the new ones on ``assignment`` when given."""

    total: int
    before: int | None
    assignment: tuple[tuple[int, ...], ...] | None


@dataclasses.dataclass(frozen=True, slots=True)
class AlterConfigs:
    """IncrementalAlterConfigs of one resource (``TOPIC`` or ``BROKER``, named by the change): exactly ``ops``."""

    resource_type: str
    ops: tuple[payloads.ConfigOp, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class WriteAcl:
    """One ACL binding to create or delete (the change's action says which)."""

    binding: state.AclBinding


@dataclasses.dataclass(frozen=True, slots=True)
class WriteQuota:
    """A quota entity's keys to set (float) and keys to remove (``None``)."""

    entity: state.QuotaEntity
    values: Mapping[str, float | None]


@dataclasses.dataclass(frozen=True, slots=True)
class WriteScram:
    """The credentials one SCRAM change sets (mechanism -> iterations) and removes, and the password reference."""

    user: str
    upserts: Mapping[str, int]
    deletions: tuple[str, ...]
    password: str | None


# The (kind, action) pairs each phase may hold, as each kind declares its phases.
PHASE_CONTENTS: dict[plans.Phase, tuple[Kind, frozenset[plans.Action]]] = {
    phase: (kind.kind, declared.actions) for phase, (kind, declared) in registry.PHASES.items()
}


class PlanHasErrors(errors.ReconcilerError):
    """The plan carries an error-level finding that blocks apply (a global one, or one about a resource it changes)."""


# A typed write: the record a kind's decoder returns (``PhaseSpec.decode``). Apply's framework holds it as a value;
# the records above are those it also looks inside (a kind's own, as a reassignment's, lives in the kind's place).
AnyRequest = object
R = TypeVar("R")  # the record a phase runner or check expects (``Operation.want``)


@dataclasses.dataclass(frozen=True, slots=True)
class Operation:
    """One actionable change and the typed write it asks for (``None``, with ``problem``, when it cannot be
    carried out as written)."""

    change: plans.Change
    request: AnyRequest | None = None
    problem: str | None = None

    @property
    def address(self) -> str:
        return self.change.address

    @property
    def name(self) -> str:
        return self.change.name

    def want(self, of: type[R]) -> R:
        """The request as ``of`` (the phase runners' view); ``decode`` guarantees each phase's type."""
        if not isinstance(self.request, of):
            raise CannotDecode(self.problem or f"{self.address}: not a {of.__name__} operation")
        return self.request

    @property
    def binding(self) -> state.AclBinding | None:
        return self.request.binding if isinstance(self.request, WriteAcl) else None

    @property
    def entity(self) -> state.QuotaEntity | None:
        return self.request.entity if isinstance(self.request, WriteQuota) else None

    @property
    def scram(self) -> WriteScram | None:
        return self.request if isinstance(self.request, WriteScram) else None

    @property
    def redacted(self) -> tuple[str, ...]:
        """Config keys whose value the plan holds only as ``plan.REDACTED`` (apply reads them from the manifests)."""
        if isinstance(self.request, CreateTopic):
            return tuple(sorted(k for k, v in self.request.configs.items() if v == plans.REDACTED))
        if isinstance(self.request, AlterConfigs):
            return tuple(sorted(op.key for op in self.request.ops if op.value == plans.REDACTED))
        return ()


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
        quota_entities = None
        if all(op.entity is not None for op in quotas):
            quota_entities = frozenset(op.entity for op in quotas if op.entity is not None)
        return state.ReadScope(
            topics=self.names(Kind.TOPIC),
            brokers=self.names(Kind.BROKER_CONFIG),
            principals=acl_principals,
            quota_entities=quota_entities,
            scram_users=self.names(Kind.SCRAM_USER),
            group_configs=self.names(Kind.GROUP_CONFIG),
            client_metrics=self.names(Kind.CLIENT_METRICS),
        )

    def verify_scope(self) -> state.ReadScope:
        """The read-back's targeted read: ``read_scope``, asking each topic only for the config keys the topic
        operations wrote (none when they wrote none: partitions, reassignments, deletions)."""
        keys: set[str] = set()
        for op in self.of(Kind.TOPIC):
            if isinstance(op.request, CreateTopic):
                keys |= set(op.request.configs)
            elif isinstance(op.request, AlterConfigs):
                keys |= {c.key for c in op.request.ops}
        return dataclasses.replace(self.read_scope(), topic_config_keys=frozenset(keys))


# ------------------------------------------------------------------------------------------------ decoding
P = TypeVar("P")  # the payload type a kind's decoder expects of a change


def payload_of(c: plans.Change, payload: payloads.Payload | None, of: type[P]) -> P | None:
    """``payload`` (a ``before`` or ``after`` of ``c``) as an ``of``; ``CannotDecode`` when it is something else."""
    if payload is None or isinstance(payload, of):
        return payload
    if isinstance(payload, payloads.Unreadable):
        raise CannotDecode(f"{c.address}: {payload.problem}")
    raise CannotDecode(f"{c.address}: the change's data is not a {c.kind} description")


def alter_configs(c: plans.Change, resource_type: str, ops: tuple[payloads.ConfigOp, ...] | None) -> AlterConfigs:
    """The config write of ``c``: IncrementalAlterConfigs of its ``resource_type`` resource, exactly ``ops``."""
    if not ops:
        raise CannotDecode(f"{c.address}: the config change lists no config operations")
    bounds.config_ops(resource_type, c.name, ops)
    return AlterConfigs(resource_type, ops)


def config_ops_in(c: plans.Change, of: type[Any]) -> tuple[payloads.ConfigOp, ...] | None:
    """The config operations of a change whose ``after`` is an ``of`` (``None`` when it is not one)."""
    ops: tuple[payloads.ConfigOp, ...] | None = c.after.config_ops if isinstance(c.after, of) else None
    return ops


def alter_entity_configs(c: plans.Change) -> AlterConfigs:
    """A config entity's change (a group's, a client-metrics subscription's: ``reconciler.model.entities``):
    IncrementalAlterConfigs of the entity's resource type. Both entity kinds' decoder."""
    resource_type = entities.RESOURCE_TYPES.get(c.kind)
    if resource_type is None:
        raise CannotDecode(f"{c.address}: the change's data is not a config entity's description")
    return alter_configs(c, resource_type, config_ops_in(c, payloads.TYPES[c.kind]))


@functools.cache
def _decoder(phase: plans.Phase) -> Callable[[plans.Change], AnyRequest]:
    """The decoder the declaration of ``phase`` names (``PhaseSpec.decode``), looked up once per phase."""
    decode: Callable[[plans.Change], AnyRequest] = registry.phase(phase)[1].decode.get()
    return decode


def operation(c: plans.Change) -> Operation:
    """The typed write ``c`` asks for; ``problem`` says why it cannot be carried out as written, when it cannot."""
    unreadable = [p for p in (c.before, c.after) if isinstance(p, payloads.Unreadable)]
    if unreadable:
        return Operation(change=c, problem=f"{c.address}: {unreadable[0].problem}")
    try:
        return Operation(change=c, request=_decoder(c.phase)(c))
    except CannotDecode as exc:
        return Operation(change=c, problem=str(exc))
    except bounds.Refused as exc:  # a value the manifests would refuse: the change's field and why
        return Operation(change=c, problem=f"{c.address}: {exc}")


def of_changes(changes: Iterable[plans.Change]) -> Operations:
    """The operations of ``changes``, in apply order, each with its ``problem`` if it has one."""
    return Operations(tuple(operation(c) for c in plans.sort_changes(changes)))


def check_shape(p: plans.Plan) -> None:
    """Refuse a plan whose phases hold the wrong kind or action, or a change twice (``ImpossiblePlan``)."""
    problems: list[str] = []
    for c in p.actionable:
        kind, actions = PHASE_CONTENTS[c.phase]
        if c.kind != kind or c.action not in actions:
            problems.append(f"{c.address}: a {c.action.value} of a {c.kind} cannot run in phase {c.phase.label}")
    seen = Counter((c.phase, c.address) for c in p.actionable)
    dupes = [f"{addr} ({phase.label})" for (phase, addr), n in seen.items() if n > 1]
    problems += [f"{d}: listed more than once in the same phase" for d in sorted(dupes)]
    if problems:
        raise preflight.ImpossiblePlan("the plan cannot be applied as written: " + "; ".join(problems))


def check_findings(p: plans.Plan) -> None:
    """Refuse (``PlanHasErrors``) a plan with a global error-level finding or one about a resource it changes."""
    # A finding about one resource blocks that resource's changes (the planner made them blocked changes); a global
    # finding (no address: a section the manifests need could not be read) leaves the whole plan unknowable.
    acting = {c.address for c in p.actionable}
    blocking = [w for w in p.warnings if w.severity == "error" and (w.address is None or w.address in acting)]
    if blocking:
        raise PlanHasErrors(
            "the plan has error-level findings that block apply: "
            + "; ".join(f"{w.address + ': ' if w.address else ''}{w.message}" for w in blocking)
        )


def check(p: plans.Plan) -> Operations:
    """The plan's actionable changes as operations; ``preflight.ImpossiblePlan`` naming every change that cannot be
    carried out as written (phases holding the wrong kind or action, a change listed twice, change data that does not
    describe its resource or holds a value the manifests would refuse). What ``show``, ``comment --plan`` and apply
    all refuse, with the same message: a plan file a reviewer can read is one apply can decode."""
    check_shape(p)
    ops = of_changes(p.actionable)
    problems = [op.problem for op in ops.items if op.problem is not None]
    if problems:
        raise preflight.ImpossiblePlan(
            "the plan cannot be applied as written: " + preflight.name_list(problems) + "; nothing was written"
        )
    return ops


def decode(p: plans.Plan, *, checked: Operations | None = None) -> Operations:
    """``check``, then ``PlanHasErrors`` for error-level findings (a plan ``show`` displays with them, and
    apply refuses). ``checked``: the operations ``check`` (or ``load_checked``) already returned for ``p``, handed
    on so that a plan is decoded once per command; only its findings are checked then."""
    ops = check(p) if checked is None else checked
    check_findings(p)
    return ops


def load_checked(path: Path, *, other_version: bool = False) -> tuple[plans.Plan, Operations]:
    """The saved plan at ``path`` (``plans.Plan.load``) and its operations, refused (``PlanFileError`` naming the
    file) unless ``check`` decodes it: how every command that reads a saved plan reads it, so that ``show`` refuses
    the files apply refuses, with the same message and exit code."""
    p = plans.Plan.load(path, other_version=other_version)
    try:
        ops = check(p)
    except preflight.ImpossiblePlan as exc:
        raise preflight.ImpossiblePlan(f"{path}: {exc}") from None
    return p, ops


def load(path: Path, *, other_version: bool = False) -> plans.Plan:
    """``load_checked``'s plan, for a command that only shows it."""
    return load_checked(path, other_version=other_version)[0]

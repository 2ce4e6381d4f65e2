"""The apply of a subjects plan: the parts of the kind's two phases (``SCHEMA_SUBJECT``: levels, modes and new
versions, before the topics and connectors that use them; ``SCHEMA_SUBJECT_DELETE``: deletes, after the topics they
served) and the ordered steps they take through a ``RegistryPort``, each read back.

``decode`` turns a change into the write it asks for (``WriteSubject``), from the plan's payloads alone
(``payload.change_of``). Before the writes, ``read_to_apply`` reads the subjects the plan changes: the live view the
staleness check compares with the plan's fingerprints, and the state the steps are ordered by. ``run`` carries out
one phase through the registry the command opened (``ApplyContext.port``): one outcome per change.

Order: levels (and modes other than READONLY) first, so a version that needs its new level is registered under it;
then the new versions, a subject referenced by another registered in the same plan before it; then READONLY modes;
then the deletes, a referrer before the subject it references. A step whose prerequisite failed is not sent (a
version referencing a subject whose register failed, a delete of a subject whose referrer's delete failed).

Each write is read back: a registered version until the subject's latest version is the id the registry answered
(bounded by the command's deadline and ``READ_BACK_SECONDS``), a level or mode until the registry answers it, a
delete until the subject has no version (a permanent one: until the registry no longer lists it among the
soft-deleted). A write the registry refused is read once, not waited for. An answer lost on the way
(``RegistryError.answer_lost``) is resolved by reading: a write the registry holds is applied, one it does not is
failed, never reported before reading.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from reconciler.apply import decoded
from reconciler.apply import outcomes as item_outcomes
from reconciler.apply.apply_report import ItemOutcome
from reconciler.apply.batch import ApplyContext, Result
from reconciler.apply.preflight import CannotDecode
from reconciler.base import errors
from reconciler.kinds.schema_subject import payload, views
from reconciler.kinds.schema_subject import state as subject_state
from reconciler.kinds.schema_subject.diff import SubjectChange
from reconciler.model import plans, state
from reconciler.model.kinds import Kind
from reconciler.planner import scope
from reconciler.registry import canonical
from reconciler.registry import port as registry_port

READ_BACK_SECONDS = 10.0  # longest a read-back waits for the registry to answer what it was sent
POLL_SECONDS = 0.1
DEFAULT_DEADLINE_S = 300.0  # as engine.DEFAULT_DEADLINE_S: the bound of the read before the writes
NO_REGISTRY = (
    "the plan changes Schema Registry subjects, but no registry is configured (schemaRegistry: in the Cluster "
    "profile, or SCHEMA_REGISTRY_URL); nothing was written"
)


@dataclasses.dataclass(frozen=True, slots=True)
class WriteSubject:
    """A subject's level, mode or new version (``SCHEMA_SUBJECT``), or its delete (``SCHEMA_SUBJECT_DELETE``)."""

    change: SubjectChange


def decode(c: plans.Change) -> WriteSubject:
    """The subject write ``c`` describes (both phases' ``decode``); ``CannotDecode`` when its payloads are not a
    subject's."""
    before, after = c.before, c.after
    if before is not None and not isinstance(before, payload.SubjectPayload):
        raise CannotDecode(f"{c.address}: its before is not a subject")
    if after is not None and not isinstance(after, payload.SubjectPayload):
        raise CannotDecode(f"{c.address}: its after is not a subject")
    if c.action is plans.Action.DELETE and before is None:
        raise CannotDecode(f"{c.address}: a delete of a subject the registry held no version of")
    if c.action is not plans.Action.DELETE and after is None:
        raise CannotDecode(f"{c.address}: a subject write without an after")
    return WriteSubject(payload.change_of(c.name, c.action, before=before, after=after))


def read_to_apply(
    live: state.ClusterState,
    ops: decoded.Operations,
    *,
    port: registry_port.RegistryPort | None,
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
    return subject_state.with_live_subjects(live, found)


def run(ctx: ApplyContext, ops: Sequence[decoded.Operation], *, live: state.ClusterState) -> list[ItemOutcome]:
    """One subject phase (both phases' ``run``): the ordered writes, each read back; one outcome per change."""
    if ctx.dry_run:  # the registry's own check ran at plan time: nothing more to ask without writing
        return [item_outcomes.client_check(op.change, None) for op in ops]
    registry: registry_port.RegistryPort | None = ctx.port(Kind.SCHEMA_SUBJECT)
    if registry is None:
        raise errors.ConfigError(NO_REGISTRY)
    have = subject_state.live_subjects(live)
    if have is None:
        raise errors.ConfigError("the subjects the plan changes were not read before writing; nothing was written")
    changes = [_write(op).change for op in ops]
    done = apply(changes, have, registry=registry, deadline=time.monotonic() + ctx.writes_left())
    steps: dict[str, list[Outcome]] = {}
    for o in done:
        steps.setdefault(o.subject, []).append(o)
    out = []
    for op in ops:
        mine = steps.get(op.name, [])
        bad = [o for o in mine if not o.ok]
        said = "; ".join(f"{o.what}: {o.detail}" for o in (bad or mine) if o.detail)
        if bad and not any(o.sent for o in bad):
            out.append(item_outcomes.not_sent(op.change, said))
        elif bad:
            out.append(item_outcomes.failed(op.change, error_name="REGISTRY_WRITE_FAILED", message=said))
        else:
            out.append(item_outcomes.from_result(op.change, Result(ok=True, message=said or None), dry_run=False))
    return out


def _write(op: decoded.Operation) -> WriteSubject:
    """The subject write of ``op`` (``decode`` made it one for each change of these phases)."""
    if not isinstance(op.request, WriteSubject):
        raise CannotDecode(op.problem or f"{op.address}: not a subject write")
    return op.request


@dataclasses.dataclass(frozen=True, slots=True)
class Step:
    """One write: ``level``, ``mode``, ``register`` or ``delete`` of ``change``'s subject."""

    what: str
    change: SubjectChange

    @property
    def subject(self) -> str:
        return self.change.subject


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """What one step did: ``ok``, its detail (the version registered, the error), whether it was ``sent``."""

    subject: str
    what: str
    ok: bool
    detail: str
    version: int | None = None
    sent: bool = True


def _topological(names: Sequence[str], needs: Mapping[str, set[str]]) -> list[str]:
    """``names`` with each after the names it needs (among ``names``); by name otherwise, a cycle left as listed."""
    left = sorted(names)
    done: list[str] = []
    while left:
        ready = [n for n in left if not (needs.get(n, set()) & set(left)) - {n}]
        pick = ready[0] if ready else left[0]
        done.append(pick)
        left.remove(pick)
    return done


def order(changes: Iterable[SubjectChange], live: views.LiveSubjects) -> list[Step]:
    """The steps of ``changes`` in apply order (see the module docstring); blocked and no-op changes send none."""
    acting = [c for c in changes if c.action in (plans.Action.CREATE, plans.Action.UPDATE, plans.Action.DELETE)]
    by_name = {c.subject: c for c in acting}
    steps = [Step("level", c) for c in acting if c.level is not None]
    steps += [Step("mode", c) for c in acting if c.mode is not None and c.mode[1] != "READONLY"]
    registers = {c.subject: c for c in acting if c.register is not None}
    needs = {n: {r.subject for r in c.register.references} for n, c in registers.items() if c.register is not None}
    steps += [Step("register", registers[n]) for n in _topological(list(registers), needs)]
    steps += [Step("mode", c) for c in acting if c.mode is not None and c.mode[1] == "READONLY"]
    deletes = [c.subject for c in acting if c.action is plans.Action.DELETE]
    referenced: dict[str, set[str]] = {n: set() for n in deletes}  # subject -> the deleted subjects referencing it
    for name in deletes:
        have = live.subjects.get(name)
        for ref in () if have is None or have.latest is None else have.latest.references:
            if ref.subject in referenced:
                referenced[ref.subject].add(name)
    steps += [Step("delete", by_name[n]) for n in _topological(deletes, referenced)]
    return steps


def _wait(read: Callable[[], bool], *, deadline: float, bound: float) -> bool:
    """Whether ``read`` turned true before the deadline or ``bound`` seconds; read at least once."""
    until = min(deadline, time.monotonic() + bound)
    while True:
        if read():
            return True
        if time.monotonic() + POLL_SECONDS >= until:
            return False
        time.sleep(POLL_SECONDS)


class _Run:
    def __init__(self, registry: registry_port.RegistryPort, deadline: float, bound: float) -> None:
        self.registry = registry
        self.deadline = deadline
        self.bound = bound

    def _bound(self, sent: registry_port.RegistryError | None) -> float:
        """How long to read back after a write: read once after a refusal (the registry answered), else poll."""
        return 0.0 if sent is not None and not sent.answer_lost else self.bound

    def level(self, change: SubjectChange) -> Outcome:
        assert change.level is not None
        want = change.level[1]
        sent = self._send(lambda: self.registry.set_compatibility(want, change.subject, deadline=self.deadline))
        held = _wait(
            lambda: self.registry.compatibility(change.subject, deadline=self.deadline) == want,
            deadline=self.deadline,
            bound=self._bound(sent),
        )
        return self._outcome(change, "level", sent=sent, held=held, done=f"level {want}")

    def mode(self, change: SubjectChange) -> Outcome:
        assert change.mode is not None
        want = change.mode[1]
        sent = self._send(lambda: self.registry.set_mode(want, change.subject, deadline=self.deadline))
        held = _wait(
            lambda: self.registry.mode(change.subject, deadline=self.deadline) == want,
            deadline=self.deadline,
            bound=self._bound(sent),
        )
        return self._outcome(change, "mode", sent=sent, held=held, done=f"mode {want}")

    def register(self, change: SubjectChange) -> Outcome:
        want = change.register
        assert want is not None
        answered: list[int] = []

        def send() -> None:
            answered.append(
                self.registry.register(
                    change.subject,
                    want.schema,
                    schema_type=want.schema_type,
                    references=want.references,
                    deadline=self.deadline,
                )
            )

        sent = self._send(send)
        found: list[registry_port.SchemaVersion] = []

        def registered() -> bool:
            latest = self.registry.latest(change.subject, deadline=self.deadline)
            if latest is None:
                return False
            if answered:
                ok = latest.id == answered[0]
            else:  # the answer was lost: the registry holds the version if its latest is the declared schema
                ok = latest.schema_type == want.schema_type and canonical.same_schema(
                    want.schema, latest.schema, want.schema_type
                )
            if ok:
                found.append(latest)
            return ok

        if isinstance(sent, registry_port.RegistryError) and not sent.answer_lost:
            return Outcome(change.subject, "register", False, str(sent))
        if not _wait(registered, deadline=self.deadline, bound=self.bound):
            if answered:
                why = (
                    f"the registry answered id {answered[0]}, and the subject's latest version is not it (a registry "
                    "answers a schema the subject holds as an earlier version with that version's id, registering "
                    "nothing: going back to it takes deleting the versions after it)"
                )
            else:
                why = "the answer was lost, and the subject's latest version is not the declared schema"
            return Outcome(change.subject, "register", False, f"new version not read back: {why}")
        return Outcome(change.subject, "register", True, f"version {found[0].version}", version=found[0].version)

    def delete(self, change: SubjectChange) -> Outcome:
        """A soft delete read back until the subject has no version; then, for a permanent one, the permanent delete
        read back until the registry no longer lists the subject even among the soft-deleted."""
        subject = change.subject
        soft = self._send(lambda: self.registry.delete(subject, deadline=self.deadline))
        gone = _wait(
            lambda: self.registry.latest(subject, deadline=self.deadline) is None,
            deadline=self.deadline,
            bound=self._bound(soft),
        )
        if not gone or not change.permanent:
            return self._outcome(change, "delete", sent=soft, held=gone, done="deleted")
        hard = self._send(lambda: self.registry.delete(subject, permanent=True, deadline=self.deadline))
        purged = _wait(
            lambda: subject not in self.registry.subjects(deleted=True, deadline=self.deadline),
            deadline=self.deadline,
            bound=self._bound(hard),
        )
        if not purged and hard is not None:
            return Outcome(subject, "delete", False, f"soft-deleted, not permanently: {hard}")
        return self._outcome(change, "delete", sent=hard, held=purged, done="deleted permanently")

    @staticmethod
    def _send(write: Callable[[], object]) -> registry_port.RegistryError | None:
        try:
            write()
        except registry_port.RegistryError as exc:
            return exc
        return None

    @staticmethod
    def _outcome(
        change: SubjectChange, what: str, *, sent: registry_port.RegistryError | None, held: bool, done: str
    ) -> Outcome:
        if held:
            return Outcome(change.subject, what, True, done)
        if sent is not None:
            return Outcome(change.subject, what, False, str(sent))
        return Outcome(change.subject, what, False, f"{done} was sent and is not what the registry answers")


def apply(
    changes: Iterable[SubjectChange],
    live: views.LiveSubjects,
    *,
    registry: registry_port.RegistryPort,
    deadline: float,
    read_back_seconds: float = READ_BACK_SECONDS,
) -> list[Outcome]:
    """Carry out ``changes`` in order (see the module docstring): one outcome a step, in the order sent."""
    run = _Run(registry, deadline, read_back_seconds)
    failed: set[str] = set()
    outcomes: list[Outcome] = []
    for step in order(changes, live):
        waiting = _prerequisite_failed(step, live, failed=failed)
        if waiting is not None:
            outcomes.append(Outcome(step.subject, step.what, False, waiting, sent=False))
            failed.add(step.subject)
            continue
        if time.monotonic() >= deadline:
            outcomes.append(Outcome(step.subject, step.what, False, "not sent: the deadline passed", sent=False))
            failed.add(step.subject)
            continue
        outcome = getattr(run, step.what)(step.change)
        outcomes.append(outcome)
        if not outcome.ok:
            failed.add(step.subject)
    return outcomes


def _prerequisite_failed(step: Step, live: views.LiveSubjects, *, failed: set[str]) -> str | None:
    """Why ``step`` is not sent (a subject it depends on failed), or ``None``."""
    if step.what == "register" and step.subject in failed:
        return "not sent: its level or mode was not applied"
    if step.what == "register" and step.change.register is not None:
        missing = sorted({r.subject for r in step.change.register.references} & failed)
        if missing:
            return f"not sent: the subject it references ({', '.join(missing)}) was not applied"
    if step.what == "delete":
        referrers = sorted(
            n
            for n in failed
            if (have := live.subjects.get(n)) is not None
            and have.latest is not None
            and any(r.subject == step.subject for r in have.latest.references)
        )
        if referrers:
            return f"not sent: the delete of {', '.join(referrers)}, which references it, failed"
    return None

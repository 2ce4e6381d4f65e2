"""The apply of a subjects plan: ordered steps through a ``RegistryPort``, each read back.

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

from reconciler.kinds.schema_subject import views
from reconciler.kinds.schema_subject.diff import SubjectChange
from reconciler.model import plans
from reconciler.registry import canonical
from reconciler.registry import port as registry_port

READ_BACK_SECONDS = 10.0  # longest a read-back waits for the registry to answer what it was sent
POLL_SECONDS = 0.1


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

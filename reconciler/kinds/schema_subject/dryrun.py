"""The dry run of a subjects plan: the registry's own compatibility check of each new version, and the reference
guard on deletes.

A new version of a subject the registry holds is checked by the registry (``POST /compatibility/subjects/{s}/
versions/latest``, or against every version for a ``*_TRANSITIVE`` level), under the level the plan leaves the
subject at (its declared level when the plan changes it). The registry checks under the level it holds now, and its
API takes no other, so a level changed in the same plan is taken into account by what the answer proves:
- the planned level is NONE: nothing to check;
- the same direction (BACKWARD, FORWARD or both, FULL) as the current level: the answer is the verdict;
- the planned level asks more than the current one (BACKWARD to FULL): an incompatible answer blocks; a compatible
  one is not proof, and the registry's refusal at apply (409) is the check left, which the plan says;
- otherwise (FORWARD to BACKWARD, or the current level is NONE): the answer proves nothing, and the plan says so;
- the subject's level reads NONE, the global level asks something and the plan leaves the level alone: asked all the
  same (``hidden_level``: Apicurio 2.4 reads a subject without a level as NONE and checks it under the global level),
  and a refusal blocks.
An incompatible schema is blocked at the manifest that declares it with the registry's messages; there is no
override but a declared level. A delete of a subject whose version another schema references is blocked naming the
referrer (Apicurio 2.4 carries such a delete out where Confluent refuses it, 42206), unless each referrer is deleted
by the same plan (the apply deletes referrers first).

The registry's answers are evidence read before planning, as Kafka Connect's validate answers are: ``questions``
(pure) says what to ask, ``read_evidence`` asks it (the only I/O here), ``judge`` (pure) turns the answers into
verdicts and blocked changes. Without evidence for a subject (a plan made offline from a snapshot) its new version
is not decided, and the verdict says the registry was not asked.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

from reconciler.kinds.schema_subject import references, views
from reconciler.kinds.schema_subject.diff import SubjectChange
from reconciler.model import plans
from reconciler.registry import port as registry_port

DEFAULT_LEVEL = "BACKWARD"  # Confluent's default when the registry names none
_DIRECTIONS = {"NONE": frozenset(), "BACKWARD": {"backward"}, "FORWARD": {"forward"}, "FULL": {"backward", "forward"}}


def directions(level: str) -> frozenset[str]:
    """What a level asks of a new version: backward (readers of it read old data), forward, both or neither."""
    return frozenset(_DIRECTIONS.get(level.removesuffix("_TRANSITIVE"), ()))


@dataclasses.dataclass(frozen=True, slots=True)
class Verdict:
    """The dry run's answer for one new version: ``compatible`` (``None``: not decided, ``note`` says why), the
    level it is held to, the versions checked and the registry's messages; ``breaks`` names the level the subject
    holds when that level refuses the new version and the plan's change of level lets it in (a version incompatible
    by design: ``reconciler.kinds.schema_subject.impact`` names who reads it)."""

    subject: str
    compatible: bool | None
    level: str
    versions: tuple[int | str, ...] = ()
    messages: tuple[str, ...] = ()
    note: str | None = None
    breaks: str | None = None  # the level the subject holds, which refuses the new version the plan's level lets in


def levels(change: SubjectChange, live: views.LiveSubjects) -> tuple[str, str]:
    """The subject's level now and the level the plan leaves it at."""
    have = live.subjects.get(change.subject)
    current = (have.compatibility if have is not None else None) or live.global_level or DEFAULT_LEVEL
    return current, change.level[1] if change.level is not None else current


@dataclasses.dataclass(frozen=True, slots=True)
class Question:
    """One check to ask the registry: ``change``'s new version against the latest version, or every one."""

    subject: str
    every: bool


@dataclasses.dataclass(frozen=True, slots=True)
class Evidence:
    """The registry's answers for one plan: each check asked, and who references each subject the plan deletes."""

    answers: Mapping[str, tuple[registry_port.Compatibility, ...]] = dataclasses.field(default_factory=dict)
    referrers: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    versions: Mapping[str, tuple[int, ...]] | None = None  # of the referenced subjects not read (None: not asked)


def hidden_level(change: SubjectChange, live: views.LiveSubjects) -> str | None:
    """The global level, when the subject's level reads NONE, the global level asks something and the plan leaves
    the level alone: Apicurio 2.4 answers NONE for a subject without a level of its own and checks it under the
    global level (docs/schema-registry.md), so the registry is asked all the same and a refusal blocks; on
    Confluent such a NONE is the subject's own level, and the registry answers compatible."""
    have = live.subjects.get(change.subject)
    level = live.global_level
    if change.level is not None or have is None or have.compatibility != "NONE" or level is None:
        return None
    return level if directions(level) else None


def question(change: SubjectChange, live: views.LiveSubjects) -> Question | None:
    """What to ask the registry about ``change``'s new version (``None``: nothing: no version held, or neither the
    current nor the planned level asks anything, nor a level the registry may hold behind a NONE read)."""
    if change.register is None or change.action is not plans.Action.UPDATE or change.before_version is None:
        return None
    current, planned = levels(change, live)
    now, then = directions(current), directions(planned)
    if not now and not then:
        hidden = hidden_level(change, live)
        return None if hidden is None else Question(change.subject, views.transitive(hidden))
    return Question(change.subject, views.transitive(planned if then else current))


def judge_one(change: SubjectChange, live: views.LiveSubjects, *, evidence: Evidence) -> Verdict | None:
    """The verdict on ``change``'s new version from the registry's answers (see the module docstring)."""
    if change.register is None or change.action is not plans.Action.UPDATE or change.before_version is None:
        return None
    current, planned = levels(change, live)
    now, then = directions(current), directions(planned)
    if not now and not then:
        return _behind_none(change, live, evidence=evidence) or Verdict(
            change.subject, True, planned, note=f"level {planned}: not checked"
        )
    answers = evidence.answers.get(change.subject)
    if answers is None:
        note = "not checked: the registry was not asked (a plan made without it)"
        return Verdict(change.subject, None, planned, note=note)
    checked = tuple(a.version for a in answers)
    refused = [a for a in answers if not a.compatible]
    messages = tuple(m for a in refused for m in a.messages)
    breaks = current if refused else None  # the level the subject holds refuses it: the plan's level change lets it
    if not then:
        note = f"level {planned}: not held to a level" + (f" ({current} would refuse it)" if breaks else "")
        return Verdict(change.subject, True, planned, checked, messages, note, breaks)
    if refused and then >= now and now:
        return Verdict(change.subject, False, planned, checked, messages)
    if now == then:
        return Verdict(change.subject, True, planned, checked)
    if then > now and now:
        note = f"compatible under {current}; the registry checks {planned} when the version is registered"
    else:
        note = f"the registry holds {current} and can check only under it; {planned} is checked at registration"
    return Verdict(change.subject, None, planned, checked, messages, note, breaks)


def _behind_none(change: SubjectChange, live: views.LiveSubjects, *, evidence: Evidence) -> Verdict | None:
    """The verdict on a subject whose level reads NONE where the registry may check under the global level
    (``hidden_level``), from the registry's answers (``None``: it was not asked)."""
    hidden = hidden_level(change, live)
    answers = evidence.answers.get(change.subject) if hidden is not None else None
    if hidden is None or not answers:
        return None
    refused = [a for a in answers if not a.compatible]
    messages = tuple(m for a in refused for m in a.messages)
    note = f"the subject's level reads NONE; the registry checked it under the level it holds (global: {hidden})"
    return Verdict(change.subject, not refused, hidden, tuple(a.version for a in answers), messages, note)


def blocked_by_verdict(change: SubjectChange, verdict: Verdict) -> SubjectChange:
    """``change`` blocked by an incompatible verdict, with the registry's messages."""
    against = ", ".join(str(v) for v in verdict.versions)
    head = f"the registry finds the new schema incompatible under {verdict.level} (checked against version {against})"
    reasons = (head, *verdict.messages) if verdict.messages else (f"{head}; it gave no message",)
    return dataclasses.replace(change, action=plans.Action.BLOCKED, reasons=reasons)


def _referrers(
    subject: str, live: views.LiveSubjects, *, registry: registry_port.RegistryPort, deadline: float
) -> tuple[str, ...]:
    """Who references any version of ``subject``, by subject name: every subject holding a referring schema (one
    schema id may be held by several subjects, so each is asked through ``holders``), else the subject read for the
    plan whose latest version it is. A referring schema no subject holds any more is no referrer: Apicurio 2.4 keeps
    answering the id of a permanently deleted referrer (measured), and nothing registered under a subject uses it."""
    by_id = {s.latest.id: name for name, s in live.subjects.items() if s.latest is not None}
    found: set[str] = set()
    for version in registry.versions(subject, deadline=deadline):
        for schema_id in registry.referenced_by(subject, version, deadline=deadline):
            names = {s for s, _ in registry.holders(schema_id, deadline=deadline)}
            found |= names or ({by_id[schema_id]} if schema_id in by_id else set())
    return tuple(sorted(found))


def read_evidence(
    changes: Sequence[SubjectChange],
    live: views.LiveSubjects,
    *,
    registry: registry_port.RegistryPort,
    deadline: float,
    concurrency: int = registry_port.READ_CONCURRENCY,
) -> Evidence:
    """Ask the registry the versions of the referenced subjects the plan did not read, then each question of
    ``changes`` whose references are there, and who references each subject they delete, ``concurrency`` subjects
    at a time (the API has no bulk check); the first error stops the read."""
    answers: dict[str, tuple[registry_port.Compatibility, ...]] = {}
    referrers: dict[str, tuple[str, ...]] = {}
    versions: dict[str, tuple[int, ...]] = {}
    _run(
        [
            functools.partial(_ask_versions, s, registry=registry, deadline=deadline, into=versions)
            for s in references.needed(changes, live)
        ],
        concurrency,
    )
    tasks: list[Callable[[], None]] = []
    for change in changes:
        if references.problems(change, changes, live, versions=versions) or references.waits_for(change, changes, live):
            continue  # not asked: blocked for its references, or they are registered first
        if change.action is plans.Action.DELETE:
            tasks.append(
                functools.partial(
                    _ask_referrers, change.subject, live, registry=registry, deadline=deadline, into=referrers
                )
            )
            continue
        asked = question(change, live)
        if asked is not None and change.register is not None:
            tasks.append(
                functools.partial(
                    _ask_check, asked, change.register, registry=registry, deadline=deadline, into=answers
                )
            )
    _run(tasks, concurrency)
    return Evidence(dict(sorted(answers.items())), dict(sorted(referrers.items())), dict(sorted(versions.items())))


def _run(tasks: Sequence[Callable[[], None]], concurrency: int) -> None:
    """Run ``tasks``, ``concurrency`` at a time; the first error is raised and the tasks not started are dropped."""
    if not tasks:
        return
    with ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(tasks)))) as pool:
        futures = [pool.submit(task) for task in tasks]
        try:
            for future in futures:
                future.result()
        finally:
            for future in futures:
                future.cancel()


def _ask_versions(
    subject: str, *, registry: registry_port.RegistryPort, deadline: float, into: dict[str, tuple[int, ...]]
) -> None:
    into[subject] = registry.versions(subject, deadline=deadline)


def _ask_referrers(
    subject: str,
    live: views.LiveSubjects,
    *,
    registry: registry_port.RegistryPort,
    deadline: float,
    into: dict[str, tuple[str, ...]],
) -> None:
    into[subject] = _referrers(subject, live, registry=registry, deadline=deadline)


def _ask_check(
    asked: Question,
    want: views.DesiredSubject,
    *,
    registry: registry_port.RegistryPort,
    deadline: float,
    into: dict[str, tuple[registry_port.Compatibility, ...]],
) -> None:
    refs, kind = want.references, want.schema_type
    if asked.every:
        found = registry.check_all(asked.subject, want.schema, schema_type=kind, references=refs, deadline=deadline)
    else:
        found = (registry.check(asked.subject, want.schema, schema_type=kind, references=refs, deadline=deadline),)
    into[asked.subject] = found


def judge(
    changes: Sequence[SubjectChange], live: views.LiveSubjects, *, evidence: Evidence
) -> tuple[list[SubjectChange], dict[str, Verdict]]:
    """``changes`` with the incompatible new versions and the referenced deletes blocked, and each verdict. A delete
    without evidence of its referrers (a plan made without the registry) is blocked: it cannot be known safe."""
    verdicts: dict[str, Verdict] = {}
    deleted = {c.subject for c in changes if c.action is plans.Action.DELETE}
    to_reference: dict[str, set[str]] = {}  # subject -> the subjects whose new version in this plan references it
    for c in changes:
        for r in () if c.register is None else c.register.references:
            to_reference.setdefault(r.subject, set()).add(c.subject)
    out: list[SubjectChange] = []
    for change in changes:
        if change.action is plans.Action.DELETE and to_reference.get(change.subject):
            users = ", ".join(sorted(to_reference[change.subject]))
            why = f"subject {change.subject} is referenced by the new version of {users} in this plan"
            out.append(dataclasses.replace(change, action=plans.Action.BLOCKED, reasons=(why,)))
            continue
        if change.action is plans.Action.DELETE:
            found = evidence.referrers.get(change.subject)
            if found is None:
                why = f"who references subject {change.subject} was not read (a plan made without the registry)"
                change = dataclasses.replace(change, action=plans.Action.BLOCKED, reasons=(why,))
            elif others := [r for r in found if r not in deleted]:
                why = f"subject {change.subject} is referenced by {', '.join(others)}: delete or change them first"
                change = dataclasses.replace(change, action=plans.Action.BLOCKED, reasons=(why,))
            out.append(change)
            continue
        missing = references.problems(change, changes, live, versions=evidence.versions)
        if missing:
            out.append(dataclasses.replace(change, action=plans.Action.BLOCKED, reasons=missing))
            continue
        first = references.waits_for(change, changes, live)
        verdict = judge_one(change, live, evidence=evidence)
        if first and verdict is not None and verdict.compatible is None and not verdict.versions:
            note = f"it references the version of {', '.join(first)} this plan registers first: checked at registration"
            verdict = dataclasses.replace(verdict, note=note)
        if verdict is not None:
            verdicts[change.subject] = verdict
            if verdict.compatible is False:
                change = blocked_by_verdict(change, verdict)
        out.append(change)
    return out, verdicts


def dry_run(
    changes: Sequence[SubjectChange],
    live: views.LiveSubjects,
    *,
    registry: registry_port.RegistryPort,
    deadline: float,
) -> tuple[list[SubjectChange], dict[str, Verdict]]:
    """``judge`` over the evidence ``read_evidence`` reads: the dry run of a plan made against the registry."""
    evidence = read_evidence(changes, live, registry=registry, deadline=deadline)
    return judge(changes, live, evidence=evidence)


def blocked(changes: Iterable[SubjectChange]) -> list[SubjectChange]:
    """The blocked changes of ``changes``."""
    return [c for c in changes if c.action is plans.Action.BLOCKED]

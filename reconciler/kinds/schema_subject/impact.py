"""The impact of a subject change: a new version incompatible by design names who reads the topics it serves.

A new version the subject's current level refuses, let in by the plan's change of level (``Verdict.breaks``), is a
break for the consumers of the topics the subject serves (its ``topic:``, or the topic of a TopicNameStrategy
name): the finding names those topics and the consumer groups holding committed offsets on them, from the topic
usage evidence the tool reads for topics (``state.TopicUsage.groups``); without that evidence it says the groups
were not read rather than naming none.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from reconciler.kinds.schema_subject import state as subject_state
from reconciler.kinds.schema_subject.diff import SubjectChange
from reconciler.kinds.schema_subject.dryrun import Verdict
from reconciler.kinds.schema_subject.payload import SubjectPayload, new_version
from reconciler.model import desired, plans, state


@dataclasses.dataclass(frozen=True, slots=True)
class Finding:
    """A break for readers: the subject, the level that would refuse it, the topics and the groups reading each
    (``None``: no evidence read for that topic)."""

    subject: str
    breaks: str
    level: str
    topics: tuple[str, ...]
    groups: Mapping[str, tuple[str, ...] | None]

    @property
    def text(self) -> str:
        head = (
            f"a new version of {self.subject} that its level {self.breaks} refuses is let in by the change to "
            f"{self.level}"
        )
        if not self.topics:
            return head + "; no topic is known to use the subject (named by subject:, not by topic:)"
        parts = []
        for topic in self.topics:
            groups = self.groups.get(topic)
            if groups is None:
                parts.append(f"topic {topic} (its consumer groups were not read)")
            elif groups:
                parts.append(f"topic {topic}, read by consumer group(s) {', '.join(groups)}")
            else:
                parts.append(f"topic {topic} (no consumer group has committed offsets on it)")
        return f"{head}: its readers may fail on it: {'; '.join(parts)}"


def assess(
    change: SubjectChange, verdict: Verdict | None, *, usage: Mapping[str, state.TopicUsage] | None
) -> Finding | None:
    """The finding of ``change`` (``None``: its new version, if any, breaks no level it is held to now)."""
    if change.register is None or verdict is None or verdict.breaks is None:
        return None
    topics = change.register.topics
    groups = {t: None if usage is None or t not in usage else usage[t].groups for t in topics}
    return Finding(change.subject, verdict.breaks, verdict.level, topics, groups)


def topics_to_read(changes: list[SubjectChange], verdicts: Mapping[str, Verdict]) -> tuple[str, ...]:
    """The topics whose usage evidence (consumer groups) a plan's findings need."""
    return tuple(
        sorted(
            {
                t
                for c in changes
                if c.register is not None and (v := verdicts.get(c.subject)) is not None and v.breaks is not None
                for t in c.register.topics
            }
        )
    )


def usage_topics(change: plans.Change, wanted: desired.DesiredState) -> tuple[str, ...]:
    """The topics served by a subject the plan gives a new version together with a change of level: the groups
    reading them are what the finding of a version incompatible by design names (read before planning)."""
    before, after, subject = change.before, change.after, subject_state.declared_subjects(wanted).get(change.name)
    if subject is None or not isinstance(after, SubjectPayload) or not isinstance(before, SubjectPayload):
        return ()
    if before.compatibility == after.compatibility or not new_version(before, after):
        return ()
    return tuple(subject.topics)

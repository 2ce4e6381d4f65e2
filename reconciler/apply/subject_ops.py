"""The write a Schema Registry subject change asks for, read from the plan's payloads alone
(``reconciler.kinds.schema_subject.payload.change_of``): the change the kind's apply carries out."""

from __future__ import annotations

import dataclasses

from reconciler.apply.preflight import CannotDecode
from reconciler.kinds.schema_subject import payload
from reconciler.kinds.schema_subject.diff import SubjectChange
from reconciler.model import plans


@dataclasses.dataclass(frozen=True, slots=True)
class WriteSubject:
    """A subject's level, mode or new version (``SCHEMA_SUBJECT``), or its delete (``SCHEMA_SUBJECT_DELETE``)."""

    change: SubjectChange


def decode(c: plans.Change) -> WriteSubject:
    """The subject write ``c`` describes; ``CannotDecode`` when its payloads are not a subject's."""
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

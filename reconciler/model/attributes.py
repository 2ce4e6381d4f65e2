"""The lines a change shows (``AttributeChange``) and what deriving them from a change's payloads needs besides
(``Writing``): the vocabulary each payload type's ``shown`` member speaks (``reconciler.model.shown.derive``).

It sits below the payload types so that each of them can derive its own change's lines, and ``shown`` can ask the
payload for them without knowing its kind."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

REDACTED = "(sensitive value)"
MASKED = "(masked by Kafka Connect)"  # a live connector value the worker answered masked (connect.secrets.MASKED)


class ChangeMismatch(ValueError):
    """A change whose parts disagree (a plan edited and resealed): what renders show would not be what apply writes."""


@dataclasses.dataclass(frozen=True, slots=True)
class AttributeChange:
    """One attribute of a resource: ``configs.retention.ms`` from ``before`` to ``after``.

    ``after`` is ``None`` for a reset to default; ``default`` then says what it falls back to, if known.
    """

    name: str
    before: Any
    after: Any
    default: Any = None
    sensitive: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "before": self.before,
            "after": self.after,
            "default": self.default,
            "sensitive": self.sensitive,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> AttributeChange:
        return cls(
            name=str(d["name"]),
            before=d.get("before"),
            after=d.get("after"),
            default=d.get("default"),
            sensitive=bool(d.get("sensitive", False)),
        )


class Writing(NamedTuple):
    """What a change writes besides its payloads, as its phase and action say: ``phase`` is the name of its phase
    in the plan file (``plans.Phase``: a payload type that writes differently by phase reads it, e.g. a topic's
    ``TOPIC_CREATE``, ``PARTITIONS`` and ``REASSIGN``), ``deleting`` a deletion (its ``after`` writes nothing);
    ``stored`` are the attributes the change carries (a connector's secret compared by digest is shown when they show
    it). A tuple: one is made for every change built."""

    phase: str = ""
    deleting: bool = False
    stored: Sequence[AttributeChange] = ()

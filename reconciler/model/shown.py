"""What a change shows: its attributes (``AttributeChange``), and the attributes of a config change, derived from the
config operations it carries (``config_attributes``), so the plan shows exactly what apply sends."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from reconciler.model import payloads

REDACTED = "(sensitive value)"


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


def config_attributes(
    before: Mapping[str, str | None], ops: Sequence[payloads.ConfigOp]
) -> tuple[AttributeChange, ...]:
    """What a config change shows, derived from the writes it makes (``ops``) and the configs set before: one
    ``configs.<key>`` attribute per operation, in order. The only way a config change's attributes are made, so the
    plan shows exactly what apply sends."""
    out = []
    for op in ops:
        was = before.get(op.key)
        after = op.value if op.action is payloads.ConfigAction.SET else None
        out.append(
            AttributeChange(
                name=payloads.config_attribute(op.key),
                before=was,
                after=after,
                default=op.default,
                sensitive=REDACTED in (was, after),
            )
        )
    return tuple(out)

"""The machine-readable plan: the plan file itself (see docs/plan-format.md).

``render_json(plan)`` is ``Plan.to_json()`` of the plan after a last redaction pass: the planner
never puts a secret in a plan, and this makes sure a plan built or edited by other means cannot
leak one either. For a plan from the planner the output is byte-identical to ``Plan.to_json()``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from reconciler.model import configs, payloads, plans
from reconciler.render import values


def _hidden(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (plans.REDACTED if v is not None and configs.is_sensitive(k) else v) for k, v in values.items()}


def _redact_configs(payload: payloads.Payload | None) -> payloads.Payload | None:
    """``payload`` with each sensitive value of the ``configs`` it holds (a topic's, a broker's, a group's or a
    client-metrics subscription's: any payload type with that field) replaced by ``plan.REDACTED``."""
    if isinstance(payload, payloads.Unreadable):  # a plan file's data kept as written: redacted all the same
        raw = payload.raw
        if isinstance(raw, dict) and isinstance(raw.get("configs"), dict):
            return dataclasses.replace(payload, raw={**raw, "configs": _hidden(raw["configs"])})
        return payload
    held = getattr(payload, "configs", None)
    if isinstance(held, Mapping) and dataclasses.is_dataclass(payload) and not isinstance(payload, type):
        redacted: payloads.Payload = dataclasses.replace(payload, configs=_hidden(held))
        return redacted
    return payload


def _redact_attribute(attr: plans.AttributeChange) -> plans.AttributeChange:
    if not values.is_secret(attr):
        return attr

    def hide(value: Any) -> Any:
        return None if value is None else plans.REDACTED

    return dataclasses.replace(
        attr, before=hide(attr.before), after=hide(attr.after), default=hide(attr.default), sensitive=True
    )


def redacted(result: plans.Plan) -> plans.Plan:
    """The plan with every sensitive attribute and sensitive config value replaced by ``plan.REDACTED``."""
    changes = tuple(
        dataclasses.replace(
            c,
            before=_redact_configs(c.before),
            after=_redact_configs(c.after),
            attributes=tuple(_redact_attribute(a) for a in c.attributes),
        )
        for c in result.changes
    )
    return dataclasses.replace(result, changes=changes)


def render_json(result: plans.Plan) -> str:
    """The plan file text (indented JSON with a checksum), secrets redacted."""
    return redacted(result).to_json()


# The name the CLI calls.
render = render_json

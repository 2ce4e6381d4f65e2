"""The plan payload of a Kafka Connect connector (``reconciler.model.payloads`` lists it with the other kinds), and
what a connector change shows, derived from its payloads (``connector_attributes``, ``ConnectorPayload.shown``).

It lives in a module of its own so that ``payloads`` stays readable; ``from_dict`` raises ``PayloadError``
(``payloads.decode`` keeps a payload that does not fit as ``Unreadable``, naming the problem).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from reconciler.model import connector_defaults, connector_offsets
from reconciler.model.attributes import MASKED, REDACTED, AttributeChange, Writing
from reconciler.model.kinds import Kind
from reconciler.model.payload_errors import PayloadError, fields
from reconciler.model.payload_types import of_kind

CONNECTOR_STATES = ("running", "paused", "stopped", "failed", "unassigned", "restarting")  # Connect's, lower-case
_FAILED = re.compile(r"^(connector|task \d+)(: [^\n]*)?$")  # a failed part, with its trace's first line
_SECRET_REF = re.compile(
    r"^(env:[A-Za-z_][A-Za-z0-9_]*|file:.+|\(sensitive value\)|\(masked by Kafka Connect\))$", re.S
)


@of_kind(Kind.CONNECTOR)
@dataclasses.dataclass(frozen=True, slots=True)
class ConnectorPayload:
    """A Kafka Connect connector: ``config`` as Connect's strings (``connector.class`` and ``tasks.max`` included)
    without its secrets; ``secrets`` maps each secret key to its reference (``env:NAME``, ``file:/path``; the live
    side, ``plans.REDACTED``, or ``(masked by Kafka Connect)`` for a value the worker masks), never a value;
    ``state`` lower-case (``running``, ``paused``, ``stopped``, or a live ``failed``/``unassigned``);
    ``reset_offsets`` asks a create to reset the offsets Connect kept under the name;
    ``failed`` (the live side) lists what Connect reports FAILED, ``connector`` or ``task <id>``, each with the first
    line of its trace (``task 0: java.io.IOException: ...``).

    ``from_dict`` checks every value as strictly as the manifest: a class, a whole ``tasks.max`` >= 1, string
    values, a known state, secret references only."""

    config: Mapping[str, str]
    state: str = "running"
    secrets: Mapping[str, str] = dataclasses.field(default_factory=dict)
    reset_offsets: bool = False
    failed: tuple[str, ...] = ()
    offsets: tuple[tuple[str, str], ...] = ()  # (partition, offset) canonical JSON: declared, or read when altered

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"config": dict(self.config), "state": self.state}
        if self.secrets:
            out["secrets"] = dict(self.secrets)
        if self.reset_offsets:
            out["reset_offsets"] = True
        if self.failed:
            out["failed"] = list(self.failed)
        if self.offsets:
            out["offsets"] = [{"partition": json.loads(p), "offset": json.loads(o)} for p, o in self.offsets]
        return out

    @classmethod
    def from_dict(cls, data: Any) -> ConnectorPayload:
        d = fields(data, ("config", "state", "secrets", "reset_offsets", "failed", "offsets"))
        config = d.get("config")
        if not isinstance(config, Mapping) or not all(isinstance(v, str) for v in config.values()):
            raise PayloadError("the connector's config is not an object of text values")
        if not config.get("connector.class"):
            raise PayloadError("the connector's config has no connector.class")
        tasks = config.get("tasks.max")
        if tasks is not None and (not tasks.isdigit() or not 1 <= int(tasks) <= 2147483647):
            raise PayloadError(f"the connector's tasks.max {tasks!r} is not a whole number in 1..2147483647")
        state_ = d.get("state")
        if state_ not in CONNECTOR_STATES:
            raise PayloadError(f"the connector's state {state_!r} is not one of {', '.join(CONNECTOR_STATES)}")
        secrets = d.get("secrets", {})
        if not isinstance(secrets, Mapping) or not all(
            isinstance(v, str) and _SECRET_REF.match(v) for v in secrets.values()
        ):
            raise PayloadError("the connector's secrets are not references (env:NAME, file:path)")
        if set(secrets) & set(config):
            raise PayloadError("the connector names a key both in its config and in its secrets")
        reset = d.get("reset_offsets", False)
        if not isinstance(reset, bool):
            raise PayloadError("the connector's reset_offsets is not true or false")
        failed = d.get("failed", [])
        if not isinstance(failed, list) or not all(isinstance(f, str) and _FAILED.match(f) for f in failed):
            raise PayloadError("the connector's failed parts are not 'connector: ...' or 'task <id>: ...' lines")
        offsets = d.get("offsets", [])
        if not isinstance(offsets, list) or not all(
            isinstance(e, Mapping)
            and set(e) == {"partition", "offset"}
            and isinstance(e["partition"], Mapping)
            and e["partition"]
            and (e["offset"] is None or isinstance(e["offset"], Mapping))
            for e in offsets
        ):
            raise PayloadError("the connector's offsets are not a list of {partition: object, offset: object or null}")
        return cls(
            {str(k): v for k, v in config.items()},
            state_,
            {str(k): v for k, v in secrets.items()},
            reset,
            tuple(failed),
            connector_offsets.declared((e["partition"], e["offset"]) for e in offsets),
        )

    @classmethod
    def shown(
        cls, before: ConnectorPayload | None, after: ConnectorPayload | None, writing: Writing
    ) -> tuple[AttributeChange, ...] | None:
        """What a connector change shows (``connector_attributes``); a secret compared by digest when the change's
        stored attributes show it changed."""
        return connector_attributes(
            before, None if writing.deleting else after, secrets_changed=_secrets_shown(writing.stored)
        )


CONNECTOR_CONFIG = "config."  # a connector config key's attribute name: ``config.file``
OFFSETS = "offsets"  # a connector's declared offsets set (KIP-875)
RESTART, RESTART_AFTER = "restart", "restart what failed"  # a connector declared running that Connect reports FAILED
_RUNNING_AGAIN = ("failed", "unassigned")  # live states a declared ``running`` restarts from without a state write


def connector_attributes(
    before: ConnectorPayload | None,
    after: ConnectorPayload | None,
    *,
    secrets_changed: Iterable[str] = (),
) -> tuple[AttributeChange, ...]:
    """What a connector change shows, from the live connector (``before``) and the one apply writes (``after``;
    ``None`` for a deletion, which shows nothing): each config key whose value differs, each secret key shown only as
    changed, and the state. A created connector lists its config, then its secrets, then its state; an updated one
    every differing key in key order (a key Connect defaults, ``tasks.max``, compared as Connect runs it), then the
    state, then a ``restart`` when ``after`` is running and ``before`` lists FAILED parts.

    A secret's value is compared by digest when the plan is made, which its payload does not hold (both sides show
    ``plans.REDACTED``): a secret key that is a secret on both sides is shown when it is in ``secrets_changed``; one
    that was not a secret before is always shown."""
    if after is None:
        return ()
    changed = frozenset(secrets_changed)
    if before is None:
        out = [AttributeChange(CONNECTOR_CONFIG + k, None, v) for k, v in sorted(after.config.items())]
        out += [AttributeChange(CONNECTOR_CONFIG + k, None, REDACTED, sensitive=True) for k in sorted(after.secrets)]
        out.append(AttributeChange("state", None, after.state))
        return (*out, *offsets_attributes(None, after))
    out = []
    keys = set(after.config.keys() | after.secrets.keys() | before.config.keys() | before.secrets.keys())
    if connector_offsets.RECORD_KEY not in after.config:  # no offsets declared: a record left by an earlier one
        keys.discard(connector_offsets.RECORD_KEY)  # is kept as it is, not shown as removed
    for key in sorted(keys):
        hidden = key in before.secrets
        masked = before.secrets.get(key) == MASKED  # the worker answered a mask: comparable only as a secret
        old = REDACTED if hidden else connector_defaults.value(before.config, key)  # tasks.max left out: 1
        if key in after.secrets:
            if not hidden or key in changed:
                was = None if old is None else REDACTED
                out.append(AttributeChange(CONNECTOR_CONFIG + key, was, REDACTED, sensitive=True))
            continue
        new = after.config.get(key)
        if new != old and not (masked and new is not None):
            out.append(AttributeChange(CONNECTOR_CONFIG + key, old, new, sensitive=hidden))
    if before.state != after.state and not (after.state == "running" and before.state in _RUNNING_AGAIN):
        out.append(AttributeChange("state", before.state, after.state))
    out += offsets_attributes(before, after)
    if after.state == "running" and before.failed:
        out.append(restart_attribute(before.failed))
    return tuple(out)


def alters_offsets(before: ConnectorPayload | None, after: ConnectorPayload) -> bool:
    """Whether a connector change sets the declared offsets: declared, and their digest is not the one recorded on
    the live connector (``connector_offsets``)."""
    record = connector_offsets.RECORD_KEY
    return bool(after.offsets) and (before is None or before.config.get(record) != after.config.get(record))


def offsets_attributes(before: ConnectorPayload | None, after: ConnectorPayload) -> tuple[AttributeChange, ...]:
    """The ``offsets`` line of a change that sets the declared offsets: those Connect holds (read by the plan) and
    those declared."""
    if not alters_offsets(before, after):
        return ()
    return (
        AttributeChange(
            OFFSETS,
            None if before is None else connector_offsets.shown(before.offsets),
            connector_offsets.shown(after.offsets),
        ),
    )


def restart_attribute(failed: Sequence[str]) -> AttributeChange:
    """The ``restart`` line of a connector declared running that Connect reports FAILED (``ConnectorPayload.failed``:
    the connector or a task, each with its trace's first line): apply restarts only what failed."""
    parts = (part.replace(":", " FAILED:", 1) if ":" in part else f"{part} FAILED" for part in failed)
    return AttributeChange(RESTART, "; ".join(parts), RESTART_AFTER)


def _secrets_shown(attributes: Sequence[AttributeChange]) -> frozenset[str]:
    """The config keys a connector change's stored attributes show as a changed secret."""
    return frozenset(
        a.name.removeprefix(CONNECTOR_CONFIG)
        for a in attributes
        if a.sensitive and a.after == REDACTED and a.name.startswith(CONNECTOR_CONFIG)
    )

"""What a change shows: its attributes (``AttributeChange``), derived from the data apply writes (``derive``).

Each payload type derives its own change's attributes (its ``shown`` member): a config change shows its config
operations (``config_attributes``), a quota change the values it sets and removes (``quota_attributes``), a topic
creation the topic it creates (``create_attributes``), a SCRAM change the credentials it sets and removes and the
password reference (``scram_attributes``), a reassignment the replicas it moves (``reassign_attributes``), a
connector change the config keys and state it writes (``connector_attributes``): the planner builds these changes'
attributes with the same functions, and a plan file whose stored attributes differ is refused on load, so ``show``
prints exactly what apply sends. ``derive`` asks the payload, never its kind. A topic deletion's lines about the data
it destroys are checked against its ``before`` the same way (``check``, by the payload type's own ``check``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reconciler.model import payloads
from reconciler.model.attributes import MASKED as MASKED
from reconciler.model.attributes import REDACTED as REDACTED
from reconciler.model.attributes import AttributeChange as AttributeChange
from reconciler.model.attributes import ChangeMismatch as ChangeMismatch
from reconciler.model.attributes import Writing as Writing
from reconciler.model.config_payload import config_attributes as config_attributes
from reconciler.model.connector_payload import CONNECTOR_CONFIG as CONNECTOR_CONFIG
from reconciler.model.connector_payload import OFFSETS as OFFSETS
from reconciler.model.connector_payload import RESTART as RESTART
from reconciler.model.connector_payload import RESTART_AFTER as RESTART_AFTER
from reconciler.model.connector_payload import alters_offsets as alters_offsets
from reconciler.model.connector_payload import connector_attributes as connector_attributes
from reconciler.model.connector_payload import offsets_attributes as offsets_attributes
from reconciler.model.connector_payload import restart_attribute as restart_attribute
from reconciler.model.payloads import create_attributes as create_attributes
from reconciler.model.payloads import quota_attributes as quota_attributes
from reconciler.model.payloads import reassign_attributes as reassign_attributes
from reconciler.model.payloads import scram_attributes as scram_attributes


def check(
    address: str,
    before: payloads.Payload | None,
    after: payloads.Payload | None,
    writing: Writing,
    lines: Sequence[str],
) -> None:
    """A change's reasons and warnings (``lines``) state only what its data holds, for a payload type that says what
    its lines may state (its ``check``: a topic deletion's lines about the data it destroys); ``ChangeMismatch``
    naming the change otherwise."""
    present = after if after is not None else before
    checking = getattr(type(present), "check", None)
    if present is None or checking is None:
        return
    wrong = checking(address, before if isinstance(before, type(present)) else None, writing, lines)
    if wrong is not None:
        raise ChangeMismatch(f"the change at {address!r} {wrong}")


def derive(
    before: payloads.Payload | None,
    after: payloads.Payload | None,
    writing: Writing,
) -> tuple[AttributeChange, ...] | None:
    """The attributes a change shows, from its data (its payload type's ``shown``), for the changes whose data says
    everything they write (config changes, quota changes, topic creations, partitions added, SCRAM changes,
    reassignments, connectors, subjects); ``None`` for the others (a blocked reassignment writes nothing and has no
    ``after``) and for data a plan file holds unreadable. ``writing`` is what the change's phase and action say it
    writes; its ``stored`` are the attributes the change carries: a connector's secret compared by digest is shown
    when they show it (``connector_attributes``)."""
    if isinstance(before, payloads.Unreadable) or isinstance(after, payloads.Unreadable):
        return None
    present = after if after is not None else before
    if present is None:
        return None
    of: Any = type(present)
    derived: tuple[AttributeChange, ...] | None = of.shown(before if isinstance(before, of) else None, after, writing)
    return derived

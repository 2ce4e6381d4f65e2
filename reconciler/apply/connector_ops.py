"""The typed operations of connector changes, decoded once from the plan (``reconciler.apply.decoded`` registers them).

``WriteConnector`` holds what the connector should be: its config without secrets, each secret's reference (resolved
only when sent), its declared state, whether a create resets the offsets Connect kept under its name, and whether
what Connect reported FAILED (the change's ``before``) is restarted, for a connector declared running. What is
sent for it depends on the live connector read right before the writes (``connector_phases``): nothing that is
already as declared. ``DeleteConnector`` names the connector to delete.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from reconciler.apply import preflight
from reconciler.model import connect_clusters, payloads, plans, shown, state


def _cannot(message: str) -> Exception:
    return preflight.CannotDecode(message)


@dataclasses.dataclass(frozen=True, slots=True)
class WriteConnector:
    """A connector to hold: ``config`` (Connect's strings), ``secrets`` (key -> reference), ``state``."""

    name: str
    config: Mapping[str, str]
    secrets: Mapping[str, str]
    state: str
    reset_offsets: bool = False
    restart: bool = False  # Connect reported a part FAILED at plan time: restart what is still FAILED
    offsets: tuple[tuple[str, str], ...] = ()  # declared offsets to set (stop, alter, put back in its state)


@dataclasses.dataclass(frozen=True, slots=True)
class DeleteConnector:
    """The change's connector, to delete (its offsets stay with Connect)."""

    name: str


def write(c: plans.Change) -> WriteConnector:
    """The ``CONNECTOR`` phase's operation: a create or an update to the declared config and state."""
    if c.action is plans.Action.DELETE:
        raise _cannot(f"{c.address}: a connector delete belongs to the connector delete phase")
    _check_name(c)
    after = c.after
    if not isinstance(after, payloads.ConnectorPayload):
        raise _cannot(f"{c.address}: the plan does not describe the connector")
    if after.state not in state.CONNECTOR_STATES:
        raise _cannot(f"{c.address}: {after.state!r} is not a state a connector can be put in")
    if any(v in (plans.REDACTED, shown.MASKED) for v in after.secrets.values()):
        raise _cannot(f"{c.address}: a secret of the connector names no reference")
    before = c.before if isinstance(c.before, payloads.ConnectorPayload) else None
    restart = before is not None and bool(before.failed) and after.state == "running"
    offsets = after.offsets if shown.alters_offsets(before, after) else ()
    return WriteConnector(
        c.name,
        dict(after.config),
        dict(after.secrets),
        after.state,
        after.reset_offsets,
        restart=restart,
        offsets=offsets,
    )


def delete(c: plans.Change) -> DeleteConnector:
    """The ``CONNECTOR_DELETE`` phase's operation."""
    if c.action is not plans.Action.DELETE:
        raise _cannot(f"{c.address}: only deletes belong to the connector delete phase")
    _check_name(c)
    return DeleteConnector(c.name)


def _check_name(c: plans.Change) -> None:
    """A plan file's connector key, checked as the manifest's name and connectCluster are."""
    problem = connect_clusters.key_problem(c.name)
    if problem is not None:
        raise _cannot(f"{c.address}: {problem}")

"""A connector's write: the typed operation decoded once from the plan (both phases' ``decode``), and the requests it
sends given the live connector read right before the writes.

``WriteConnector`` holds what the connector should be: its config without secrets, each secret's reference (resolved
only when sent), its declared state, whether a create resets the offsets Connect kept under its name, and whether
what Connect reported FAILED (the change's ``before``) is restarted, for a connector declared running.
``DeleteConnector`` names the connector to delete.

What ``write_one`` sends depends on the live connector (``phases``): nothing already as declared is sent (an
identical config PUT restarts the connector). A missing connector is created in its declared state, or stopped when
its offsets are reset or set first; an existing one whose declared offsets changed is stopped and its offsets set;
then a config that differs is PUT whole, a state that differs is changed, and what Connect still reports FAILED of a
connector declared running is restarted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from reconciler.apply import preflight
from reconciler.connect import secrets as connect_secrets
from reconciler.connect.port import ConnectPort
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


def write_one(
    port: ConnectPort,
    w: WriteConnector,
    config: dict[str, str],
    have: state.ConnectorState | None,
    *,
    deadline: float,
) -> str:
    """Send what ``w`` needs (``config``: what to send, secrets resolved); what was done (the item's message)."""
    if have is None:
        initial = "stopped" if w.reset_offsets or w.offsets else w.state
        port.create(w.name, config, initial_state=initial, deadline=deadline, secret_keys=w.secrets)
        if initial == w.state:
            return f"created {w.state}"
        done = ["created stopped"]
        if w.reset_offsets:
            port.reset_offsets(w.name, deadline=deadline)
            done.append("offsets reset")
        if w.offsets:
            port.alter_offsets(w.name, w.offsets, deadline=deadline)
            done.append(f"offsets set ({len(w.offsets)} partition(s))")
        if w.state != "stopped":
            port.set_state(w.name, w.state, deadline=deadline)
        return ", ".join(done) + f", then {w.state}"
    done = []
    live_state = have.state.lower()
    if w.offsets:  # Connect alters the offsets of a STOPPED connector only
        if live_state != "stopped":
            port.set_state(w.name, "stopped", deadline=deadline)
            done.append(f"{live_state} -> stopped")
            live_state = "stopped"
        port.alter_offsets(w.name, w.offsets, deadline=deadline)
        done.append(f"offsets set ({len(w.offsets)} partition(s))")
    if not connect_secrets.same_config(w.name, config, have.config, w.secrets):
        port.put_config(w.name, config, deadline=deadline, secret_keys=w.secrets)
        done.append("config written")
    if live_state != w.state:
        port.set_state(w.name, w.state, deadline=deadline)
        done.append(f"{live_state} -> {w.state}")
    failed = restarted(w, have)
    if failed:
        port.restart_failed(w.name, deadline=deadline)
        done.append(f"restarted what failed ({', '.join(failed)})")
    return ", ".join(done) or "already as declared"


def restarted(w: WriteConnector, have: state.ConnectorState | None) -> list[str]:
    """What a restart of ``w`` restarts: the parts Connect still reports FAILED (read right before the writes)."""
    if not w.restart or have is None:
        return []
    return ([] if have.state != "FAILED" else ["connector"]) + [
        f"task {t.id}" for t in have.tasks if t.state == "FAILED"
    ]

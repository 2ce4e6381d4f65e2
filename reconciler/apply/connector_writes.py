"""The requests one connector's write sends, given the live connector read right before the writes.

Nothing already as declared is sent (an identical config PUT restarts the connector). A missing connector is
created in its declared state, or stopped when its offsets are reset or set first; an existing one whose declared
offsets changed is stopped and its offsets set; then a config that differs is PUT whole, a state that differs is
changed, and what Connect still reports FAILED of a connector declared running is restarted.
"""

from __future__ import annotations

from reconciler.apply import connector_ops
from reconciler.connect import secrets as connect_secrets
from reconciler.connect.port import ConnectPort
from reconciler.model import state


def write_one(
    port: ConnectPort,
    w: connector_ops.WriteConnector,
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


def restarted(w: connector_ops.WriteConnector, have: state.ConnectorState | None) -> list[str]:
    """What a restart of ``w`` restarts: the parts Connect still reports FAILED (read right before the writes)."""
    if not w.restart or have is None:
        return []
    return ([] if have.state != "FAILED" else ["connector"]) + [
        f"task {t.id}" for t in have.tasks if t.state == "FAILED"
    ]

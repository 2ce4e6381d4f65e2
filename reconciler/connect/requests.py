"""Kafka Connect's REST requests, built in one place: method, path (a connector name is one encoded segment), body.

Each builder returns a ``Request``. A connector name goes into its path as one segment with every reserved
character encoded (``/``, ``%``, ``?``, ``#``, spaces), and a plugin class likewise. ``route`` reads a path back into
the template it calls (``/connectors/{name}/config``), its decoded names and its query: the port's request counts
and the in-memory fake worker (``tests/support/connect_fake.py``) both go through it, so the port and the fake
cannot disagree about a path.
"""

from __future__ import annotations

import dataclasses
import urllib.parse
from collections.abc import Mapping
from typing import Any

from reconciler.base.paths import Routes

STATE_ACTIONS = {"running": "resume", "paused": "pause", "stopped": "stop"}
INITIAL_STATES = ("RUNNING", "PAUSED", "STOPPED")


@dataclasses.dataclass(frozen=True, slots=True)
class Request:
    """One REST request: ``path`` includes the query string; ``body`` is JSON-ready (``None``: no body)."""

    method: str
    path: str
    body: Any = None

    @property
    def endpoint(self) -> str:
        return endpoint(self.method, self.path)

    @property
    def is_write(self) -> bool:
        return self.method != "GET" and not self.path.endswith("/config/validate")


def quote(name: str) -> str:
    """A connector name (or plugin class) as one path segment."""
    return urllib.parse.quote(name, safe="")


def _query(**params: Any) -> str:
    kept = [(k, "true" if v is True else str(v)) for k, v in params.items() if v not in (None, False)]
    return "?" + urllib.parse.urlencode(kept) if kept else ""


# ------------------------------------------------------------------------------------------------ reads
def list_connectors(*, expand: tuple[str, ...] = ("info", "status")) -> Request:
    """Every connector, with its config (``info``) and its state and tasks (``status``), in one request."""
    return Request("GET", "/connectors" + ("?" + "&".join(f"expand={e}" for e in expand) if expand else ""))


def list_plugins() -> Request:
    return Request("GET", "/connector-plugins" + _query(connectorsOnly=True))


def get_config(name: str) -> Request:
    return Request("GET", f"/connectors/{quote(name)}/config")


def task_configs(name: str) -> Request:
    """The config of each task as Connect last generated it."""
    return Request("GET", f"/connectors/{quote(name)}/tasks")


def get_offsets(name: str) -> Request:
    return Request("GET", f"/connectors/{quote(name)}/offsets")


def validate(config: Mapping[str, str], *, name: str) -> Request:
    """A dry run of ``config`` by its plugin (``connector.class``)."""
    return Request(
        "PUT", f"/connector-plugins/{quote(config['connector.class'])}/config/validate", {**config, "name": name}
    )


# ----------------------------------------------------------------------------------------------- writes
def create(name: str, config: Mapping[str, str], *, initial_state: str) -> Request:
    state = initial_state.upper()
    if state not in INITIAL_STATES:
        raise ValueError(f"initial state {initial_state!r} is not one of {', '.join(INITIAL_STATES)}")
    return Request("POST", "/connectors", {"name": name, "config": dict(config), "initial_state": state})


def put_config(name: str, config: Mapping[str, str]) -> Request:
    return Request("PUT", f"/connectors/{quote(name)}/config", dict(config))


def set_state(name: str, target: str) -> Request:
    """Pause, resume or stop (``target``: running, paused, stopped)."""
    return Request("PUT", f"/connectors/{quote(name)}/{STATE_ACTIONS[target]}")


def restart(name: str, *, include_tasks: bool = True, only_failed: bool = True) -> Request:
    """KIP-745's restart: by default what Connect reports FAILED, the connector and its tasks."""
    return Request(
        "POST", f"/connectors/{quote(name)}/restart" + _query(includeTasks=include_tasks, onlyFailed=only_failed)
    )


def delete(name: str) -> Request:
    return Request("DELETE", f"/connectors/{quote(name)}")


def reset_offsets(name: str) -> Request:
    return Request("DELETE", f"/connectors/{quote(name)}/offsets")


def alter_offsets(name: str, body: Mapping[str, Any]) -> Request:
    return Request("PATCH", f"/connectors/{quote(name)}/offsets", dict(body))


# -------------------------------------------------------------------------------------------- endpoints
_PATTERNS = (
    ("/connectors", ()),
    ("/connectors/{name}", ("name",)),
    ("/connectors/{name}/config", ("name",)),
    ("/connectors/{name}/status", ("name",)),
    ("/connectors/{name}/tasks", ("name",)),
    ("/connectors/{name}/offsets", ("name",)),
    ("/connectors/{name}/restart", ("name",)),
    ("/connectors/{name}/pause", ("name",)),
    ("/connectors/{name}/resume", ("name",)),
    ("/connectors/{name}/stop", ("name",)),
    ("/connector-plugins", ()),
    ("/connector-plugins/{name}/config/validate", ("name",)),
)
_ROUTES = Routes(_PATTERNS)
route = _ROUTES.route  # the template a path matches, its decoded names and its query pairs ("?": unknown path)
endpoint = _ROUTES.endpoint  # "PUT /connectors/{name}/config": what a request calls, without names (for counts)

"""Whether a standalone Spark master answers, asked before Spark is started for a fleet plan.

A standalone master that is not there costs Spark a minute to say so: its application client tries to register
three times, 20 s apart (constants in Spark's ``StandaloneAppClient``, no setting), then gives up with "All masters
are unresponsive". ``check_reachable`` opens a TCP connection to each address of a ``spark://`` master URL
(``addresses``: one, or several for a master with standby masters, ``spark://h1:7077,h2:7077``) within a few seconds
and the run's deadline, and when none accepts raises ``ConfigError`` naming each address and why, before any JVM is
started. One that accepts is closed at once and Spark is started as before; what it then finds is Spark's to say.
Other masters (``local``, ``yarn``, ``k8s://``, a URL Spark rejects) are not checked here.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Mapping
from urllib.parse import urlsplit

from reconciler.base import errors

CONNECT_S = 5.0  # a master's port that has not accepted a TCP connection by then is taken as not answering
MASTER_SETTING = "spark.master"


def addresses(master: str) -> list[tuple[str, int]]:
    """The (host, port) pairs of a ``spark://`` master URL; empty for any other master, and for a URL Spark would
    reject itself (an address without a port), which Spark then names."""
    if not master.startswith("spark://"):
        return []
    found: list[tuple[str, int]] = []
    for part in master[len("spark://") :].split(","):
        try:
            split = urlsplit(f"spark://{part.strip()}")
            host, port = split.hostname, split.port
        except ValueError:  # a port that is not a number, or out of range
            return []
        if not host or port is None:
            return []
        found.append((host, port))
    return found


def _why(exc: OSError) -> str:
    if isinstance(exc, socket.gaierror):
        return "its host name does not resolve"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, TimeoutError | socket.timeout):
        return "no answer to the connection"
    return exc.strerror or type(exc).__name__


def check_reachable(
    master: str | None, *, conf: Mapping[str, str] | None = None, deadline_at: float | None = None
) -> None:
    """Raise ``ConfigError`` when a ``spark://`` master (``master``, else ``conf``'s ``spark.master``) has no address
    that accepts a TCP connection within ``CONNECT_S`` and ``deadline_at`` (epoch seconds); return when one does, or
    when the master is not a standalone one."""
    chosen = master or (conf or {}).get(MASTER_SETTING)
    if chosen is None:
        return
    wanted = addresses(chosen)
    if not wanted:
        return
    failures: list[str] = []
    for host, port in wanted:
        left = CONNECT_S if deadline_at is None else min(CONNECT_S, deadline_at - time.time())
        if left <= 0:
            failures.append(f"{host}:{port} (not tried: the run's time limit was reached)")
            continue
        try:
            with socket.create_connection((host, port), timeout=left):
                return
        except OSError as exc:
            failures.append(f"{host}:{port} ({_why(exc)})")
    raise errors.ConfigError(
        f"cannot start Spark on {chosen}: no Spark master answers at {', '.join(failures)}; nothing was started "
        '(is the master running there? its log names the URL it listens on: "Starting Spark master at spark://...")'
    )

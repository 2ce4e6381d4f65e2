"""Who holds (or wants) the cluster's apply lock: the record each member of the lock's group registers as its
metadata (``reconciler.kafka.lock``), and the one a waiting or refused apply names."""

from __future__ import annotations

import dataclasses
import datetime
import getpass
import json
import os
import socket
import uuid


@dataclasses.dataclass(frozen=True, slots=True)
class Holder:
    """Who holds (or wants) the lock: the record each member registers as its group metadata."""

    host: str
    pid: int
    user: str
    started: str  # UTC, ISO 8601, to the second
    plan: str
    token: str  # unique to this apply: tells the holder's own record from another's

    def to_bytes(self) -> bytes:
        return json.dumps(dataclasses.asdict(self), sort_keys=True).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes | None) -> Holder | None:
        try:
            record = json.loads(bytes(data or b"").decode("utf-8"))
            return cls(
                host=str(record["host"]),
                pid=int(record["pid"]),
                user=str(record["user"]),
                started=str(record["started"]),
                plan=str(record["plan"]),
                token=str(record["token"]),
            )
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            return None

    def describe(self) -> str:
        return f"pid {self.pid} on host {self.host}, user {self.user}, started {self.started} ({self.plan})"

    def gone(self) -> bool:
        """Whether this holder is known dead: it ran on this host and its process no longer exists (a killed
        apply, whose membership the coordinator ends only at the session timeout). ``False`` when unsure."""
        if self.host != socket.gethostname():
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except OSError:  # it exists (another user's process): alive as far as this process can tell
            return False
        return False


def this_process(plan: str) -> Holder:
    """The record of this process, applying ``plan`` (a few words naming the plan)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "(unknown user)"
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return Holder(host=socket.gethostname(), pid=os.getpid(), user=user, started=now, plan=plan, token=uuid.uuid4().hex)

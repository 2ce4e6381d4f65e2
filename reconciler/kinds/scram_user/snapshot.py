"""The SCRAM users' section of a snapshot document (``SNAPSHOT``, the kind's ``snapshot`` part): each user's
credentials, mechanism and iterations only (``null`` when not read; Kafka never returns a password), and each user's
credentials as ``diff A B`` compares them."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from reconciler.kinds.spec import SnapshotSection
from reconciler.model import state
from reconciler.model.kinds import Kind


def _write_scram_users(live: state.ClusterState) -> dict[str, Any]:
    return {
        "scram_users": None
        if live.scram_users is None
        else {
            u: [dataclasses.asdict(c) for c in sorted(creds, key=lambda c: c.mechanism)]
            for u, creds in sorted(live.scram_users.items())
        }
    }


def _read_scram_users(doc: Mapping[str, Any]) -> dict[str, Any]:
    found = doc.get("scram_users")
    if found is None:
        return {"scram_users": None}
    return {
        "scram_users": {
            u: tuple(state.ScramCredential(str(c["mechanism"]), int(c["iterations"])) for c in creds)
            for u, creds in found.items()
        }
    }


SNAPSHOT = SnapshotSection(
    order=50,
    write=_write_scram_users,
    read=_read_scram_users,
    resources=lambda live: {
        Kind.SCRAM_USER.address(user): {c.mechanism: {"iterations": c.iterations} for c in creds}
        for user, creds in (live.scram_users or {}).items()
    },
)

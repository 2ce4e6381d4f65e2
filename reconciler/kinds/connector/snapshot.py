"""The connectors' section of a snapshot document (``SNAPSHOT``, the kind's ``snapshot`` part): what the Kafka
Connect clusters hold (``reconciler.model.connect_snapshot``), left out when Connect was not read; each connector's
config as read (a secret only as its digest) and target state as ``diff A B`` compares them, and the Connect clusters
of several that could not be read as parts not read."""

from __future__ import annotations

from reconciler.kinds.spec import SnapshotSection
from reconciler.model import connect_snapshot, state
from reconciler.model.kinds import Kind


def _unreachable(live: state.ClusterState) -> dict[str, tuple[str, str]]:
    """The Kafka Connect clusters of several that could not be read: their connectors are not known."""
    down = {} if live.connect is None else live.connect.unreachable
    return {
        c: (f"{Kind.CONNECTOR.prefix}{c}/", f"{Kind.CONNECTOR.prefix}{c}/* (Kafka Connect cluster {c} not read)")
        for c in down
    }


SNAPSHOT = SnapshotSection(
    order=90,
    write=lambda live: {} if live.connect is None else {"connect": connect_snapshot.to_dict(live.connect)},
    read=lambda doc: {"connect": connect_snapshot.from_dict(doc.get("connect"))},
    # the config as read (a secret only as its digest: shown changed, never shown) and the target state
    resources=lambda live: {
        Kind.CONNECTOR.address(name): {"config": dict(c.config), "state": c.state}
        for name, c in ({} if live.connect is None else live.connect.connectors).items()
    },
    unread_parts=_unreachable,
)

"""Which changes depend on which: a change is skipped when something it relies on failed earlier.

Kafka's admin requests are not transactional (KIP-4): independent items go ahead after a failure;
only the dependants of a failed item are skipped, each with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping

from reconciler.plan import Change, Phase

# For a change in the key phase, the phases whose failure on the same address makes it pointless.
DEPENDS_ON: dict[Phase, tuple[Phase, ...]] = {
    Phase.TOPIC_CREATE: (Phase.TOPIC_DELETE,),
    Phase.PARTITIONS: (Phase.TOPIC_DELETE, Phase.TOPIC_CREATE),
    Phase.TOPIC_CONFIG: (Phase.TOPIC_DELETE, Phase.TOPIC_CREATE),
    Phase.REASSIGN: (Phase.TOPIC_DELETE, Phase.TOPIC_CREATE, Phase.PARTITIONS),
}

_WHAT = {
    Phase.TOPIC_DELETE: "deletion",
    Phase.TOPIC_CREATE: "creation",
    Phase.PARTITIONS: "partition increase",
}


def skip_reason(change: Change, failures: Mapping[tuple[Phase, str], str]) -> str | None:
    """Why ``change`` must not be sent, given ``(phase, address) -> what went wrong`` so far; ``None`` to send it."""
    for earlier in DEPENDS_ON.get(change.phase, ()):
        why = failures.get((earlier, change.address))
        if why is not None:
            return f"skipped because the {_WHAT[earlier]} of {change.address} failed ({why})"
    return None

"""Which changes depend on which: a change is skipped when something it relies on failed earlier.

Kafka's admin requests are not transactional (KIP-4): independent items go ahead after a failure;
only the dependants of a failed item are skipped, each with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping

from reconciler.model import plans

# For a change in the key phase, the phases whose failure on the same address makes it pointless.
DEPENDS_ON: dict[plans.Phase, tuple[plans.Phase, ...]] = {
    plans.Phase.TOPIC_CREATE: (plans.Phase.TOPIC_DELETE,),
    plans.Phase.PARTITIONS: (plans.Phase.TOPIC_DELETE, plans.Phase.TOPIC_CREATE),
    plans.Phase.TOPIC_CONFIG: (plans.Phase.TOPIC_DELETE, plans.Phase.TOPIC_CREATE),
    plans.Phase.REASSIGN: (
        plans.Phase.TOPIC_DELETE,
        plans.Phase.TOPIC_CREATE,
        plans.Phase.PARTITIONS,
    ),
}

_WHAT = {
    plans.Phase.TOPIC_DELETE: "deletion",
    plans.Phase.TOPIC_CREATE: "creation",
    plans.Phase.PARTITIONS: "partition increase",
}


def skip_reason(change: plans.Change, failures: Mapping[tuple[plans.Phase, str], str]) -> str | None:
    """Why ``change`` must not be sent, given ``(phase, address) -> what went wrong`` so far; ``None`` to send it."""
    for earlier in DEPENDS_ON.get(change.phase, ()):
        why = failures.get((earlier, change.address))
        if why is not None:
            return f"skipped because the {_WHAT[earlier]} of {change.address} failed ({why})"
    return None

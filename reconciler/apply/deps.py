"""Which changes depend on which: a change is skipped when something it relies on failed earlier.

Kafka's admin requests are not transactional (KIP-4): independent items go ahead after a failure;
only the dependants of a failed item are skipped, each with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping

from reconciler import plan as plan_model

# For a change in the key phase, the phases whose failure on the same address makes it pointless.
DEPENDS_ON: dict[plan_model.Phase, tuple[plan_model.Phase, ...]] = {
    plan_model.Phase.TOPIC_CREATE: (plan_model.Phase.TOPIC_DELETE,),
    plan_model.Phase.PARTITIONS: (plan_model.Phase.TOPIC_DELETE, plan_model.Phase.TOPIC_CREATE),
    plan_model.Phase.TOPIC_CONFIG: (plan_model.Phase.TOPIC_DELETE, plan_model.Phase.TOPIC_CREATE),
    plan_model.Phase.REASSIGN: (
        plan_model.Phase.TOPIC_DELETE,
        plan_model.Phase.TOPIC_CREATE,
        plan_model.Phase.PARTITIONS,
    ),
}

_WHAT = {
    plan_model.Phase.TOPIC_DELETE: "deletion",
    plan_model.Phase.TOPIC_CREATE: "creation",
    plan_model.Phase.PARTITIONS: "partition increase",
}


def skip_reason(change: plan_model.Change, failures: Mapping[tuple[plan_model.Phase, str], str]) -> str | None:
    """Why ``change`` must not be sent, given ``(phase, address) -> what went wrong`` so far; ``None`` to send it."""
    for earlier in DEPENDS_ON.get(change.phase, ()):
        why = failures.get((earlier, change.address))
        if why is not None:
            return f"skipped because the {_WHAT[earlier]} of {change.address} failed ({why})"
    return None

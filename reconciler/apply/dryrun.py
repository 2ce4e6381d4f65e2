"""Client-side checks for the dry run of kinds whose requests have no validateOnly flag.

ACL bindings, SCRAM credentials and partition reassignments cannot be validated by the broker
without writing, so a dry run checks them here and labels the outcome "client-side check".
Each function returns a problem description, or ``None`` when the item looks sendable.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from reconciler.apply import secrets_at_write
from reconciler.model import state

PRINCIPAL = re.compile(r"^[A-Za-z][A-Za-z0-9_]*:.+$")
SCRAM_MIN_ITERATIONS = 4096
SCRAM_MAX_ITERATIONS = 16384


def check_acl(binding: state.AclBinding, *, seen: set[state.AclBinding]) -> str | None:
    """Principal format, known enum values, and no duplicate binding in the same request."""
    problems = []
    if not PRINCIPAL.match(binding.principal):
        problems.append(f"principal {binding.principal!r} is not of the form Type:name (e.g. User:alice)")
    if binding.resource_type not in state.ACL_RESOURCE_TYPES:
        problems.append(f"unknown resource type {binding.resource_type}")
    if binding.pattern_type not in state.ACL_PATTERN_TYPES:
        problems.append(f"unknown pattern type {binding.pattern_type}")
    if binding.operation not in state.ACL_OPERATIONS:
        problems.append(f"unknown operation {binding.operation}")
    if binding.permission not in state.ACL_PERMISSIONS:
        problems.append(f"unknown permission {binding.permission}")
    if not binding.host:
        problems.append("empty host (use * for any host)")
    if binding.resource_type == "CLUSTER" and binding.resource_name != "kafka-cluster":
        problems.append("a CLUSTER binding must name the resource kafka-cluster")
    if binding in seen:
        problems.append("duplicate binding in this plan")
    seen.add(binding)
    return "; ".join(problems) or None


def check_scram(
    *, user: str, mechanism: str, iterations: int, password: object, upsert: bool, environ: Mapping[str, str] | None
) -> str | None:
    """Mechanism and iteration bounds, and (for an upsert) that the password reference resolves."""
    problems = []
    if mechanism not in state.SCRAM_MECHANISMS:
        problems.append(f"unknown SCRAM mechanism {mechanism}")
    if upsert:
        if not SCRAM_MIN_ITERATIONS <= iterations <= SCRAM_MAX_ITERATIONS:
            problems.append(f"iterations {iterations} outside {SCRAM_MIN_ITERATIONS}..{SCRAM_MAX_ITERATIONS}")
        ref = secrets_at_write.ref_from_data(password)
        if ref is None:
            problems.append("no password reference")
        else:
            try:
                secrets_at_write.resolve(ref, user=user, environ=environ)
            except secrets_at_write.SecretUnavailable as exc:
                problems.append(str(exc))
    return "; ".join(problems) or None


def check_reassignment(
    *,
    topic: str,
    targets: Mapping[int, tuple[int, ...]],
    brokers: Collection[int],
    partitions: int | None,
) -> str | None:
    """Target brokers exist, no broker twice in a replica list, partitions exist."""
    problems = []
    for p, replicas in sorted(targets.items()):
        unknown = sorted(set(replicas) - set(brokers))
        if unknown:
            problems.append(f"partition {p}: broker(s) {unknown} do not exist")
        if len(set(replicas)) != len(replicas):
            problems.append(f"partition {p}: a broker appears twice in {list(replicas)}")
        if not replicas:
            problems.append(f"partition {p}: empty replica list")
        if partitions is not None and p >= partitions:
            problems.append(f"partition {p} does not exist (topic {topic} has {partitions})")
    return "; ".join(problems) or None

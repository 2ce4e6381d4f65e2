"""Deterministic, rack-aware replica assignment for replication-factor changes.

``target_assignment`` is a pure function of the current assignment, the wanted replication factor
and the broker list. It keeps existing replicas where that does not break rack spread or balance,
spreads each partition's replicas over as many racks as it can, and balances replicas and
preferred leaders across brokers. Kafka has no public "rack-aware reassignment" to call from a
client (``kafka-reassign-partitions --generate`` lives in the broker code base and ignores the
current layout), so the algorithm is written here.

Guarantees (checked by property tests):

* every partition gets exactly ``replication_factor`` distinct brokers from ``brokers``;
* every partition spans ``min(replication_factor, number of racks)`` racks;
* a fresh assignment (no current replicas) on brokers without racks, or with racks of equal size,
  puts between ``floor`` and ``ceil`` of the average replica count and preferred-leader count on
  every broker;
* growing the replication factor of an assignment this function produced keeps every replica.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from reconciler.model import state

Assignment = tuple[tuple[int, ...], ...]


def _rack_keys(brokers: Sequence[state.Broker]) -> dict[int, str]:
    """Rack of each broker; a broker without a rack counts as a rack of its own."""
    return {b.id: b.rack if b.rack is not None else f"\x00broker-{b.id}" for b in brokers}


def _interleaved(brokers: Sequence[state.Broker], racks: dict[int, str]) -> list[int]:
    """Broker ids alternating between racks (rack-a-1, rack-b-1, rack-a-2, ...), as Kafka orders them."""
    by_rack: dict[str, list[int]] = {}
    for broker_id in sorted(racks):
        by_rack.setdefault(racks[broker_id], []).append(broker_id)
    columns = [by_rack[r] for r in sorted(by_rack)]
    out: list[int] = []
    for i in range(max((len(c) for c in columns), default=0)):
        out.extend(c[i] for c in columns if i < len(c))
    return out


def target_assignment(
    current: Sequence[Sequence[int]],
    *,
    partitions: int,
    replication_factor: int,
    brokers: Sequence[state.Broker],
) -> Assignment:
    """The replica list of each of ``partitions`` partitions at ``replication_factor``.

    ``current[p]`` is the live replica list of partition ``p`` (missing or empty for partitions not
    created yet). Raises ``ValueError`` when the replication factor is not between 1 and the number
    of brokers.
    """
    ids = sorted({b.id for b in brokers})
    if not 1 <= replication_factor <= len(ids):
        raise ValueError(f"replication factor {replication_factor} needs between 1 and {len(ids)} brokers")
    racks = _rack_keys(brokers)
    ring = _interleaved(brokers, racks)
    position = {b: i for i, b in enumerate(ring)}
    wanted_racks = min(replication_factor, len(set(racks.values())))
    replica_cap = math.ceil(partitions * replication_factor / len(ids))
    replicas_on = dict.fromkeys(ids, 0)
    existing = [
        list(dict.fromkeys(b for b in (current[p] if p < len(current) else ()) if b in replicas_on))
        for p in range(partitions)
    ]
    chosen: list[list[int]] = [[] for _ in range(partitions)]
    rack_counts: list[dict[str, int]] = [{} for _ in range(partitions)]

    def may_take(p: int, broker: int) -> bool:
        if broker in chosen[p] or len(chosen[p]) >= replication_factor:
            return False
        if rack_counts[p].get(racks[broker], 0) == 0:
            return True
        # A second replica in a used rack must leave enough slots for the racks still missing.
        missing = wanted_racks - len(rack_counts[p])
        return replication_factor - len(chosen[p]) - 1 >= missing

    def take(p: int, broker: int) -> None:
        chosen[p].append(broker)
        rack_counts[p][racks[broker]] = rack_counts[p].get(racks[broker], 0) + 1
        replicas_on[broker] += 1

    # Keep existing replicas first, for every partition, so that filling one partition cannot take
    # the room a later partition needs for its own existing replicas.
    for p in range(partitions):
        for broker in existing[p]:
            if replicas_on[broker] < replica_cap and may_take(p, broker):
                take(p, broker)
    for p in range(partitions):
        offset = (p * replication_factor) % len(ring)
        while len(chosen[p]) < replication_factor:
            best = min(
                (b for b in ring if may_take(p, b)),
                key=lambda b: (rack_counts[p].get(racks[b], 0), replicas_on[b], (position[b] - offset) % len(ring)),
            )
            take(p, best)

    return _with_leaders(chosen, existing=existing, ids=ids)


def _with_leaders(chosen: list[list[int]], *, existing: list[list[int]], ids: list[int]) -> Assignment:
    """Each partition's replicas with its leader first: the previous leader while under its fair share of leaders,
    else the replica leading fewest partitions; then leadership balanced (``_balance_leaders``)."""
    leader_cap = math.ceil(len(chosen) / len(ids))
    leaders_on = dict.fromkeys(ids, 0)
    result: list[tuple[int, ...]] = []
    for p, replicas in enumerate(chosen):
        previous_leader = existing[p][0] if existing[p] else None
        if previous_leader in replicas and leaders_on[previous_leader] < leader_cap:
            leader = previous_leader
        else:
            leader = min(replicas, key=lambda b: (leaders_on[b], replicas.index(b)))
        leaders_on[leader] += 1
        result.append((leader, *(b for b in replicas if b != leader)))
    return _balance_leaders(result, leaders_on)


def _balance_leaders(result: list[tuple[int, ...]], leaders_on: dict[int, int]) -> Assignment:
    """Move preferred leaders from the most loaded broker to a less loaded replica until no move helps."""
    improved = True
    while improved:
        improved = False
        for p, replicas in enumerate(result):
            leader = replicas[0]
            target = min(replicas[1:], key=lambda b: (leaders_on[b], replicas.index(b)), default=None)
            if target is not None and leaders_on[target] + 1 < leaders_on[leader]:
                leaders_on[leader] -= 1
                leaders_on[target] += 1
                result[p] = (target, *(b for b in replicas if b != target))
                improved = True
    return tuple(result)

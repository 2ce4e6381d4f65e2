"""Change impact on producers and consumers: min.insync.replicas against the in-sync replicas, per-key order on a
partition increase, and short specific warnings for configs whose effect needs no figures (max.message.bytes,
cleanup.policy delete -> compact, message.timestamp.type, ...). Pure; used by ``reconciler.kinds.topic.impact``.
"""

from __future__ import annotations

from collections.abc import Mapping

from reconciler.model import configs, desired, plans, state
from reconciler.model import impact as im


def effective(key: str, configs_set: Mapping[str, str | None], have: state.TopicState | None) -> str | None:
    """The value ``key`` has with ``configs_set`` on the topic: set, else the live default, else Kafka's."""
    value = configs_set.get(key)
    if value is None and have is not None:
        value = have.defaults.get(key)
    return value if value is not None else configs.topic_default(key)


def int_of(value: str | None) -> int | None:
    try:
        return None if value is None else int(value)
    except ValueError:
        return None


def _min_isr(configs_set: Mapping[str, str | None], have: state.TopicState, live: state.ClusterState) -> int:
    value = configs_set.get("min.insync.replicas") or have.defaults.get("min.insync.replicas")
    value = value or live.cluster_configs.get("min.insync.replicas") or "1"
    try:
        return int(value)
    except ValueError:
        return 1


def min_isr(
    c: plans.Change,
    want: desired.DesiredTopic,
    have: state.TopicState,
    te: im.TopicEvidence | None,
    live: state.ClusterState,
    *,
    changed: bool,
) -> list[im.TopicImpact]:
    """``acks=all`` producers that would get NOT_ENOUGH_REPLICAS: min ISR above a partition's in-sync replicas (an
    under-replicated partition when it equals the replication factor), or above the replication factor."""
    wanted = _min_isr(dict(want.configs), have, live)
    rf = want.replication_factor if c.phase is plans.Phase.REASSIGN else have.replication_factor
    if not changed and not (c.phase is plans.Phase.REASSIGN and rf < have.replication_factor):
        return []
    if wanted <= 1 and rf >= 1:
        return []

    def entry(line: str, items: tuple[str, ...] = (), unknown: str | None = None) -> list[im.TopicImpact]:
        return [im.TopicImpact(c.address, c.phase.name, im.MIN_ISR, (line,), items=items, unknown=unknown)]

    if wanted > rf:
        items = tuple(str(p) for p in range(have.partitions))
        return entry(
            f"min.insync.replicas {wanted} is above the replication factor {rf}: producers with acks=all get "
            f"NOT_ENOUGH_REPLICAS on every partition",
            items,
        )
    if te is None or not te.partitions:
        return entry(
            f"min.insync.replicas {wanted}: the in-sync replicas were not read, so whether acks=all producers "
            "would fail now is unknown",
            unknown="no in-sync replica evidence",
        )
    short = [(i, len(p.isr)) for i, p in enumerate(te.partitions) if len(p.isr) < wanted]
    if short:
        listed = ", ".join(f"{i} (ISR {n})" for i, n in short[:20]) + (" ..." if len(short) > 20 else "")
        return entry(
            f"min.insync.replicas {wanted} is above the in-sync replica count of {len(short)} partition(s): "
            f"{listed}; producers with acks=all get NOT_ENOUGH_REPLICAS on them until their replicas catch up",
            tuple(str(i) for i, _ in short),
        )
    return []  # equal to the replication factor with every replica in sync: the lint's replication-below-min-isr


def ordering(
    c: plans.Change,
    want: desired.DesiredTopic,
    have: state.TopicState,
    te: im.TopicEvidence | None,
    usage: state.TopicUsage | None,
) -> list[im.TopicImpact]:
    """A partition increase on keyed data: the default partitioner's key -> partition mapping changes."""
    compacted = "compact" in (effective("cleanup.policy", want.configs, have) or "").split(",")
    records = None
    if te is not None and te.offsets_read:
        records = sum(p.records or 0 for p in te.partitions)
    elif usage is not None:
        records = sum(o for o in usage.end_offsets if o > 0)
    groups = tuple(usage.groups) if usage is not None else ()
    keyed = compacted or (bool(records) and bool(groups))
    move = f"{have.partitions} -> {want.partitions} partitions"
    if not keyed:
        if records is None and usage is None:
            line = f"{move}: whether the topic holds keyed data read by consumer groups was not checked"
            return [im.TopicImpact(c.address, c.phase.name, im.ORDERING, (line,), unknown="no usage evidence")]
        return []
    why = "a compacted (keyed) topic" if compacted else f"a topic holding {records:,} records"
    readers = f"; consumer groups reading it: {', '.join(groups)}" if groups else ""
    line = (
        f"{move} on {why}{readers}: producers using the default partitioner (hash of the key "
        "modulo the partition count) send most keys to a different partition from now on, so records of one key "
        "are split across two partitions and per-key order across the change is lost for consumers"
    )
    return [im.TopicImpact(c.address, c.phase.name, im.ORDERING, (line,), records=records, items=groups)]


def _changed(key: str, want: desired.DesiredTopic, have: state.TopicState) -> tuple[str | None, str | None]:
    return effective(key, have.configs, have), effective(key, want.configs, have)


def notices(
    c: plans.Change, want: desired.DesiredTopic, have: state.TopicState, keys: set[str]
) -> list[im.TopicImpact]:
    """Short specific warnings for config changes whose effect needs no evidence."""
    lines = []
    if "max.message.bytes" in keys:
        before, after = (int_of(v) for v in _changed("max.message.bytes", want, have))
        if before is not None and after is not None and after < before:
            lines.append(
                f"max.message.bytes {before:,} -> {after:,}: producers sending a record batch larger than "
                f"{after:,} bytes get MESSAGE_TOO_LARGE; records already stored are still served"
            )
    if "cleanup.policy" in keys:
        before_p, after_p = (set((v or "delete").split(",")) for v in _changed("cleanup.policy", want, have))
        if "compact" in after_p and "compact" not in before_p:
            lines.append(
                "cleanup.policy now compacts: only the latest record of each key is kept (older ones are removed "
                "in the background, a null value deletes its key), and records without a key are refused"
            )
    if "message.timestamp.type" in keys:
        before_t, after_t = _changed("message.timestamp.type", want, have)
        if before_t != after_t and after_t == "LogAppendTime":
            lines.append(
                "message.timestamp.type LogAppendTime: the broker replaces producers' record timestamps with its "
                "append time; consumers, time lookups and time-based retention see broker time from now on"
            )
        elif before_t != after_t:
            lines.append(
                "message.timestamp.type CreateTime: records keep the producers' timestamps; a producer with a wrong "
                "clock moves time lookups and time-based retention of its records"
            )
    for key in (
        "message.timestamp.difference.max.ms",
        "message.timestamp.before.max.ms",
        "message.timestamp.after.max.ms",
    ):
        if key in keys:
            before, after = (int_of(v) for v in _changed(key, want, have))
            if before is not None and after is not None and after < before:
                lines.append(
                    f"{key} lowered to {after:,} ms: records whose timestamp is further from the broker's clock are "
                    "refused with INVALID_TIMESTAMP"
                )
    if "unclean.leader.election.enable" in keys and _changed("unclean.leader.election.enable", want, have)[1] == "true":
        lines.append(
            "unclean.leader.election.enable: a replica that is out of sync may become leader, losing records that "
            "producers were told were written"
        )
    return [im.TopicImpact(c.address, c.phase.name, im.NOTICE, (line,)) for line in lines]

"""Change impact: what each topic change will do to data, producers and the cluster, from the live evidence.

The topic kind's ``impact`` part (``IMPACT``, a ``reconciler.kinds.spec.KindImpact``); pure, like the rest of the
planner. ``needs`` names the topics a first plan changes that need evidence (and the retention to ask ListOffsets
about); the adapter reads it (``reconciler.kafka.evidence``) into ``ClusterState.impact``; ``assess`` turns it into
``Plan.impact`` and one ``impact: ...`` warning per finding on the change it belongs to. Without evidence (offline
without it in the snapshot, or not granted) the same findings are made with their figures unknown. Precision
(docs/plan.md): record counts of a time-based shrink are exact (ListOffsets by timestamp against the earliest offset);
bytes are estimated pro rata from partition sizes (DescribeLogDirs); under a size limit, the bytes over the limit per
partition (from the sizes) and the records they hold pro rata, rounded down. Kafka deletes whole segments (and under a
size limit only while the partition stays at or above it), so what goes at once is at most these figures, and the
entries say so (``at_most``).
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

from reconciler.kinds.spec import KindImpact
from reconciler.kinds.topic import impact_notes
from reconciler.kinds.topic.usage import age_text
from reconciler.model import desired, payloads, plans, state
from reconciler.model import impact as im

RETENTION_KEYS = ("retention.ms", "retention.bytes", "local.retention.ms", "local.retention.bytes", "cleanup.policy")
EVIDENCE_KEYS = frozenset({*RETENTION_KEYS, "min.insync.replicas", "remote.storage.enable"})
_PHASES_WITH_EVIDENCE = (plans.Phase.TOPIC_DELETE, plans.Phase.REASSIGN, plans.Phase.PARTITIONS)
# The phases whose writes change or delete an existing topic: the changes impact weighs, whatever else a plan holds.
_WEIGHED = frozenset((*_PHASES_WITH_EVIDENCE, plans.Phase.TOPIC_CONFIG))


def _limit(key: str, configs_set: Mapping[str, str | None], have: state.TopicState | None) -> int | None:
    """A retention limit in force (``None``: unlimited, or not a deleting policy for the non-local ones)."""
    if "delete" not in (impact_notes.effective("cleanup.policy", configs_set, have) or "delete").split(","):
        return None
    value = impact_notes.int_of(impact_notes.effective(key, configs_set, have))
    if key.startswith("local.") and value == -2:
        value = _limit(key.removeprefix("local."), configs_set, have)
        return value
    return None if value is None or value < 0 else value


def _shrinks(key: str, want: desired.DesiredTopic, have: state.TopicState) -> int | None:
    """The new limit when ``key`` shrinks (or starts to apply), else ``None``."""
    if (
        key.startswith("local.")
        and (impact_notes.effective("remote.storage.enable", want.configs, have) or "false") != "true"
    ):
        return None
    after = _limit(key, want.configs, have)
    before = _limit(key, have.configs, have)
    if after is None or (before is not None and after >= before):
        return None
    return after


def _config_keys(change: plans.Change) -> set[str]:
    """The config keys a change writes: a config change's typed operations, a create's declared configs."""
    after = change.after
    if isinstance(after, payloads.TopicPayload):
        if after.config_ops is not None:
            return {op.key for op in after.config_ops}
        if change.phase is plans.Phase.TOPIC_CREATE:
            return set(after.configs or {})
    return set()


def needs(
    changes: Sequence[plans.Change], wanted: desired.DesiredState, live: state.ClusterState
) -> im.EvidenceRequest:
    """The topics whose evidence ``assess`` would use, each with the retention (ms) ListOffsets is asked about."""
    out: dict[str, int | None] = {}
    topics = live.topics or {}
    for c in changes:
        if c.phase not in _WEIGHED or c.action not in (plans.Action.UPDATE, plans.Action.DELETE):
            continue
        have = topics.get(c.name)
        if have is None:
            continue
        if c.phase in _PHASES_WITH_EVIDENCE:
            out.setdefault(c.name, None)
        elif c.phase is plans.Phase.TOPIC_CONFIG and _config_keys(c) & EVIDENCE_KEYS:
            want = wanted.topics.get(c.name)
            ms = (
                None
                if want is None
                else (_shrinks("retention.ms", want, have) or _shrinks("local.retention.ms", want, have))
            )
            if ms is not None or c.name not in out:
                out[c.name] = ms
    return im.EvidenceRequest(topics=out)


def assess(
    changes: Sequence[plans.Change], wanted: desired.DesiredState, live: state.ClusterState
) -> tuple[tuple[plans.Change, ...], im.PlanImpact | None]:
    """The changes with their impact warnings added, and the plan's impact (``None`` when nothing is found)."""
    evidence = live.impact
    topics = live.topics or {}
    entries: list[im.TopicImpact] = []
    out = []
    for c in changes:
        found: list[im.TopicImpact] = []
        have = topics.get(c.name) if c.phase in _WEIGHED else None
        if have is not None and c.action in (plans.Action.UPDATE, plans.Action.DELETE):
            te = None if evidence is None else evidence.topics.get(c.name)
            want = wanted.topics.get(c.name)
            found = _topic_change(c, want, have, te, live)
        if found:
            entries += found
            lines = tuple(f"impact: {line}" for e in found for line in e.lines)
            c = dataclasses.replace(c, warnings=c.warnings + lines)
        out.append(c)
    notes = () if evidence is None or not entries else evidence.unknown
    result = im.PlanImpact(entries=tuple(entries), notes=notes) if entries else None
    return tuple(out), result


def _topic_change(
    c: plans.Change,
    want: desired.DesiredTopic | None,
    have: state.TopicState,
    te: im.TopicEvidence | None,
    live: state.ClusterState,
) -> list[im.TopicImpact]:
    if c.phase is plans.Phase.TOPIC_DELETE:
        return [_dropped(c, have, te)]
    if want is None:
        return []
    if c.phase is plans.Phase.REASSIGN:
        found = [_copies(c, have, te)]
        return found + impact_notes.min_isr(c, want, have, te, live, changed=False)
    if c.phase is plans.Phase.PARTITIONS:
        usage = None if live.topic_usage is None else live.topic_usage.get(c.name)
        return impact_notes.ordering(c, want, have, te, usage)
    if c.phase is not plans.Phase.TOPIC_CONFIG:
        return []
    found = []
    keys = _config_keys(c)
    if keys & set(RETENTION_KEYS) or "remote.storage.enable" in keys:
        found += _retention(c, want, have, te, keys)
    found += impact_notes.min_isr(c, want, have, te, live, changed="min.insync.replicas" in keys)
    found += impact_notes.notices(c, want, have, keys)
    return found


# ------------------------------------------------------------------------------------------ retention
def _retention(
    c: plans.Change, want: desired.DesiredTopic, have: state.TopicState, te: im.TopicEvidence | None, keys: set[str]
) -> list[im.TopicImpact]:
    found = []
    tiered = (impact_notes.effective("remote.storage.enable", want.configs, have) or "false") == "true"
    for local in (False, True) if tiered else (False,):
        prefix = "local." if local else ""
        # Only what the changed keys can shrink (a local limit of -2 follows the topic's own).
        policy = "cleanup.policy" in keys or (local and "remote.storage.enable" in keys)
        time_keys = {prefix + "retention.ms", "retention.ms"} if local else {"retention.ms"}
        size_keys = {prefix + "retention.bytes", "retention.bytes"} if local else {"retention.bytes"}
        ms = _shrinks(prefix + "retention.ms", want, have) if policy or keys & time_keys else None
        size = _shrinks(prefix + "retention.bytes", want, have) if policy or keys & size_keys else None
        if ms is None and size is None:
            continue
        limits = [f"records older than {age_text(ms)}" if ms is not None else "", ""]
        limits[1] = f"beyond {im.human_bytes(size)} per partition" if size is not None else ""
        what = " or ".join(x for x in limits if x)
        kind = im.DELETES_LOCAL if local else im.DELETES
        verb = "leave the broker's disk (kept in remote storage)" if local else "become eligible for deletion at once"
        figures = _eligible(te, ms=ms, size=size)
        if figures is None:
            why = "no impact evidence was read" if te is None else "the evidence does not cover this retention"
            line = f"{what} {verb}; how much was not measured ({why})"
            found.append(im.TopicImpact(c.address, c.phase.name, kind, (line,), unknown=why))
            continue
        records, nbytes, touched, records_exact, bytes_exact = figures
        if not records and not nbytes:
            line = f"nothing is old or large enough to go at once under the new limit ({what})"
            found.append(im.TopicImpact(c.address, c.phase.name, kind, (line,), 0, 0, True, True))
            continue
        of = f"in {touched} of {len(te.partitions) if te else 0} partition(s)"
        if size is None:
            r_text = f"{records:,} records ({'exact' if records_exact else 'estimated'})"
            b_text = "size unknown" if nbytes is None else f"~{im.human_bytes(nbytes)}"
            b_text += "" if nbytes is None or bytes_exact else " (estimated from partition sizes)"
            line = (
                f"{what} {verb}: {r_text}, {b_text} {of}; "
                "Kafka deletes whole segments, so up to one segment per partition may stay until it rolls"
            )
        else:
            line = (
                f"{what} {verb}: at most {_size_figures(records, nbytes, records_exact, bytes_exact)} {of}; {_BY_SIZE}"
            )
        found.append(
            im.TopicImpact(
                c.address, c.phase.name, kind, (line,), records, nbytes, records_exact, bytes_exact, at_most=True
            )
        )
    return found


# What a size limit can truly promise: the wire gives partition sizes, not segments (docs/plan.md, Impact).
_BY_SIZE = (
    "Kafka deletes whole segments only, and under a size limit only while the partition stays at or above the "
    "limit, so less may go at once (nothing in a partition with one segment) until segments roll"
)


def _size_figures(records: int, nbytes: int | None, records_exact: bool, bytes_exact: bool) -> str:
    """``~50 MB (over the limit, from partition sizes) and 500 records (estimated pro rata, rounded down)``."""
    b_text = "size unknown" if nbytes is None else f"~{im.human_bytes(nbytes)}"
    if nbytes is not None:
        b_text += " (over the limit, from partition sizes)" if bytes_exact else " (estimated from partition sizes)"
    r_text = f"{records:,} records" + (" (exact)" if records_exact else " (estimated pro rata, rounded down)")
    return f"{b_text} and {r_text}"


def _eligible(
    te: im.TopicEvidence | None, *, ms: int | None, size: int | None
) -> tuple[int, int | None, int, bool, bool] | None:
    """(records, bytes, partitions touched, records exact, bytes exact) that at most go at once under the new limits.

    Per partition: the records older than ``ms`` (counted by ListOffsets) and their bytes pro rata, or under a size
    limit at most the bytes over it and the records those bytes hold pro rata, rounded down; whichever is more.
    Never more than the partition holds, and never more bytes than are over the limit unless older records hold them.
    """
    if te is None or not te.offsets_read:
        return None
    if ms is not None and (te.retention_ms != ms or te.cutoff_ms is None):
        return None
    if size is not None and not te.sizes_read:
        return None
    records = touched = 0
    nbytes: int | None = 0 if te.sizes_read else None
    records_exact = bytes_exact = True
    for p in te.partitions:
        held, psize = p.records, p.size
        if held is None:
            return None
        by_time = 0
        if ms is not None:
            by_time = held if p.at_cutoff < 0 else max(0, min(p.at_cutoff, p.end) - p.earliest)
        over = 0 if size is None or psize is None else max(psize - size, 0)
        by_size = held * over // psize if over and psize else 0  # pro rata, rounded down
        gone = max(by_time, by_size)
        # A count from the size rule is an estimate (the wire gives sizes, not where records start).
        records_exact = records_exact and (not over or by_time == held)
        part = 0
        if nbytes is not None and held and psize is not None:
            time_bytes = psize if by_time == held else psize * by_time // held
            part = max(time_bytes, over)
            bytes_exact = bytes_exact and by_time in (0, held)  # else its bytes are pro rata, an estimate
            nbytes += part
        if gone or part:
            touched += 1
        records += gone
    return records, nbytes, touched, records_exact, bytes_exact


# ------------------------------------------------------------------------------------ delete, copies
def _dropped(c: plans.Change, have: state.TopicState, te: im.TopicEvidence | None) -> im.TopicImpact:
    if te is None or not (te.sizes_read or te.offsets_read):
        line = "the data it holds was not measured (no impact evidence was read)"
        return im.TopicImpact(c.address, c.phase.name, im.DROPS, (line,), unknown="no impact evidence")
    held = [p.records for p in te.partitions]
    records = sum(r or 0 for r in held) if te.offsets_read else None
    one = sum(p.size or 0 for p in te.partitions) if te.sizes_read else None
    total = sum(sum(p.sizes.values()) for p in te.partitions) if te.sizes_read else None
    parts = []
    if one is not None:
        parts.append(f"{im.human_bytes(one)} ({im.human_bytes(total or 0)} with all replicas)")
    if records is not None:
        parts.append(f"{records:,} records")
    line = "drops the data it holds: " + ", ".join(parts)
    return im.TopicImpact(c.address, c.phase.name, im.DROPS, (line,), records, one, True, True)


def _copies(c: plans.Change, have: state.TopicState, te: im.TopicEvidence | None) -> im.TopicImpact:
    target = getattr(c.after, "assignment", None) or ()
    per_broker: dict[int, int] = defaultdict(int)
    added_replicas = 0
    unknown = te is None or not te.sizes_read
    for p, replicas in enumerate(target):
        current = set(have.assignment[p]) if p < len(have.assignment) else set()
        added = set(replicas) - current
        if not added or p >= len(have.assignment):
            continue  # a new partition starts empty
        added_replicas += len(added)
        size = None if te is None or p >= len(te.partitions) else te.partitions[p].size
        for broker in added:
            per_broker[broker] += size or 0
    if not added_replicas:
        line = "moves no data (replicas only leave brokers or change order)"
        return im.TopicImpact(c.address, c.phase.name, im.COPIES, (line,), bytes=0, bytes_exact=True)
    if unknown:
        line = f"copies {added_replicas} replica(s) to other brokers; how much data was not measured"
        return im.TopicImpact(c.address, c.phase.name, im.COPIES, (line,), unknown="no partition sizes")
    total = sum(per_broker.values())
    brokers = ", ".join(f"{b}: {im.human_bytes(n)}" for b, n in sorted(per_broker.items()))
    busiest = max(per_broker.values())
    rate = im.suggested_throttle(busiest)
    line = (
        f"copies ~{im.human_bytes(total)} between brokers ({added_replicas} replica(s); received per broker: "
        f"{brokers}); suggested throttle: apply --replication-throttle {rate} ({im.human_bytes(rate)}/s, sets "
        f"leader/follower.replication.throttled.rate; about {age_text(1000 * math.ceil(busiest / rate))} "
        "for the busiest broker)"
    )
    return im.TopicImpact(
        c.address, c.phase.name, im.COPIES, (line,), bytes=total, bytes_exact=False, per_broker=dict(per_broker)
    )


suggested_throttle = im.suggested_throttle

# The topic kind's ``impact`` part: the planner's ``assess`` and ``operations.with_evidence``'s ``needs``.
IMPACT = KindImpact(needs=needs, assess=assess)

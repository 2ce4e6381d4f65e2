"""Change impact as data: the live evidence it is computed from, and what a plan says each change will do.

``ImpactEvidence`` is read by the adapter (``reconciler.kafka.evidence``) for the topics a first plan changes and
stored in ``ClusterState.impact`` (and in snapshots, so an offline plan shows the same impact). The planner turns
it into a ``PlanImpact`` (``reconciler.kinds.topic.impact``): one ``TopicImpact`` per change that has one, and the
totals behind the plan's summary line. Byte and record figures are ``None`` when the evidence was not read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from reconciler.base.terminal import count

NO_OFFSET = -1


@dataclasses.dataclass(frozen=True, slots=True)
class PartitionEvidence:
    """One partition: Metadata's leader, replicas and in-sync replicas; ListOffsets' earliest and end offsets and
    the first offset at ``TopicEvidence.cutoff_ms`` (``-1``: no record that new, or not asked); DescribeLogDirs'
    size of each replica (broker id -> bytes; empty when not read)."""

    leader: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    earliest: int = NO_OFFSET
    end: int = NO_OFFSET
    at_cutoff: int = NO_OFFSET
    sizes: Mapping[int, int] = dataclasses.field(default_factory=dict)

    @property
    def records(self) -> int | None:
        """Records held (end - earliest), ``None`` when the offsets are unknown."""
        return None if self.earliest < 0 or self.end < 0 else max(self.end - self.earliest, 0)

    @property
    def size(self) -> int | None:
        """Bytes one replica holds (the largest replica read; ``None`` when none was)."""
        return max(self.sizes.values()) if self.sizes else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "replicas": list(self.replicas),
            "isr": list(self.isr),
            "earliest": self.earliest,
            "end": self.end,
            "at_cutoff": self.at_cutoff,
            "sizes": {str(b): n for b, n in sorted(self.sizes.items())},
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PartitionEvidence:
        return cls(
            leader=int(d["leader"]),
            replicas=tuple(int(b) for b in d["replicas"]),
            isr=tuple(int(b) for b in d["isr"]),
            earliest=int(d.get("earliest", NO_OFFSET)),
            end=int(d.get("end", NO_OFFSET)),
            at_cutoff=int(d.get("at_cutoff", NO_OFFSET)),
            sizes={int(b): int(n) for b, n in d.get("sizes", {}).items()},
        )


@dataclasses.dataclass(frozen=True, slots=True)
class TopicEvidence:
    """One topic's partitions (index order); ``cutoff_ms`` is the time ListOffsets was asked about (now minus the
    retention the plan sets, ``None``: not asked), for the retention ``retention_ms``."""

    partitions: tuple[PartitionEvidence, ...]
    retention_ms: int | None = None
    cutoff_ms: int | None = None
    sizes_read: bool = False
    offsets_read: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "partitions": [p.to_dict() for p in self.partitions],
            "retention_ms": self.retention_ms,
            "cutoff_ms": self.cutoff_ms,
            "sizes_read": self.sizes_read,
            "offsets_read": self.offsets_read,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TopicEvidence:
        return cls(
            partitions=tuple(PartitionEvidence.from_dict(p) for p in d["partitions"]),
            retention_ms=None if d.get("retention_ms") is None else int(d["retention_ms"]),
            cutoff_ms=None if d.get("cutoff_ms") is None else int(d["cutoff_ms"]),
            sizes_read=bool(d.get("sizes_read", False)),
            offsets_read=bool(d.get("offsets_read", False)),
        )


@dataclasses.dataclass(frozen=True, slots=True)
class ImpactEvidence:
    """Evidence per topic, when it was read, and why a part of it is missing (``unknown``: plain sentences, e.g.
    ``partition sizes unknown: grant DESCRIBE on CLUSTER kafka-cluster to User:alice``)."""

    topics: Mapping[str, TopicEvidence]
    read_at_ms: int
    unknown: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "read_at_ms": self.read_at_ms,
            "unknown": list(self.unknown),
            "topics": {name: t.to_dict() for name, t in sorted(self.topics.items())},
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ImpactEvidence:
        return cls(
            topics={str(n): TopicEvidence.from_dict(t) for n, t in d["topics"].items()},
            read_at_ms=int(d["read_at_ms"]),
            unknown=tuple(str(u) for u in d.get("unknown", [])),
        )


@dataclasses.dataclass(frozen=True, slots=True)
class EvidenceRequest:
    """What a first plan needs read: per topic, the retention (ms) to ask ListOffsets about (``None``: offsets
    and sizes only). Empty when nothing changed needs evidence."""

    topics: Mapping[str, int | None]

    def __bool__(self) -> bool:
        return bool(self.topics)


# --------------------------------------------------------------------------------------- plan side
DELETES = "deletes"  # retention shrink: data eligible for deletion at once
DELETES_LOCAL = "deletes-local"  # local.retention.* shrink: leaves the broker's disk, kept in remote storage
DROPS = "drops"  # topic delete: the data it holds
COPIES = "copies"  # reassignment / replication factor: bytes copied between brokers
ORDERING = "ordering"  # partition increase on keyed data
MIN_ISR = "min-isr"  # producers with acks=all fail
NOTICE = "notice"  # a specific warning without figures
KINDS = (DELETES, DELETES_LOCAL, DROPS, COPIES, ORDERING, MIN_ISR, NOTICE)


@dataclasses.dataclass(frozen=True, slots=True)
class TopicImpact:
    """What one change does to one topic. ``records``/``bytes`` are ``None`` when unknown; ``records_exact`` and
    ``bytes_exact`` say whether the figure is exact or estimated; ``at_most`` says the figures are upper bounds of
    what happens at once, not what will happen (a retention shrink: Kafka deletes whole segments only, and under a
    size limit only while the partition stays at or above it); ``per_broker`` is bytes each broker receives
    (copies); ``items`` names partitions or groups; ``lines`` is the text the plan shows."""

    address: str
    phase: str
    kind: str
    lines: tuple[str, ...]
    records: int | None = None
    bytes: int | None = None
    records_exact: bool = False
    bytes_exact: bool = False
    at_most: bool = False
    per_broker: Mapping[int, int] = dataclasses.field(default_factory=dict)
    items: tuple[str, ...] = ()
    unknown: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "phase": self.phase,
            "kind": self.kind,
            "lines": list(self.lines),
            "records": self.records,
            "bytes": self.bytes,
            "records_exact": self.records_exact,
            "bytes_exact": self.bytes_exact,
            "at_most": self.at_most,
            "per_broker": {str(b): n for b, n in sorted(self.per_broker.items())},
            "items": list(self.items),
            "unknown": self.unknown,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TopicImpact:
        return cls(
            address=str(d["address"]),
            phase=str(d["phase"]),
            kind=str(d["kind"]),
            lines=tuple(str(x) for x in d["lines"]),
            records=None if d.get("records") is None else int(d["records"]),
            bytes=None if d.get("bytes") is None else int(d["bytes"]),
            records_exact=bool(d.get("records_exact", False)),
            bytes_exact=bool(d.get("bytes_exact", False)),
            at_most=bool(d.get("at_most", False)),
            per_broker={int(b): int(n) for b, n in d.get("per_broker", {}).items()},
            items=tuple(str(x) for x in d.get("items", [])),
            unknown=None if d.get("unknown") is None else str(d["unknown"]),
        )


def _measured_none(entries: list[TopicImpact]) -> bool:
    """Every measured entry came to 0 bytes and 0 records (and at least one was measured): nothing to headline."""
    measured = [e for e in entries if e.bytes is not None or e.records is not None]
    return bool(measured) and all(not e.bytes and not e.records for e in measured)


@dataclasses.dataclass(frozen=True, slots=True)
class PlanImpact:
    """Every change's impact and the plan-wide notes (evidence that could not be read)."""

    entries: tuple[TopicImpact, ...] = ()
    notes: tuple[str, ...] = ()

    def of(self, kind: str) -> list[TopicImpact]:
        return [e for e in self.entries if e.kind == kind]

    def summary_line(self) -> str | None:
        """``Impact: deletes at most ~1.2 GB / 40,000 records at once across 3 topics; copies ~412 GB; ...`` (``None``:
        nothing to say)."""
        parts = []
        gone = self.of(DELETES) + self.of(DROPS)
        if _measured_none(gone):  # a zero impact is no impact: only the topics not measured are left to say
            gone = [e for e in gone if e.bytes is None and e.records is None]
        if gone:
            topics = len({e.address for e in gone})
            known = [e for e in gone if e.bytes is not None or e.records is not None]
            if known:
                sized = [e.bytes for e in known if e.bytes is not None]
                size = "size unknown" if not sized else f"~{human_bytes(sum(sized))}"
                size += " (not all measured)" if sized and len(sized) < len(known) else ""
                records = f"{sum(e.records or 0 for e in known):,}"
                bound = "at most " if any(e.at_most for e in known) else ""
                figures = f"{bound}{size} / {records}" if sized else f"{size} / {bound}{records}"
                text = f"deletes {figures} records at once across {count(topics, 'topic')}"
                if len(known) < len(gone):
                    text += f" ({len(gone) - len(known)} not measured)"
            else:
                text = f"deletes data of {count(topics, 'topic')} (amount unknown)"
            parts.append(text)
        local = self.of(DELETES_LOCAL)
        if local and any(e.bytes for e in local):
            size = human_bytes(sum(e.bytes or 0 for e in local))
            bound = "at most " if any(e.at_most for e in local) else ""
            parts.append(
                f"moves {bound}~{size} off local disk (kept in remote storage) for {count(len(local), 'topic')}"
            )
        copies = self.of(COPIES)
        if _measured_none(copies):
            copies = [e for e in copies if e.bytes is None]
        if copies:
            if all(e.bytes is None for e in copies):
                parts.append(f"copies data of {count(len(copies), 'topic')} between brokers (amount unknown)")
            else:
                received: dict[int, int] = {}
                for e in copies:
                    for broker, n in e.per_broker.items():
                        received[broker] = received.get(broker, 0) + n
                total = human_bytes(sum(e.bytes or 0 for e in copies))
                rate = suggested_throttle(max(received.values(), default=0))
                parts.append(f"copies ~{total} (suggested --replication-throttle {rate})")
        failing = {e.address for e in self.of(MIN_ISR) if e.items}
        if failing:
            whose = "1 topic's" if len(failing) == 1 else f"{len(failing)} topics'"
            parts.append(f"{whose} producers may fail (min ISR)")
        ordering = {e.address for e in self.of(ORDERING) if e.unknown is None}
        if ordering:
            parts.append(f"per-key order changes on {count(len(ordering), 'topic')}")
        notices = len(self.of(NOTICE))
        if notices:
            parts.append(count(notices, "other warning"))
        if not parts:
            return None
        return "Impact: " + "; ".join(parts) + ("" if not self.notes else " (some evidence could not be read)")

    def figures(self) -> dict[str, Any]:
        """The summary's numbers as data (fleet summaries): bytes and records deleted at once and the topics they
        are in, bytes copied between brokers, topics whose acks=all producers may fail, and the summary line."""
        gone = self.of(DELETES) + self.of(DROPS)
        return {
            "summary": self.summary_line(),
            "deletes_bytes": sum(e.bytes or 0 for e in gone),
            "deletes_records": sum(e.records or 0 for e in gone),
            "deletes_topics": len({e.address for e in gone}),
            "copies_bytes": sum(e.bytes or 0 for e in self.of(COPIES)),
            "min_isr_topics": len({e.address for e in self.of(MIN_ISR) if e.items}),
            "unknown": sum(1 for e in self.entries if e.unknown is not None) + len(self.notes),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary_line(),
            "entries": [e.to_dict() for e in self.entries],
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PlanImpact:
        return cls(
            entries=tuple(TopicImpact.from_dict(e) for e in d.get("entries", [])),
            notes=tuple(str(n) for n in d.get("notes", [])),
        )


THROTTLE_TARGET_S = 3600  # a suggested throttle copies the busiest broker's share in about an hour
THROTTLE_FLOOR = 10 * 10**6  # and is never below 10 MB/s


def suggested_throttle(busiest_bytes: int) -> int:
    """Bytes per second that copy ``busiest_bytes`` in about ``THROTTLE_TARGET_S``, rounded up to whole MB/s and
    never below ``THROTTLE_FLOOR``: a value for ``apply --replication-throttle`` (Kafka's
    ``leader/follower.replication.throttled.rate``)."""
    per_s = -(-busiest_bytes // (THROTTLE_TARGET_S * 10**6)) * 10**6
    return max(per_s, THROTTLE_FLOOR)


_UNITS = (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3))


def human_bytes(n: int) -> str:
    """``412 GB``, ``1.2 MB``, ``900 B`` (decimal units, three significant figures at most)."""
    for unit, size in _UNITS:
        if n >= size:
            value = n / size
            return f"{value:.3g} {unit}" if value < 1000 else f"{value:.0f} {unit}"
    return f"{n} B"

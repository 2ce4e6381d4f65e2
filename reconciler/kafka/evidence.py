"""Impact evidence, read only for the topics a plan changes: partition sizes, offsets and in-sync replicas.

Requests, each batched over the named topics: Metadata (leaders, replicas, in-sync replicas) only when the plan's
own Metadata read (``Wire.last_metadata``) does not list them all; one DescribeLogDirs per live broker holding a
replica (the size of each replica it stores); per partition leader one ListOffsets for EARLIEST and one for
LATEST, and one more by timestamp (now minus the retention the plan sets) when a topic's retention shrinks. A plan
changing 1,000 topics on 3 brokers sends at most 1 + 3 + 3 x 3 requests (on one broker: 1 + 3).

Never fails the plan: a refused or unanswered request leaves its part unknown and says why in
``ImpactEvidence.unknown`` (``partition sizes unknown: grant DESCRIBE on CLUSTER kafka-cluster to User:alice``).
The whole read is bounded by ``budget_s`` (the plan's request timeout, lowered by ``plan --timeout``): each
request waits at most what is left, and what is not read by then is reported unknown.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from kafka.protocol.admin import DescribeLogDirsRequest
from kafka.protocol.metadata import MetadataRequest

from reconciler.base import errors
from reconciler.kafka import rights, usage
from reconciler.kafka import wire as wire_mod
from reconciler.kafka.codes import error_name
from reconciler.model import impact as im

EARLIEST = -2
LATEST = -1


class _OutOfTime(Exception):
    pass


class _Reader:
    def __init__(self, wire: wire_mod.Wire, *, budget_s: float, monotonic: Callable[[], float]) -> None:
        self.wire = wire
        self.monotonic = monotonic
        self.deadline = monotonic() + budget_s
        self.unknown: list[str] = []

    def send(self, request: Any, *, node: int | None = None) -> Any:
        left_ms = int((self.deadline - self.monotonic()) * 1000)
        if left_ms <= 0:
            raise _OutOfTime
        return self.wire.send(request, node=node, timeout_ms=min(left_ms, self.wire.settings.request_timeout_ms))

    def note(self, what: str, exc: BaseException, *, api: str) -> None:
        if isinstance(exc, _OutOfTime):
            text = f"{what} unknown: the plan's time for reading evidence ran out"
        else:
            text = f"{what} unknown: {self.wire.scrub(str(exc))}"
            hint = rights.grant_hint(api, settings=self.wire.settings, wire=self.wire)
            if hint and "AUTHORIZATION_FAILED" in text and hint not in text:
                text += f"; {hint}"
        if text not in self.unknown:
            self.unknown.append(text)


def read_evidence(
    wire: wire_mod.Wire,
    request: im.EvidenceRequest,
    *,
    budget_s: float,
    clock: Callable[[], float] = time.time,
    monotonic: Callable[[], float] = time.monotonic,
) -> im.ImpactEvidence:
    """The evidence of the topics ``request`` names (see the module docstring)."""
    read_at_ms = int(clock() * 1000)
    reader = _Reader(wire, budget_s=budget_s, monotonic=monotonic)
    names = sorted(request.topics)
    if not names:
        return im.ImpactEvidence(topics={}, read_at_ms=read_at_ms)
    try:
        layout = _metadata(reader, names)
    except (errors.ReconcilerError, _OutOfTime) as exc:
        reader.note("impact", exc, api="Metadata")
        return im.ImpactEvidence(topics={}, read_at_ms=read_at_ms, unknown=tuple(reader.unknown))
    sizes, sizes_ok = _sizes(reader, layout)
    cutoffs = {n: read_at_ms - ms for n, ms in request.topics.items() if ms is not None and n in layout}
    offsets, offsets_ok = _offsets(reader, layout, cutoffs)
    topics = {}
    for name, parts in sorted(layout.items()):
        partitions = []
        for index, (leader, replicas, isr) in enumerate(parts):
            earliest, end, at_cutoff = offsets.get((name, index), (im.NO_OFFSET,) * 3)
            partitions.append(
                im.PartitionEvidence(
                    leader=leader,
                    replicas=replicas,
                    isr=isr,
                    earliest=earliest,
                    end=end,
                    at_cutoff=at_cutoff,
                    sizes=sizes.get((name, index), {}),
                )
            )
        ms = request.topics.get(name)
        topics[name] = im.TopicEvidence(
            partitions=tuple(partitions),
            retention_ms=ms if name in cutoffs else None,
            cutoff_ms=cutoffs.get(name),
            sizes_read=sizes_ok,
            offsets_read=offsets_ok,
        )
    return im.ImpactEvidence(topics=topics, read_at_ms=read_at_ms, unknown=tuple(reader.unknown))


Layout = dict[str, list[tuple[int, tuple[int, ...], tuple[int, ...]]]]


def _metadata(reader: _Reader, names: list[str]) -> Layout:
    """Topic -> per partition (leader, replicas, in-sync replicas); topics that do not exist are left out.

    From the plan's own Metadata read when it lists every named topic (no request), else from one Metadata."""
    noted = reader.wire.last_metadata
    listed = {str(t.name) for t in getattr(noted, "topics", None) or () if not t.error_code}
    if noted is not None and listed.issuperset(names):
        return _layout(noted, set(names))
    response = reader.send(
        MetadataRequest(
            topics=[MetadataRequest.MetadataRequestTopic(name=n) for n in names], allow_auto_topic_creation=False
        )
    )
    return _layout(response, set(names))


def _layout(response: Any, names: set[str]) -> Layout:
    layout: Layout = {}
    for topic in response.topics:
        if str(topic.name) not in names or topic.error_code or not topic.partitions:
            continue
        parts = sorted(topic.partitions, key=lambda p: int(p.partition_index))
        layout[str(topic.name)] = [
            (int(p.leader_id), tuple(int(b) for b in p.replica_nodes), tuple(int(b) for b in p.isr_nodes))
            for p in parts
        ]
    return layout


def _sizes(reader: _Reader, layout: Layout) -> tuple[dict[tuple[str, int], dict[int, int]], bool]:
    """(topic, partition) -> broker -> bytes, from one DescribeLogDirs per live broker holding a replica."""
    live = set(reader.wire.broker_ids())
    per_broker: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for name, parts in layout.items():
        for index, (_leader, replicas, _isr) in enumerate(parts):
            for broker in replicas:
                if broker in live:
                    per_broker[broker][name].append(index)
    out: dict[tuple[str, int], dict[int, int]] = defaultdict(dict)
    ok = True
    topic_cls = DescribeLogDirsRequest.DescribableLogDirTopic
    for broker, wanted in sorted(per_broker.items()):
        request = DescribeLogDirsRequest(topics=[topic_cls(topic=n, partitions=p) for n, p in sorted(wanted.items())])
        try:
            response = reader.send(request, node=broker)
            reader.wire.check_top_level(response, api="DescribeLogDirs")
        except (errors.ReconcilerError, _OutOfTime) as exc:
            reader.note("partition sizes", exc, api="DescribeLogDirs")
            ok = False
            continue
        if not response.results:  # before DescribeLogDirs v3 a refusal is an empty answer
            hint = rights.grant_hint("DescribeLogDirs", settings=reader.wire.settings, wire=reader.wire)
            text = f"partition sizes unknown: broker {broker} described no log directory; {hint}"
            if text not in reader.unknown:
                reader.unknown.append(text)
            ok = False
            continue
        for result in response.results:
            if result.error_code:
                continue  # an offline log directory holds nothing readable
            for topic in result.topics:
                for p in topic.partitions:
                    if not getattr(p, "is_future_key", False):
                        out[(str(topic.name), int(p.partition_index))][broker] = int(p.partition_size)
    return out, ok


def _offsets(
    reader: _Reader, layout: Layout, cutoffs: dict[str, int]
) -> tuple[dict[tuple[str, int], tuple[int, int, int]], bool]:
    """(topic, partition) -> (earliest, end, first offset at the topic's cutoff) from each partition's leader."""
    by_leader: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for name, parts in layout.items():
        for index, (leader, _replicas, _isr) in enumerate(parts):
            if leader >= 0:
                by_leader[leader].append((name, index))
    found: dict[tuple[str, int], list[int]] = defaultdict(lambda: [im.NO_OFFSET] * 3)
    ok = True
    for leader, owned in sorted(by_leader.items()):
        asks: list[tuple[int, dict[str, int]]] = [
            (0, {n: EARLIEST for n, _ in owned}),
            (1, {n: LATEST for n, _ in owned}),
        ]
        timed = {n: cutoffs[n] for n, _ in owned if n in cutoffs}
        if timed:
            asks.append((2, timed))
        for slot, timestamps in asks:
            part = [(n, i) for n, i in owned if n in timestamps]
            try:
                answers = _list_offsets(reader, leader, part, timestamps)
            except (errors.ReconcilerError, _OutOfTime) as exc:
                reader.note("offsets", exc, api="ListOffsets")
                ok = False
                continue
            for key, offset in answers.items():
                found[key][slot] = offset
    return {k: (v[0], v[1], v[2]) for k, v in found.items()}, ok


def _list_offsets(
    reader: _Reader, leader: int, owned: list[tuple[str, int]], timestamps: dict[str, int]
) -> dict[tuple[str, int], int]:
    request = usage.list_offsets_request(
        owned, timestamp_of=timestamps.__getitem__, timeout_ms=reader.wire.settings.request_timeout_ms
    )
    response = reader.send(request, node=leader)
    out = {}
    refused = []
    for topic in response.topics:
        for p in topic.partitions:
            if p.error_code:
                if "AUTHORIZATION" in (error_name(int(p.error_code)) or ""):
                    refused.append(str(topic.name))
                continue
            out[(str(topic.name), int(p.partition_index))] = int(p.offset)
    for name in sorted(set(refused)):
        hint = rights.grant_hint("ListOffsets", settings=reader.wire.settings, name=name, wire=reader.wire)
        text = f"offsets of {name} unknown: TOPIC_AUTHORIZATION_FAILED; {hint}"
        if text not in reader.unknown:
            reader.unknown.append(text)
    return out

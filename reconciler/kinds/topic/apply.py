"""The topic kind's apply parts: the decoders of its five phases (one change to the typed write it asks for) and the
check of an applied topic write against the topics read back after the phases (``KindSpec.check_applied``).

A creation, a deletion, a partition count and a config change are writes apply's framework also looks inside
(``reconciler.apply.decoded``: the read-back's scope, the values a plan holds redacted, the topics every broker's
Metadata must list), so their records are shared there; a reassignment's (``Reassign``) is the topic kind's own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from reconciler.apply import bounds, decoded, verify
from reconciler.apply.decoded import AddPartitions, AlterConfigs, CannotDecode, CreateTopic, DeleteTopic
from reconciler.model import payloads, plans, state


@dataclasses.dataclass(frozen=True, slots=True)
class Reassign:
    """Partition -> target replicas, for the partitions whose replicas change; ``partitions`` the planned count."""

    targets: Mapping[int, tuple[int, ...]]
    partitions: int


def _topic(c: plans.Change, *, before: bool = False) -> payloads.TopicPayload:
    return decoded.payload_of(c, c.before if before else c.after, payloads.TopicPayload) or payloads.TopicPayload()


def create_topic(c: plans.Change) -> CreateTopic:
    after = _topic(c)
    if not after.assignment and (after.partitions is None or after.replication_factor is None):
        raise CannotDecode(f"{c.address}: the plan gives no partition count or replication factor")
    configs = {k: v for k, v in (after.configs or {}).items() if v is not None}
    bounds.topic_name(c.name)
    if after.partitions is not None:
        bounds.partitions(after.partitions)
    if after.replication_factor is not None:
        bounds.replication_factor(after.replication_factor)
    bounds.replicas(after.assignment or ())
    bounds.topic_configs(configs)
    return CreateTopic(after.partitions, after.replication_factor, after.assignment or None, configs)


def add_partitions(c: plans.Change) -> AddPartitions:
    after = _topic(c)
    if after.partitions is None:
        raise CannotDecode(f"{c.address}: the plan gives no partition count")
    bounds.topic_name(c.name)
    bounds.partitions(after.partitions)
    bounds.replicas(after.assignment or ())
    return AddPartitions(after.partitions, _topic(c, before=True).partitions, after.assignment or None)


def alter_topic_configs(c: plans.Change) -> AlterConfigs:
    """A topic's config change: IncrementalAlterConfigs of its ``TOPIC`` resource."""
    return decoded.alter_configs(c, "TOPIC", _topic(c).config_ops)


def reassign(c: plans.Change) -> Reassign:
    before = _topic(c, before=True).assignment or ()
    wants = _topic(c)
    after = wants.assignment or ()
    if wants.replication_factor is not None and any(len(r) != wants.replication_factor for r in after):
        # The plan shows the replication factor; the replica lists are what is sent: they must agree.
        raise CannotDecode(f"{c.address}: the target replicas do not all number {wants.replication_factor}")
    targets = {p: target for p, target in enumerate(after) if p >= len(before) or before[p] != target}
    bounds.topic_name(c.name)
    bounds.reassignment(targets)
    return Reassign(targets, len(after))


def delete_topic(c: plans.Change) -> DeleteTopic:
    bounds.topic_name(c.name)
    return DeleteTopic()


# ------------------------------------------------------------------------------------------------ read-back check
def _created(create: CreateTopic, topic: state.TopicState) -> list[str]:
    problems = []
    if create.assignment is not None:
        if [list(r) for r in topic.assignment] != [list(r) for r in create.assignment]:
            problems.append("the replica assignment differs")
    else:
        if topic.partitions != create.partitions:
            problems.append(f"{topic.partitions} partition(s), wanted {create.partitions}")
        if topic.replication_factor != create.replication_factor:
            problems.append(f"replication factor {topic.replication_factor}, wanted {create.replication_factor}")
    configs = (payloads.ConfigOp.set(k, v) for k, v in create.configs.items())
    return problems + verify.configs_mismatch(configs, topic.configs)


def topic_applied(op: decoded.Operation, live: state.ClusterState) -> list[str]:
    topic = (live.topics or {}).get(op.name)
    request = op.request
    if isinstance(request, DeleteTopic):
        return ["the topic still exists"] if topic is not None else []
    if topic is None:
        return ["the topic does not exist"]
    if isinstance(request, CreateTopic):
        return _created(request, topic)
    if isinstance(request, AddPartitions):
        return [] if topic.partitions >= request.total else [f"{topic.partitions} partition(s), wanted {request.total}"]
    if isinstance(request, AlterConfigs):
        return verify.configs_mismatch(request.ops, topic.configs)
    problems = []
    for p, target in op.want(Reassign).targets.items():
        have = topic.assignment[p] if p < topic.partitions else ()
        if sorted(have) != sorted(target):
            problems.append(f"partition {p} has replicas {list(have)}, wanted {list(target)}")
    return problems

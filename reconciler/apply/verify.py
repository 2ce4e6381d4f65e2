"""Convergence check after an apply: does the read-back cluster hold what each applied change asked for?

Each applied change is compared with the live resource read back afterwards, with the planner's
value comparison for configs (``7d`` and ``604800000`` are the same retention). Values the plan
holds redacted (sensitive configs) cannot be compared and are taken on trust.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from reconciler.apply import translate
from reconciler.apply.apply_report import NotConverged
from reconciler.model import plans, state
from reconciler.model.kinds import Kind
from reconciler.planner import common


def _configs_mismatch(want: Iterable[plans.AttributeChange], have: Mapping[str, str | None]) -> list[str]:
    out = []
    for attr in want:
        if not attr.name.startswith(translate.CONFIG_PREFIX) or attr.after == plans.REDACTED:
            continue
        key = attr.name[len(translate.CONFIG_PREFIX) :]
        if attr.after is None:
            if key in have:
                out.append(f"{key} is still set")
        elif not common.same_value(key, str(attr.after), have.get(key)):
            out.append(f"{key} is {have.get(key)!r}, wanted {attr.after!r}")
    return out


def _topic(c: plans.Change, live: state.ClusterState) -> list[str]:
    topic = (live.topics or {}).get(c.name)
    if c.phase is plans.Phase.TOPIC_DELETE:
        return ["the topic still exists"] if topic is not None else []
    if topic is None:
        return ["the topic does not exist"]
    problems = []
    after = translate.topic(c)
    if c.phase is plans.Phase.TOPIC_CREATE:
        if after.assignment is not None:
            if [list(r) for r in topic.assignment] != [list(r) for r in after.assignment]:
                problems.append("the replica assignment differs")
        else:
            if topic.partitions != after.partitions:
                problems.append(f"{topic.partitions} partition(s), wanted {after.partitions}")
            if topic.replication_factor != after.replication_factor:
                want_rf = after.replication_factor
                problems.append(f"replication factor {topic.replication_factor}, wanted {want_rf}")
        problems += _configs_mismatch(c.attributes, topic.configs)
    elif c.phase is plans.Phase.PARTITIONS:
        wanted = translate.partitions_total(c)
        if topic.partitions < wanted:
            problems.append(f"{topic.partitions} partition(s), wanted {wanted}")
    elif c.phase is plans.Phase.TOPIC_CONFIG:
        problems += _configs_mismatch(c.attributes, topic.configs)
    elif c.phase is plans.Phase.REASSIGN:
        for p, target in translate.reassignment_targets(c).items():
            have = topic.assignment[p] if p < topic.partitions else ()
            if sorted(have) != sorted(target):
                problems.append(f"partition {p} has replicas {list(have)}, wanted {list(target)}")
    return problems


def _acl(c: plans.Change, live: state.ClusterState) -> list[str]:
    binding = translate.acl_binding(c)
    present = live.acls is not None and binding in live.acls
    if c.action is plans.Action.DELETE:
        return ["the binding still exists"] if present else []
    return [] if present else ["the binding does not exist"]


def _quota(c: plans.Change, live: state.ClusterState) -> list[str]:
    entity = translate.quota_entity(c)
    have = dict((live.quotas or {}).get(entity, {}))
    want = {k: v for k, v in translate.quota_values(c).items() if v is not None}
    return [] if have == want else [f"values are {have}, wanted {want}"]


def _scram(c: plans.Change, live: state.ClusterState) -> list[str]:
    wanted = translate.scram_change(c)
    creds = {cr.mechanism: cr.iterations for cr in (live.scram_users or {}).get(wanted.user, ())}
    problems = [f"the {m} credential still exists" for m in wanted.deletions if m in creds]
    for mechanism, iterations in sorted(wanted.upserts.items()):
        if mechanism not in creds:
            problems.append(f"no {mechanism} credential")
        elif creds[mechanism] != iterations:
            problems.append(f"{mechanism} has {creds[mechanism]} iterations, wanted {iterations}")
    return problems


def _broker(c: plans.Change, live: state.ClusterState) -> list[str]:
    return _configs_mismatch(c.attributes, (live.broker_configs or {}).get(c.name, {}))


CHECKS = {
    Kind.TOPIC: _topic,
    Kind.ACL: _acl,
    Kind.QUOTA: _quota,
    Kind.SCRAM_USER: _scram,
    Kind.BROKER_CONFIG: _broker,
}


def not_converged(applied: Iterable[plans.Change], live: state.ClusterState) -> list[NotConverged]:
    """One entry per applied change whose resource does not hold what the change asked for."""
    out = []
    for c in applied:
        problems = CHECKS[c.kind](c, live)
        if problems:
            out.append(NotConverged(c.address, f"{c.phase.label}: " + "; ".join(problems)))
    return out

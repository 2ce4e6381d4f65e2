"""Property: carrying out a plan and planning again leaves nothing to do (except what is blocked).

The cluster is simulated on plain data: each change's ``after`` is written into the live state the
way apply would write it to Kafka. This checks that the planner's changes are complete (nothing
left over) and consistent (nothing undone by a later phase).
"""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.model import configs, payloads, plans
from reconciler.model import desired as d
from reconciler.model import state as s
from reconciler.model.kinds import Kind
from reconciler.planner import plan
from tests.support.builders import acl, cluster, live_topic, topic, want

NAMES = ("a", "b", "c", "d")
CONFIGS = {"retention.ms": ("1000", "604800000"), "cleanup.policy": ("delete", "compact")}
PRINCIPALS = ("User:app", "User:other")
ENTITIES = (s.QuotaEntity.of(user="app"), s.QuotaEntity.of(user="app", client_id="x"))

configs_st = st.dictionaries(st.sampled_from(sorted(CONFIGS)), st.sampled_from(("1000", "compact")), max_size=2).map(
    lambda d: {k: (v if v in CONFIGS[k] else CONFIGS[k][0]) for k, v in d.items()}
)
acls_st = st.sets(
    st.builds(acl, st.sampled_from(PRINCIPALS), st.sampled_from(("READ", "WRITE")), st.sampled_from(NAMES)),
    max_size=4,
)
quotas_st = st.dictionaries(
    st.sampled_from(ENTITIES),
    st.dictionaries(
        st.sampled_from(("producer_byte_rate", "request_percentage")), st.sampled_from((10.0, 20.0)), min_size=1
    ),
    max_size=2,
)


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[d.DesiredState, s.ClusterState]:
    declared = [
        topic(n, draw(st.integers(1, 4)), draw(st.integers(1, 3)), configs=draw(configs_st))
        for n in draw(st.sets(st.sampled_from(NAMES), max_size=4))
    ]
    live = [
        live_topic(n, draw(st.integers(1, 4)), draw(st.integers(1, 3)), configs=draw(configs_st))
        for n in draw(st.sets(st.sampled_from(NAMES), max_size=4))
    ]
    delete = draw(st.booleans())
    desired = want(
        topics=declared,
        acls=draw(acls_st),
        quotas=draw(quotas_st),
        own_topics=[""],
        own_principals=["User:app"],
        delete=["topic", "acl", "quota"] if delete else [],
    )
    return desired, cluster(topics=live, acls=draw(acls_st), quotas=draw(quotas_st))


def _carry_out(live: s.ClusterState, result: plans.Plan) -> s.ClusterState:
    topics = dict(live.topics or {})
    acls = set(live.acls or ())
    quotas = dict(live.quotas or {})
    entities = {e.address: e for e in (*quotas, *ENTITIES)}
    for c in result.actionable:
        before, after = payloads.encode(c.before), payloads.encode(c.after)  # as the plan file holds them
        if c.kind == "topic":
            old = topics.get(c.name)
            if c.action is plans.Action.DELETE:
                del topics[c.name]
            elif c.phase is plans.Phase.TOPIC_CREATE:
                rf, n = after["replication_factor"], after["partitions"]
                assignment = tuple(tuple((i + r) % 3 + 1 for r in range(rf)) for i in range(n))
                topics[c.name] = s.TopicState(c.name, assignment, configs=dict(after["configs"]))
            elif c.phase is plans.Phase.PARTITIONS:
                assert old is not None
                extra = tuple(old.assignment[-1] for _ in range(after["partitions"] - old.partitions))
                topics[c.name] = dataclasses.replace(old, assignment=old.assignment + extra)
            elif c.phase is plans.Phase.TOPIC_CONFIG:
                assert old is not None
                configs = dict(old.configs)
                for a in c.attributes:
                    key = a.name.removeprefix("configs.")
                    if a.after is None:
                        configs.pop(key, None)
                    else:
                        configs[key] = a.after
                topics[c.name] = dataclasses.replace(old, configs=configs)
            elif c.phase is plans.Phase.REASSIGN:
                assert old is not None
                topics[c.name] = dataclasses.replace(old, assignment=tuple(tuple(r) for r in after["assignment"]))
        elif c.kind == "acl":
            binding = s.AclBinding.from_dict(before if c.action is plans.Action.DELETE else after)
            (acls.discard if c.action is plans.Action.DELETE else acls.add)(binding)
        elif c.kind == "quota":
            entity = entities[c.address]
            if c.action is plans.Action.DELETE:
                del quotas[entity]
            else:
                quotas[entity] = dict(after["values"])
    return dataclasses.replace(live, topics=topics, acls=frozenset(acls), quotas=quotas)


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_planning_after_carrying_out_a_plan_finds_nothing_more_to_do(
    scenario: tuple[d.DesiredState, s.ClusterState],
) -> None:
    desired, live = scenario
    first = plan(desired, live)
    after = _carry_out(live, first)
    second = plan(desired, after)
    assert second.actionable == ()
    assert [c.address for c in second.blocked] == [c.address for c in first.blocked]
    # ... and the cluster now holds what the manifests declare.
    assert after.topics is not None and after.acls is not None and after.quotas is not None
    blocked = {c.name for c in first.blocked}
    for name, wanted in desired.topics.items():
        got = after.topics[name]
        declared = {k: v for k, v in got.configs.items() if k in wanted.configs}
        assert declared == dict(wanted.configs)
        for key, value in got.configs.items():
            # an undeclared key stays only when it holds exactly the value it would fall back to: no change
            fallback = got.defaults.get(key) or configs.topic_default(key)
            assert key in wanted.configs or (fallback is not None and configs.same_value(key, fallback, value)), key
        assert got.replication_factor == wanted.replication_factor
        assert got.partitions == wanted.partitions or name in blocked
    deleting = desired.ownership.may_delete(Kind.TOPIC)
    assert deleting is False or set(after.topics) == set(desired.topics)
    assert set(desired.acls) <= after.acls
    for binding in after.acls - set(desired.acls):
        assert not (deleting and binding.principal == "User:app")
    for entity, wanted_quota in desired.quotas.items():
        assert after.quotas[entity] == dict(wanted_quota.values)

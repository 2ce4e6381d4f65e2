"""A 2,000-change plan of realistic shape, planned by the real planner: the input of the big-plan golden files.

A platform team onboards a business unit: 600 new topics (12 partitions, 3 replicas, three configs each), 150
topics with a retention change, 50 retired topics, 1,000 new ACLs and 100 removed ones, 66 quotas, 30 SCRAM users
and 4 broker config sets. Every kind is present, and ACLs, the kind a naive cut drops, are half of the plan.
"""

from __future__ import annotations

from reconciler.model import desired as d
from reconciler.model import plans
from reconciler.model import state as s
from reconciler.model.kinds import Kind
from reconciler.planner import plan
from tests.golden.example import BROKERS

OPS = ("READ", "WRITE", "DESCRIBE", "DESCRIBE_CONFIGS")


def _src(line: int) -> d.Source:
    return d.Source("kafka/unit-b.yaml", line, 3)


def _rr(partitions: int, rf: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple((q + r) % 3 + 1 for r in range(rf)) for q in range(partitions))


def _acl(i: int) -> s.AclBinding:
    return s.AclBinding(
        "TOPIC", "LITERAL", f"unitb.t{i // 4:04d}", f"User:unitb-app{i % 50:02d}", "*", OPS[i % 4], "ALLOW"
    )


def _old_acl(i: int) -> s.AclBinding:
    return s.AclBinding("TOPIC", "LITERAL", f"unitb.legacy{i:03d}", f"User:unitb-old{i % 10}", "*", "READ", "ALLOW")


def desired_state() -> d.DesiredState:
    configs = {"retention.ms": "604800000", "cleanup.policy": "delete", "min.insync.replicas": "2"}
    topics = [d.DesiredTopic(f"unitb.t{i:04d}", 12, 3, dict(configs), None, _src(10 + i)) for i in range(600)]
    topics += [
        d.DesiredTopic(f"unitb.kept{i:03d}", 6, 3, {"retention.ms": "259200000"}, None, _src(700 + i))
        for i in range(150)
    ]
    quotas = {
        s.QuotaEntity.of(user=f"unitb-app{i:02d}"): d.DesiredQuota(
            s.QuotaEntity.of(user=f"unitb-app{i:02d}"), {"producer_byte_rate": 1048576.0}, _src(900 + i)
        )
        for i in range(66)
    }
    users = {
        f"unitb-app{i:02d}": d.DesiredScramUser(
            f"unitb-app{i:02d}",
            "SCRAM-SHA-512",
            8192,
            d.SecretRef(env=f"UNITB_APP{i:02d}_PASSWORD"),
            None,
            _src(990 + i),
        )
        for i in range(30)
    }
    brokers = {
        b: d.DesiredBrokerConfig(b, {"log.cleaner.threads": "2"}, _src(1030 + i))
        for i, b in enumerate((s.CLUSTER_DEFAULT, "1", "2", "3"))
    }
    return d.DesiredState(
        topics={t.name: t for t in topics},
        acls={_acl(i): _src(1100 + i) for i in range(1000)},
        quotas=quotas,
        scram_users=users,
        broker_configs=brokers,
        ownership=d.Ownership(
            topics=(d.NamePattern("prefix", "unitb."),),
            principals=(d.NamePattern("prefix", "User:unitb-"),),
            delete={Kind.TOPIC: True, Kind.ACL: True},
            max_deletes=200,  # this repository allows its 150 deletes (the default limit of 10 would refuse them)
        ),
    )


def live_state() -> s.ClusterState:
    topics = [s.TopicState(f"unitb.kept{i:03d}", _rr(6, 3), configs={"retention.ms": "86400000"}) for i in range(150)]
    topics += [s.TopicState(f"unitb.legacy{i:03d}", _rr(3, 3)) for i in range(50)]
    return s.ClusterState(
        cluster_id="Q2xhc3NpY0thZmthQg",
        controller_id=1,
        brokers=BROKERS,
        topics={t.name: t for t in topics},
        broker_configs={b: {"log.cleaner.threads": "1"} for b in (s.CLUSTER_DEFAULT, "1", "2", "3")},
        cluster_configs={"auto.create.topics.enable": "false"},
        acls=frozenset(_old_acl(i) for i in range(100)),
        quotas={},
        scram_users={},
    )


def big_plan() -> plans.Plan:
    return plan(desired_state(), live_state())

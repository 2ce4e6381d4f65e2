"""Which permissions a plan needs, decided on plain data: the brokers' answer where there is one, ACLs for
names that do not exist yet, nothing claimed where neither says."""

from __future__ import annotations

from reconciler.apply.access import missing_access
from reconciler.model import plans, state
from reconciler.model.kinds import Kind

EVERYTHING = frozenset({"DESCRIBE", "DESCRIBE_CONFIGS", "CREATE", "DELETE", "ALTER", "ALTER_CONFIGS"})
READ_ONLY = frozenset({"DESCRIBE", "DESCRIBE_CONFIGS"})


def change(
    phase: plans.Phase, name: str, *, kind: Kind = Kind.TOPIC, action: plans.Action = plans.Action.UPDATE
) -> plans.Change:
    return plans.Change(address=f"{kind}/{name}", kind=kind, name=name, action=action, phase=phase)


CREATE = change(plans.Phase.TOPIC_CREATE, "orders.new", action=plans.Action.CREATE)
CONFIG = change(plans.Phase.TOPIC_CONFIG, "orders.old")
ACL = change(
    plans.Phase.ACL_CREATE,
    "User:app/ALLOW/READ/TOPIC:LITERAL:orders@*",
    kind=Kind.ACL,
    action=plans.Action.CREATE,
)
REASSIGN = change(plans.Phase.REASSIGN, "orders.old")


def test_read_only_principal_lacks_each_write() -> None:
    missing = missing_access(
        [CREATE, CONFIG, ACL],
        cluster_ops=READ_ONLY,
        topic_ops={"orders.new": READ_ONLY, "orders.old": READ_ONLY},
        principal="User:plan",
        live_acls=None,
    )
    assert missing == {
        "CREATE on TOPIC orders.new (or CREATE on CLUSTER kafka-cluster)": ["topic/orders.new"],
        "ALTER_CONFIGS on TOPIC orders.old": ["topic/orders.old"],
        "ALTER on CLUSTER kafka-cluster": [ACL.address],
    }


def test_create_on_the_cluster_covers_every_topic_and_a_super_user_lacks_nothing() -> None:
    assert (
        missing_access([CREATE], cluster_ops=READ_ONLY | {"CREATE"}, topic_ops={}, principal=None, live_acls=None) == {}
    )
    everything = EVERYTHING | {"CLUSTER_ACTION", "IDEMPOTENT_WRITE"}
    topics = {"orders.new": EVERYTHING, "orders.old": EVERYTHING}
    assert (
        missing_access(
            [CREATE, CONFIG, ACL, REASSIGN],
            cluster_ops=everything,
            topic_ops=topics,
            principal=None,
            live_acls=None,
            throttled=True,
        )
        == {}
    )


def test_a_name_the_broker_does_not_describe_is_judged_by_the_acls() -> None:
    prefixed = state.AclBinding("TOPIC", "PREFIXED", "orders.", "User:apply", "*", "CREATE", "ALLOW")
    allowed = missing_access(
        [CREATE], cluster_ops=READ_ONLY, topic_ops={"orders.new": None}, principal="User:apply", live_acls=[prefixed]
    )
    assert allowed == {}
    denied = missing_access([CREATE], cluster_ops=READ_ONLY, topic_ops={}, principal="User:other", live_acls=[prefixed])
    assert list(denied) == ["CREATE on TOPIC orders.new (or CREATE on CLUSTER kafka-cluster)"]


def test_nothing_is_claimed_where_nobody_says() -> None:
    assert missing_access([CREATE, CONFIG, ACL], cluster_ops=None, topic_ops={}, principal=None, live_acls=None) == {}


def test_a_throttled_reassignment_also_needs_alter_configs() -> None:
    missing = missing_access(
        [REASSIGN],
        cluster_ops=READ_ONLY | {"ALTER"},
        topic_ops={"orders.old": READ_ONLY},
        principal="User:apply",
        live_acls=None,
        throttled=True,
    )
    assert set(missing) == {
        "ALTER_CONFIGS on CLUSTER kafka-cluster (replication throttle)",
        "ALTER_CONFIGS on TOPIC orders.old (replication throttle)",
    }
    unthrottled = missing_access(
        [REASSIGN], cluster_ops=READ_ONLY | {"ALTER"}, topic_ops={}, principal="User:apply", live_acls=None
    )
    assert unthrottled == {}

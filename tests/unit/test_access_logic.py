"""Which permissions a plan needs, decided on plain data: the brokers' answer where there is one, ACLs for
names that do not exist yet, nothing claimed where neither says."""

from __future__ import annotations

from reconciler.apply import access
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


def texts(missing: dict[access.Grant, list[str]], principal: str = "User:plan") -> dict[str, list[str]]:
    return {g.text(principal): a for g, a in missing.items()}


def test_read_only_principal_lacks_each_write() -> None:
    missing = missing_access(
        [CREATE, CONFIG, ACL],
        cluster_ops=READ_ONLY,
        topic_ops={"orders.new": READ_ONLY, "orders.old": READ_ONLY},
        principal="User:plan",
        live_acls=None,
    )
    assert texts(missing) == {
        "grant CREATE on TOPIC orders.new to User:plan (or CREATE on CLUSTER kafka-cluster)": ["topic/orders.new"],
        "grant ALTER_CONFIGS on TOPIC orders.old to User:plan": ["topic/orders.old"],
        "grant ALTER on CLUSTER kafka-cluster to User:plan": [ACL.address],
    }


def test_the_read_back_rights_are_checked_before_writing() -> None:
    """A principal granted what a write needs but not what reading it back needs is refused before writing."""
    grants = [
        state.AclBinding("TOPIC", "PREFIXED", "orders.", "User:ci", "*", op, "ALLOW")
        for op in ("CREATE", "ALTER", "ALTER_CONFIGS")
    ]
    writes_only = frozenset({"ALTER", "ALTER_CONFIGS", "DESCRIBE", "DESCRIBE_CONFIGS"})
    missing = missing_access(
        [CREATE, CONFIG],
        cluster_ops=writes_only,
        topic_ops={"orders.old": frozenset({"ALTER_CONFIGS", "DESCRIBE_CONFIGS"})},
        principal="User:ci",
        live_acls=grants,
    )
    assert texts(missing, "User:ci") == {
        # ALTER on the prefix implies DESCRIBE, ALTER_CONFIGS implies DESCRIBE_CONFIGS (Kafka's authorizer): the new
        # topic can be read back; the old one lacks DESCRIBE for Metadata
        "grant DESCRIBE on TOPIC orders.old to User:ci (read-back)": ["topic/orders.old"],
    }
    only_create = grants[:1]
    missing = missing_access(
        [CREATE], cluster_ops=writes_only, topic_ops={}, principal="User:ci", live_acls=only_create
    )
    assert texts(missing, "User:ci") == {
        "grant DESCRIBE on TOPIC orders.new to User:ci (read-back)": ["topic/orders.new"],
        "grant DESCRIBE_CONFIGS on TOPIC orders.new to User:ci (read-back)": ["topic/orders.new"],
    }
    assert (
        missing_access(
            [CREATE], cluster_ops=writes_only, topic_ops={}, principal="User:ci", live_acls=only_create, read_back=False
        )
        == {}
    )


def test_the_refusal_names_each_right_and_gives_kafka_acls_lines() -> None:
    missing = missing_access(
        [CREATE, CONFIG, ACL],
        cluster_ops=READ_ONLY,
        topic_ops={"orders.new": READ_ONLY, "orders.old": READ_ONLY},
        principal="User:plan",
        live_acls=None,
    )
    text = access.refusal(missing, principal="User:plan", bootstrap="b1:9092")
    assert "User:plan lacks 3 permission(s)" in text
    assert (
        "  grant ALTER on CLUSTER kafka-cluster to User:plan  (for acl/User:app/ALLOW/READ/TOPIC:LITERAL:orders@*)"
        in (text)
    )
    assert (
        "kafka-acls --bootstrap-server b1:9092 --command-config <admin.properties> --add --allow-principal User:plan "
        "--operation Alter --cluster"
    ) in text
    assert "--operation AlterConfigs --topic orders.old" in text
    assert "--operation Create --topic orders.new" in text


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
    prefixed = [
        state.AclBinding("TOPIC", "PREFIXED", "orders.", "User:apply", "*", op, "ALLOW")
        for op in ("CREATE", "DESCRIBE", "DESCRIBE_CONFIGS")
    ]
    allowed = missing_access(
        [CREATE], cluster_ops=READ_ONLY, topic_ops={"orders.new": None}, principal="User:apply", live_acls=prefixed
    )
    assert allowed == {}
    denied = missing_access(
        [CREATE], cluster_ops=READ_ONLY, topic_ops={}, principal="User:other", live_acls=prefixed, read_back=False
    )
    assert list(texts(denied, "User:other")) == [
        "grant CREATE on TOPIC orders.new to User:other (or CREATE on CLUSTER kafka-cluster)"
    ]


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
    assert set(texts(missing, "User:apply")) == {
        "grant ALTER_CONFIGS on CLUSTER kafka-cluster to User:apply (replication throttle)",
        "grant ALTER_CONFIGS on TOPIC orders.old to User:apply (replication throttle)",
    }
    unthrottled = missing_access(
        [REASSIGN], cluster_ops=READ_ONLY | {"ALTER"}, topic_ops={}, principal="User:apply", live_acls=None
    )
    assert unthrottled == {}


GROUP_CONFIG = change(plans.Phase.GROUP_CONFIG, "payments", kind=Kind.GROUP_CONFIG)


def test_a_group_config_needs_alter_and_describe_configs_on_its_group_judged_by_the_acls() -> None:
    """Regression: the check did not ask for the group's rights, so a least-privilege apply wrote other changes and
    then failed on GROUP_AUTHORIZATION_FAILED."""
    cluster_rights = [state.AclBinding("CLUSTER", "LITERAL", "kafka-cluster", "User:ci", "*", "ALTER", "ALLOW")]
    missing = missing_access(
        [CONFIG, GROUP_CONFIG], cluster_ops=EVERYTHING, topic_ops={"orders.old": EVERYTHING},
        principal="User:ci", live_acls=cluster_rights,
    )  # fmt: skip
    assert texts(missing, "User:ci") == {
        "grant ALTER_CONFIGS on GROUP payments to User:ci": [GROUP_CONFIG.address],
        "grant DESCRIBE_CONFIGS on GROUP payments to User:ci (read-back)": [GROUP_CONFIG.address],
    }
    assert access.acl_commands(missing, principal="User:ci", bootstrap="b:9092") == [
        "kafka-acls --bootstrap-server b:9092 --command-config <admin.properties> --add --allow-principal User:ci "
        "--operation AlterConfigs --operation DescribeConfigs --group payments"
    ]
    prefixed = state.AclBinding("GROUP", "PREFIXED", "pay", "User:ci", "*", "ALTER_CONFIGS", "ALLOW")
    assert not missing_access(
        [GROUP_CONFIG], cluster_ops=EVERYTHING, topic_ops={}, principal="User:ci", live_acls=[prefixed]
    )  # ALTER_CONFIGS implies DESCRIBE_CONFIGS
    assert not missing_access([GROUP_CONFIG], cluster_ops=EVERYTHING, topic_ops={}, principal="User:ci", live_acls=None)


def test_every_phase_a_kind_declares_with_a_kafka_write_is_checked() -> None:
    from reconciler.kinds import registry

    for kind in registry.KINDS.values():
        for declared in kind.phases:
            if declared.write is None:
                assert kind.port != "kafka" and declared.phase not in access.NEEDS
                continue
            assert access.NEEDS[declared.phase] == (declared.write.resource_type, declared.write.operation)

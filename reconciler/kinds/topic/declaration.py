"""The topic kind: created, grown, reconfigured, reassigned and deleted on the Kafka wire."""

from __future__ import annotations

from collections.abc import Mapping

from reconciler.kinds.spec import KindSpec, Part, PhaseSpec, Right, declared_configs_in
from reconciler.model import payloads, plans, state, views
from reconciler.model.kinds import Kind

_READ_BACK = (Right("TOPIC", "DESCRIBE"), Right("TOPIC", "DESCRIBE_CONFIGS"))  # Metadata and DescribeConfigs
_UPDATE = frozenset({plans.Action.UPDATE})


def _live_configs(live: state.ClusterState, name: str) -> Mapping[str, str | None] | None:
    if live.topics is None:
        return None
    topic = live.topics.get(name)
    return {} if topic is None else topic.configs


DECLARATION = KindSpec(
    kind=Kind.TOPIC,
    payload=payloads.TopicPayload,
    phases=(
        PhaseSpec(
            plans.Phase.TOPIC_DELETE,
            frozenset({plans.Action.DELETE}),
            Right("TOPIC", "DELETE"),
            decode=Part("reconciler.kinds.topic.apply:delete_topic"),
            run=Part("reconciler.kinds.topic.phases:run_delete"),
        ),
        # CREATE on the cluster allows it as well (``apply.access``)
        PhaseSpec(
            plans.Phase.TOPIC_CREATE,
            frozenset({plans.Action.CREATE}),
            Right("TOPIC", "CREATE"),
            _READ_BACK,
            decode=Part("reconciler.kinds.topic.apply:create_topic"),
            run=Part("reconciler.kinds.topic.phases:run_create"),
        ),
        PhaseSpec(
            plans.Phase.PARTITIONS,
            _UPDATE,
            Right("TOPIC", "ALTER"),
            _READ_BACK,
            decode=Part("reconciler.kinds.topic.apply:add_partitions"),
            run=Part("reconciler.kinds.topic.phases:run_partitions"),
        ),
        PhaseSpec(
            plans.Phase.TOPIC_CONFIG,
            _UPDATE,
            Right("TOPIC", "ALTER_CONFIGS"),
            _READ_BACK,
            decode=Part("reconciler.kinds.topic.apply:alter_topic_configs"),
            run=Part("reconciler.apply.resource_phases:run_configs"),
        ),
        PhaseSpec(
            plans.Phase.REASSIGN,
            _UPDATE,
            Right("CLUSTER", "ALTER"),
            (*_READ_BACK, Right("CLUSTER", "DESCRIBE")),
            decode=Part("reconciler.kinds.topic.apply:reassign"),
            run=Part("reconciler.kinds.topic.reassign:run_reassign"),
        ),
    ),
    live_section=lambda live: live.topics,
    desired_section=lambda wanted: wanted.topics,
    declared=lambda wanted: ((Kind.TOPIC.address(n), n, t.source) for n, t in wanted.topics.items()),
    snapshot_section="topics",
    owned_by_rules=lambda own: bool(own.topics),
    live_view=lambda topics, name: views.topic_view(topics.get(name)),
    live_configs=_live_configs,
    declared_configs=declared_configs_in(lambda wanted: wanted.topics),
    # -- the planner's parts
    plan=Part("reconciler.kinds.topic.plan:plan_topics"),
    fingerprint_rows=Part("reconciler.kinds.topic.scope:topic_rows"),
    scope=Part("reconciler.kinds.topic.scope:SCOPE"),
    label="topics",
    usage_topics=Part("reconciler.kinds.topic.plan:usage_topics"),
    impact=Part("reconciler.kinds.topic.impact:IMPACT"),
    # -- apply's parts
    check_applied=Part("reconciler.kinds.topic.apply:topic_applied"),
    # -- the snapshot's and the renders' parts
    snapshot=Part("reconciler.kinds.topic.snapshot:SNAPSHOT"),
    # -- fleet's and import's parts
    rows=Part("reconciler.kinds.topic.rows:TOPICS"),
    adopt=Part("reconciler.kinds.topic.adopt:add_topics"),
    # -- the manifests' parts
    manifest=Part("reconciler.manifests.parts:TOPIC"),
    # -- the ports' parts
)

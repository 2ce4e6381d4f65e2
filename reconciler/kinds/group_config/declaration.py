"""The group config kind (Kafka 4): configs of a consumer or share group, on the GROUP config resource.

IncrementalAlterConfigs on a group needs ALTER_CONFIGS on that GROUP, and reading it back DESCRIBE_CONFIGS on it:
rights on the group, not on the cluster."""

from __future__ import annotations

from reconciler.kinds.spec import ALL_ACTIONS, KindSpec, Part, PhaseSpec, Right, declared_configs_in, live_configs_in
from reconciler.model import payloads, plans, views
from reconciler.model.kinds import Kind

DECLARATION = KindSpec(
    kind=Kind.GROUP_CONFIG,
    payload=payloads.EntityConfigPayload,
    phases=(
        PhaseSpec(
            plans.Phase.GROUP_CONFIG,
            ALL_ACTIONS,
            Right("GROUP", "ALTER_CONFIGS"),
            (Right("GROUP", "DESCRIBE_CONFIGS"),),
            decode=Part("reconciler.apply.decoded:alter_entity_configs"),
            run=Part("reconciler.apply.resource_phases:run_configs"),
        ),
    ),
    live_section=lambda live: live.group_configs,
    desired_section=lambda wanted: wanted.group_configs,
    declared=lambda wanted: ((Kind.GROUP_CONFIG.address(n), n, e.source) for n, e in wanted.group_configs.items()),
    snapshot_section="group_configs",
    owned_by_rules=lambda own: bool(own.groups),
    live_view=views.entity_in,
    live_configs=live_configs_in(lambda live: live.group_configs),
    declared_configs=declared_configs_in(lambda wanted: wanted.group_configs),
    # -- the planner's parts
    plan=Part("reconciler.kinds.group_config.plan:plan_group_configs"),
    fingerprint_rows=Part("reconciler.kinds.group_config.plan:group_config_rows"),
    scope=Part("reconciler.kinds.group_config.plan:GROUP_CONFIG_SCOPE"),
    label="group configs",
    usage_topics=Part("reconciler.kinds.spec:no_usage_topics"),
    # -- apply's parts
    check_applied=Part("reconciler.apply.verify:entity_applied"),
    # -- the snapshot's and the renders' parts
    snapshot=Part("reconciler.kinds.group_config.snapshot:SNAPSHOT"),
    # -- fleet's and import's parts
    rows=Part("reconciler.kinds.group_config.rows:GROUP_CONFIGS"),
    adopt=Part("reconciler.kinds.group_config.adopt:add_group_configs"),
    # -- the manifests' parts
    manifest=Part("reconciler.manifests.parts:GROUP_CONFIG"),
    # -- the ports' parts
)

"""The broker config kind: dynamic configs of one broker or of every broker (``<default>``)."""

from __future__ import annotations

from reconciler.kinds.spec import KindSpec, Part, PhaseSpec, Right, declared_configs_in, live_configs_in
from reconciler.model import payloads, plans, views
from reconciler.model.kinds import Kind

DECLARATION = KindSpec(
    kind=Kind.BROKER_CONFIG,
    payload=payloads.BrokerConfigPayload,
    phases=(
        PhaseSpec(
            plans.Phase.BROKER_CONFIG,
            frozenset({plans.Action.CREATE, plans.Action.UPDATE}),
            Right("CLUSTER", "ALTER_CONFIGS"),
            (Right("CLUSTER", "DESCRIBE_CONFIGS"),),
            decode=Part("reconciler.kinds.broker_config.apply:alter_broker_configs"),
            run=Part("reconciler.apply.resource_phases:run_configs"),
        ),
    ),
    live_section=lambda live: live.broker_configs,
    desired_section=lambda wanted: wanted.broker_configs,
    declared=lambda wanted: ((Kind.BROKER_CONFIG.address(b), b, c.source) for b, c in wanted.broker_configs.items()),
    snapshot_section="broker_configs",
    owned_by_rules=lambda own: False,  # only declared broker configs are managed
    live_view=lambda brokers, name: views.broker_config_view(name, brokers.get(name)),
    live_configs=live_configs_in(lambda live: live.broker_configs),
    declared_configs=declared_configs_in(lambda wanted: wanted.broker_configs),
    # -- the planner's parts
    plan=Part("reconciler.kinds.broker_config.plan:plan_broker_configs"),
    fingerprint_rows=Part("reconciler.kinds.broker_config.plan:broker_config_rows"),
    scope=Part("reconciler.kinds.broker_config.plan:SCOPE"),
    label="dynamic broker configs",
    usage_topics=Part("reconciler.kinds.spec:no_usage_topics"),
    # -- apply's parts
    check_applied=Part("reconciler.kinds.broker_config.apply:broker_config_applied"),
    # -- the snapshot's and the renders' parts
    snapshot=Part("reconciler.kinds.broker_config.snapshot:SNAPSHOT"),
    # -- fleet's and import's parts
    rows=Part("reconciler.kinds.broker_config.rows:BROKER_CONFIGS"),
    adopt=Part("reconciler.kinds.broker_config.adopt:add_broker_configs"),
    # -- the manifests' parts
    manifest=Part("reconciler.manifests.parts:BROKER_CONFIG"),
    # -- the ports' parts
)

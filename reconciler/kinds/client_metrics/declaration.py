"""The client-metrics subscription kind (KIP-714): a named subscription on the CLIENT_METRICS config resource,
whose writes and reads Kafka authorizes on the cluster."""

from __future__ import annotations

from reconciler.kinds.spec import ALL_ACTIONS, KindSpec, Part, PhaseSpec, Right, declared_configs_in, live_configs_in
from reconciler.model import payloads, plans, views
from reconciler.model.kinds import Kind

DECLARATION = KindSpec(
    kind=Kind.CLIENT_METRICS,
    payload=payloads.EntityConfigPayload,
    phases=(
        PhaseSpec(
            plans.Phase.CLIENT_METRICS,
            ALL_ACTIONS,
            Right("CLUSTER", "ALTER_CONFIGS"),
            (Right("CLUSTER", "DESCRIBE_CONFIGS"),),
            decode=Part("reconciler.apply.decoded:alter_entity_configs"),
            run=Part("reconciler.apply.resource_phases:run_configs"),
        ),
    ),
    live_section=lambda live: live.client_metrics,
    desired_section=lambda wanted: wanted.client_metrics,
    declared=lambda wanted: ((Kind.CLIENT_METRICS.address(n), n, e.source) for n, e in wanted.client_metrics.items()),
    snapshot_section="client_metrics",
    owned_by_rules=lambda own: bool(own.client_metrics),
    live_view=views.entity_in,
    live_configs=live_configs_in(lambda live: live.client_metrics),
    declared_configs=declared_configs_in(lambda wanted: wanted.client_metrics),
    # -- the planner's parts
    plan=Part("reconciler.kinds.client_metrics.plan:plan_client_metrics"),
    fingerprint_rows=Part("reconciler.kinds.client_metrics.plan:client_metrics_rows"),
    scope=Part("reconciler.kinds.client_metrics.plan:CLIENT_METRICS_SCOPE"),
    label="client-metrics subscriptions",
    usage_topics=Part("reconciler.kinds.spec:no_usage_topics"),
    # -- apply's parts
    check_applied=Part("reconciler.apply.verify:entity_applied"),
    # -- the snapshot's and the renders' parts
    snapshot=Part("reconciler.kinds.client_metrics.snapshot:SNAPSHOT"),
    # -- fleet's and import's parts
    rows=Part("reconciler.kinds.client_metrics.rows:CLIENT_METRICS"),
    adopt=Part("reconciler.kinds.client_metrics.adopt:add_client_metrics"),
    # -- the manifests' parts
    manifest=Part("reconciler.manifests.parts:CLIENT_METRICS"),
    # -- the ports' parts
)

"""The client quota kind: a quota entity's values set and removed with AlterClientQuotas."""

from __future__ import annotations

from reconciler.kinds.spec import ALL_ACTIONS, KindSpec, Part, PhaseSpec, Right, no_declared_configs, no_live_configs
from reconciler.model import payloads, plans, views
from reconciler.model.kinds import Kind

DECLARATION = KindSpec(
    kind=Kind.QUOTA,
    payload=payloads.QuotaPayload,
    phases=(
        PhaseSpec(
            plans.Phase.QUOTA,
            ALL_ACTIONS,
            Right("CLUSTER", "ALTER_CONFIGS"),
            (Right("CLUSTER", "DESCRIBE_CONFIGS"),),
            decode=Part("reconciler.kinds.quota.apply:write_quota"),
            run=Part("reconciler.kinds.quota.apply:run_quotas"),
        ),
    ),
    live_section=lambda live: live.quotas,
    desired_section=lambda wanted: wanted.quotas,
    declared=lambda wanted: (
        (e.address, e.address.removeprefix(Kind.QUOTA.prefix), q.source) for e, q in wanted.quotas.items()
    ),
    snapshot_section="quotas",
    owned_by_rules=lambda own: bool(own.principals or own.quota_entities),
    live_view=views.quota_in,
    live_configs=no_live_configs,
    declared_configs=no_declared_configs,
    # -- the planner's parts
    plan=Part("reconciler.kinds.quota.plan:plan_quotas"),
    fingerprint_rows=Part("reconciler.kinds.quota.plan:quota_rows"),
    scope=Part("reconciler.kinds.quota.plan:SCOPE"),
    label="client quotas",
    usage_topics=Part("reconciler.kinds.spec:no_usage_topics"),
    # -- apply's parts
    check_applied=Part("reconciler.kinds.quota.apply:quota_applied"),
    # -- the snapshot's and the renders' parts
    snapshot=Part("reconciler.kinds.quota.snapshot:SNAPSHOT"),
    # -- fleet's and import's parts
    rows=Part("reconciler.kinds.quota.rows:QUOTAS"),
    adopt=Part("reconciler.kinds.quota.adopt:add_quotas"),
    # -- the manifests' parts
    manifest=Part("reconciler.manifests.parts:QUOTA"),
    # -- the ports' parts
)

"""The SCRAM user kind: credentials set and removed with AlterUserScramCredentials."""

from __future__ import annotations

from reconciler.kinds.spec import ALL_ACTIONS, KindSpec, Part, PhaseSpec, Right, no_declared_configs, no_live_configs
from reconciler.model import payloads, plans, views
from reconciler.model.kinds import Kind

DECLARATION = KindSpec(
    kind=Kind.SCRAM_USER,
    payload=payloads.ScramPayload,
    phases=(
        PhaseSpec(
            plans.Phase.SCRAM,
            ALL_ACTIONS,
            Right("CLUSTER", "ALTER"),
            (Right("CLUSTER", "DESCRIBE"),),
            decode=Part("reconciler.kinds.scram_user.apply:write_scram"),
            run=Part("reconciler.kinds.scram_user.apply:run_scram"),
        ),
    ),
    live_section=lambda live: live.scram_users,
    desired_section=lambda wanted: wanted.scram_users,
    declared=lambda wanted: ((Kind.SCRAM_USER.address(n), n, u.source) for n, u in wanted.scram_users.items()),
    snapshot_section="scram_users",
    owned_by_rules=lambda own: bool(own.principals),
    live_view=lambda users, name: views.scram_view(name, users.get(name)),
    live_configs=no_live_configs,
    declared_configs=no_declared_configs,
    # -- the planner's parts
    plan=Part("reconciler.kinds.scram_user.plan:plan_scram"),
    fingerprint_rows=Part("reconciler.kinds.scram_user.plan:scram_rows"),
    scope=Part("reconciler.kinds.scram_user.plan:SCOPE"),
    label="SCRAM users",
    usage_topics=Part("reconciler.kinds.spec:no_usage_topics"),
    # -- apply's parts
    check_applied=Part("reconciler.kinds.scram_user.apply:scram_applied"),
    # -- the snapshot's and the renders' parts
    snapshot=Part("reconciler.kinds.scram_user.snapshot:SNAPSHOT"),
    # -- fleet's and import's parts
    rows=Part("reconciler.kinds.scram_user.rows:SCRAM_USERS"),
    adopt=Part("reconciler.kinds.scram_user.adopt:add_scram_users"),
    # -- the manifests' parts
    manifest=Part("reconciler.manifests.parts:SCRAM_USER"),
    # -- the ports' parts
)

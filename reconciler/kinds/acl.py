"""The ACL kind: bindings deleted (first of all phases) and created (after every other Kafka write)."""

from __future__ import annotations

from reconciler.kinds.spec import KindSpec, Part, PhaseSpec, Right, no_declared_configs, no_live_configs
from reconciler.model import payloads, plans, views
from reconciler.model.kinds import Kind

_READ_BACK = (Right("CLUSTER", "DESCRIBE"),)  # DescribeAcls

DECLARATION = KindSpec(
    kind=Kind.ACL,
    payload=payloads.AclPayload,
    phases=(
        PhaseSpec(plans.Phase.ACL_DELETE, frozenset({plans.Action.DELETE}), Right("CLUSTER", "ALTER"), _READ_BACK),
        PhaseSpec(plans.Phase.ACL_CREATE, frozenset({plans.Action.CREATE}), Right("CLUSTER", "ALTER"), _READ_BACK),
    ),
    live_section=lambda live: live.acls,
    desired_section=lambda wanted: wanted.acls,
    declared=lambda wanted: (
        (b.address, b.address.removeprefix(Kind.ACL.prefix), src) for b, src in wanted.acls.items()
    ),
    snapshot_section="acls",
    owned_by_rules=lambda own: bool(own.principals),
    live_view=views.acl_in,
    live_configs=no_live_configs,
    declared_configs=no_declared_configs,
    # -- the planner's parts
    plan=Part("reconciler.planner.acls:plan_acls"),
    fingerprint_rows=Part("reconciler.planner.views:acl_rows"),
    scope=Part("reconciler.planner.acls:SCOPE"),
    # -- apply's parts
    # -- the snapshot's and the renders' parts
    # -- fleet's and import's parts
    rows=Part("reconciler.fleet.kafka_rows:ACLS"),
    # -- the manifests' parts
    # -- the ports' parts
)

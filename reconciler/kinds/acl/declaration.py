"""The ACL kind: bindings deleted (first of all phases) and created (after every other Kafka write)."""

from __future__ import annotations

from reconciler.kinds.spec import (
    KindSpec,
    Part,
    PhaseDecoder,
    PhaseRunner,
    PhaseSpec,
    Right,
    no_declared_configs,
    no_live_configs,
)
from reconciler.model import payloads, plans, views
from reconciler.model.kinds import Kind

_READ_BACK = (Right("CLUSTER", "DESCRIBE"),)  # DescribeAcls
_DECODE: Part[PhaseDecoder] = Part(
    "reconciler.kinds.acl.apply:write_acl"
)  # a binding to create or delete, as its phase says
_RUN: Part[PhaseRunner] = Part("reconciler.kinds.acl.apply:run_acls")

DECLARATION = KindSpec(
    kind=Kind.ACL,
    payload=payloads.AclPayload,
    phases=(
        PhaseSpec(
            plans.Phase.ACL_DELETE,
            frozenset({plans.Action.DELETE}),
            Right("CLUSTER", "ALTER"),
            _READ_BACK,
            decode=_DECODE,
            run=_RUN,
        ),
        PhaseSpec(
            plans.Phase.ACL_CREATE,
            frozenset({plans.Action.CREATE}),
            Right("CLUSTER", "ALTER"),
            _READ_BACK,
            decode=_DECODE,
            run=_RUN,
        ),
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
    plan=Part("reconciler.kinds.acl.plan:plan_acls"),
    fingerprint_rows=Part("reconciler.kinds.acl.plan:acl_rows"),
    scope=Part("reconciler.kinds.acl.plan:SCOPE"),
    label="ACLs",
    usage_topics=Part("reconciler.kinds.spec:no_usage_topics"),
    # -- apply's parts
    check_applied=Part("reconciler.kinds.acl.apply:acl_applied"),
    # -- the snapshot's and the renders' parts
    snapshot=Part("reconciler.kinds.acl.snapshot:SNAPSHOT"),
    # -- fleet's and import's parts
    rows=Part("reconciler.kinds.acl.rows:ACLS"),
    adopt=Part("reconciler.kinds.acl.adopt:add_acls"),
    # -- the manifests' parts
    manifest=Part("reconciler.manifests.parts:ACL"),
    # -- the ports' parts
)

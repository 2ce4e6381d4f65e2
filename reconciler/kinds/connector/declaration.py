"""The connector kind's declaration (``DECLARATION``): the package docstring says where its parts live."""

from __future__ import annotations

from reconciler.kinds.spec import KindSpec, Part, PhaseSpec, no_declared_configs, no_live_configs
from reconciler.model import payloads, plans, views
from reconciler.model.kinds import Kind

DECLARATION = KindSpec(
    kind=Kind.CONNECTOR,
    payload=payloads.ConnectorPayload,
    phases=(
        PhaseSpec(
            plans.Phase.CONNECTOR_DELETE,
            frozenset({plans.Action.DELETE}),
            None,
            decode=Part("reconciler.kinds.connector.writes:delete"),
            run=Part("reconciler.kinds.connector.phases:run_delete"),
        ),
        PhaseSpec(
            plans.Phase.CONNECTOR,
            frozenset({plans.Action.CREATE, plans.Action.UPDATE}),
            None,
            decode=Part("reconciler.kinds.connector.writes:write"),
            run=Part("reconciler.kinds.connector.phases:run_write"),
        ),
    ),
    live_section=lambda live: None if live.connect is None else live.connect.connectors,
    desired_section=lambda wanted: wanted.connectors,
    declared=lambda wanted: ((Kind.CONNECTOR.address(n), n, c.source) for n, c in wanted.connectors.items()),
    snapshot_section="connect",
    owned_by_rules=lambda own: bool(own.connectors),
    port="connect",
    live_view=lambda connectors, name: views.connector_view(connectors.get(name)),
    live_configs=no_live_configs,
    declared_configs=no_declared_configs,
    # -- the planner's parts
    plan=Part("reconciler.kinds.connector.plan:plan_connectors"),
    fingerprint_rows=Part("reconciler.kinds.connector.plan:connector_rows"),
    scope=Part("reconciler.kinds.connector.plan:SCOPE"),
    label="connectors",
    usage_topics=Part("reconciler.kinds.spec:no_usage_topics"),
    # -- apply's parts
    check_applied=Part("reconciler.apply.verify:read_back_in_its_phase"),
    # -- the snapshot's and the renders' parts
    snapshot=Part("reconciler.kinds.connector.snapshot:SNAPSHOT"),
    # -- fleet's and import's parts
    rows=Part("reconciler.kinds.connector.rows:ROWS"),
    adopt=Part("reconciler.kinds.connector.adopt:add"),
    # -- the manifests' parts
    manifest=Part("reconciler.manifests.parts:CONNECTOR"),
    # -- the ports' parts
    read_for_plan=Part("reconciler.kinds.connector.evidence:read_into"),
    read_every=Part("reconciler.kinds.connector.evidence:read_every"),
    read_to_apply=Part("reconciler.kinds.connector.phases:read_to_apply"),
    read_offline=Part("reconciler.kinds.connector.evidence:offline"),
)

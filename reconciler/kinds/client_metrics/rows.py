"""Client-metrics subscriptions in the fleet row model (``reconciler.fleet.rows``): declared and live subscriptions
as rows, and back, written as every config entity's (``fleet.row_fields``).

``CLIENT_METRICS`` is the kind's ``FleetRows`` (its declaration's ``rows``), with the Ownership rules that name
subscriptions.
"""

from __future__ import annotations

import dataclasses

from reconciler.fleet.ownership_rows import patterns, unpatterns
from reconciler.fleet.row_fields import declared_entities, desired_entities, entity_configs, live_entities
from reconciler.kinds.spec import FleetRows
from reconciler.model.kinds import Kind

CLIENT_METRICS = FleetRows(
    desired_rows=lambda wanted: desired_entities(Kind.CLIENT_METRICS, wanted.client_metrics),
    rebuild_desired=lambda wanted, section: dataclasses.replace(wanted, client_metrics=declared_entities(section)),
    live_rows=lambda live: live_entities(Kind.CLIENT_METRICS, live.client_metrics),
    rebuild_live=lambda live, section, meta: dataclasses.replace(live, client_metrics=entity_configs(section)),
    rules=lambda own: {"client_metrics": patterns(own.client_metrics)} if own.client_metrics else {},
    rebuild_rules=lambda own, doc: dataclasses.replace(own, client_metrics=unpatterns(doc.get("client_metrics", []))),
)

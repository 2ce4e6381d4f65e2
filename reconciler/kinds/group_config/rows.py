"""Group configs in the fleet row model (``reconciler.fleet.rows``): declared and live group configs as rows, and
back, written as every config entity's (``fleet.row_fields``).

``GROUP_CONFIGS`` is the kind's ``FleetRows`` (its declaration's ``rows``), with the Ownership rules that name group
ids.
"""

from __future__ import annotations

import dataclasses

from reconciler.fleet.ownership_rows import patterns, unpatterns
from reconciler.fleet.row_fields import declared_entities, desired_entities, entity_configs, live_entities
from reconciler.kinds.spec import FleetRows
from reconciler.model.kinds import Kind

GROUP_CONFIGS = FleetRows(
    desired_rows=lambda wanted: desired_entities(Kind.GROUP_CONFIG, wanted.group_configs),
    rebuild_desired=lambda wanted, section: dataclasses.replace(wanted, group_configs=declared_entities(section)),
    live_rows=lambda live: live_entities(Kind.GROUP_CONFIG, live.group_configs),
    rebuild_live=lambda live, section, meta: dataclasses.replace(live, group_configs=entity_configs(section)),
    rules=lambda own: {"groups": patterns(own.groups)} if own.groups else {},
    rebuild_rules=lambda own, doc: dataclasses.replace(own, groups=unpatterns(doc.get("groups", []))),
)

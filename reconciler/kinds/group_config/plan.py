"""The group config kind's planner parts (``plan``, ``scope``, ``fingerprint_rows``): the planner both config-entity
kinds share (``reconciler.planner.entities``), run for the group configs."""

from __future__ import annotations

from typing import Any

from reconciler.model import state
from reconciler.model.kinds import Kind
from reconciler.planner import common, entities, views


def plan_group_configs(ctx: common.Context) -> None:
    """The group configs' planner (the ``GroupConfig`` kind's ``plan`` part)."""
    entities.plan_entities(ctx, Kind.GROUP_CONFIG)


# The group configs' part of a plan's scope (``reconciler.planner.scope``): the entities the Ownership rules name.
GROUP_CONFIG_SCOPE = entities.scope_of(Kind.GROUP_CONFIG)


def group_config_rows(live: state.ClusterState) -> list[Any] | None:
    """The group configs' part of a live fingerprint (``reconciler.planner.views.live_fingerprint``)."""
    return views.config_rows(live.group_configs)

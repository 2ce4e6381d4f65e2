"""The client-metrics subscription kind's planner parts (``plan``, ``scope``, ``fingerprint_rows``): the planner
both config-entity kinds share (``reconciler.planner.entities``), run for the client-metrics subscriptions."""

from __future__ import annotations

from typing import Any

from reconciler.model import state
from reconciler.model.kinds import Kind
from reconciler.planner import common, entities, views


def plan_client_metrics(ctx: common.Context) -> None:
    """The client-metrics subscriptions' planner (the ``ClientMetrics`` kind's ``plan`` part)."""
    entities.plan_entities(ctx, Kind.CLIENT_METRICS)


# The client-metrics subscriptions' part of a plan's scope (``reconciler.planner.scope``): the subscriptions the
# Ownership rules name.
CLIENT_METRICS_SCOPE = entities.scope_of(Kind.CLIENT_METRICS)


def client_metrics_rows(live: state.ClusterState) -> list[Any] | None:
    """The client-metrics subscriptions' part of a live fingerprint (``reconciler.planner.views.live_fingerprint``)."""
    return views.config_rows(live.client_metrics)

"""The broker config kind's planner (its ``plan``, ``scope`` and ``fingerprint_rows`` parts): dynamic broker config
changes, per declared entry (``<default>`` or a broker id).

Only declared entries are managed: an entry (the cluster default or one broker) that the manifests
do not mention is invisible, because per-broker dynamic configs often hold listener key material
set by other means. Inside a declared entry, keys set live but not declared are reset when the
delete policy allows it for ``broker_config``, and listed as unmanaged otherwise.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from reconciler.kinds import spec
from reconciler.model import payloads, plans, state
from reconciler.model import views as model_views
from reconciler.model.kinds import Kind
from reconciler.planner import common, views


def plan_broker_configs(ctx: common.Context) -> None:
    """Add BROKER_CONFIG-phase changes and unmanaged keys to ``ctx``."""
    wanted = ctx.desired.broker_configs
    if not wanted:
        return
    live = ctx.live.broker_configs
    if live is None:
        ctx.unreadable(
            Kind.BROKER_CONFIG,
            "dynamic broker configs could not be read from the cluster; broker configs are not planned",
            code="broker-configs-unreadable",
        )
        return
    broker_ids = {str(b.id) for b in ctx.live.brokers}
    reset = ctx.may_delete(Kind.BROKER_CONFIG)
    secret = ctx.live.broker_config_sensitive

    def sensitive(key: str) -> bool:
        return key in secret or common.is_sensitive(key)

    for broker in sorted(wanted):
        want = wanted[broker]
        have = live.get(broker) or {}
        fingerprint = views.fingerprint_of(model_views.broker_config_view(broker, have))
        source = common.source_text(want.source)
        if broker != state.CLUSTER_DEFAULT and broker_ids and broker not in broker_ids:
            ctx.changes.append(_unknown_broker(broker, broker_ids=broker_ids, fingerprint=fingerprint, source=source))
            continue
        diff = common.diff_configs(
            want.configs, have, sensitive=sensitive, default_of=lambda _k: None, reset_undeclared=reset
        )
        if diff.kept:
            ctx.unmanaged.append(_undeclared_kept(broker, kept=diff.kept))
        if not diff.ops:
            ctx.unchanged[Kind.BROKER_CONFIG] += 1
            continue
        ctx.changes.append(
            plans.Change(
                address=views.address(Kind.BROKER_CONFIG, broker),
                kind=Kind.BROKER_CONFIG,
                name=broker,
                action=plans.Action.UPDATE,
                phase=plans.Phase.BROKER_CONFIG,
                before=payloads.BrokerConfigPayload(diff.before),
                after=payloads.BrokerConfigPayload(config_ops=diff.ops),
                reasons=("dynamic broker configs differ from the manifests",),
                fingerprint=fingerprint,
                source=source,
            )
        )


def _unknown_broker(broker: str, *, broker_ids: set[str], fingerprint: str | None, source: str | None) -> plans.Change:
    """A blocked change: configs declared for a broker id the cluster does not have."""
    return plans.Change(
        address=views.address(Kind.BROKER_CONFIG, broker),
        kind=Kind.BROKER_CONFIG,
        name=broker,
        action=plans.Action.BLOCKED,
        phase=plans.Phase.BROKER_CONFIG,
        reasons=(f"broker {broker} is not in the cluster (brokers: {', '.join(sorted(broker_ids))})",),
        fingerprint=fingerprint,
        source=source,
    )


def _undeclared_kept(broker: str, *, kept: Sequence[str]) -> plans.Unmanaged:
    """Dynamic configs set on ``broker`` (or the cluster default) but not declared, kept as resets are disabled."""
    label = "cluster default" if broker == state.CLUSTER_DEFAULT else f"broker {broker}"
    return plans.Unmanaged(
        address=views.address(Kind.BROKER_CONFIG, broker),
        kind=Kind.BROKER_CONFIG,
        name=broker,
        reason=f"dynamic config(s) set on the {label} but not declared: {', '.join(kept)}; "
        "resets are disabled for broker configs",
    )


def _keep_brokers(live: state.ClusterState, keep: Callable[[Any, Any], bool]) -> state.ClusterState:
    if live.broker_configs is None:
        return live
    return dataclasses.replace(live, broker_configs={b: c for b, c in live.broker_configs.items() if keep(b, c)})


# The dynamic broker configs' part of a plan's scope (``reconciler.planner.scope``): the declared ones only.
SCOPE = spec.KindScope(
    owns=lambda rules, broker, configs: False,
    keep=_keep_brokers,
    count=lambda live: None if live.broker_configs is None else sum(1 for c in live.broker_configs.values() if c),
)


def broker_config_rows(live: state.ClusterState) -> list[Any] | None:
    """The dynamic broker configs' part of a live fingerprint (``reconciler.planner.views.live_fingerprint``)."""
    return views.config_rows(live.broker_configs)

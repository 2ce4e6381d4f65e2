"""Dynamic broker config changes, per declared entry (``<default>`` or a broker id).

Only declared entries are managed: an entry (the cluster default or one broker) that the manifests
do not mention is invisible, because per-broker dynamic configs often hold listener key material
set by other means. Inside a declared entry, keys set live but not declared are reset when the
delete policy allows it for ``broker_config``, and listed as unmanaged otherwise.
"""

from __future__ import annotations

from reconciler.model import payloads, plans, state
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
        addr = views.address(Kind.BROKER_CONFIG, broker)
        view = views.broker_config_view(broker, have)
        fingerprint = views.fingerprint_of(view)
        source = common.source_text(want.source)
        if broker != state.CLUSTER_DEFAULT and broker_ids and broker not in broker_ids:
            ctx.changes.append(
                plans.Change(
                    address=addr,
                    kind=Kind.BROKER_CONFIG,
                    name=broker,
                    action=plans.Action.BLOCKED,
                    phase=plans.Phase.BROKER_CONFIG,
                    reasons=(f"broker {broker} is not in the cluster (brokers: {', '.join(sorted(broker_ids))})",),
                    fingerprint=fingerprint,
                    source=source,
                )
            )
            continue
        diff = common.diff_configs(
            want.configs, have, sensitive=sensitive, default_of=lambda _k: None, reset_undeclared=reset
        )
        if diff.kept:
            label = "cluster default" if broker == state.CLUSTER_DEFAULT else f"broker {broker}"
            ctx.unmanaged.append(
                plans.Unmanaged(
                    address=addr,
                    kind=Kind.BROKER_CONFIG,
                    name=broker,
                    reason=f"dynamic config(s) set on the {label} but not declared: {', '.join(diff.kept)}; "
                    "resets are disabled for broker configs",
                )
            )
        if not diff.attributes:
            ctx.unchanged[Kind.BROKER_CONFIG] += 1
            continue
        result = {**{k: have[k] for k in diff.kept}, **want.configs}
        ctx.changes.append(
            plans.Change(
                address=addr,
                kind=Kind.BROKER_CONFIG,
                name=broker,
                action=plans.Action.UPDATE,
                phase=plans.Phase.BROKER_CONFIG,
                before=payloads.BrokerConfigPayload(
                    {k: common.shown(v, sensitive=sensitive(k)) for k, v in sorted(have.items())}
                ),
                after=payloads.BrokerConfigPayload(
                    {k: common.shown(v, sensitive=sensitive(k)) for k, v in sorted(result.items())},
                    config_ops=diff.ops,
                ),
                attributes=diff.attributes,
                reasons=("dynamic broker configs differ from the manifests",),
                fingerprint=fingerprint,
                source=source,
            )
        )

"""The dynamic broker config kind's apply parts: the decoder of a broker's (or the cluster default's) config change
and the check of an applied change against the broker configs read back. Its phase runs with apply's config runner
(``reconciler.apply.resource_phases.run_configs``), shared with every config kind."""

from __future__ import annotations

from reconciler.apply import decoded, verify
from reconciler.apply.decoded import AlterConfigs, Operation
from reconciler.model import payloads, plans, state


def alter_broker_configs(c: plans.Change) -> AlterConfigs:
    """A broker's (or the cluster default's) config change: IncrementalAlterConfigs of its ``BROKER`` resource."""
    return decoded.alter_configs(c, "BROKER", decoded.config_ops_in(c, payloads.BrokerConfigPayload))


def broker_config_applied(op: Operation, live: state.ClusterState) -> list[str]:
    return verify.configs_mismatch(op.want(AlterConfigs).ops, (live.broker_configs or {}).get(op.name, {}))

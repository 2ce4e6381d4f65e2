"""Broker configs in the fleet row model (``reconciler.fleet.rows``): declared and live broker configs as rows, and
back.

Rows of kind ``broker_config`` are named by the broker (or the cluster-wide default): an ``@exists`` row and one
``configs.<key>`` row per config, as Kafka's strings (a declared sensitive one as ``plan.REDACTED``), with the
declaration's ``@source``. ``BROKER_CONFIGS`` is the kind's ``FleetRows`` (its declaration's ``rows``); no Ownership
rule names broker configs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from reconciler.fleet.row_fields import configs
from reconciler.fleet.rows import CONFIG_PREFIX, Row, declared_config, prefixed, source_of, source_text
from reconciler.kinds.spec import FleetRows
from reconciler.model import desired, state
from reconciler.model.kinds import Kind


def _desired_brokers(wanted: desired.DesiredState) -> Iterator[Row]:
    kind = Kind.BROKER_CONFIG
    for broker, entry in wanted.broker_configs.items():
        yield (kind, broker, "@exists", None)
        for key, value in entry.configs.items():
            yield (kind, broker, CONFIG_PREFIX + key, declared_config(key, value))
        if entry.source is not None:
            yield (kind, broker, "@source", source_text(entry.source))


def _live_brokers(live: state.ClusterState) -> Iterator[Row]:
    for broker, found in (live.broker_configs or {}).items():
        yield (Kind.BROKER_CONFIG, broker, "@exists", None)
        for key, value in found.items():
            yield (Kind.BROKER_CONFIG, broker, CONFIG_PREFIX + key, value)


BROKER_CONFIGS = FleetRows(  # no Ownership rule names broker configs
    desired_rows=_desired_brokers,
    rebuild_desired=lambda wanted, section: dataclasses.replace(
        wanted,
        broker_configs={
            broker: desired.DesiredBrokerConfig(broker=broker, configs=configs(e), source=source_of(e.get("@source")))
            for broker, e in section.items()
        },
    ),
    live_rows=_live_brokers,
    rebuild_live=lambda live, section, meta: dataclasses.replace(
        live, broker_configs={broker: prefixed(e, CONFIG_PREFIX) for broker, e in section.items()}
    ),
)

"""A reset group key shows what it returns to: the broker's own ``group.*`` setting, as DescribeConfigs reported it.

The read keeps, per key, the value a key not set on a group falls back to (an unset key's entry, or the synonym below
a set key's own value); the planner's reset of an undeclared key names it, snapshots and fleet rows keep it, and a
key set to exactly that value is already in sync.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

from reconciler.fleet import rows as fleet_rows
from reconciler.kafka import entities as kafka_entities
from reconciler.model import desired, state
from reconciler.model.kinds import Kind
from reconciler.planner import plan
from reconciler.render.text import render_text
from reconciler.snapshot import files
from tests.support.builders import cluster, rows

KAFKA_44 = {"Metadata": 13, "DescribeConfigs": 4, "IncrementalAlterConfigs": 1, "ListConfigResources": 1}
GROUP, DEFAULT, OWN = 32, 5, 8


def entry(name: str, value: str, source: int, *synonyms: tuple[str, int]) -> SimpleNamespace:
    below = [SimpleNamespace(name=f"group.{name}", value=v, source=s) for v, s in synonyms]
    return SimpleNamespace(name=name, value=value, config_source=source, is_sensitive=False, synonyms=below)


def test_the_read_keeps_each_keys_fallback_from_unset_keys_and_from_the_synonyms_of_set_ones() -> None:
    answer = SimpleNamespace(
        resource_type=GROUP,
        resource_name="orders",
        error_code=0,
        configs=[
            entry("consumer.heartbeat.interval.ms", "6000", OWN, ("6000", OWN), ("5000", DEFAULT)),
            entry("consumer.session.timeout.ms", "45000", DEFAULT),
        ],
    )
    sections: dict[Kind, dict[str, dict[str, str | None]]] = {}
    fallbacks: dict[Kind, dict[str, str | None]] = {}
    kafka_entities.file_result(answer, sections, wire=None, fallbacks=fallbacks)
    assert sections == {Kind.GROUP_CONFIG: {"orders": {"consumer.heartbeat.interval.ms": "6000"}}}
    assert fallbacks == {
        Kind.GROUP_CONFIG: {"consumer.heartbeat.interval.ms": "5000", "consumer.session.timeout.ms": "45000"}
    }


def live(heartbeat: str) -> state.ClusterState:
    return dataclasses.replace(
        cluster(),
        group_configs={"orders": {"consumer.session.timeout.ms": "50000", "consumer.heartbeat.interval.ms": heartbeat}},
        client_metrics={},
        capabilities=KAFKA_44,
        entity_defaults={"group_config": {"consumer.heartbeat.interval.ms": "5000"}},
    )


def wanted() -> desired.DesiredState:
    return desired.DesiredState(
        group_configs={"orders": desired.DesiredEntityConfig("orders", {"consumer.session.timeout.ms": "50000"})},
        ownership=desired.Ownership(delete={Kind.GROUP_CONFIG: True}),
    )


def test_a_reset_names_the_brokers_value_and_a_key_already_at_it_is_in_sync(tmp_path: Path) -> None:
    result = plan(wanted(), live("6000"))
    assert rows(result) == [("~", "GROUP_CONFIG", "group_config/orders")]
    assert "consumer.heartbeat.interval.ms: 6000 (6s) -> (default: 5000 (5s))" in render_text(result)
    assert rows(plan(wanted(), live("5000"))) == []
    # a snapshot and the fleet rows keep the fallbacks, so offline and fleet plans say the same
    path = tmp_path / "snap.json"
    files.write_snapshot(live("6000"), path)
    again = files.read_snapshot(path)
    assert again.entity_defaults == live("6000").entity_defaults
    assert plan(wanted(), again).to_json() == result.to_json()
    assert fleet_rows.rebuild_live(fleet_rows.live_rows(live("6000"))).entity_defaults == again.entity_defaults

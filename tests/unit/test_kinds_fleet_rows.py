"""Fleet rows carry every registered kind there and back: the desired and live sections of one resource of each
kind (``tests/support/kind_samples.py``) rebuilt from their rows equal the originals, kind by kind over the
registry, and plan the same; so do the Ownership rules that own each kind. A kind the sample holds no resource (or
rule) of fails here, so a new kind is checked as soon as it is registered."""

from __future__ import annotations

import dataclasses

import pytest

from reconciler import planner
from reconciler.fleet import rows
from reconciler.kinds import registry
from reconciler.kinds.schema_subject.state import SubjectRule
from reconciler.model import desired, plans
from reconciler.model.kinds import Kind
from tests.support.fleet import offline
from tests.support.kind_samples import LIVE, SENSITIVE_BROKER_KEY, WANTED, plant_broker_config


@pytest.mark.parametrize("kind", list(registry.KINDS), ids=str)
def test_every_kind_crosses_the_fleet_rows_whole(kind: Kind) -> None:
    declared = registry.spec(kind)
    assert declared.desired_section(WANTED), f"the sample declares no {kind}: add one to WANTED"
    assert declared.live_section(LIVE), f"the sample's live state holds no {kind}: add one to LIVE"
    back = rows.rebuild_desired(rows.desired_rows(WANTED))
    again = rows.rebuild_live(rows.live_rows(LIVE))
    assert declared.desired_section(back) == declared.desired_section(WANTED)
    assert declared.live_section(again) == declared.live_section(LIVE)


def _rule(value: str) -> tuple[desired.NamePattern, ...]:
    return (desired.NamePattern("prefix", value),)


# Ownership rules that own every kind rules can own (broker configs are managed only where declared), and the rest
OWNING = desired.Ownership(
    topics=_rule("t-"),
    principals=_rule("User:p-"),
    delete={Kind.TOPIC: True, Kind.SCHEMA_SUBJECT: True},
    managed_kinds=frozenset(Kind) - {Kind.QUOTA},
    source=desired.Source("ownership.yaml", 1, 1, None),
    internal_topics=_rule("_connect-"),
    quota_entities=_rule("client-id=q-"),
    max_deletes=7,
    groups=_rule("g-"),
    client_metrics=_rule("m-"),
    connectors=_rule("c-"),
    rules={Kind.SCHEMA_SUBJECT: (SubjectRule(desired.NamePattern("prefix", "s-"), True),)},
)


@pytest.mark.parametrize("kind", list(registry.KINDS), ids=str)
def test_the_ownership_rules_of_every_kind_cross_the_fleet_rows_whole(kind: Kind) -> None:
    """Each kind's rules travel in the desired rows' ownership metadata through its declaration's rows part; a kind
    whose rules were left out would lose them in a fleet plan (its undeclared resources unmanaged, never deleted)."""
    declared = registry.spec(kind)
    assert declared.owned_by_rules(OWNING) or kind is Kind.BROKER_CONFIG, f"OWNING has no rule owning {kind}: add one"
    back = rows.rebuild_desired(rows.desired_rows(dataclasses.replace(WANTED, ownership=OWNING)))
    assert back.ownership == OWNING
    assert declared.owned_by_rules(back.ownership) is declared.owned_by_rules(OWNING)


def test_the_rebuilt_sample_plans_like_the_original() -> None:
    back = rows.rebuild_desired(rows.desired_rows(WANTED))
    again = rows.rebuild_live(rows.live_rows(LIVE))
    reference = planner.plan(WANTED, offline(WANTED, LIVE))
    assert {c.kind for c in reference.changes} == set(registry.KINDS)  # every kind has a change to compare
    assert planner.plan(back, offline(back, again)).to_json() == reference.to_json()


def test_a_sensitive_declared_config_crosses_the_rows_redacted_and_plans_the_same() -> None:
    """Regression: the desired rows carried a sensitive broker config value (a ``${VAR}`` secret) as is; they carry
    ``plan.REDACTED`` in its place, which the planner never reads: the rebuilt state plans exactly the same."""
    wanted, live, _environ = plant_broker_config("PlantedJaasValue")
    carried = list(rows.desired_rows(wanted))
    assert not any(value is not None and "PlantedJaasValue" in value for *_, value in carried)
    back = rows.rebuild_desired(carried)
    assert back.broker_configs["<default>"].configs[SENSITIVE_BROKER_KEY] == plans.REDACTED
    reference = planner.plan(wanted, offline(wanted, live))
    assert SENSITIVE_BROKER_KEY in reference.to_json()  # the key is set by the plan: the comparison covers it
    assert planner.plan(back, offline(back, live)).to_json() == reference.to_json()

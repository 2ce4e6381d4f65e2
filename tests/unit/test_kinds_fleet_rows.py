"""Fleet rows carry every registered kind there and back: the desired and live sections of one resource of each
kind (``tests/support/kind_samples.py``) rebuilt from their rows equal the originals, kind by kind over the
registry, and plan the same. A kind the sample holds no resource of fails here, so a new kind is checked as soon as
it is registered."""

from __future__ import annotations

import pytest

from reconciler import planner
from reconciler.fleet import rows
from reconciler.kinds import registry
from reconciler.model import plans
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

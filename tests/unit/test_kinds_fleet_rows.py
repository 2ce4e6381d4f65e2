"""Fleet rows carry every registered kind there and back: the desired and live sections of one resource of each
kind (``tests/support/kind_samples.py``) rebuilt from their rows equal the originals, kind by kind over the
registry, and plan the same. A kind the sample holds no resource of fails here, so a new kind is checked as soon as
it is registered."""

from __future__ import annotations

import pytest

from reconciler import planner
from reconciler.fleet import rows
from reconciler.kinds import registry
from reconciler.model.kinds import Kind
from tests.support.fleet import offline
from tests.support.kind_samples import LIVE, WANTED


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

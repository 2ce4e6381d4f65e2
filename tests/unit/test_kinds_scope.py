"""Stale scope over the kinds registry: a saved plan over one resource of each registered kind
(``tests/support/kind_samples.py``), with every kind owned, goes stale when the live resources of any one kind go,
and names that kind alone. A registered kind whose out-of-band changes a saved plan would not notice fails here."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from reconciler import planner
from reconciler.kinds import registry
from reconciler.kinds.schema_subject import state as subject_state
from reconciler.kinds.schema_subject.state import SubjectRule
from reconciler.model import desired as d
from reconciler.model import planfile, plans
from reconciler.model import state as s
from reconciler.model.kinds import Kind
from reconciler.planner import scope
from tests.support.fleet import offline
from tests.support.kind_samples import LIVE, WANTED

EVERYTHING = (d.NamePattern("prefix", ""),)
OWNED = dataclasses.replace(
    WANTED,
    ownership=d.Ownership(
        topics=EVERYTHING,
        principals=EVERYTHING,
        quota_entities=EVERYTHING,
        groups=EVERYTHING,
        client_metrics=EVERYTHING,
        connectors=EVERYTHING,
        rules={Kind.SCHEMA_SUBJECT: (SubjectRule(EVERYTHING[0]),)},
    ),
)


def _without(live: s.ClusterState, kind: Kind) -> s.ClusterState:
    """``live`` with no resource of ``kind`` (its snapshot section emptied)."""
    section = registry.spec(kind).snapshot_section
    if section == "connect":
        assert live.connect is not None
        return dataclasses.replace(live, connect=dataclasses.replace(live.connect, connectors={}))
    if section == "schema_subjects":
        found = subject_state.live_subjects(live)
        assert found is not None
        return subject_state.with_live_subjects(live, dataclasses.replace(found, subjects={}))
    emptied: Any = frozenset() if section == "acls" else {}
    return dataclasses.replace(live, **{section: emptied})


@pytest.mark.parametrize("kind", list(registry.KINDS), ids=str)
def test_a_saved_plan_goes_stale_when_the_resources_of_any_kind_go(kind: Kind) -> None:
    """The scope is read back from the plan file, as apply reads it. Regression: a plan whose Ownership rules own
    subjects could not be loaded ("scope has unexpected field(s) schema_subjects")."""
    live = offline(OWNED, LIVE)
    saved = plans.Plan.from_json_dict(json.loads(planner.plan(OWNED, live).to_json()))
    doc = saved.scope
    assert doc is not None and kind.value in doc["kinds"]
    assert scope.changed(live, doc) == []
    assert registry.spec(kind).live_section(_without(live, kind)) in ({}, frozenset())
    assert scope.changed(_without(live, kind), doc) == [f"{kind.heading}: 1 -> 0 in scope"]


RULE_SETS = [(kind, r.key) for kind, declared in registry.KINDS.items() for r in declared.scope.get().rule_sets]


@pytest.mark.parametrize(("kind", "key"), RULE_SETS, ids=lambda v: str(v))
def test_a_plan_file_holds_the_rules_every_kind_records(kind: Kind, key: str) -> None:
    """Each ownership rule a kind records in a plan's scope is written, loaded from the plan file and read back under
    its kind. Regression: the subjects' rules were written, but a plan holding them could not be loaded."""
    rule = (d.NamePattern("prefix", "team-"),)
    doc = scope.Scope(kinds=frozenset({kind}), declared={}, rules={kind: {key: rule}}).to_dict()
    assert planfile.scope_section(doc) == doc
    assert scope.Scope.from_dict(doc).rules[kind][key] == rule

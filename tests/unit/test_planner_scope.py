"""A saved plan's scope: what an out-of-band change may not touch for the plan to stay current."""

from __future__ import annotations

import dataclasses
import json

from reconciler.model import desired, plans, state
from reconciler.model.kinds import Kind
from reconciler.planner import plan, scope
from tests.support.builders import cluster, live_topic, topic, want

APP_READ = state.AclBinding("TOPIC", "LITERAL", "st.a", "User:st-app", "*", "READ", "ALLOW")
OOB_WRITE = state.AclBinding("TOPIC", "LITERAL", "st.c", "User:st-app", "*", "WRITE", "ALLOW")
OTHER_TEAM = state.AclBinding("TOPIC", "LITERAL", "x.b", "User:other", "*", "READ", "ALLOW")
OWN = desired.Ownership(
    topics=(desired.NamePattern("prefix", "st."),), principals=(desired.NamePattern("prefix", "User:st-"),)
)


def wanted() -> desired.DesiredState:
    base = want(topics=[topic("st.a", 3, 3, configs={"retention.ms": "1000"})], acls=[APP_READ])
    return dataclasses.replace(base, ownership=OWN)


def live(
    *, acls: tuple[state.AclBinding, ...] = (APP_READ,), retention: str = "1000", extra: str = ""
) -> state.ClusterState:
    topics = [live_topic("st.a", 3, 3, configs={"retention.ms": retention})]
    if extra:
        topics.append(live_topic(extra, 1, 3))
    return cluster(topics=topics, acls=acls)


def moved(now: state.ClusterState) -> list[str]:
    saved = plan(wanted(), live())
    again = plans.Plan.from_json_dict(json.loads(saved.to_json()))  # the scope survives the plan file
    assert again.scope is not None
    return scope.changed(now, again.scope)


def test_an_acl_added_for_an_owned_principal_makes_the_plan_stale() -> None:
    assert moved(live(acls=(APP_READ, OOB_WRITE))) == ["ACLs: 1 -> 2 in scope"]


def test_changes_outside_the_scope_do_not() -> None:
    assert moved(live(acls=(APP_READ, OTHER_TEAM), extra="x.other")) == []


def test_a_declared_resource_the_plan_left_unchanged_is_in_scope() -> None:
    assert moved(live(retention="2000")) == ["Topics: changed in scope"]
    assert moved(live(acls=())) == ["ACLs: 1 -> 0 in scope"]


def test_an_owned_undeclared_topic_appearing_is_in_scope() -> None:
    assert moved(live(extra="st.new")) == ["Topics: 1 -> 2 in scope"]


def test_declared_names_the_rules_cover_are_not_listed_again() -> None:
    doc = scope.of(wanted(), frozenset({Kind.TOPIC, Kind.ACL})).to_dict()
    assert doc["declared"] == {}
    assert doc["topics"] == [["prefix", "st."]]
    unowned = dataclasses.replace(wanted(), ownership=desired.Ownership())
    assert scope.of(unowned, frozenset({Kind.TOPIC, Kind.ACL})).to_dict()["declared"] == {
        "acl": ["User:st-app/ALLOW/READ/TOPIC:LITERAL:st.a@*"],
        "topic": ["st.a"],
    }

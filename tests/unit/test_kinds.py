"""The resource-kind enum: every name a kind goes by agrees with the manifests, plans and ownership rules."""

from __future__ import annotations

import json
import typing

import pytest

from reconciler.manifests import models
from reconciler.model import plans
from reconciler.model.kinds import Kind


def test_each_kind_names_a_manifest_kind_and_an_ownership_key() -> None:
    assert {k.manifest for k in Kind} <= set(models.DOCUMENTS)
    assert [k.ownership_key for k in Kind] == list(typing.get_args(models.ManagedKind))
    assert {k.value for k in Kind} == set(models.DeletePolicySpec.model_fields)


def test_a_kind_writes_as_its_plain_value() -> None:
    assert json.dumps({Kind.SCRAM_USER: [Kind.TOPIC]}) == '{"scram_user": ["topic"]}'
    assert f"{Kind.BROKER_CONFIG}" == str(Kind.BROKER_CONFIG) == "broker_config"
    assert Kind.TOPIC.address("orders") == "topic/orders"
    assert Kind.ACL.prefix == "acl/"


def test_a_plan_file_naming_an_unknown_kind_is_refused_with_the_known_kinds() -> None:
    with pytest.raises(ValueError, match=r"unknown resource kind 'table' \(known: topic, acl, quota"):
        Kind.parse("table")
    change = plans.Change(
        address="topic/x",
        kind=Kind.TOPIC,
        name="x",
        action=plans.Action.CREATE,
        phase=plans.Phase.TOPIC_CREATE,
    )
    doc = change.to_dict()
    assert doc["kind"] == "topic" and type(doc["kind"]) is str
    with pytest.raises(ValueError, match="unknown resource kind"):
        plans.Change.from_dict({**doc, "kind": "table"})

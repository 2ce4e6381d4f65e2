"""Typed change payloads: each kind's payload survives the plan file's JSON unchanged, and a payload of the
wrong shape in a plan file is kept as written and named, never guessed at."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reconciler.apply import decoded
from reconciler.kinds.schema_subject.payload import SubjectPayload
from reconciler.model import attributes, payload_types, payloads, plans, shown
from reconciler.model.kinds import Kind
from reconciler.model.state import AclBinding, QuotaEntity
from reconciler.registry.requests import Reference
from tests.golden import big

GOLDEN = Path(__file__).resolve().parents[1] / "golden"

EXAMPLES: dict[Kind, list[payloads.Payload]] = {
    Kind.TOPIC: [
        payloads.TopicPayload(partitions=6, replication_factor=3, configs={"retention.ms": "604800000"}),
        payloads.TopicPayload(partitions=3, assignment=((3, 1), (1, 2), (2, 3))),
        payloads.TopicPayload(configs={"cleanup.policy": "compact", "sasl.jaas.config": plans.REDACTED}),
        payloads.TopicPayload(partitions=1, replication_factor=1, configs={}, usage={"groups": ["billing"]}),
    ],
    Kind.ACL: [payloads.AclPayload(AclBinding("TOPIC", "PREFIXED", "orders.", "User:app", "*", "READ", "ALLOW"))],
    Kind.QUOTA: [
        payloads.QuotaPayload(
            QuotaEntity.of(user="a", client_id=None), {"consumer_byte_rate": 2097152.0, "producer_byte_rate": 1048576}
        )
    ],
    Kind.SCRAM_USER: [
        payloads.ScramPayload(name="alice", credentials={"SCRAM-SHA-256": 4096, "SCRAM-SHA-512": 8192}),
        payloads.ScramPayload(credentials={"SCRAM-SHA-512": 8192}, password="env:ALICE", rotation="2024-05"),
    ],
    Kind.BROKER_CONFIG: [payloads.BrokerConfigPayload({"log.cleaner.threads": "2", "ssl.key.password": None})],
    Kind.GROUP_CONFIG: [
        payloads.EntityConfigPayload({"consumer.session.timeout.ms": "50000"}),
        payloads.EntityConfigPayload(
            {"share.auto.offset.reset": "earliest"},
            config_ops=(
                payloads.ConfigOp.set("share.auto.offset.reset", "earliest"),
                payloads.ConfigOp.delete("consumer.session.timeout.ms"),
            ),
        ),
    ],
    Kind.CLIENT_METRICS: [
        payloads.EntityConfigPayload(
            {"metrics": "org.apache.kafka.producer.", "interval.ms": "60000", "match": "client_id=app-.*"},
            config_ops=(payloads.ConfigOp.set("interval.ms", "60000"),),
        )
    ],
    Kind.CONNECTOR: [
        payloads.ConnectorPayload({"connector.class": "FileStreamSink", "tasks.max": "2", "topics": "orders"}),
        payloads.ConnectorPayload(
            {"connector.class": "FileStreamSource", "file": "${file:/etc/c.properties:file}"},
            "stopped",
            {"sasl.jaas.config": "env:JAAS"},
            reset_offsets=True,
        ),
        payloads.ConnectorPayload({"connector.class": "X"}, "failed", {"db.password": plans.REDACTED}),
    ],
    Kind.SCHEMA_SUBJECT: [
        SubjectPayload("AVRO", '{"type": "string"}', (), "BACKWARD", None, 3),
        SubjectPayload("PROTOBUF", 'syntax = "proto3";', (Reference("a.proto", "a", 1),), None, "READONLY"),
        SubjectPayload("JSON", '{"type": "object"}', (), None, None, 2, permanent=True),
        SubjectPayload(compatibility="FULL"),
    ],
}


def test_every_kind_has_a_payload_type_and_an_example() -> None:
    assert set(payloads.TYPES) == set(Kind) == set(EXAMPLES)


@pytest.mark.parametrize("kind", list(Kind))
def test_each_payload_survives_a_json_round_trip(kind: Kind) -> None:
    for payload in EXAMPLES[kind]:
        text = json.dumps(payloads.encode(payload))
        assert payloads.decode(kind, json.loads(text)) == payload
        assert json.dumps(payloads.encode(payloads.decode(kind, json.loads(text)))) == text


@pytest.mark.parametrize("name", ["example-plan.json"])
def test_a_saved_plan_reloads_to_typed_payloads_and_rewrites_byte_for_byte(tmp_path: Path, name: str) -> None:
    text = (GOLDEN / name).read_text(encoding="utf-8")
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    loaded = plans.Plan.load(path)
    sides = [p for c in loaded.changes for p in (c.before, c.after) if p is not None]
    assert not [p for p in sides if isinstance(p, payloads.Unreadable)]
    assert {type(p) for p in sides} == {payloads.TYPES[k] for k in Kind}
    assert loaded.to_json() == text


def test_a_large_plan_of_every_kind_rewrites_byte_for_byte() -> None:
    planned = big.big_plan()
    text = planned.to_json()
    assert plans.Plan.from_json_dict(json.loads(text)) == planned
    assert plans.Plan.from_json_dict(json.loads(text)).to_json() == text


@pytest.mark.parametrize(
    ("kind", "data", "problem"),
    [
        (Kind.TOPIC, {"partitions": "6"}, "partitions is not a whole number"),
        (Kind.TOPIC, {"partitions": 6, "replicas": 3}, "unexpected field(s) replicas"),
        (Kind.TOPIC, {"configs": {"retention.ms": 604800000}}, "configs are not an object of text values"),
        (Kind.TOPIC, {"assignment": [1, 2]}, "assignment is not a list of replica lists"),
        (Kind.TOPIC, [6, 3], "data is a list, not an object"),
        (Kind.ACL, {"resource_type": "TOPIC"}, "the change has no 'pattern_type'"),
        (Kind.QUOTA, {"entity": [{"type": "user", "name": "a"}], "values": {"p": "fast"}}, "not an object of numbers"),
        (Kind.QUOTA, {"producer_byte_rate": 1.0}, "unexpected field(s) producer_byte_rate"),
        (Kind.QUOTA, {"entity": [{"type": "group", "name": "a"}], "values": {}}, "entity type is not one of"),
        (Kind.SCRAM_USER, {"credentials": {"SCRAM-SHA-512": 8192}}, "credentials are not an object"),
        (Kind.BROKER_CONFIG, {}, "the change has no 'configs' or 'config_ops' field"),
    ],
)
def test_a_payload_of_the_wrong_shape_is_kept_as_written_and_apply_names_the_problem(
    kind: Kind, data: object, problem: str
) -> None:
    found = payloads.decode(kind, data)
    assert isinstance(found, payloads.Unreadable) and problem in found.problem
    assert payloads.encode(found) == data
    change = plans.Change(
        address=kind.address("x"), kind=kind, name="x", action=plans.Action.UPDATE, phase=plans.Phase.QUOTA
    )
    refused = decoded.operation(dataclasses.replace(change, after=found))
    assert refused.request is None and refused.problem == f"{kind.address('x')}: {found.problem}"


@dataclasses.dataclass(frozen=True)
class _NewKindPayload:
    """A payload type no module of the model names: what a new kind's payload is to ``shown.derive``."""

    size: int

    @classmethod
    def shown(
        cls, before: _NewKindPayload | None, after: _NewKindPayload | None, writing: attributes.Writing
    ) -> tuple[attributes.AttributeChange, ...] | None:
        if writing.deleting:
            return (attributes.AttributeChange("size", None if before is None else before.size, None),)
        return (attributes.AttributeChange("size", None if before is None else before.size, after and after.size),)


def _derive(before: Any, after: Any, *, deleting: bool = False) -> tuple[attributes.AttributeChange, ...] | None:
    return shown.derive(before, after, attributes.Writing("QUOTA", deleting=deleting))


def test_what_a_change_shows_is_derived_by_its_payload_type_whatever_its_kind() -> None:
    """``shown.derive`` asks the payload's own type (``shown``), so a new kind's payload is derived without a case
    for it; a side of another type counts as absent, and a side the plan file holds unreadable derives nothing."""
    assert _derive(_NewKindPayload(1), _NewKindPayload(2)) == (attributes.AttributeChange("size", 1, 2),)
    assert _derive(_NewKindPayload(1), None, deleting=True) == (attributes.AttributeChange("size", 1, None),)
    assert _derive(payloads.ScramPayload({}), _NewKindPayload(3)) == (attributes.AttributeChange("size", None, 3),)
    assert _derive(payloads.Unreadable({"size": "big"}, "not a number"), _NewKindPayload(3)) is None


# Every module that reads a plan file (a saved plan, a fleet cluster's plan) or a plan's JSON; the commands (show,
# apply, the gitops ones) read theirs through ``apply.decoded.load``.
PLAN_READERS = (
    "reconciler.apply.decoded",
    "reconciler.fleet.planning",
    "reconciler.fleet.applying",
    "reconciler.fleet.retry",
    "reconciler.operations",
)


@pytest.mark.parametrize("module", PLAN_READERS)
def test_every_module_that_reads_a_plan_file_has_every_kinds_payload_type_registered(module: str) -> None:
    """A kind's payload type registers when its module is imported (``payload_types.of_kind``): in a fresh
    interpreter that imports only a module reading plan files, a change of every kind decodes to its kind's type."""
    check = (
        f"import {module}\n"
        "from reconciler.model import payloads\n"
        "from reconciler.model.kinds import Kind\n"
        "missing = sorted(str(k) for k in Kind if k not in payloads.TYPES)\n"
        "assert not missing, missing\n"
    )
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr


def test_a_kind_has_one_payload_type() -> None:
    with pytest.raises(ValueError, match="the topic kind's payload type is TopicPayload, not _NewKindPayload"):
        payload_types.of_kind(Kind.TOPIC)(_NewKindPayload)
    assert payloads.TYPES[Kind.TOPIC] is payloads.TopicPayload


def test_every_phase_a_payload_type_reads_is_a_phase_of_the_plan_file() -> None:
    """A payload type that writes differently by phase names the phases as the plan file does (``Writing.phase``):
    a name no ``plans.Phase`` has would never match, and the change would show its config writes instead."""
    named = {(cls.__name__, name) for cls in payload_types.CLASSES for name in getattr(cls, "PHASES_WRITING", ())}
    assert ("TopicPayload", "REASSIGN") in named
    assert {n for _, n in named} <= set(plans.Phase.__members__), named

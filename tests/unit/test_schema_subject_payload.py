"""A subject change as plan data: the payloads cross JSON whole, the change apply carries out is read back from the
payloads alone and equals the planned one, the attributes shown are derived from the same payloads (an edited
payload shows what it would send), and a payload of the wrong shape is refused naming what does not fit."""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any

import pytest

from reconciler.kinds.schema_subject import diff, payload, views
from reconciler.model import desired, plans
from reconciler.model.payload_errors import PayloadError
from reconciler.registry import canonical
from reconciler.registry.port import RestRegistryPort
from reconciler.registry.requests import Reference
from tests.support.registry_fake import FakeRegistry

ID = {"name": "id", "type": "long"}
V1 = json.dumps({"type": "record", "name": "Order", "namespace": "shop", "fields": [ID]})
V2 = json.dumps(
    {"type": "record", "name": "Order", "namespace": "shop", "fields": [ID, {"name": "n", "type": "int", "default": 0}]}
)
CUSTOMER = json.dumps({"type": "record", "name": "Customer", "namespace": "shop", "fields": [ID]})


def later() -> float:
    return time.monotonic() + 30


def planned() -> tuple[list[diff.SubjectChange], views.LiveSubjects]:
    port = RestRegistryPort(FakeRegistry())
    for subject in ("orders-value", "levels-value", "modes-value", "soft-value", "hard-value", "refs-value"):
        port.register(subject, V1, schema_type="AVRO", deadline=later())
    port.register("customer-value", CUSTOMER, schema_type="AVRO", deadline=later())
    port.set_compatibility("BACKWARD", "levels-value", deadline=later())
    refs = (Reference("shop.Customer", "customer-value", 1),)
    wanted = {
        "new-value": views.DesiredSubject("new-value", V1, compatibility="FULL", mode="READWRITE"),
        "orders-value": views.DesiredSubject("orders-value", V2, topics=("orders",), schema_origin="o.avsc"),
        "levels-value": views.DesiredSubject("levels-value", V1, compatibility="NONE"),
        "modes-value": views.DesiredSubject("modes-value", V1, mode="READONLY"),
        "refs-value": views.DesiredSubject("refs-value", V1, references=refs),
        "customer-value": views.DesiredSubject("customer-value", CUSTOMER),
    }
    rules = (
        diff.SubjectRule(desired.NamePattern("exact", "soft-value")),
        diff.SubjectRule(desired.NamePattern("exact", "hard-value"), permanent=True),
    )
    live = views.read(port, [*wanted, "soft-value", "hard-value"], modes=["new-value", "modes-value"], deadline=later())
    return diff.diff(wanted, live, rules=rules, may_delete=True), live


def essence(c: diff.SubjectChange) -> tuple[Any, ...]:
    """What apply sends for a change: its action, the version registered, level, mode and delete."""
    r = c.register
    sent = None if r is None else (r.schema, r.schema_type, r.references)
    return (c.subject, c.action, sent, c.level, c.mode, c.permanent, c.before_version)


def test_apply_reads_back_from_the_payloads_exactly_the_change_planned() -> None:
    changes, live = planned()
    acting = [c for c in changes if c.action is not plans.Action.NOOP]
    assert [(c.subject, c.action.value) for c in acting] == [
        ("hard-value", "delete"),
        ("levels-value", "update"),
        ("modes-value", "update"),
        ("new-value", "create"),
        ("orders-value", "update"),
        ("refs-value", "update"),
        ("soft-value", "delete"),
    ]
    for change in acting:
        before, after = payload.payloads_of(change, live)
        wire = json.loads(json.dumps({"before": before and before.to_dict(), "after": after and after.to_dict()}))
        back_before = None if wire["before"] is None else payload.SubjectPayload.from_dict(wire["before"])
        back_after = None if wire["after"] is None else payload.SubjectPayload.from_dict(wire["after"])
        assert (back_before, back_after) == (before, after)
        assert essence(
            payload.change_of(change.subject, change.action, before=back_before, after=back_after)
        ) == essence(change)


def test_the_attributes_shown_are_derived_from_the_payloads() -> None:
    changes, live = planned()
    shown = {c.subject: payload.attributes(*payload.payloads_of(c, live)) for c in changes}
    assert [(a.name, a.before, a.after) for a in shown["orders-value"]] == [
        ("schema", canonical.normalize(V1, "AVRO"), canonical.normalize(V2, "AVRO"))
    ]
    assert [(a.name, a.before, a.after) for a in shown["levels-value"]] == [("compatibility", "BACKWARD", "NONE")]
    assert [(a.name, a.before, a.after) for a in shown["modes-value"]] == [("mode", None, "READONLY")]
    assert [(a.name, a.after) for a in shown["new-value"]] == [
        ("schema", canonical.normalize(V1, "AVRO")),
        ("schemaType", "AVRO"),
        ("compatibility", "FULL"),
        ("mode", "READWRITE"),
    ]
    assert [(a.name, a.before, a.after) for a in shown["refs-value"]] == [
        ("schema", canonical.normalize(V1, "AVRO"), canonical.normalize(V1, "AVRO")),
        ("references", [], ["shop.Customer = customer-value v1"]),
    ]
    assert [(a.name, a.after) for a in shown["hard-value"]] == [("delete", "permanent")]
    assert [(a.name, a.after) for a in shown["soft-value"]] == [("delete", "soft")]
    assert shown["customer-value"] == ()


def test_an_edited_payload_shows_what_it_would_send() -> None:
    changes, live = planned()
    change = next(c for c in changes if c.subject == "orders-value")
    before, after = payload.payloads_of(change, live)
    assert after is not None
    edited = dataclasses.replace(after, schema=CUSTOMER, compatibility="FULL")
    (schema, level) = payload.attributes(before, edited)
    sent = payload.change_of("orders-value", plans.Action.UPDATE, before=before, after=edited)
    assert sent.register is not None
    assert (schema.after, level.after) == (
        canonical.normalize(sent.register.schema, "AVRO"),
        sent.level and sent.level[1],
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "the change's data is a list, not an object"),
        ({"schema": "{}"}, "the subject's schema and schema_type come together"),
        ({"schema": "{}", "schema_type": "XML"}, "schema_type 'XML' is not one of AVRO, JSON, PROTOBUF"),
        ({"schema": 3, "schema_type": "AVRO"}, "the subject's schema is not text"),
        ({"compatibility": "SIDEWAYS"}, "compatibility 'SIDEWAYS' is not a level"),
        ({"mode": "READ"}, "mode 'READ' is not READWRITE, READONLY or IMPORT"),
        ({"version": True}, "version True is not a whole number"),
        ({"version": 0}, "version 0 is not a whole number"),
        ({"permanent": "yes"}, "permanent is not true or false"),
        ({"references": [{"name": "a", "subject": "b"}]}, "the reference 'a' has no whole version"),
        ({"references": [{"name": "a", "subject": "b", "version": 1, "x": 1}]}, "unexpected field(s) x"),
        ({"owner": "me"}, "unexpected field(s) owner"),
    ],
)
def test_a_payload_of_the_wrong_shape_is_refused(data: Any, message: str) -> None:
    with pytest.raises(PayloadError, match=message.replace("(", r"\(").replace(")", r"\)")):
        payload.SubjectPayload.from_dict(data)

"""Applying ``SchemaSubject`` changes against the in-memory registry answering as Confluent documents: the order
(levels before the versions that need them, referenced subjects first, referrers deleted first), the read-back of
each write, soft and permanent deletes, a lost answer resolved by reading, and the steps not sent after a failure."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from reconciler.kinds.schema_subject import apply, diff, views
from reconciler.model import desired, plans
from reconciler.registry import requests as rq
from reconciler.registry.port import RegistryError, RestRegistryPort
from reconciler.registry.requests import Reference
from tests.support.registry_fake import FakeRegistry

ID = {"name": "id", "type": "long"}
V1 = json.dumps({"type": "record", "name": "Order", "namespace": "shop", "fields": [ID]})
V2_INCOMPATIBLE = json.dumps(
    {"type": "record", "name": "Order", "namespace": "shop", "fields": [ID, {"name": "amount", "type": "double"}]}
)
CUSTOMER = json.dumps({"type": "record", "name": "Customer", "namespace": "shop", "fields": [ID]})
REF = (Reference("shop.Customer", "customer-value", 1),)


def later() -> float:
    return time.monotonic() + 30


@pytest.fixture
def fake() -> FakeRegistry:
    return FakeRegistry()


@pytest.fixture
def port(fake: FakeRegistry) -> RestRegistryPort:
    return RestRegistryPort(fake)


def plan_and_apply(
    port: RestRegistryPort, *wanted: views.DesiredSubject, rules: tuple[diff.SubjectRule, ...] = ()
) -> tuple[list[diff.SubjectChange], list[apply.Outcome]]:
    declared = {w.subject: w for w in wanted}
    owned = [s for s in port.subjects(deadline=later()) if diff.owning_rule(rules, s)]
    live = views.read(port, [*declared, *owned], modes=[w.subject for w in wanted if w.mode], deadline=later())
    changes = diff.diff(declared, live, rules=rules, may_delete=True)
    return changes, apply.apply(changes, live, registry=port, deadline=later(), read_back_seconds=2)


def summary(outcomes: list[apply.Outcome]) -> list[tuple[str, str, bool, str]]:
    return [(o.subject, o.what, o.ok, o.detail) for o in outcomes]


def test_apply_registers_and_reads_back_then_plans_nothing(port: RestRegistryPort) -> None:
    order = views.DesiredSubject("orders-value", V1, compatibility="FULL", mode="READWRITE")
    _, outcomes = plan_and_apply(port, order)
    assert summary(outcomes) == [
        ("orders-value", "level", True, "level FULL"),
        ("orders-value", "mode", True, "mode READWRITE"),
        ("orders-value", "register", True, "version 1"),
    ]
    assert port.latest("orders-value", deadline=later()) is not None
    again, outcomes = plan_and_apply(port, order)
    assert ([c.action for c in again], outcomes) == ([plans.Action.NOOP], [])


def test_a_level_is_set_before_the_version_that_needs_it(port: RestRegistryPort) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    _, outcomes = plan_and_apply(port, views.DesiredSubject("orders-value", V2_INCOMPATIBLE, compatibility="NONE"))
    assert summary(outcomes) == [
        ("orders-value", "level", True, "level NONE"),
        ("orders-value", "register", True, "version 2"),
    ]


def test_a_referenced_subject_is_registered_first_and_a_readonly_mode_set_last(port: RestRegistryPort) -> None:
    invoice = json.dumps({"type": "record", "name": "Invoice", "fields": []})
    # "a-invoice-value" sorts first: the order comes from the reference, not the name
    _, outcomes = plan_and_apply(
        port,
        views.DesiredSubject("a-invoice-value", invoice, references=REF, mode="READONLY"),
        views.DesiredSubject("customer-value", CUSTOMER),
    )
    assert [(o.subject, o.what, o.ok) for o in outcomes] == [
        ("customer-value", "register", True),
        ("a-invoice-value", "register", True),
        ("a-invoice-value", "mode", True),
    ]


def test_a_version_referencing_a_subject_that_failed_is_not_sent(port: RestRegistryPort, fake: FakeRegistry) -> None:
    port.register("customer-value", V1, schema_type="AVRO", deadline=later())
    invoice = json.dumps({"type": "record", "name": "Invoice", "fields": []})
    bad_customer = json.dumps(
        {"type": "record", "name": "Order", "namespace": "shop", "fields": [ID, {"name": "amount", "type": "double"}]}
    )  # incompatible: the registry refuses it (409)
    sent_before = len(fake.requests)
    _, outcomes = plan_and_apply(
        port,
        views.DesiredSubject("invoice-value", invoice, references=(Reference("shop.Customer", "customer-value", 2),)),
        views.DesiredSubject("customer-value", bad_customer),
    )
    assert [(o.subject, o.what, o.ok, o.sent) for o in outcomes] == [
        ("customer-value", "register", False, True),
        ("invoice-value", "register", False, False),
    ]
    assert "HTTP 409" in outcomes[0].detail
    assert outcomes[1].detail == "not sent: the subject it references (customer-value) was not applied"
    registers = [r for r in fake.requests[sent_before:] if r.method == "POST" and "/compatibility/" not in r.path]
    assert [rq.route(r.path)[1]["subject"] for r in registers] == ["customer-value"]


def test_deletes_take_the_referrer_first_soft_by_default_and_permanent_on_request(
    port: RestRegistryPort, fake: FakeRegistry
) -> None:
    port.register("customer-value", CUSTOMER, schema_type="AVRO", deadline=later())
    invoice = json.dumps({"type": "record", "name": "Invoice", "fields": []})
    port.register("invoice-value", invoice, schema_type="AVRO", references=REF, deadline=later())
    rules = (
        diff.SubjectRule(desired.NamePattern("exact", "customer-value")),
        diff.SubjectRule(desired.NamePattern("exact", "invoice-value"), permanent=True),
    )
    _, outcomes = plan_and_apply(port, rules=rules)
    assert summary(outcomes) == [
        ("invoice-value", "delete", True, "deleted permanently"),
        ("customer-value", "delete", True, "deleted"),
    ]
    assert port.subjects(deadline=later(), deleted=True) == ("customer-value",)  # soft-deleted: still listed so


class _LosingAnswers(FakeRegistry):
    """Carries out the first register, then loses its answer, as a connection cut after sending would."""

    lost = 0

    def exchange(self, request: rq.Request, *, deadline: float) -> tuple[int, Any]:
        answer = super().exchange(request, deadline=deadline)
        if request.method == "POST" and request.path.startswith("/subjects/") and not self.lost:
            self.lost += 1
            raise RegistryError("POST /subjects/x/versions: sent, but the answer was lost", answer_lost=True)
        return answer


def test_a_lost_register_answer_is_resolved_by_reading() -> None:
    port = RestRegistryPort(_LosingAnswers())
    _, outcomes = plan_and_apply(port, views.DesiredSubject("orders-value", V1))
    assert summary(outcomes) == [("orders-value", "register", True, "version 1")]


class _LosingBeforeSending(FakeRegistry):
    """Loses every register before the registry sees it."""

    def exchange(self, request: rq.Request, *, deadline: float) -> tuple[int, Any]:
        if request.method == "POST" and request.path.startswith("/subjects/"):
            raise RegistryError("POST /subjects/x/versions: sent, but the answer was lost", answer_lost=True)
        return super().exchange(request, deadline=deadline)


def test_a_lost_register_the_registry_never_carried_out_is_failed_after_reading() -> None:
    port = RestRegistryPort(_LosingBeforeSending())
    _, outcomes = plan_and_apply(port, views.DesiredSubject("orders-value", V1))
    assert summary(outcomes) == [
        (
            "orders-value",
            "register",
            False,
            "new version not read back: the answer was lost, and the subject's latest version is not the declared "
            "schema",
        )
    ]


def test_nothing_is_sent_after_the_deadline(port: RestRegistryPort, fake: FakeRegistry) -> None:
    live = views.read(port, ["orders-value"], deadline=later())
    changes = diff.diff({"orders-value": views.DesiredSubject("orders-value", V1)}, live)
    sent = len(fake.requests)
    outcomes = apply.apply(changes, live, registry=port, deadline=time.monotonic() - 1)
    assert summary(outcomes) == [("orders-value", "register", False, "not sent: the deadline passed")]
    assert len(fake.requests) == sent


class _RefusingPermanent(FakeRegistry):
    """Soft-deletes as asked, refuses every permanent delete."""

    def exchange(self, request: rq.Request, *, deadline: float) -> tuple[int, Any]:
        if request.method == "DELETE" and "permanent=true" in request.path:
            return 500, {"error_code": 50001, "message": "Error in the backend data store"}
        return super().exchange(request, deadline=deadline)


def test_a_refused_permanent_delete_is_reported_as_soft_only() -> None:
    port = RestRegistryPort(_RefusingPermanent())
    port.register("gone-value", V1, schema_type="AVRO", deadline=later())
    rules = (diff.SubjectRule(desired.NamePattern("exact", "gone-value"), permanent=True),)
    _, outcomes = plan_and_apply(port, rules=rules)
    assert summary(outcomes) == [
        (
            "gone-value",
            "delete",
            False,
            "soft-deleted, not permanently: DELETE /subjects/gone-value: HTTP 500 (error 50001): Error in the backend "
            "data store",
        )
    ]
    assert port.subjects(deadline=later(), deleted=True) == ("gone-value",)


class _RefusingLevels(FakeRegistry):
    """Refuses every level write; counts the level reads."""

    reads = 0

    def exchange(self, request: rq.Request, *, deadline: float) -> tuple[int, Any]:
        if request.path.startswith("/config/"):
            if request.method == "PUT":
                return 422, {"error_code": 42203, "message": "Invalid compatibility level"}
            self.reads += 1
        return super().exchange(request, deadline=deadline)


def test_a_refused_write_is_read_once_not_waited_for() -> None:
    fake = _RefusingLevels()
    port = RestRegistryPort(fake)
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    live = views.read(port, ["orders-value"], deadline=later())
    changes = diff.diff({"orders-value": views.DesiredSubject("orders-value", V1, compatibility="FULL")}, live)
    reads = fake.reads
    outcomes = apply.apply(changes, live, registry=port, deadline=later(), read_back_seconds=60)
    assert summary(outcomes) == [
        (
            "orders-value",
            "level",
            False,
            "PUT /config/orders-value: HTTP 422 (error 42203): Invalid compatibility level",
        )
    ]
    assert fake.reads - reads == 1


def test_going_back_to_an_earlier_schema_is_not_reported_applied(port: RestRegistryPort) -> None:
    """Confluent (and the fake) answer a schema the subject holds as an earlier version with that version's id and
    register nothing: the latest stays, and the outcome says why instead of claiming the version."""
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    port.set_compatibility("NONE", "orders-value", deadline=later())
    port.register("orders-value", V2_INCOMPATIBLE, schema_type="AVRO", deadline=later())
    live = views.read(port, ["orders-value"], deadline=later())
    changes = diff.diff({"orders-value": views.DesiredSubject("orders-value", V1)}, live)
    outcomes = apply.apply(changes, live, registry=port, deadline=later(), read_back_seconds=0.3)
    assert [(o.what, o.ok) for o in outcomes] == [("register", False)]
    assert outcomes[0].detail.startswith("new version not read back: the registry answered id 1, and the subject's")
    assert "earlier version" in outcomes[0].detail
    latest = port.latest("orders-value", deadline=later())
    assert latest is not None and latest.version == 2

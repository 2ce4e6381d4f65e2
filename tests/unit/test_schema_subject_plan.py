"""Planning ``SchemaSubject`` changes against the in-memory registry answering as Confluent documents: what is a
new version (after canonicalisation), a level or mode update, an owned delete; the dry run through the registry's
own compatibility check (a level changed in the same plan counted) and the reference guard on deletes; no request
at all when no subject is declared or owned."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from reconciler.kinds.schema_subject import apply, diff, dryrun, impact, views
from reconciler.model import desired, plans
from reconciler.model.state import TopicUsage
from reconciler.registry import requests as rq
from reconciler.registry.port import Features, RestRegistryPort
from reconciler.registry.requests import Reference
from tests.support.registry_fake import FakeRegistry, InflightCounting


def record(*fields: dict[str, Any]) -> str:
    return json.dumps({"type": "record", "name": "Order", "namespace": "shop", "fields": list(fields)})


ID = {"name": "id", "type": "long"}
V1 = record(ID)
V2_COMPATIBLE = record(ID, {"name": "note", "type": "string", "default": ""})
V2_INCOMPATIBLE = record(ID, {"name": "amount", "type": "double"})
SOURCE = desired.Source("subjects/orders.yaml", 3, 1)


def later() -> float:
    return time.monotonic() + 30


@pytest.fixture
def fake() -> FakeRegistry:
    return FakeRegistry()


@pytest.fixture
def port(fake: FakeRegistry) -> RestRegistryPort:
    return RestRegistryPort(fake)


def want(subject: str = "orders-value", schema: str = V1, **kw: Any) -> views.DesiredSubject:
    return views.DesiredSubject(subject=subject, schema=schema, source=SOURCE, **kw)


def plan(
    port: RestRegistryPort,
    *wanted: views.DesiredSubject,
    rules: tuple[diff.SubjectRule, ...] = (),
    may_delete: bool = False,
) -> tuple[list[diff.SubjectChange], dict[str, dryrun.Verdict], views.LiveSubjects]:
    declared = {w.subject: w for w in wanted}
    owned = [s for s in port.subjects(deadline=later()) if diff.owning_rule(rules, s)] if rules else []
    modes = [w.subject for w in wanted if w.mode is not None]
    live = views.read(port, [*declared, *owned], modes=modes, deadline=later())
    changes = diff.diff(declared, live, rules=rules, may_delete=may_delete)
    checked, verdicts = dryrun.dry_run(changes, live, registry=port, deadline=later())
    return checked, verdicts, live


def test_nothing_declared_or_owned_sends_no_request(port: RestRegistryPort, fake: FakeRegistry) -> None:
    live = views.read(port, [], deadline=later())
    assert (live.subjects, live.requests, fake.requests) == ({}, 0, [])


def test_a_new_subject_is_created_with_its_level(port: RestRegistryPort) -> None:
    changes, verdicts, _ = plan(port, want(compatibility="FULL"))
    assert [(c.action, c.register is not None, c.level) for c in changes] == [
        (plans.Action.CREATE, True, (None, "FULL"))
    ]
    assert verdicts == {}  # nothing held to check against


def test_a_reformatted_schema_plans_nothing(port: RestRegistryPort) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    reformatted = json.dumps(
        {"fields": [{"type": "long", "name": "id"}], "name": "shop.Order", "type": "record"}, indent=4
    )
    changes, _, _ = plan(port, want(schema=reformatted))
    assert [(c.action, c.register) for c in changes] == [(plans.Action.NOOP, None)]


def test_a_changed_schema_is_a_new_version_checked_by_the_registry(port: RestRegistryPort) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    changes, verdicts, live = plan(port, want(schema=V2_COMPATIBLE))
    assert [(c.action, c.before_version, c.before_schema) for c in changes] == [(plans.Action.UPDATE, 1, V1)]
    assert verdicts["orders-value"] == dryrun.Verdict("orders-value", True, "BACKWARD", ("latest",))
    assert live.requests == 5  # features (2), the global level, the subject's latest and level


def test_an_incompatible_schema_is_blocked_with_the_registry_messages(port: RestRegistryPort) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    changes, verdicts, _ = plan(port, want(schema=V2_INCOMPATIBLE))
    (change,) = changes
    assert change.action is plans.Action.BLOCKED
    assert change.source == SOURCE  # shown at the manifest's file:line
    assert change.reasons == (
        "the registry finds the new schema incompatible under BACKWARD (checked against version latest)",
        "version 1: READER_FIELD_MISSING_DEFAULT_VALUE: amount",
    )
    assert verdicts["orders-value"].compatible is False


def test_a_level_change_to_none_in_the_same_plan_lets_the_new_version_through(port: RestRegistryPort) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    changes, verdicts, _ = plan(port, want(schema=V2_INCOMPATIBLE, compatibility="NONE"))
    assert [(c.action, c.level) for c in changes] == [(plans.Action.UPDATE, (None, "NONE"))]
    verdict = verdicts["orders-value"]
    assert (verdict.compatible, verdict.breaks, verdict.note) == (
        True,
        "BACKWARD",
        "level NONE: not held to a level (BACKWARD would refuse it)",
    )
    # a compatible one under NONE breaks nothing
    _, verdicts, _ = plan(port, want(schema=V2_COMPATIBLE, compatibility="NONE"))
    assert (verdicts["orders-value"].compatible, verdicts["orders-value"].breaks) == (True, None)


def test_a_transitive_level_planned_checks_every_version(port: RestRegistryPort, fake: FakeRegistry) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    port.set_compatibility("NONE", "orders-value", deadline=later())
    # v2 drops nothing and adds a field without a default: fine against nothing under NONE
    port.register("orders-value", V2_INCOMPATIBLE, schema_type="AVRO", deadline=later())
    port.set_compatibility("BACKWARD", "orders-value", deadline=later())
    v3 = record(ID, {"name": "amount", "type": "double"}, {"name": "note", "type": "string", "default": ""})
    changes, verdicts, _ = plan(port, want(schema=v3))
    assert [c.action for c in changes] == [plans.Action.UPDATE]  # compatible with the latest
    changes, verdicts, _ = plan(port, want(schema=v3, compatibility="BACKWARD_TRANSITIVE"))
    assert [c.action for c in changes] == [plans.Action.BLOCKED]  # not with version 1
    assert verdicts["orders-value"].versions == (1, 2)
    assert "version 1: READER_FIELD_MISSING_DEFAULT_VALUE: amount" in changes[0].reasons


def test_a_stricter_level_planned_blocks_what_the_current_one_refuses_and_says_what_it_cannot_prove(
    port: RestRegistryPort,
) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    changes, _, _ = plan(port, want(schema=V2_INCOMPATIBLE, compatibility="FULL"))
    assert [c.action for c in changes] == [plans.Action.BLOCKED]
    changes, verdicts, _ = plan(port, want(schema=V2_COMPATIBLE, compatibility="FULL"))
    assert [c.action for c in changes] == [plans.Action.UPDATE]
    assert verdicts["orders-value"].compatible is None
    assert verdicts["orders-value"].note == (
        "compatible under BACKWARD; the registry checks FULL when the version is registered"
    )


def test_a_level_change_alone_is_an_update(port: RestRegistryPort) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    port.set_compatibility("BACKWARD", "orders-value", deadline=later())
    changes, _, _ = plan(port, want(compatibility="FULL"))
    assert [(c.action, c.register, c.level) for c in changes] == [(plans.Action.UPDATE, None, ("BACKWARD", "FULL"))]
    changes, _, _ = plan(port, want(compatibility="BACKWARD"))
    assert [c.action for c in changes] == [plans.Action.NOOP]


def test_a_mode_is_planned_where_the_server_serves_it(port: RestRegistryPort, fake: FakeRegistry) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    changes, _, _ = plan(port, want(mode="READONLY"))
    assert [(c.action, c.mode) for c in changes] == [(plans.Action.UPDATE, (None, "READONLY"))]
    live = views.LiveSubjects(
        {"orders-value": views.LiveSubject("orders-value", None)}, Features(mode=False, schema_types=("AVRO",))
    )
    (blocked,) = diff.diff({"orders-value": want(mode="READONLY")}, live)
    assert (blocked.action, blocked.reasons) == (
        plans.Action.BLOCKED,
        ("mode READONLY is declared, and the registry does not serve /mode",),
    )


def test_undeclared_subjects_are_deleted_only_when_owned_and_deletes_are_allowed(port: RestRegistryPort) -> None:
    for subject in ("orders-value", "legacy-value", "other-value"):
        port.register(subject, V1, schema_type="AVRO", deadline=later())
    rules = (
        diff.SubjectRule(desired.NamePattern("exact", "orders-value")),
        diff.SubjectRule(desired.NamePattern("prefix", "legacy-"), permanent=True),
    )
    changes, _, _ = plan(port, rules=rules)
    assert changes == []  # owned, but deletes not allowed
    changes, _, _ = plan(port, rules=rules, may_delete=True)
    assert [(c.subject, c.action, c.permanent) for c in changes] == [
        ("legacy-value", plans.Action.DELETE, True),
        ("orders-value", plans.Action.DELETE, False),
    ]


def test_a_referenced_subject_delete_is_blocked_naming_the_referrer(port: RestRegistryPort) -> None:
    port.register("customer-value", V1, schema_type="AVRO", deadline=later())
    referrer = want("invoice-value", json.dumps({"type": "record", "name": "Invoice", "fields": []}))
    refs = (Reference("shop.Order", "customer-value", 1),)
    port.register(referrer.subject, referrer.schema, schema_type="AVRO", references=refs, deadline=later())
    rules = (diff.SubjectRule(desired.NamePattern("glob", "*-value")),)
    declared = views.DesiredSubject(referrer.subject, referrer.schema, references=refs)
    changes, _, _ = plan(port, declared, rules=rules, may_delete=True)
    assert [(c.subject, c.action, c.reasons) for c in changes] == [
        (
            "customer-value",
            plans.Action.BLOCKED,
            ("subject customer-value is referenced by invoice-value: delete or change them first",),
        ),
        ("invoice-value", plans.Action.NOOP, ()),
    ]
    # deleting both in one plan is allowed: the referrer goes first
    changes, _, _ = plan(port, rules=rules, may_delete=True)
    assert [(c.subject, c.action) for c in changes] == [
        ("customer-value", plans.Action.DELETE),
        ("invoice-value", plans.Action.DELETE),
    ]


def test_a_version_let_in_by_a_level_change_names_the_topic_and_its_consumer_groups(port: RestRegistryPort) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    wanted = want(schema=V2_INCOMPATIBLE, compatibility="NONE", topics=("orders",))
    changes, verdicts, _ = plan(port, wanted)
    assert impact.topics_to_read(changes, verdicts) == ("orders",)
    usage = {
        "orders": TopicUsage(end_offsets=(10,), latest_timestamp_ms=None, groups=("billing", "audit"), read_at_ms=0)
    }
    finding = impact.assess(changes[0], verdicts["orders-value"], usage=usage)
    assert finding is not None
    assert finding.text == (
        "a new version of orders-value that its level BACKWARD refuses is let in by the change to NONE: its readers "
        "may fail on it: topic orders, read by consumer group(s) billing, audit"
    )
    unread = impact.assess(changes[0], verdicts["orders-value"], usage=None)
    assert unread is not None and unread.text.endswith("topic orders (its consumer groups were not read)")
    # a compatible version under the same level change is no finding
    changes, verdicts, _ = plan(port, want(schema=V2_COMPATIBLE, compatibility="NONE", topics=("orders",)))
    assert impact.assess(changes[0], verdicts["orders-value"], usage=usage) is None
    assert impact.topics_to_read(changes, verdicts) == ()


def test_a_plan_made_without_the_registry_decides_nothing_it_cannot_know(port: RestRegistryPort) -> None:
    for subject in ("orders-value", "legacy-value"):
        port.register(subject, V1, schema_type="AVRO", deadline=later())
    rules = (diff.SubjectRule(desired.NamePattern("exact", "legacy-value")),)
    live = views.read(port, ["orders-value", "legacy-value"], deadline=later())
    changes = diff.diff({"orders-value": want(schema=V2_INCOMPATIBLE)}, live, rules=rules, may_delete=True)
    assert [dryrun.question(c, live) for c in changes] == [None, dryrun.Question("orders-value", every=False)]
    judged, verdicts = dryrun.judge(changes, live, evidence=dryrun.Evidence())  # offline: no answers read
    assert [(c.subject, c.action, c.reasons) for c in judged] == [
        (
            "legacy-value",
            plans.Action.BLOCKED,
            ("who references subject legacy-value was not read (a plan made without the registry)",),
        ),
        ("orders-value", plans.Action.UPDATE, ()),
    ]
    assert verdicts["orders-value"] == dryrun.Verdict(
        "orders-value", None, "BACKWARD", note="not checked: the registry was not asked (a plan made without it)"
    )
    # the same plan with the registry's answers read blocks the incompatible version
    judged, _ = dryrun.judge(
        changes, live, evidence=dryrun.read_evidence(changes, live, registry=port, deadline=later())
    )
    assert [(c.subject, c.action) for c in judged] == [
        ("legacy-value", plans.Action.DELETE),
        ("orders-value", plans.Action.BLOCKED),
    ]


def test_reading_500_subjects_takes_two_requests_a_subject_and_three_more(
    port: RestRegistryPort, fake: FakeRegistry
) -> None:
    names = [f"s{i:03}-value" for i in range(500)]
    for name in names:
        port.register(name, V1, schema_type="AVRO", deadline=later())
    sent = len(fake.requests)
    live = views.read(port, names, deadline=later())
    assert len(live.subjects) == 500 and all(s.latest is not None for s in live.subjects.values())
    assert live.requests == len(fake.requests) - sent == 2 * 500 + 3  # features (2), the global level


def test_the_compatibility_checks_run_concurrently_within_their_bound() -> None:
    fake = InflightCounting()
    fake.all_in.set()
    port = RestRegistryPort(fake)
    names = [f"s{n:02}-value" for n in range(12)]
    for name in names:
        port.register(name, V1, schema_type="AVRO", deadline=later())
    live = views.read(port, names, deadline=later())
    changes = diff.diff({n: want(n, V2_INCOMPATIBLE) for n in names}, live)
    fake.all_in.clear()
    fake.most = 0
    evidence = dryrun.read_evidence(changes, live, registry=port, deadline=later(), concurrency=3)
    assert fake.most == 3
    assert sorted(evidence.answers) == names and all(not a[0].compatible for a in evidence.answers.values())


def test_a_referrer_outside_the_plan_is_named_by_its_subject(port: RestRegistryPort) -> None:
    port.register("customer-value", V1, schema_type="AVRO", deadline=later())
    invoice = json.dumps({"type": "record", "name": "Invoice", "fields": [{"name": "c", "type": "shop.Order"}]})
    refs = (Reference("shop.Order", "customer-value", 1),)
    port.register("billing/invoice-value", invoice, schema_type="AVRO", references=refs, deadline=later())
    rules = (diff.SubjectRule(desired.NamePattern("exact", "customer-value")),)  # the referrer is another team's
    changes, _, _ = plan(port, rules=rules, may_delete=True)
    assert [(c.action, c.reasons) for c in changes] == [
        (
            plans.Action.BLOCKED,
            ("subject customer-value is referenced by billing/invoice-value: delete or change them first",),
        )
    ]


class _OrphanReferrer(FakeRegistry):
    """Answers ``referencedby`` with the id of a schema no subject holds (Apicurio 2.4 after a permanent delete)."""

    def exchange(self, request: rq.Request, *, deadline: float) -> tuple[int, Any]:
        if request.path.endswith("/referencedby"):
            return 200, [99]
        return super().exchange(request, deadline=deadline)


def test_a_referring_schema_no_subject_holds_does_not_block_a_delete() -> None:
    port = RestRegistryPort(_OrphanReferrer())
    port.register("customer-value", V1, schema_type="AVRO", deadline=later())
    rules = (diff.SubjectRule(desired.NamePattern("exact", "customer-value")),)
    changes, _, _ = plan(port, rules=rules, may_delete=True)
    assert [(c.subject, c.action) for c in changes] == [("customer-value", plans.Action.DELETE)]


INVOICE = json.dumps({"type": "record", "name": "Invoice", "fields": [{"name": "o", "type": "shop.Order"}]})


def test_a_reference_to_a_version_the_registry_does_not_hold_is_blocked_at_the_manifest(
    port: RestRegistryPort, fake: FakeRegistry
) -> None:
    port.register("other-value", V1, schema_type="AVRO", deadline=later())  # another team's: not read for the plan
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    wanted = (
        want("invoice-value", INVOICE, references=(Reference("shop.Order", "other-value", 3),)),
        want("box-value", INVOICE, references=(Reference("shop.Order", "orders-value", 2),)),
    )
    changes, _, _ = plan(port, *wanted, want())
    assert [(c.subject, c.action, c.reasons) for c in changes] == [
        (
            "box-value",
            plans.Action.BLOCKED,
            ("reference 'shop.Order' names version 2 of subject orders-value, which holds versions up to 1",),
        ),
        (
            "invoice-value",
            plans.Action.BLOCKED,
            ("reference 'shop.Order' names version 3 of subject other-value, which holds versions 1",),
        ),
        ("orders-value", plans.Action.NOOP, ()),
    ]
    assert changes[1].source == SOURCE
    asked = [r.path for r in fake.requests if r.method == "GET" and r.path.startswith("/subjects/other-value")]
    assert asked == ["/subjects/other-value/versions"]  # its versions, once; no check sent for a broken reference
    # made without the registry, the unread subject's versions are not known: left to the registry at apply
    live = views.read(port, ["invoice-value"], deadline=later())
    offline, _ = dryrun.judge(diff.diff({"invoice-value": wanted[0]}, live), live, evidence=dryrun.Evidence())
    assert [c.action for c in offline] == [plans.Action.CREATE]


def test_a_reference_to_the_version_the_plan_registers_first_is_applied_in_order(port: RestRegistryPort) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    port.register(
        "box-value",
        INVOICE,
        schema_type="AVRO",
        references=(Reference("shop.Order", "orders-value", 1),),
        deadline=later(),
    )
    box = want("box-value", INVOICE, references=(Reference("shop.Order", "orders-value", 2),))
    changes, verdicts, live = plan(port, box, want(schema=V2_COMPATIBLE))
    assert [(c.subject, c.action) for c in changes] == [
        ("box-value", plans.Action.UPDATE),
        ("orders-value", plans.Action.UPDATE),
    ]
    assert verdicts["box-value"].note == (
        "it references the version of orders-value this plan registers first: checked at registration"
    )
    outcomes = apply.apply(changes, live, registry=port, deadline=later())
    assert [(o.subject, o.what, o.ok, o.detail) for o in outcomes] == [
        ("orders-value", "register", True, "version 2"),
        ("box-value", "register", True, "version 2"),
    ]


def test_a_subject_the_plan_deletes_cannot_be_referenced_by_a_version_it_registers(port: RestRegistryPort) -> None:
    port.register("legacy-value", V1, schema_type="AVRO", deadline=later())
    rules = (diff.SubjectRule(desired.NamePattern("exact", "legacy-value")),)
    box = want("box-value", INVOICE, references=(Reference("shop.Order", "legacy-value", 1),))
    changes, _, _ = plan(port, box, rules=rules, may_delete=True)
    assert [(c.subject, c.action, c.reasons) for c in changes] == [
        ("box-value", plans.Action.CREATE, ()),
        (
            "legacy-value",
            plans.Action.BLOCKED,
            ("subject legacy-value is referenced by the new version of box-value in this plan",),
        ),
    ]


class _ApicurioLevels(FakeRegistry):
    """Answers ``GET /config/{subject}`` of a subject without a level of its own with NONE, as Apicurio 2.4 does,
    while it checks and registers under the global level (BACKWARD here)."""

    def exchange(self, request: rq.Request, *, deadline: float) -> tuple[int, Any]:
        template, names, _ = rq.route(request.path)
        if request.method == "GET" and template == "/config/{subject}" and names["subject"] not in self.levels:
            return 200, {"compatibilityLevel": "NONE"}
        return super().exchange(request, deadline=deadline)


def test_a_subject_reading_none_is_still_checked_where_the_registry_holds_a_global_level() -> None:
    """Regression: on Apicurio a subject without a level reads NONE while the registry checks it under the global
    level; the plan took NONE at its word, asked nothing, and the incompatible version was refused only at apply."""
    port = RestRegistryPort(_ApicurioLevels())
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    changes, verdicts, live = plan(port, want(schema=V2_INCOMPATIBLE))
    assert (live.subjects["orders-value"].compatibility, live.global_level) == ("NONE", "BACKWARD")
    (change,) = changes
    assert change.action is plans.Action.BLOCKED
    assert change.reasons == (
        "the registry finds the new schema incompatible under BACKWARD (checked against version latest)",
        "version 1: READER_FIELD_MISSING_DEFAULT_VALUE: amount",
    )
    _, verdicts, _ = plan(port, want(schema=V2_COMPATIBLE))
    assert (verdicts["orders-value"].compatible, verdicts["orders-value"].level) == (True, "BACKWARD")


def test_a_subject_set_to_none_is_not_blocked_by_the_global_level(port: RestRegistryPort) -> None:
    """On Confluent a NONE read is the subject's own level: asked all the same, the registry finds it compatible."""
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    port.set_compatibility("NONE", "orders-value", deadline=later())
    changes, verdicts, _ = plan(port, want(schema=V2_INCOMPATIBLE))
    assert [c.action for c in changes] == [plans.Action.UPDATE]
    assert verdicts["orders-value"].compatible is True

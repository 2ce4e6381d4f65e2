"""The ``SchemaSubject`` kind's plan, dry run and apply against a real registry: Apicurio Registry 2.4.2.Final
(its Confluent-compatible API), built and started by the harness. Each test writes a manifest's spec and its schema
file to disk, builds the declared subject from them, reads the registry, plans, dry-runs and applies through the
kind's own modules (an import also through the import command's path), then asserts what the registry holds. Where
Apicurio answers otherwise than Confluent (docs/schema-registry.md: global level NONE, no /mode, a referenced
subject's delete carried out) the test says so; the unit tests cover Confluent's answers."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler import manifests
from reconciler.adopt import from_live
from reconciler.kinds.schema_subject import adopt, apply, diff, dryrun, impact, manifest, snapshot, views
from reconciler.kinds.schema_subject import state as subject_state
from reconciler.model import desired, plans, state
from reconciler.model.kinds import Kind
from reconciler.registry.port import RegistryPort
from reconciler.registry.requests import Reference
from reconciler.registry_access import settings
from reconciler.registry_access.http import HttpTransport
from tests.kafka.registry import SchemaRegistryServer

ID = {"name": "id", "type": "long"}
ORDER_V1 = {"type": "record", "name": "Order", "namespace": "shop", "fields": [ID]}
ORDER_COMPATIBLE = {**ORDER_V1, "fields": [ID, {"name": "note", "type": "string", "default": ""}]}
ORDER_INCOMPATIBLE = {**ORDER_V1, "fields": [ID, {"name": "amount", "type": "double"}]}


def later() -> float:
    return time.monotonic() + 60


@pytest.fixture
def port(schema_registry: SchemaRegistryServer) -> Iterator[RegistryPort]:
    """The registry as a command reaches it when ``SCHEMA_REGISTRY_URL`` names it (no Cluster profile)."""
    found = settings.from_environment({settings.REGISTRY_URL_ENV: schema_registry.api_url})
    assert found is not None
    opened = settings.open_registry(found)
    try:
        yield opened
    finally:
        assert isinstance(opened.transport, HttpTransport)
        opened.transport.close()


def declare(
    tmp_path: Path, name: str, spec: dict[str, Any], schema: dict[str, Any] | None = None
) -> views.DesiredSubject:
    """The subject a manifest in ``tmp_path`` declares, its schema in a file beside it (written as a user would)."""
    if schema is not None:
        (tmp_path / f"{name}.avsc").write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
        spec = {**spec, "schemaFile": f"{name}.avsc"}
    problems: list[str] = []
    found = manifest.build(
        name,
        manifest.SchemaSubjectSpec.model_validate(spec),
        manifest_file=tmp_path / "subjects.yaml",
        error=lambda path, message: problems.append(message),
        source=desired.Source(str(tmp_path / "subjects.yaml"), 1),
    )
    assert problems == [] and found is not None
    return found


def plan(
    port: RegistryPort,
    *wanted: views.DesiredSubject,
    rules: tuple[diff.SubjectRule, ...] = (),
) -> tuple[list[diff.SubjectChange], views.LiveSubjects]:
    declared = {w.subject: w for w in wanted}
    owned = [s for s in port.subjects(deadline=later()) if diff.owning_rule(rules, s)]
    live = views.read(port, [*declared, *owned], modes=[w.subject for w in wanted if w.mode], deadline=later())
    changes = diff.diff(declared, live, rules=rules, may_delete=bool(rules))
    checked, _ = dryrun.dry_run(changes, live, registry=port, deadline=later())
    return checked, live


def plan_and_apply(
    port: RegistryPort, *wanted: views.DesiredSubject, rules: tuple[diff.SubjectRule, ...] = ()
) -> list[apply.Outcome]:
    changes, live = plan(port, *wanted, rules=rules)
    assert dryrun.blocked(changes) == []
    outcomes = apply.apply(changes, live, registry=port, deadline=later())
    assert [o for o in outcomes if not o.ok] == []
    return outcomes


def test_plan_shows_a_new_version_apply_registers_it_and_a_reformatted_schema_plans_nothing(
    port: RegistryPort, tmp_path: Path, topic_prefix: str
) -> None:
    topic = f"{topic_prefix}orders"
    first = declare(tmp_path, "orders", {"topic": topic, "compatibility": "BACKWARD"}, ORDER_V1)
    outcomes = plan_and_apply(port, first)
    assert [(o.what, o.detail) for o in outcomes] == [("level", "level BACKWARD"), ("register", "version 1")]
    second = declare(tmp_path, "orders", {"topic": topic, "compatibility": "BACKWARD"}, ORDER_COMPATIBLE)
    changes, _ = plan(port, second)
    assert [(c.subject, c.action, c.before_version, c.register is not None) for c in changes] == [
        (f"{topic}-value", plans.Action.UPDATE, 1, True)
    ]
    assert [(o.what, o.detail) for o in plan_and_apply(port, second)] == [("register", "version 2")]
    latest = port.latest(f"{topic}-value", deadline=later())
    assert latest is not None and latest.version == 2
    assert json.loads(latest.schema) == ORDER_COMPATIBLE
    # the same schema, keys reordered and indented otherwise: nothing to do (Apicurio would register it again)
    (tmp_path / "orders.avsc").write_text(
        json.dumps(dict(reversed(list(ORDER_COMPATIBLE.items()))), indent=5), encoding="utf-8"
    )
    reformatted = declare(
        tmp_path, "orders", {"topic": topic, "compatibility": "BACKWARD", "schemaFile": "orders.avsc"}
    )
    changes, _ = plan(port, reformatted)
    assert [c.action for c in changes] == [plans.Action.NOOP]
    assert port.versions(f"{topic}-value", deadline=later()) == (1, 2)


def test_an_incompatible_schema_is_blocked_at_its_manifest_and_nothing_is_registered(
    port: RegistryPort, tmp_path: Path, topic_prefix: str
) -> None:
    topic = f"{topic_prefix}orders"
    plan_and_apply(port, declare(tmp_path, "orders", {"topic": topic, "compatibility": "BACKWARD"}, ORDER_V1))
    incompatible = declare(tmp_path, "orders", {"topic": topic, "compatibility": "BACKWARD"}, ORDER_INCOMPATIBLE)
    changes, _ = plan(port, incompatible)
    (change,) = changes
    assert change.action is plans.Action.BLOCKED
    assert change.source == desired.Source(str(tmp_path / "subjects.yaml"), 1)
    # Apicurio answers is_compatible false with no messages (verbose=true is ignored; Confluent lists them)
    assert change.reasons == (
        "the registry finds the new schema incompatible under BACKWARD (checked against version latest); it gave no "
        "message",
    )
    assert port.versions(f"{topic}-value", deadline=later()) == (1,)
    # changing the level is the way through, in the same plan: the level is set first, then the version registered
    through = declare(tmp_path, "orders", {"topic": topic, "compatibility": "NONE"}, ORDER_INCOMPATIBLE)
    live = views.read(port, [through.subject], deadline=later())
    changes, verdicts = dryrun.dry_run(
        diff.diff({through.subject: through}, live), live, registry=port, deadline=later()
    )
    finding = impact.assess(changes[0], verdicts[through.subject], usage=None)
    assert finding is not None and (finding.breaks, finding.topics) == ("BACKWARD", (topic,))
    outcomes = plan_and_apply(port, through)
    assert [(o.what, o.detail) for o in outcomes] == [("level", "level NONE"), ("register", "version 2")]


def test_a_mode_is_blocked_here_because_the_server_has_no_mode_endpoint(
    port: RegistryPort, tmp_path: Path, topic_prefix: str
) -> None:
    subject = declare(tmp_path, "orders", {"subject": f"{topic_prefix}orders-value", "mode": "READONLY"}, ORDER_V1)
    changes, live = plan(port, subject)
    assert live.features.mode is False  # Apicurio 2.4 answers 404 on /mode
    assert [(c.action, c.reasons) for c in changes] == [
        (plans.Action.BLOCKED, ("mode READONLY is declared, and the registry does not serve /mode",))
    ]


def test_an_owned_delete_is_soft_by_default_and_a_referenced_subject_is_not_deleted(
    port: RegistryPort, tmp_path: Path, topic_prefix: str
) -> None:
    customer = {"type": "record", "name": "Customer", "namespace": "shop", "fields": [ID]}
    invoice = {
        "type": "record",
        "name": "Invoice",
        "namespace": "shop",
        "fields": [{"name": "who", "type": "shop.Customer"}],
    }
    customer_subject = declare(tmp_path, "customer", {"subject": f"{topic_prefix}customer-value"}, customer)
    refs = [{"name": "shop.Customer", "subject": f"{topic_prefix}customer-value", "version": 1}]
    invoice_subject = declare(
        tmp_path, "invoice", {"subject": f"{topic_prefix}invoice-value", "references": refs}, invoice
    )
    outcomes = plan_and_apply(port, invoice_subject, customer_subject)
    assert [o.subject for o in outcomes] == [f"{topic_prefix}customer-value", f"{topic_prefix}invoice-value"]
    # another team's subject referencing the customer subject, outside this plan's rules: named by its subject
    other = f"other-{topic_prefix}invoice-value"
    refs_as_held = [Reference("shop.Customer", f"{topic_prefix}customer-value", 1)]
    port.register(other, json.dumps(invoice) + " ", schema_type="AVRO", references=refs_as_held, deadline=later())
    only_customer = (diff.SubjectRule(desired.NamePattern("exact", f"{topic_prefix}customer-value")),)
    changes, _ = plan(port, rules=only_customer)
    assert [c.reasons for c in changes] == [
        (
            f"subject {topic_prefix}customer-value is referenced by {other}, {topic_prefix}invoice-value: delete or "
            "change them first",
        )
    ]
    # a soft-deleted referrer still counts here (Apicurio keeps listing it): only a permanent delete releases it
    port.delete(other, deadline=later())
    changes, _ = plan(port, rules=only_customer)
    assert other in changes[0].reasons[0]
    port.delete(other, permanent=True, deadline=later())
    rules = (diff.SubjectRule(desired.NamePattern("prefix", topic_prefix)),)
    # the customer subject undeclared while the invoice still references it: blocked naming the referrer (Apicurio
    # would carry the delete out; Confluent refuses it with 42206)
    changes, _ = plan(port, invoice_subject, rules=rules)
    assert [(c.subject, c.action, c.reasons) for c in changes] == [
        (
            f"{topic_prefix}customer-value",
            plans.Action.BLOCKED,
            (
                f"subject {topic_prefix}customer-value is referenced by {topic_prefix}invoice-value: delete or "
                "change them first",
            ),
        ),
        (f"{topic_prefix}invoice-value", plans.Action.NOOP, ()),
    ]
    assert port.latest(f"{topic_prefix}customer-value", deadline=later()) is not None
    # both undeclared: the referrer is deleted first, both soft (still listed with deleted=true)
    outcomes = plan_and_apply(port, rules=rules)
    assert [(o.subject, o.what, o.detail) for o in outcomes] == [
        (f"{topic_prefix}invoice-value", "delete", "deleted"),
        (f"{topic_prefix}customer-value", "delete", "deleted"),
    ]
    listed = port.subjects(deadline=later())
    assert f"{topic_prefix}invoice-value" not in listed and f"{topic_prefix}customer-value" not in listed
    soft = port.subjects(deadline=later(), deleted=True)
    assert {f"{topic_prefix}invoice-value", f"{topic_prefix}customer-value"} <= set(soft)


def test_a_permanent_delete_removes_the_subject_for_good(port: RegistryPort, tmp_path: Path, topic_prefix: str) -> None:
    subject = f"{topic_prefix}gone-value"
    plan_and_apply(port, declare(tmp_path, "gone", {"subject": subject}, ORDER_V1))
    rules = (diff.SubjectRule(desired.NamePattern("exact", subject), permanent=True),)
    changes, _ = plan(port, rules=rules)
    assert [(c.action, c.permanent) for c in changes] == [(plans.Action.DELETE, True)]
    outcomes = plan_and_apply(port, rules=rules)
    assert [(o.what, o.detail) for o in outcomes] == [("delete", "deleted permanently")]
    assert subject not in port.subjects(deadline=later(), deleted=True)


PAYMENT = {"title": "Payment", "type": "object", "properties": {"amount": {"type": "number"}, "id": {"type": "string"}}}
CLICK = 'syntax = "proto3";\npackage shop.v1;\n\nmessage Click {\n  string page = 1;\n}\n'


def test_json_and_protobuf_subjects_apply_and_a_reformatted_text_plans_nothing(
    port: RegistryPort, tmp_path: Path, topic_prefix: str
) -> None:
    (tmp_path / "payments.json").write_text(json.dumps(PAYMENT, indent=2), encoding="utf-8")
    payments = declare(
        tmp_path,
        "payments",
        {
            "topic": f"{topic_prefix}payments",
            "strategy": "TopicRecordNameStrategy",
            "schemaType": "JSON",
            "schemaFile": "payments.json",
        },
    )
    clicks = declare(tmp_path, "clicks", {"topic": f"{topic_prefix}clicks", "schemaType": "PROTOBUF", "schema": CLICK})
    assert (payments.subject, clicks.subject) == (f"{topic_prefix}payments-Payment", f"{topic_prefix}clicks-value")
    outcomes = plan_and_apply(port, payments, clicks)
    assert sorted((o.subject, o.detail) for o in outcomes) == [
        (clicks.subject, "version 1"),
        (payments.subject, "version 1"),
    ]
    held = port.latest(clicks.subject, deadline=later())
    assert held is not None and held.schema_type == "PROTOBUF"
    # keys in another order and other indentation; Protobuf with CRLF line ends and trailing spaces
    (tmp_path / "payments.json").write_text(json.dumps(dict(reversed(list(PAYMENT.items())))), encoding="utf-8")
    spec = {"topic": f"{topic_prefix}payments", "strategy": "TopicRecordNameStrategy", "schemaType": "JSON"}
    payments = declare(tmp_path, "payments", {**spec, "schemaFile": "payments.json"})
    reformatted = CLICK.replace("\n", "  \r\n")
    clicks = declare(
        tmp_path, "clicks", {"topic": f"{topic_prefix}clicks", "schemaType": "PROTOBUF", "schema": reformatted}
    )
    changes, _ = plan(port, payments, clicks)
    assert [c.action for c in changes] == [plans.Action.NOOP, plans.Action.NOOP]


def test_import_of_what_the_registry_holds_plans_nothing_and_so_does_its_snapshot(
    port: RegistryPort, tmp_path: Path, topic_prefix: str
) -> None:
    customer = {"type": "record", "name": "Customer", "namespace": "shop", "fields": [ID]}
    invoice = {
        "type": "record",
        "name": "Invoice",
        "namespace": "shop",
        "fields": [{"name": "c", "type": "shop.Customer"}],
    }
    refs = [{"name": "shop.Customer", "subject": f"{topic_prefix}customer-value", "version": 1}]
    plan_and_apply(
        port,
        declare(tmp_path, "customer", {"subject": f"{topic_prefix}customer-value", "compatibility": "FULL"}, customer),
        declare(tmp_path, "invoice", {"subject": f"{topic_prefix}invoice/value", "references": refs}, invoice),
    )
    names = [s for s in port.subjects(deadline=later()) if s.startswith(topic_prefix)]
    live = views.read(port, names, deadline=later())
    found, notes = adopt.documents(live)
    assert notes == [] and len(found) == 2
    # Apicurio answers the global level (NONE) for a subject with none of its own: the document names it
    assert [d.spec.get("compatibility") for d in found] == ["FULL", "NONE"]
    out = tmp_path / "imported"
    (out / adopt.SCHEMA_DIR).mkdir(parents=True)
    declared = {}
    problems: list[str] = []
    for doc in found:
        (out / doc.schema_file).write_text(doc.schema, encoding="utf-8")
        built = manifest.build(
            doc.name,
            manifest.SchemaSubjectSpec.model_validate(json.loads(json.dumps(doc.spec))),
            manifest_file=out / "subjects.yaml",
            error=lambda path, message: problems.append(message),
        )
        assert problems == [] and built is not None
        declared[built.subject] = built
    assert [c.action for c in diff.diff(declared, live)] == [plans.Action.NOOP, plans.Action.NOOP]
    offline = snapshot.from_dict(json.loads(json.dumps(snapshot.to_dict(live))))
    assert offline is not None and diff.diff(declared, offline) == diff.diff(declared, live)
    # the import command's own path (each kind's import part on one job): manifests that load and change nothing
    imported = state.ClusterState(cluster_id=None, controller_id=None, brokers=(), sections={Kind.SCHEMA_SUBJECT: live})
    report = from_live.adopt_cluster(imported, out_dir=tmp_path / "import", force=False)
    assert report.counts["schema subjects"] == 2
    loaded = manifests.load([tmp_path / "import"], env={})
    assert loaded.diagnostics == []
    assert sorted(subject_state.declared_subjects(loaded.desired)) == sorted(names)
    assert [c.action for c in diff.diff(subject_state.declared_subjects(loaded.desired), live)] == [
        plans.Action.NOOP
    ] * 2


def test_references_are_checked_in_the_plan_and_applied_referenced_first(
    port: RegistryPort, tmp_path: Path, topic_prefix: str
) -> None:
    customer = {"type": "record", "name": "Customer", "namespace": "shop", "fields": [ID]}
    invoice = {
        "type": "record",
        "name": "Invoice",
        "namespace": "shop",
        "fields": [{"name": "c", "type": "shop.Customer"}],
    }
    customer_name = f"{topic_prefix}customer-value"
    plan_and_apply(port, declare(tmp_path, "customer", {"subject": customer_name}, customer))

    def invoice_at(version: int) -> views.DesiredSubject:
        refs = [{"name": "shop.Customer", "subject": customer_name, "version": version}]
        return declare(tmp_path, "invoice", {"subject": f"{topic_prefix}invoice-value", "references": refs}, invoice)

    changes, _ = plan(port, invoice_at(5))  # the customer subject is not declared here: its versions are asked
    assert [(c.action, c.reasons) for c in changes] == [
        (
            plans.Action.BLOCKED,
            (f"reference 'shop.Customer' names version 5 of subject {customer_name}, which holds versions 1",),
        )
    ]
    newer = {**customer, "fields": [ID, {"name": "n", "type": "int", "default": 0}]}
    outcomes = plan_and_apply(port, invoice_at(2), declare(tmp_path, "customer", {"subject": customer_name}, newer))
    assert [(o.subject, o.detail) for o in outcomes] == [
        (customer_name, "version 2"),
        (f"{topic_prefix}invoice-value", "version 1"),
    ]
    held = port.latest(f"{topic_prefix}invoice-value", deadline=later())
    assert held is not None and held.references == (Reference("shop.Customer", customer_name, 2),)

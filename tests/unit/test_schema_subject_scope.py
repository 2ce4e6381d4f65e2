"""Which subjects a plan reads (none without a declaration or an ownership rule) and the fingerprints that make a
saved plan stale when a subject in its scope changes, and only then."""

from __future__ import annotations

import json
import time

from reconciler.kinds.schema_subject import diff, scope, views
from reconciler.model import desired
from reconciler.model.kinds import Kind
from reconciler.registry.port import RestRegistryPort
from tests.support.registry_fake import FakeRegistry

V1 = json.dumps({"type": "record", "name": "Order", "fields": [{"name": "id", "type": "long"}]})
V2 = json.dumps(
    {
        "type": "record",
        "name": "Order",
        "fields": [{"name": "id", "type": "long"}, {"name": "n", "type": "int", "default": 0}],
    }
)
RULES = (diff.SubjectRule(desired.NamePattern("prefix", "team-")),)


def later() -> float:
    return time.monotonic() + 30


def test_nothing_declared_or_owned_reads_nothing() -> None:
    fake = FakeRegistry()
    assert scope.to_read(RestRegistryPort(fake), [], rules=[], deadline=later()) == ()
    assert fake.requests == []


def test_the_rules_add_the_listed_subjects_they_own() -> None:
    fake = FakeRegistry()
    port = RestRegistryPort(fake)
    for subject in ("team-a-value", "team-b-value", "other-value"):
        port.register(subject, V1, schema_type="AVRO", deadline=later())
    sent = len(fake.requests)
    assert scope.to_read(port, ["declared-value"], rules=RULES, deadline=later()) == (
        "declared-value",
        "team-a-value",
        "team-b-value",
    )
    assert len(fake.requests) - sent == 1  # one GET /subjects


def test_a_saved_plan_goes_stale_when_a_subject_in_its_scope_changes_and_only_then() -> None:
    port = RestRegistryPort(FakeRegistry())
    for subject in ("team-a-value", "other-value"):
        port.register(subject, V1, schema_type="AVRO", deadline=later())

    def now() -> dict[str, str]:
        names = scope.to_read(port, ["declared-value"], rules=RULES, deadline=later())
        return dict(scope.fingerprints(views.read(port, names, deadline=later()), names))

    saved = now()
    port.register("other-value", V2, schema_type="AVRO", deadline=later())  # outside the scope
    assert scope.stale(saved, now()) == ()
    port.register("team-a-value", V2, schema_type="AVRO", deadline=later())  # a new version
    assert scope.stale(saved, now()) == ("team-a-value",)
    saved = now()
    port.set_compatibility("FULL", "team-a-value", deadline=later())  # a level set
    assert scope.stale(saved, now()) == ("team-a-value",)
    saved = now()
    port.register("declared-value", V1, schema_type="AVRO", deadline=later())  # a declared subject appears
    port.register("team-new-value", V1, schema_type="AVRO", deadline=later())  # an owned one appears
    assert scope.stale(saved, now()) == ("declared-value", "team-new-value")
    saved = now()
    port.set_compatibility("NONE", deadline=later())  # the global level
    assert scope.stale(saved, now()) == (scope.GLOBAL,)
    saved = now()
    port.delete("team-a-value", deadline=later())  # an owned one goes
    assert scope.stale(saved, now()) == ("team-a-value",)


def test_apply_reads_the_subjects_a_saved_plan_owns_again_and_refuses_it_when_one_appeared() -> None:
    """A saved plan whose Ownership rules own subjects, read back from its file: apply lists the registry's subjects,
    reads every one the rules own, and refuses the plan (nothing written) when one appeared out of band; a subject
    outside the rules appearing changes nothing. Regression: such a plan could not be loaded ("scope has unexpected
    field(s) schema_subjects")."""
    import pytest

    from reconciler import planner
    from reconciler.apply import apply_plan
    from reconciler.base import errors
    from reconciler.kinds.schema_subject import evidence
    from reconciler.kinds.schema_subject.state import DesiredSubject
    from reconciler.model import plans
    from tests.support.apply_runs import apply_options
    from tests.support.recording import RecordingAdapter

    wanted = desired.DesiredState(
        sections={Kind.SCHEMA_SUBJECT: {"team-a-value": DesiredSubject("team-a-value", V2)}},
        ownership=desired.Ownership(rules={Kind.SCHEMA_SUBJECT: RULES}),
    )

    def saved_plan() -> tuple[RestRegistryPort, RecordingAdapter, plans.Plan]:
        port = RestRegistryPort(FakeRegistry())
        port.register("team-a-value", V1, schema_type="AVRO", deadline=later())
        adapter = RecordingAdapter()
        live = evidence.read_for_plan(port, adapter.read_state(kinds=wanted.needs()), wanted, deadline=later())
        made = planner.plan(wanted, live)
        assert [c.address for c in made.actionable] == ["schema_subject/team-a-value"]
        return port, adapter, plans.Plan.from_json_dict(json.loads(made.to_json()))

    def latest_version(port: RestRegistryPort) -> int | None:
        held = port.read_subjects(["team-a-value"], deadline=later())["team-a-value"].latest
        return None if held is None else held.version

    port, adapter, saved = saved_plan()
    port.register("team-b-value", V1, schema_type="AVRO", deadline=later())  # owned by the rule, out of band
    with pytest.raises(errors.StalePlan, match="Schema Registry subjects: 1 -> 2 in scope"):
        apply_plan(saved, adapter, options=apply_options(ports={"registry": port}, desired=wanted))
    assert latest_version(port) == 1  # nothing registered

    port, adapter, saved = saved_plan()
    port.register("other-value", V1, schema_type="AVRO", deadline=later())  # another team's: outside the scope
    report = apply_plan(saved, adapter, options=apply_options(ports={"registry": port}, desired=wanted))
    assert [(i.address, i.outcome.value) for i in report.items] == [("schema_subject/team-a-value", "applied")]
    assert latest_version(port) == 2

"""Every resource kind is declared once, whole, in the registry, and every stage's per-kind table covers every
declared kind: a kind added to ``Kind`` without a declaration, a declaration lacking a member, or a stage that was
not taught the new kind fails here."""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Mapping

import pytest

from reconciler import planner, ports
from reconciler.apply import access, decoded
from reconciler.kinds import places, registry, spec
from reconciler.kinds.schema_subject.state import LiveSubjects
from reconciler.manifests import parts as manifest_parts
from reconciler.model import desired, payloads, plans, state
from reconciler.model.kinds import Kind
from reconciler.planner import views
from reconciler.registry.port import Features
from reconciler.snapshot import files
from tests.golden import example

EMPTY_LIVE = state.ClusterState(cluster_id="c", controller_id=1, brokers=())
READ_LIVE = dataclasses.replace(
    EMPTY_LIVE,
    topics={},
    acls=frozenset(),
    quotas={},
    scram_users={},
    broker_configs={},
    group_configs={},
    client_metrics={},
    connect=state.ConnectState(url="http://c:8083", connectors={}),
    sections={Kind.SCHEMA_SUBJECT: LiveSubjects({}, Features(mode=False, schema_types=("AVRO",)))},
)
_EXAMPLE = example.live_state()
assert _EXAMPLE.connect is not None
# every kind read, each with resources (without what one plan's manifests give and no snapshot stores: the Connect
# validate answers and secret digests)
FULL_LIVE = dataclasses.replace(
    _EXAMPLE, connect=dataclasses.replace(_EXAMPLE.connect, validation={}, secret_digests={})
)


def test_every_kind_is_declared_once_in_kind_order() -> None:
    assert list(registry.KINDS) == list(Kind)
    assert all(registry.spec(kind).kind is kind for kind in Kind)


@pytest.mark.parametrize("kind", list(Kind), ids=str)
def test_a_declaration_has_every_member(kind: Kind) -> None:
    declared = registry.spec(kind)
    for field in dataclasses.fields(spec.KindSpec):
        value = getattr(declared, field.name)
        if field.name in spec.PORT_PARTS and declared.port == ports.WIRE:  # the Kafka adapter reads it
            assert value is None, f"{kind} is read by the Kafka adapter, not by its {field.name}"
            continue
        assert value is not None and value != () and value != "", f"{kind} lacks {field.name}"
    assert declared.payload is payloads.TYPES[kind]
    assert declared.port == ports.WIRE or declared.port in ports.PORTS
    assert declared.live_section(EMPTY_LIVE) is None  # not read
    assert declared.live_section(READ_LIVE) is not None  # read, empty
    assert isinstance(declared.desired_section(desired.DesiredState()), Mapping)
    assert declared.snapshot_section in files.to_json_dict(READ_LIVE)
    assert declared.owned_by_rules(desired.Ownership()) is False
    for p in declared.phases:
        assert p.actions and p.actions <= {plans.Action.CREATE, plans.Action.UPDATE, plans.Action.DELETE}
        assert (p.write is None) == (declared.port != "kafka"), f"{kind} {p.phase.name}: rights of its port"
        for right in (*([p.write] if p.write else []), *p.read_back):
            assert right.resource_type in ("CLUSTER", "TOPIC", "GROUP")
            assert right.operation in ("ALTER", "ALTER_CONFIGS", "CREATE", "DELETE", "DESCRIBE", "DESCRIBE_CONFIGS")


def test_every_phase_is_declared_by_exactly_one_kind() -> None:
    declared = [p.phase for d in registry.KINDS.values() for p in d.phases]
    assert sorted(declared) == sorted(plans.Phase)
    assert set(decoded.PHASE_CONTENTS) == set(plans.Phase)


@pytest.mark.parametrize("kind", list(Kind), ids=str)
def test_a_kinds_snapshot_section_holds_its_key_and_reads_back_what_it_wrote(kind: Kind) -> None:
    declared = registry.spec(kind)
    section = declared.snapshot.get()
    for live in (READ_LIVE, FULL_LIVE):
        written = json.loads(json.dumps(section.write(live)))
        assert declared.snapshot_section in written
        fields = section.read(written)
        assert fields and all(getattr(live, name) == value for name, value in fields.items()), fields
    assert section.resources(EMPTY_LIVE) == {}  # not read: nothing to compare
    assert len(section.resources(FULL_LIVE)) >= len(declared.live_section(FULL_LIVE)) > 0  # each one read is compared


@pytest.mark.parametrize("kind", list(Kind), ids=str)
def test_every_stage_table_covers_every_kind(kind: Kind) -> None:
    assert callable(registry.spec(kind).check_applied.get())
    assert callable(registry.spec(kind).plan.get())
    impact = registry.spec(kind).impact.get()
    assert isinstance(impact, spec.KindImpact) and callable(impact.needs) and callable(impact.assess)
    views.live_view(READ_LIVE, kind=kind, name="absent")  # raises ValueError for a kind it does not know
    for p in registry.spec(kind).phases:
        assert callable(p.decode.get()) and callable(p.run.get()), f"{kind} {p.phase.name}: apply's parts"
        if registry.spec(kind).port == "kafka":
            assert p.phase in access.NEEDS


def test_a_plan_needs_the_connect_port_exactly_when_it_changes_a_kind_written_through_it() -> None:
    def change(kind: Kind) -> plans.Change:
        declared = registry.spec(kind).phases[-1]
        action = min(declared.actions, key=lambda a: a.value)
        return plans.Change(address=kind.address("x"), kind=kind, name="x", action=action, phase=declared.phase)

    for kind in Kind:
        assert bool(ports.written([change(kind)], "connect")) is (kind is Kind.CONNECTOR)
    assert not ports.written([], "connect")


def test_every_declared_resource_is_named_as_its_changes_are() -> None:
    """``declared`` gives each resource's plan address and change name (the address is ``kind/name``, as a change's
    must be), for every kind the examples declare."""
    from pathlib import Path

    from reconciler import manifests

    examples = Path(__file__).resolve().parents[2] / "examples" / "platform"
    wanted = manifests.load([examples], env={"PAYMENTS_SCRAM_PASSWORD": "x"}).desired
    seen = set()
    for kind, declared in registry.KINDS.items():
        assert list(declared.declared(desired.DesiredState())) == []
        found = list(declared.declared(wanted))
        assert len(found) == len(declared.desired_section(wanted))
        for address, name, _source in found:
            assert address == kind.address(name)
            seen.add(kind)
    assert seen >= {Kind.TOPIC, Kind.ACL, Kind.QUOTA, Kind.SCRAM_USER}


def _parts(declared: object) -> list[tuple[str, spec.Part[object]]]:
    """Every ``Part`` a declaration names, its own and its phases'."""
    found = []
    for field in dataclasses.fields(declared):  # type: ignore[arg-type]
        value = getattr(declared, field.name)
        if isinstance(value, spec.Part):
            found.append((field.name, value))
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, spec.PhaseSpec):
                    found.extend((f"{item.phase.name}.{name}", part) for name, part in _parts(item))
    return found


@pytest.mark.parametrize("kind", list(Kind), ids=str)
def test_every_part_a_declaration_names_is_there(kind: Kind) -> None:
    """A part is named by a string; a misspelt module or attribute fails here, not in the first command that runs
    it."""
    found = _parts(registry.spec(kind))
    assert found, f"{kind} names no part"
    for name, part in found:
        assert callable(part.get()) or part.get() is not None, f"{kind}.{name}: {part.where}"


# The parts a declaration may name outside its kind's own place: the frameworks several kinds share, each with why.
SHARED_PARTS = {
    "reconciler.kinds.spec:one_line": "the one-line attribute render of every kind without a multi-line attribute",
    "reconciler.kinds.spec:no_usage_topics": "every kind whose changes need no usage evidence",
    "reconciler.kinds.spec:NO_IMPACT": "every kind whose changes have no impact to weigh (the default)",
    "reconciler.apply.resource_phases:run_configs": "the IncrementalAlterConfigs write every config kind runs",
    "reconciler.apply.decoded:alter_entity_configs": "the decode both config-entity kinds share",
    "reconciler.apply.verify:entity_applied": "the read-back check both config-entity kinds share",
    "reconciler.apply.verify:read_back_in_its_phase": "the REST kinds, whose phases read their own writes back",
}
# The older Kafka kinds' manifest parts stay records of the manifests package (``manifests.parts.BUILT_IN``), which
# the manifests read without the registry (docs/kinds.md).
MANIFEST_RECORDS = "reconciler.manifests.parts:"


@pytest.mark.parametrize("kind", list(Kind), ids=str)
def test_a_kinds_code_lives_in_its_own_place(kind: Kind) -> None:
    """Every part a declaration names is in the kind's own package (``reconciler.kinds.<kind>``) or one of the shared
    frameworks above: a kind whose code is left in a stage package fails here."""
    declared = registry.spec(kind)
    place = places.PLACES[kind] + "."
    elsewhere = [
        f"{name}: {part.where}"
        for name, part in _parts(declared)
        if not part.where.startswith(place)
        and part.where not in SHARED_PARTS
        and not (name == "manifest" and part.where.startswith(MANIFEST_RECORDS))
    ]
    assert not elsewhere, f"{kind}'s parts outside {place[:-1]}: {elsewhere}"


def test_every_shared_part_is_still_shared() -> None:
    """A framework part named by one kind only belongs in that kind's place."""
    users = {
        where: sum(where in (p.where for _, p in _parts(d)) for d in registry.KINDS.values()) for where in SHARED_PARTS
    }
    assert all(n >= 2 for n in users.values()), users


def test_the_planner_runs_the_one_declared_impact() -> None:
    """The kinds without an impact have the default part, which reads no evidence and finds nothing; the planner and
    ``operations.with_evidence`` run the one kind's that declares one (the topics')."""
    declaring = [k for k, d in registry.KINDS.items() if d.impact != spec.DEFAULT_IMPACT]
    assert declaring == [Kind.TOPIC]
    assert planner.impact_parts() == (registry.spec(Kind.TOPIC).impact.get(),)
    change = plans.Change(
        address=Kind.ACL.address("x"), kind=Kind.ACL, name="x", action=plans.Action.CREATE, phase=plans.Phase.ACL_CREATE
    )
    assert spec.NO_IMPACT.needs([change], desired.DesiredState(), READ_LIVE) is None
    assert spec.NO_IMPACT.assess([change], desired.DesiredState(), READ_LIVE) == ((change,), None)


def test_two_kinds_declaring_an_impact_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Combining two kinds' findings into one ``Plan.impact`` has no design yet: a second kind declaring an impact
    fails here, naming both, instead of one kind's findings replacing the other's."""
    topic = registry.spec(Kind.TOPIC)
    kinds = {**registry.KINDS, Kind.ACL: dataclasses.replace(registry.spec(Kind.ACL), impact=topic.impact)}
    monkeypatch.setattr(registry, "KINDS", kinds)
    with pytest.raises(ValueError, match="topic and acl each declare an impact"):
        planner.impact_parts()


def test_the_registry_loads_one_declaration_from_each_kinds_place() -> None:
    assert list(places.PLACES) == list(Kind)
    assert tuple(f"{place}.declaration" for place in places.PLACES.values()) == registry.MODULES
    for kind, module in zip(Kind, registry.MODULES, strict=True):
        assert importlib.import_module(module).DECLARATION is registry.spec(kind)


@pytest.mark.parametrize("kind", list(Kind), ids=str)
def test_the_manifests_find_the_manifest_part_each_declaration_names(kind: Kind) -> None:
    """The manifests find a kind's manifest part without the registry (``manifests.parts.of``): the manifests' own
    record of an older kind (``BUILT_IN``), else ``MANIFEST`` in ``<place>.documents`` (``places.manifest_where``).
    Its declaration names that same part, so the two cannot drift apart."""
    named = registry.spec(kind).manifest
    built_in = manifest_parts.BUILT_IN.get(kind.manifest)
    if built_in is None:
        assert named.where == places.manifest_where(kind)
    else:
        assert named.where.startswith(MANIFEST_RECORDS)
        assert named.get() is built_in
    assert manifest_parts.of(kind.manifest) is named.get()
    assert dict(manifest_parts.declared())[kind] is named.get()

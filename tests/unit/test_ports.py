"""The REST ports registry (``reconciler.ports``): every port a kind is written through is declared, and a command
opens a port only when its plan needs it (written through it, or, for a port read for the scope check, its scope
covering a kind of it), by name; what it opened is closed when a later port cannot be opened."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from reconciler import ports
from reconciler.base import errors
from reconciler.kinds import registry
from reconciler.kinds.spec import Part
from reconciler.model import plans
from reconciler.model.kinds import Kind
from reconciler.target import Target
from tests.golden.example import example_plan


@dataclasses.dataclass
class Opened:
    """A port as the recording opener returns it: which one, the changes it was opened to write, whether closed."""

    name: str
    writes: tuple[str, ...]
    closed: bool = False


@dataclasses.dataclass(frozen=True)
class Given:
    """A part that is already at hand (in place of a ``Part`` naming a module)."""

    value: Callable[..., Any]

    def get(self) -> Callable[..., Any]:
        return self.value


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[Opened]:
    """Every port a command opens, in order: each declared port opened and closed by recording functions."""
    seen: list[Opened] = []

    def recording(name: str) -> ports.PortSpec:
        def named_by(target: Target, *, writes: Any = (), **_kw: object) -> Opened:
            if name == "registry" and target.cluster == "refuse":
                raise errors.ConfigError("the registry's settings are wrong")
            seen.append(Opened(name, tuple(c.address for c in writes)))
            return seen[-1]

        def close(port: Opened) -> None:
            port.closed = True

        return dataclasses.replace(ports.PORTS[name], named_by=Given(named_by), close=Given(close))  # type: ignore[arg-type]

    monkeypatch.setattr(ports, "PORTS", {name: recording(name) for name in ports.PORTS})
    return seen


def plan_of(kinds: set[Kind], *, scope: set[Kind] | None = None) -> plans.Plan:
    """The example plan with only the changes of ``kinds``, and a scope covering ``scope`` (none when not given)."""
    example = example_plan()
    changes = tuple(c for c in example.changes if c.kind in kinds)
    covered = None if scope is None else {**(example.scope or {}), "kinds": sorted(k.value for k in scope)}
    return dataclasses.replace(example, changes=changes, scope=covered)


def test_every_port_a_kind_names_is_declared_and_has_a_kind() -> None:
    named = {d.port for d in registry.KINDS.values()}
    assert named - {ports.WIRE} == set(ports.PORTS)
    for name in ports.PORTS:
        assert ports.kinds_of(name), f"no kind is written through port {name}"


@pytest.mark.parametrize("name", list(ports.PORTS))
def test_every_part_a_port_names_is_there(name: str) -> None:
    """A port's parts are named by strings; a misspelt module or attribute fails here, not in the first command that
    opens the port."""
    declared = ports.PORTS[name]
    found = [(f.name, getattr(declared, f.name)) for f in dataclasses.fields(declared)]
    parts = [(field, value) for field, value in found if isinstance(value, Part)]
    assert {field for field, _ in parts} >= {"named_by", "in_profile", "close", "unreadable", "down"}
    for field, part in parts:
        assert part.get() is not None, f"{name}.{field}: {part.where}"


def test_a_plan_opens_only_the_ports_its_changes_are_written_through(opened: list[Opened]) -> None:
    assert ports.to_apply(Target(), plan_of({Kind.TOPIC, Kind.ACL})) == {}
    assert opened == []
    found = ports.to_apply(Target(), plan_of({Kind.TOPIC, Kind.CONNECTOR}))
    assert list(found) == ["connect"] and opened[0].writes and all(a.startswith("connector/") for a in opened[0].writes)
    found = ports.to_apply(Target(), plan_of({Kind.CONNECTOR, Kind.SCHEMA_SUBJECT}))
    assert list(found) == ["connect", "registry"]
    assert all(a.startswith("schema_subject/") for a in found["registry"].writes)


def test_a_scope_covering_subjects_opens_the_registry_but_a_scope_covering_connectors_not_connect(
    opened: list[Opened],
) -> None:
    """apply reads every subject in a plan's scope again (the scope check); connectors it reads only with a port
    opened for writing them."""
    found = ports.to_apply(Target(), plan_of({Kind.TOPIC}, scope={Kind.TOPIC, Kind.SCHEMA_SUBJECT, Kind.CONNECTOR}))
    assert list(found) == ["registry"] and found["registry"].writes == ()


def test_a_port_that_cannot_be_opened_closes_the_ones_opened_before(opened: list[Opened]) -> None:
    with pytest.raises(errors.ConfigError, match="the registry's settings are wrong"):
        ports.to_apply(Target(cluster="refuse"), plan_of({Kind.CONNECTOR, Kind.SCHEMA_SUBJECT}))
    assert [(o.name, o.closed) for o in opened] == [("connect", True)]


def test_a_plan_from_a_snapshot_compares_connector_secrets_as_a_live_plan_does() -> None:
    """``ports.offline`` runs each REST kind's ``read_offline``: the connectors' secret digests are resolved from the
    manifests' references (no request), so a connector whose secret is unchanged plans nothing offline."""
    from reconciler.kinds.connector import evidence
    from tests.support.kind_samples import LIVE, WANTED

    assert LIVE.connect is not None and WANTED.connectors
    bare = dataclasses.replace(LIVE, connect=dataclasses.replace(LIVE.connect, secret_digests={}))
    found = ports.offline(bare, WANTED)
    assert found.connect is not None
    assert found.connect.secret_digests == evidence.offline(bare, WANTED).connect.secret_digests  # type: ignore[union-attr]
    assert found.connect.secret_digests and found.sections == bare.sections


def test_an_apply_report_counts_the_registrys_requests_as_it_counts_connects() -> None:
    """A subject phase's report names the registry's requests per endpoint (it said 0 requests: only Kafka's and
    Kafka Connect's were counted)."""
    import json
    import time

    from reconciler import planner
    from reconciler.apply import apply_plan
    from reconciler.kinds.schema_subject import evidence
    from reconciler.kinds.schema_subject.state import DesiredSubject
    from reconciler.model import desired
    from reconciler.registry.port import RestRegistryPort
    from tests.support.apply_runs import apply_options
    from tests.support.recording import RecordingAdapter
    from tests.support.registry_fake import FakeRegistry

    fields = [{"name": "id", "type": "long"}]
    v1 = json.dumps({"type": "record", "name": "Order", "fields": fields})
    v2 = json.dumps(
        {"type": "record", "name": "Order", "fields": [*fields, {"name": "n", "type": "int", "default": 0}]}
    )
    port = RestRegistryPort(FakeRegistry())
    port.register("orders-value", v1, schema_type="AVRO", deadline=time.monotonic() + 30)
    wanted = desired.DesiredState(sections={Kind.SCHEMA_SUBJECT: {"orders-value": DesiredSubject("orders-value", v2)}})
    adapter = RecordingAdapter()
    live = evidence.read_for_plan(
        port, adapter.read_state(kinds=wanted.needs()), wanted, deadline=time.monotonic() + 30
    )
    report = apply_plan(planner.plan(wanted, live), adapter, options=apply_options(ports={"registry": port}))
    [phase] = [p for p in report.phases if p.phase is plans.Phase.SCHEMA_SUBJECT]
    assert phase.requests_by_api.get("POST /subjects/{subject}/versions") == 1
    assert phase.requests == sum(phase.requests_by_api.values()) and phase.requests >= 2  # the write and its read-back


def test_a_port_named_but_not_opened_is_counted_as_nothing_and_not_closed() -> None:
    """An apply given ``ports={"connect": None}`` (the command opened no Connect cluster: its plan writes no
    connector) counts and closes only what it opened. Regression: counting the requests sent raised AttributeError
    on the ``None`` before the first phase, so such an apply of topics and ACLs failed."""
    from reconciler import planner
    from reconciler.apply import apply_plan
    from reconciler.model import desired
    from tests.support.apply_runs import apply_options
    from tests.support.recording import RecordingAdapter

    assert ports.sent({"connect": None, "registry": None}) == (0, {})
    ports.close({"connect": None, "registry": None})  # nothing to close
    wanted = desired.DesiredState(
        topics={"orders": desired.DesiredTopic(name="orders", partitions=1, replication_factor=1)}
    )
    adapter = RecordingAdapter()
    p = planner.plan(wanted, adapter.read_state(kinds=wanted.needs()))
    report = apply_plan(p, adapter, options=apply_options(ports={"connect": None}))
    assert report.ok and [i.address for i in report.items] == ["topic/orders"] and report.converged

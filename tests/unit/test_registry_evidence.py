"""The plan's live read of the Schema Registry (``reconciler.ports.with_live`` running the subjects' part,
``reconciler.kinds.schema_subject.evidence``): nothing is opened or asked when no subject is declared or owned,
whatever registry the command names; declared subjects are read with the registry's own check of their new
versions."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from reconciler import ports
from reconciler.kinds.schema_subject import dryrun
from reconciler.kinds.schema_subject import state as subject_state
from reconciler.kinds.schema_subject.state import DesiredSubject
from reconciler.model import desired, plans, state
from reconciler.registry import port as registry_port
from reconciler.registry_access import opening, settings
from reconciler.target import Target
from tests.support.kind_samples import LIVE, WANTED
from tests.support.registry_fake import FakeRegistry

V1 = {"type": "record", "name": "Order", "fields": [{"name": "id", "type": "string"}]}


def test_no_subject_declared_or_owned_opens_no_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(settings.REGISTRY_URL_ENV, "http://registry.invalid:8081")
    monkeypatch.delenv("KAFKA_CONNECT_URL", raising=False)

    def refuse(*_a: object, **_k: object) -> registry_port.RegistryPort:
        raise AssertionError("the registry was opened")

    monkeypatch.setattr(settings, "open_registry", refuse)
    live = subject_state.with_live_subjects(LIVE, None)
    wanted = subject_state.with_declared_subjects(WANTED, {})
    assert ports.with_live(live, wanted, Target()) is live


def test_declared_subjects_are_read_with_the_registrys_check(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeRegistry()  # Confluent's answers, on the port's own request builders
    port = registry_port.RestRegistryPort(fake)
    subject = "orders-value"
    port.register(subject, json.dumps(V1), schema_type="AVRO", deadline=1e12)
    monkeypatch.setattr(opening, "named_by", lambda target, **_kw: port)
    v2 = {**V1, "fields": [*V1["fields"], {"name": "note", "type": "string"}]}  # no default: BACKWARD refuses it
    wanted = subject_state.with_declared_subjects(
        desired.DesiredState(), {subject: DesiredSubject(subject, json.dumps(v2))}
    )
    live = ports.with_live(subject_state.with_live_subjects(LIVE, None), wanted, Target())
    found = subject_state.live_subjects(live)
    assert found is not None and found.subjects[subject].latest is not None
    assert isinstance(found.evidence, dryrun.Evidence) and found.evidence.answers[subject][0].compatible is False
    assert any(r.path.startswith("/compatibility/subjects/orders-value") for r in fake.requests)
    assert isinstance(live, state.ClusterState)


def test_a_version_let_in_by_a_level_change_names_the_groups_of_the_topics_it_serves() -> None:
    """The plan reads the usage of the topics a subject serves when it registers a new version together with a
    change of level: the impact of a version the held level refuses names who reads those topics."""
    from reconciler import operations
    from reconciler.registry.port import Compatibility
    from tests.support.kind_samples import ORDER_V2
    from tests.support.recording import RecordingAdapter

    held = subject_state.live_subjects(LIVE)
    assert held is not None
    refused = dryrun.Evidence(
        answers={"orders-value": (Compatibility(False, 1, ("READER_FIELD_MISSING_DEFAULT_VALUE",)),)}
    )
    live = subject_state.with_live_subjects(LIVE, dataclasses.replace(held, evidence=refused))
    subject = DesiredSubject(
        "orders-value", ORDER_V2, compatibility="NONE", topics=("audit",)
    )  # a topic the plan does not touch
    wanted = subject_state.with_declared_subjects(WANTED, {"orders-value": subject})
    adapter = RecordingAdapter(cluster_id=live.cluster_id or "c-1")

    def impact_of(p: plans.Plan) -> list[str]:
        [change] = [c for c in p.changes if c.address == "schema_subject/orders-value"]
        return [w for w in change.warnings if w.startswith("impact:")]

    without = impact_of(operations.make_plan(wanted, live))
    assert without and "topic audit (its consumer groups were not read)" in without[0]
    with_usage = impact_of(operations.make_plan(wanted, live, adapter=adapter))
    assert with_usage and "topic audit (no consumer group has committed offsets on it)" in with_usage[0]
    assert [c for c in adapter.calls if c[0] == "read_topic_usage" and "audit" in c[1]]


def test_fleet_apply_opens_the_profiles_registry_for_subject_changes_and_refuses_without_one(tmp_path: Path) -> None:
    from reconciler import manifests
    from reconciler.base import errors
    from reconciler.fleet import applying, spec
    from tests.golden.example import example_plan

    def loaded(registry: str) -> manifests.LoadResult:
        folder = tmp_path / ("with" if registry else "without")
        folder.mkdir(exist_ok=True)
        (folder / "cluster.yaml").write_text(
            "apiVersion: kafka-reconciler/v1\nkind: Cluster\nmetadata: {name: eu}\n"
            f"spec:\n  bootstrapServers: ['127.0.0.1:9092']\n{registry}"
        )
        return manifests.load([folder])

    example = example_plan()  # registers a new version of payments.orders-value (and changes connectors)
    planned = dataclasses.replace(example, changes=tuple(c for c in example.changes if c.kind.value != "connector"))
    cluster = spec.ClusterSpec(name="eu", manifests=(tmp_path,), profile="eu")
    opened = applying.ports_of(cluster, loaded("  schemaRegistry: {url: 'http://127.0.0.1:1'}\n"), planned)
    assert list(opened) == ["registry"]
    ports.close(opened)
    with pytest.raises(errors.ConfigError, match="cluster eu: the plan changes Schema Registry subjects, but its"):
        applying.ports_of(cluster, loaded(""), planned)
    others = dataclasses.replace(
        planned, changes=tuple(c for c in planned.changes if c.kind.value != "schema_subject"), scope=None
    )
    assert applying.ports_of(cluster, loaded(""), others) == {}


def test_a_registry_down_at_fleet_apply_is_unreachable_and_a_refusal_by_the_registry_is_refused() -> None:
    """As for Kafka Connect: a fleet cluster whose plan writes subjects through a registry that does not answer is
    ``unreachable`` (it was ``refused``, as if the registry had said no); one the registry refused stays ``refused``."""
    import time

    from reconciler.fleet import apply_results, applying
    from reconciler.registry_access.http import HttpTransport

    port = registry_port.RestRegistryPort(HttpTransport(["http://127.0.0.1:1"], request_timeout_s=2.0))
    with pytest.raises(registry_port.RegistryError) as caught:
        port.subjects(deadline=time.monotonic() + 5)
    assert applying._refusal(caught.value) == apply_results.UNREACHABLE
    fake = FakeRegistry()
    refused = registry_port.RestRegistryPort(fake)
    with pytest.raises(registry_port.RegistryError) as said:
        refused.delete("absent-value", deadline=time.monotonic() + 5)
    assert said.value.status == 404 and applying._refusal(said.value) == apply_results.REFUSED

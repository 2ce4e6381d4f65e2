"""The Schema Registry port against a real registry: Apicurio Registry 2.4.2.Final (its Confluent-compatible API),
built and started by the harness. What each test asserts is what that server answers; where it differs from
Confluent (docs/schema-registry.md) the test says so, and the unit tests cover Confluent's documented answers."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from reconciler.base.secret import Secret
from reconciler.kinds.schema_subject import diff, dryrun, views
from reconciler.model import plans
from reconciler.registry.canonical import same_schema
from reconciler.registry.port import RegistryError, RegistryPort, RestRegistryPort
from reconciler.registry.requests import Reference
from reconciler.registry_access.http import HttpTransport
from tests.kafka.registry import SchemaRegistryServer

ORDER_V1 = {"type": "record", "name": "Order", "namespace": "shop", "fields": [{"name": "id", "type": "long"}]}
ORDER_COMPATIBLE = {**ORDER_V1, "fields": [*ORDER_V1["fields"], {"name": "note", "type": "string", "default": ""}]}
ORDER_INCOMPATIBLE = {**ORDER_V1, "fields": [*ORDER_V1["fields"], {"name": "amount", "type": "double"}]}


def later() -> float:
    return time.monotonic() + 30


@pytest.fixture
def port(schema_registry: SchemaRegistryServer) -> Iterator[RegistryPort]:
    transport = HttpTransport([schema_registry.api_url])
    try:
        yield RestRegistryPort(transport)
    finally:
        transport.close()


def test_register_the_same_schema_again_and_read_the_latest(port: RegistryPort, topic_prefix: str) -> None:
    subject = f"{topic_prefix}orders-value"
    first = port.register(subject, json.dumps(ORDER_V1), schema_type="AVRO", deadline=later())
    again = port.register(subject, json.dumps(ORDER_V1), schema_type="AVRO", deadline=later())
    assert again == first
    assert port.versions(subject, deadline=later()) == (1,)
    second = port.register(subject, json.dumps(ORDER_COMPATIBLE), schema_type="AVRO", deadline=later())
    latest = port.latest(subject, deadline=later())
    assert latest is not None
    assert (latest.version, latest.id, latest.schema_type) == (2, second, "AVRO")
    assert latest.schema == json.dumps(ORDER_COMPATIBLE)  # Apicurio keeps the text as sent
    assert subject in port.subjects(deadline=later())
    read = port.read_subjects([subject, f"{topic_prefix}absent"], deadline=later())
    assert read[subject].latest == latest and read[f"{topic_prefix}absent"].latest is None


def test_a_reformatted_schema_is_a_new_version_here(port: RegistryPort, topic_prefix: str) -> None:
    # Apicurio compares the text as sent (Confluent compares the parsed schema and answers the same id): the tool
    # must compare canonically (reconciler.registry.canonical) and not register a schema it already holds.
    subject = f"{topic_prefix}spaced-value"
    first = port.register(subject, json.dumps(ORDER_V1), schema_type="AVRO", deadline=later())
    spaced = port.register(subject, json.dumps(ORDER_V1, indent=2), schema_type="AVRO", deadline=later())
    assert spaced != first
    assert port.versions(subject, deadline=later()) == (1, 2)
    latest = port.latest(subject, deadline=later())
    assert latest is not None and same_schema(latest.schema, json.dumps(ORDER_V1), "AVRO")


def test_an_incompatible_change_under_backward(port: RegistryPort, topic_prefix: str) -> None:
    subject = f"{topic_prefix}orders-value"
    port.register(subject, json.dumps(ORDER_V1), schema_type="AVRO", deadline=later())
    port.set_compatibility("BACKWARD", subject, deadline=later())
    assert port.compatibility(subject, deadline=later()) == "BACKWARD"
    verdict = port.check(subject, json.dumps(ORDER_INCOMPATIBLE), schema_type="AVRO", deadline=later())
    assert not verdict.compatible
    assert port.check(subject, json.dumps(ORDER_COMPATIBLE), schema_type="AVRO", deadline=later()).compatible
    every = port.check_all(subject, json.dumps(ORDER_INCOMPATIBLE), schema_type="AVRO", deadline=later())
    assert [(c.version, c.compatible) for c in every] == [(1, False)]
    with pytest.raises(RegistryError) as refused:
        port.register(subject, json.dumps(ORDER_INCOMPATIBLE), schema_type="AVRO", deadline=later())
    assert refused.value.status == 409  # Apicurio's body says error_code 0 (Confluent: 409)
    assert port.versions(subject, deadline=later()) == (1,)


def test_an_incompatible_json_schema_change_is_refused(port: RegistryPort, topic_prefix: str) -> None:
    subject = f"{topic_prefix}events-value"
    closed = {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False}
    port.register(subject, json.dumps(closed), schema_type="JSON", deadline=later())
    port.set_compatibility("BACKWARD", subject, deadline=later())
    narrowed = {**closed, "properties": {"a": {"type": "integer"}}}
    assert not port.check(subject, json.dumps(narrowed), schema_type="JSON", deadline=later()).compatible
    latest = port.latest(subject, deadline=later())
    assert latest is not None and latest.schema_type == "JSON"


def test_levels_on_this_server(port: RegistryPort, topic_prefix: str) -> None:
    subject = f"{topic_prefix}levels-value"
    port.register(subject, json.dumps(ORDER_V1), schema_type="AVRO", deadline=later())
    global_level = port.compatibility(deadline=later())
    assert global_level == "NONE"  # Apicurio's default (Confluent: BACKWARD)
    assert port.compatibility(subject, deadline=later()) == global_level  # Apicurio falls back (Confluent: 40408)
    port.set_compatibility("FULL_TRANSITIVE", subject, deadline=later())
    assert port.compatibility(subject, deadline=later()) == "FULL_TRANSITIVE"
    assert port.compatibility(deadline=later()) == global_level


def test_a_subject_without_a_level_reads_none_whatever_the_global_level_here(
    port: RegistryPort, topic_prefix: str
) -> None:
    """Apicurio answers ``GET /config/{subject}`` for a subject with no level of its own with NONE, its own default,
    not the global level, yet checks and registers under the global level: with the global level at BACKWARD the
    subject reads NONE and an incompatible schema is still refused (Confluent: 40408, and the global level applies).
    "Unset" reads as the global level only while that is NONE; the kind's dry run asks all the same."""
    subject = f"{topic_prefix}global-value"
    incompatible = json.dumps(ORDER_INCOMPATIBLE)
    port.register(subject, json.dumps(ORDER_V1), schema_type="AVRO", deadline=later())
    port.set_compatibility("BACKWARD", deadline=later())
    try:
        assert port.compatibility(deadline=later()) == "BACKWARD"
        assert port.compatibility(subject, deadline=later()) == "NONE"
        assert not port.check(subject, incompatible, schema_type="AVRO", deadline=later()).compatible
        # the kind's dry run asks all the same and blocks it, as the registry will refuse it
        wanted = {subject: views.DesiredSubject(subject, incompatible)}
        live = views.read(port, wanted, deadline=later())
        changes, _ = dryrun.dry_run(diff.diff(wanted, live), live, registry=port, deadline=later())
        assert [(c.action, c.reasons[0]) for c in changes] == [
            (
                plans.Action.BLOCKED,
                "the registry finds the new schema incompatible under BACKWARD (checked against version latest); "
                "it gave no message",
            )
        ]
        with pytest.raises(RegistryError) as refused:
            port.register(subject, incompatible, schema_type="AVRO", deadline=later())
        assert refused.value.status == 409
    finally:
        port.set_compatibility("NONE", deadline=later())  # the session's registry, as the other tests expect it


def test_mode_is_not_supported_here(port: RegistryPort) -> None:
    features = port.features(deadline=later())
    assert not features.mode  # Apicurio 2.4: /mode answers 404 "Operation not supported"
    assert {"AVRO", "JSON", "PROTOBUF"} <= set(features.schema_types)
    assert port.mode(deadline=later()) is None


def test_soft_then_permanent_delete(port: RegistryPort, topic_prefix: str) -> None:
    subject = f"{topic_prefix}gone-value"
    port.register(subject, json.dumps(ORDER_V1), schema_type="AVRO", deadline=later())
    assert port.delete(subject, deadline=later()) == (1,)
    assert subject not in port.subjects(deadline=later())
    assert subject in port.subjects(deadline=later(), deleted=True)
    assert port.delete(subject, permanent=True, deadline=later()) == (1,)
    assert subject not in port.subjects(deadline=later(), deleted=True)
    assert port.latest(subject, deadline=later()) is None


def test_a_soft_deleted_subject_still_lists_its_versions_here(port: RegistryPort, topic_prefix: str) -> None:
    subject = f"{topic_prefix}listed-value"
    port.register(subject, json.dumps(ORDER_V1), schema_type="AVRO", deadline=later())
    port.delete(subject, deadline=later())
    assert port.latest(subject, deadline=later()) is None
    assert port.versions(subject, deadline=later()) == (1,)  # Apicurio (Confluent: 40401, no versions)


def test_references_and_a_referenced_subject_deleted_here(port: RegistryPort, topic_prefix: str) -> None:
    common, box = f"{topic_prefix}common", f"{topic_prefix}box-value"
    port.register(common, json.dumps(ORDER_V1), schema_type="AVRO", deadline=later())
    user = {"type": "record", "name": "Box", "fields": [{"name": "o", "type": "shop.Order"}]}
    refs = [Reference("shop.Order", common, 1)]
    box_id = port.register(box, json.dumps(user), schema_type="AVRO", references=refs, deadline=later())
    latest = port.latest(box, deadline=later())
    assert latest is not None and latest.references == tuple(refs)
    assert port.referenced_by(common, 1, deadline=later()) == (box_id,)
    assert port.delete(common, deadline=later()) == (1,)  # Apicurio allows it (Confluent: 42206): ask first


def test_permanent_delete_without_a_soft_delete_first(port: RegistryPort, topic_prefix: str) -> None:
    subject = f"{topic_prefix}hard-value"
    port.register(subject, json.dumps(ORDER_V1), schema_type="AVRO", deadline=later())
    assert port.delete(subject, permanent=True, deadline=later()) == (1,)  # Apicurio allows it (Confluent: 40405)
    assert subject not in port.subjects(deadline=later(), deleted=True)


def test_credentials_never_appear_in_errors_or_counts(schema_registry: SchemaRegistryServer, topic_prefix: str) -> None:
    password = "s3cret-Registry-pw"
    transport = HttpTransport([schema_registry.api_url], username="svc-registry", password=Secret(password))
    port = RestRegistryPort(transport)
    try:
        with pytest.raises(RegistryError) as refused:
            port.register(f"{topic_prefix}bad", "{not json", schema_type="AVRO", deadline=later())
        assert refused.value.status == 422
        shown = " ".join([str(refused.value), repr(refused.value), repr(transport), json.dumps(transport.counts())])
        assert password not in shown and "svc-registry" not in shown
        assert transport.counts() == {"POST /subjects/{subject}/versions": 1}
    finally:
        transport.close()
    unreachable = HttpTransport(["http://127.0.0.1:9"], username="svc-registry", password=Secret(password))
    with pytest.raises(RegistryError) as lost:
        RestRegistryPort(unreachable).latest("x", deadline=later())
    assert "the Schema Registry could not be reached" in str(lost.value) and password not in str(lost.value)


def test_a_second_soft_delete_and_a_delete_of_no_subject_here(port: RegistryPort, topic_prefix: str) -> None:
    """Apicurio answers a second soft delete with 400 and no registry code (Confluent: 40404); a delete of a subject
    never registered is 40401 on both, soft or permanent. A kind must read the subject list, not parse this error."""
    subject = f"{topic_prefix}twice-value"
    port.register(subject, json.dumps(ORDER_V1), schema_type="AVRO", deadline=later())
    assert port.delete(subject, deadline=later()) == (1,)
    with pytest.raises(RegistryError) as again:
        port.delete(subject, deadline=later())
    assert (again.value.status, again.value.error_code) == (400, 0)
    for permanent in (False, True):
        with pytest.raises(RegistryError) as missing:
            port.delete(f"{topic_prefix}nobody-value", permanent=permanent, deadline=later())
        assert (missing.value.status, missing.value.error_code) == (404, 40401)

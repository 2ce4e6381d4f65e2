"""The Schema Registry port against the in-memory fake answering as Confluent documents: reads, register (the same
schema again is the same id), checks against the latest and every version, levels, modes, soft and permanent
deletes, bounded concurrent reads, deadlines, and error texts."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from reconciler.base import errors
from reconciler.registry import requests as rq
from reconciler.registry.port import RegistryError, RegistryPort, RestRegistryPort
from reconciler.registry.requests import Reference
from reconciler.registry_access.http import HttpTransport
from tests.support.registry_fake import FakeRegistry, InflightCounting

V1 = json.dumps({"type": "record", "name": "Order", "namespace": "shop", "fields": [{"name": "id", "type": "long"}]})
V2_COMPATIBLE = json.dumps(
    {
        "type": "record",
        "name": "Order",
        "namespace": "shop",
        "fields": [{"name": "id", "type": "long"}, {"name": "note", "type": "string", "default": ""}],
    }
)
V2_INCOMPATIBLE = json.dumps(
    {
        "type": "record",
        "name": "Order",
        "namespace": "shop",
        "fields": [{"name": "id", "type": "long"}, {"name": "amount", "type": "double"}],
    }
)


def later() -> float:
    return time.monotonic() + 30


@pytest.fixture
def fake() -> FakeRegistry:
    return FakeRegistry()


@pytest.fixture
def port(fake: FakeRegistry) -> RegistryPort:
    return RestRegistryPort(fake)


def test_register_and_read_back_the_latest_version(port: RegistryPort) -> None:
    first = port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    assert port.register("orders-value", V1, schema_type="AVRO", deadline=later()) == first  # the same id
    assert port.versions("orders-value", deadline=later()) == (1,)
    second = port.register("orders-value", V2_COMPATIBLE, schema_type="AVRO", deadline=later())
    assert second != first
    latest = port.latest("orders-value", deadline=later())
    assert latest is not None
    assert (latest.subject, latest.version, latest.id, latest.schema_type) == ("orders-value", 2, second, "AVRO")
    assert json.loads(latest.schema) == json.loads(V2_COMPATIBLE)
    assert port.subjects(deadline=later()) == ("orders-value",)


def test_a_missing_subject_reads_as_none_not_an_error(port: RegistryPort) -> None:
    assert port.latest("nobody", deadline=later()) is None
    assert port.versions("nobody", deadline=later()) == ()


def test_the_same_schema_under_another_subject_has_the_same_id(port: RegistryPort) -> None:
    a = port.register("a-value", V1, schema_type="AVRO", deadline=later())
    assert port.register("b-value", V1, schema_type="AVRO", deadline=later()) == a


def test_an_incompatible_register_is_refused_with_409_and_the_registry_message(port: RegistryPort) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    with pytest.raises(RegistryError) as caught:
        port.register("orders-value", V2_INCOMPATIBLE, schema_type="AVRO", deadline=later())
    assert (caught.value.status, caught.value.error_code) == (409, 409)
    assert "POST /subjects/orders-value/versions: HTTP 409 (error 409): Schema being registered is incompatible" in (
        str(caught.value)
    )
    assert port.versions("orders-value", deadline=later()) == (1,)


def test_check_against_latest_and_every_version(port: RegistryPort) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    verdict = port.check("orders-value", V2_INCOMPATIBLE, schema_type="AVRO", deadline=later())
    assert not verdict.compatible
    assert verdict.messages and "amount" in verdict.messages[0]
    assert port.check("orders-value", V2_COMPATIBLE, schema_type="AVRO", deadline=later()).compatible
    port.register("orders-value", V2_COMPATIBLE, schema_type="AVRO", deadline=later())
    every = port.check_all("orders-value", V1, schema_type="AVRO", deadline=later())
    assert [c.version for c in every] == [1, 2]
    assert [c.compatible for c in every] == [True, True]  # BACKWARD: V1 reads V2's data (note has a default)
    port.set_compatibility("FORWARD", "orders-value", deadline=later())
    every = port.check_all("orders-value", V1, schema_type="AVRO", deadline=later())
    assert [c.compatible for c in every] == [True, True]
    port.set_compatibility("NONE", "orders-value", deadline=later())
    assert port.check("orders-value", V2_INCOMPATIBLE, schema_type="AVRO", deadline=later()).compatible


def test_levels_per_subject_and_global(port: RegistryPort, fake: FakeRegistry) -> None:
    assert port.compatibility(deadline=later()) == "BACKWARD"  # Confluent's global default
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    assert port.compatibility("orders-value", deadline=later()) is None  # 40408: none set on the subject
    port.set_compatibility("FULL_TRANSITIVE", "orders-value", deadline=later())
    assert port.compatibility("orders-value", deadline=later()) == "FULL_TRANSITIVE"
    port.set_compatibility("NONE", deadline=later())
    assert (port.compatibility(deadline=later()), fake.levels) == ("NONE", {"orders-value": "FULL_TRANSITIVE"})


def test_mode_is_detected_and_read(port: RegistryPort, fake: FakeRegistry) -> None:
    features = port.features(deadline=later())
    assert features.mode and set(features.schema_types) == {"AVRO", "JSON", "PROTOBUF"}
    assert port.mode(deadline=later()) == "READWRITE"
    assert port.mode("orders-value", deadline=later()) is None  # 40409: none set on the subject
    port.set_mode("READONLY", "orders-value", deadline=later())
    assert port.mode("orders-value", deadline=later()) == "READONLY"
    with pytest.raises(RegistryError) as caught:
        port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    assert caught.value.error_code == 42205


class _NoMode(FakeRegistry):
    """Answers ``/mode`` as Apicurio Registry 2.4 does."""

    def exchange(self, request: rq.Request, *, deadline: float) -> tuple[int, Any]:
        if request.endpoint.startswith(("GET /mode", "PUT /mode")):
            return 404, {"error_code": 404, "message": "Operation not supported"}
        return super().exchange(request, deadline=deadline)


def test_a_server_without_mode_is_detected() -> None:
    port = RestRegistryPort(_NoMode())
    assert not port.features(deadline=later()).mode
    assert port.mode(deadline=later()) is None


def test_soft_delete_hides_then_permanent_delete_removes(port: RegistryPort) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    with pytest.raises(RegistryError) as first:
        port.delete("orders-value", permanent=True, deadline=later())
    assert first.value.error_code == 40405  # Confluent: a soft delete first
    assert port.delete("orders-value", deadline=later()) == (1,)
    assert port.subjects(deadline=later()) == ()
    assert port.subjects(deadline=later(), deleted=True) == ("orders-value",)
    assert port.latest("orders-value", deadline=later()) is None
    assert port.delete("orders-value", permanent=True, deadline=later()) == (1,)
    assert port.subjects(deadline=later(), deleted=True) == ()


def test_a_referenced_subject_cannot_be_deleted(port: RegistryPort) -> None:
    port.register("common", V1, schema_type="AVRO", deadline=later())
    user = json.dumps({"type": "record", "name": "Box", "fields": [{"name": "o", "type": "shop.Order"}]})
    refs = [Reference("shop.Order", "common", 1)]
    port.register("box-value", user, schema_type="AVRO", references=refs, deadline=later())
    latest = port.latest("box-value", deadline=later())
    assert latest is not None and latest.references == (Reference("shop.Order", "common", 1),)
    box = port.latest("box-value", deadline=later())
    assert box is not None and port.referenced_by("common", 1, deadline=later()) == (box.id,)
    assert port.referenced_by("box-value", 1, deadline=later()) == ()
    assert port.referenced_by("nobody", 1, deadline=later()) == ()
    with pytest.raises(RegistryError) as caught:
        port.delete("common", deadline=later())
    assert caught.value.error_code == 42206


def test_the_subjects_holding_a_schema_id(port: RegistryPort) -> None:
    first = port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    assert port.register("orders-copy", V1, schema_type="AVRO", deadline=later()) == first  # one schema, two subjects
    assert port.holders(first, deadline=later()) == (("orders-copy", 1), ("orders-value", 1))
    assert port.holders(first + 100, deadline=later()) == ()  # 40403: no such schema


def test_read_subjects_takes_two_requests_a_subject(port: RegistryPort, fake: FakeRegistry) -> None:
    for n in range(20):
        port.register(f"s{n:02}-value", V1, schema_type="AVRO", deadline=later())
    port.set_compatibility("FULL", "s03-value", deadline=later())
    before = len(fake.requests)
    read = port.read_subjects([f"s{n:02}-value" for n in range(20)] + ["absent"], deadline=later())
    assert len(fake.requests) - before == 2 * 21
    assert read["s03-value"].compatibility == "FULL" and read["s04-value"].compatibility is None
    assert read["absent"].latest is None
    assert read["s07-value"].latest is not None and read["s07-value"].latest.version == 1
    assert port.read_subjects([], deadline=later()) == {}


def test_read_subjects_runs_concurrently_within_its_bound() -> None:
    fake = InflightCounting()
    fake.all_in.set()
    port = RestRegistryPort(fake)
    for n in range(12):
        port.register(f"s{n}", V1, schema_type="AVRO", deadline=later())
    fake.all_in.clear()
    fake.most = 0
    port.read_subjects([f"s{n}" for n in range(12)], deadline=later(), concurrency=3)
    assert fake.most == 3


def test_no_request_goes_out_after_the_deadline(port: RegistryPort, fake: FakeRegistry) -> None:
    with pytest.raises(RegistryError, match="deadline"):
        port.latest("orders-value", deadline=time.monotonic() - 1)
    assert fake.requests == []


def test_errors_name_the_decoded_subject_and_the_registry_message(port: RegistryPort) -> None:
    with pytest.raises(RegistryError) as caught:
        port.register("team/orders", "{not json", schema_type="AVRO", deadline=later())
    assert str(caught.value).startswith("POST /subjects/team/orders/versions: HTTP 422 (error 42201): Invalid schema")
    assert caught.value.status == 422


def test_a_registry_address_error_names_the_registry_not_kafka_connect() -> None:
    """The HTTP layer is Kafka Connect's; an error of the registry's transport names the registry (said by the
    client itself, not reworded afterwards)."""
    with pytest.raises(errors.ConfigError, match=r"^the Schema Registry's REST URL 'ftp://x' is not http"):
        HttpTransport(["ftp://x"])
    with pytest.raises(errors.ConfigError, match=r"^the Schema Registry has no REST URL$"):
        HttpTransport([])


# ------------------------------------------------------------------ Confluent's documented answers, at the HTTP level
def test_a_second_soft_delete_and_a_delete_of_no_subject_are_refused_with_their_codes(port: RegistryPort) -> None:
    """Confluent: a soft delete of a soft-deleted subject is 40404 (a permanent one is then what is left to do), a
    delete of a subject never registered 40401, soft or permanent; the port raises both, codes kept."""
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    assert port.delete("orders-value", deadline=later()) == (1,)
    assert port.versions("orders-value", deadline=later()) == ()  # 40401 once soft-deleted (Apicurio lists them)
    with pytest.raises(RegistryError) as again:
        port.delete("orders-value", deadline=later())
    assert (again.value.status, again.value.error_code) == (404, 40404)
    assert "was soft deleted" in str(again.value)
    for permanent in (False, True):
        with pytest.raises(RegistryError) as missing:
            port.delete("nobody-value", permanent=permanent, deadline=later())
        assert (missing.value.status, missing.value.error_code) == (404, 40401)


def test_the_global_mode_applies_where_a_subject_sets_none(port: RegistryPort) -> None:
    """Confluent: a subject without a mode of its own follows the global mode; its own mode wins over it."""
    port.set_mode("READONLY", deadline=later())
    with pytest.raises(RegistryError) as refused:
        port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    assert (refused.value.status, refused.value.error_code) == (422, 42205)
    port.set_mode("READWRITE", "orders-value", deadline=later())
    assert port.register("orders-value", V1, schema_type="AVRO", deadline=later()) == 1
    assert (port.mode(deadline=later()), port.mode("orders-value", deadline=later())) == ("READONLY", "READWRITE")


def test_import_mode_is_refused_where_a_schema_was_ever_registered(port: RegistryPort) -> None:
    """Confluent: IMPORT only on a subject (or, globally, a registry) that never held a schema, soft-deleted ones
    included, unless ``force=true`` (which the port never sends): 42205."""
    port.set_mode("IMPORT", "fresh-value", deadline=later())
    assert port.mode("fresh-value", deadline=later()) == "IMPORT"
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    port.delete("orders-value", deadline=later())
    for subject in ("orders-value", None):
        with pytest.raises(RegistryError) as refused:
            port.set_mode("IMPORT", subject, deadline=later())
        assert (refused.value.status, refused.value.error_code) == (422, 42205)
        assert "Cannot import since found existing subjects" in str(refused.value)
    assert port.mode(deadline=later()) == "READWRITE"


class _Busy(FakeRegistry):
    """Answers the first ``busy`` requests 429, as a rate-limited registry (Confluent Cloud) does, then as the fake."""

    def __init__(self, busy: int, status: int = 429) -> None:
        super().__init__()
        self.busy = busy
        self.status = status
        self.refused = 0

    def exchange(self, request: rq.Request, *, deadline: float) -> tuple[int, Any]:
        if self.refused < self.busy:
            self.refused += 1
            return self.status, {"error_code": self.status, "message": "Too Many Requests"}
        return super().exchange(request, deadline=deadline)


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_an_answer_to_come_back_later_is_sent_again_after_a_back_off(status: int) -> None:
    fake = _Busy(2, status)
    port = RestRegistryPort(fake)
    assert port.register("orders-value", V1, schema_type="AVRO", deadline=later()) == 1
    assert (fake.refused, port.request_count, [r.endpoint for r in fake.requests]) == (
        2,
        3,
        ["POST /subjects/{subject}/versions"],  # carried out once
    )


def test_a_rate_limit_that_lasts_past_the_deadline_is_an_error_before_it() -> None:
    fake = _Busy(1_000)
    port = RestRegistryPort(fake)
    deadline = time.monotonic() + 1.5  # tries at 0, 0.1, 0.35 and 0.85 s; then 1 s more would pass the deadline
    with pytest.raises(RegistryError) as limited:
        port.latest("orders-value", deadline=deadline)
    assert time.monotonic() < deadline
    assert (limited.value.status, str(limited.value)) == (
        429,
        "GET /subjects/orders-value/versions/latest: HTTP 429 (error 429): Too Many Requests",
    )
    assert 2 <= fake.refused <= 4  # fewer under heavy load, never a try once too little time is left


def test_an_incompatible_register_is_final_not_sent_again(port: RegistryPort, fake: FakeRegistry) -> None:
    port.register("orders-value", V1, schema_type="AVRO", deadline=later())
    sent = len(fake.requests)
    with pytest.raises(RegistryError) as refused:
        port.register("orders-value", V2_INCOMPATIBLE, schema_type="AVRO", deadline=later())
    assert refused.value.status == 409 and len(fake.requests) == sent + 1

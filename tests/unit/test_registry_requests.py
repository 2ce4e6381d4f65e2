"""The Schema Registry request builders: the paths, bodies and query strings the Confluent API documents, subject
names encoded as one path segment, and the endpoint names the counts use (no subject names in them)."""

from __future__ import annotations

import pytest

from reconciler.registry import requests as rq
from reconciler.registry.requests import Reference


def test_reads_use_the_documented_paths() -> None:
    assert rq.list_subjects() == rq.Request("GET", "/subjects")
    assert rq.list_subjects(deleted=True).path == "/subjects?deleted=true"
    assert rq.list_versions("orders-value").path == "/subjects/orders-value/versions"
    assert rq.get_version("orders-value").path == "/subjects/orders-value/versions/latest"
    assert rq.get_version("orders-value", 3).path == "/subjects/orders-value/versions/3"
    assert rq.get_config().path == "/config"
    assert rq.get_config("orders-value").path == "/config/orders-value"
    assert rq.get_config("o", default_to_global=True).path == "/config/o?defaultToGlobal=true"
    assert rq.get_mode().path == "/mode"
    assert rq.get_mode("o").path == "/mode/o"
    assert rq.referenced_by("o", 2).path == "/subjects/o/versions/2/referencedby"


def test_a_subject_name_is_one_encoded_path_segment() -> None:
    request = rq.get_version("team/orders value?x#1%", 1)
    assert request.path == "/subjects/team%2Forders%20value%3Fx%231%25/versions/1"
    template, names, query = rq.route(request.path)
    assert (template, names, query) == (
        "/subjects/{subject}/versions/{version}",
        {"subject": "team/orders value?x#1%", "version": "1"},
        {},
    )


def test_a_version_is_a_number_or_latest() -> None:
    with pytest.raises(ValueError, match="'first'"):
        rq.get_version("o", "first")


def test_register_leaves_schema_type_out_for_avro_and_carries_references() -> None:
    avro = rq.register("o", '{"type":"string"}', schema_type="AVRO")
    assert (avro.method, avro.path, avro.body) == ("POST", "/subjects/o/versions", {"schema": '{"type":"string"}'})
    ref = Reference("common.proto", "common", 2)
    proto = rq.register("o", "syntax = 'proto3';", schema_type="PROTOBUF", references=[ref])
    assert proto.body == {
        "schema": "syntax = 'proto3';",
        "schemaType": "PROTOBUF",
        "references": [{"name": "common.proto", "subject": "common", "version": 2}],
    }
    with pytest.raises(ValueError, match="XML"):
        rq.register("o", "<a/>", schema_type="XML")


def test_a_compatibility_check_asks_for_the_registry_messages() -> None:
    latest = rq.check_compatibility("o", "{}", schema_type="JSON")
    assert latest.path == "/compatibility/subjects/o/versions/latest?verbose=true"
    assert latest.body == {"schema": "{}", "schemaType": "JSON"}
    assert rq.check_compatibility("o", "{}", schema_type="JSON", version=4).path.startswith(
        "/compatibility/subjects/o/versions/4?"
    )


def test_writes_of_level_mode_and_deletes() -> None:
    assert rq.put_config("FULL_TRANSITIVE", "o") == rq.Request("PUT", "/config/o", {"compatibility": "FULL_TRANSITIVE"})
    assert rq.put_config("NONE") == rq.Request("PUT", "/config", {"compatibility": "NONE"})
    assert rq.delete_config("o") == rq.Request("DELETE", "/config/o")
    assert rq.put_mode("READONLY", "o") == rq.Request("PUT", "/mode/o", {"mode": "READONLY"})
    assert rq.delete_subject("o") == rq.Request("DELETE", "/subjects/o")
    assert rq.delete_subject("o", permanent=True).path == "/subjects/o?permanent=true"
    with pytest.raises(ValueError, match="SIDEWAYS"):
        rq.put_config("SIDEWAYS", "o")
    with pytest.raises(ValueError, match="WRITEONLY"):
        rq.put_mode("WRITEONLY")


def test_endpoints_name_the_operation_without_subject_names() -> None:
    assert rq.get_version("secret-team.orders", 7).endpoint == "GET /subjects/{subject}/versions/{version}"
    assert rq.register("a/b", "{}", schema_type="JSON").endpoint == "POST /subjects/{subject}/versions"
    assert rq.check_compatibility("x", "{}", schema_type="JSON").endpoint == (
        "POST /compatibility/subjects/{subject}/versions/{version}"
    )
    assert rq.get_config().endpoint == "GET /config"
    assert rq.endpoint("GET", "/unknown/thing?x=1") == "GET /unknown/thing"


def test_error_code_reads_the_registry_code_only() -> None:
    assert rq.error_code({"error_code": 40401, "message": "Subject 'x' not found."}) == 40401
    assert rq.error_code({"message": "no code"}) == 0
    assert rq.error_code("Not Found") == 0

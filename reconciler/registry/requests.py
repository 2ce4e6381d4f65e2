"""The Schema Registry's REST requests, built in one place: method, path (subject names URL-encoded) and JSON body.

The Confluent API (also served by Apicurio Registry under ``/apis/ccompat/v7``) has one path per operation; each
builder returns a ``Request``. ``endpoint`` names the operation a path calls with its names replaced by
placeholders (``GET /subjects/{subject}/versions/{version}``): the request counts are kept by it, and the in-memory
fake (``tests/support/registry_fake.py``) routes by it, so the port and the fake cannot disagree about a path.
"""

from __future__ import annotations

import dataclasses
import urllib.parse
from collections.abc import Mapping, Sequence
from typing import Any

from reconciler.base.paths import Routes

SCHEMA_TYPES = ("AVRO", "JSON", "PROTOBUF")
LEVELS = (
    "NONE",
    "BACKWARD",
    "BACKWARD_TRANSITIVE",
    "FORWARD",
    "FORWARD_TRANSITIVE",
    "FULL",
    "FULL_TRANSITIVE",
)
MODES = ("READWRITE", "READONLY", "IMPORT")
CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"


@dataclasses.dataclass(frozen=True, slots=True)
class Reference:
    """A schema's reference to another subject's version (``name`` is how the schema imports it)."""

    name: str
    subject: str
    version: int

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "subject": self.subject, "version": self.version}


@dataclasses.dataclass(frozen=True, slots=True)
class Request:
    """One REST request: ``path`` includes the query string; ``body`` is JSON-ready (``None``: no body)."""

    method: str
    path: str
    body: Any = None

    @property
    def endpoint(self) -> str:
        return endpoint(self.method, self.path)


def quote(name: str) -> str:
    """A subject name as one path segment (``/``, ``%``, ``?``, ``#`` and spaces encoded)."""
    return urllib.parse.quote(name, safe="")


def _query(**params: Any) -> str:
    kept = {k: ("true" if v is True else str(v)) for k, v in params.items() if v not in (None, False)}
    return "?" + urllib.parse.urlencode(kept) if kept else ""


def _version(version: int | str) -> str:
    if isinstance(version, int) or version == "latest":
        return str(version)
    raise ValueError(f"a schema version is a number or 'latest', not {version!r}")


# ------------------------------------------------------------------------------------------------ reads
def list_subjects(*, deleted: bool = False) -> Request:
    return Request("GET", "/subjects" + _query(deleted=deleted))


def list_versions(subject: str, *, deleted: bool = False) -> Request:
    return Request("GET", f"/subjects/{quote(subject)}/versions" + _query(deleted=deleted))


def get_version(subject: str, version: int | str = "latest", *, deleted: bool = False) -> Request:
    return Request("GET", f"/subjects/{quote(subject)}/versions/{_version(version)}" + _query(deleted=deleted))


def get_config(subject: str | None = None, *, default_to_global: bool = False) -> Request:
    """The compatibility level of ``subject`` (``None``: the global level)."""
    if subject is None:
        return Request("GET", "/config")
    return Request("GET", f"/config/{quote(subject)}" + _query(defaultToGlobal=default_to_global))


def get_mode(subject: str | None = None) -> Request:
    return Request("GET", "/mode" if subject is None else f"/mode/{quote(subject)}")


def schema_types() -> Request:
    return Request("GET", "/schemas/types")


def referenced_by(subject: str, version: int) -> Request:
    return Request("GET", f"/subjects/{quote(subject)}/versions/{_version(version)}/referencedby")


def schema_versions(schema_id: int) -> Request:
    """The subjects and versions that hold schema ``schema_id``."""
    return Request("GET", f"/schemas/ids/{int(schema_id)}/versions")


# ----------------------------------------------------------------------------------------------- writes
def schema_body(schema: str, *, schema_type: str, references: Sequence[Reference] = ()) -> dict[str, Any]:
    """The body of a register or a compatibility check (``schemaType`` left out for AVRO, the API's default)."""
    if schema_type not in SCHEMA_TYPES:
        raise ValueError(f"schema type {schema_type!r} is not one of {', '.join(SCHEMA_TYPES)}")
    body: dict[str, Any] = {"schema": schema}
    if schema_type != "AVRO":
        body["schemaType"] = schema_type
    if references:
        body["references"] = [r.as_json() for r in references]
    return body


def register(subject: str, schema: str, *, schema_type: str, references: Sequence[Reference] = ()) -> Request:
    body = schema_body(schema, schema_type=schema_type, references=references)
    return Request("POST", f"/subjects/{quote(subject)}/versions", body)


def check_compatibility(
    subject: str,
    schema: str,
    *,
    schema_type: str,
    version: int | str = "latest",
    references: Sequence[Reference] = (),
) -> Request:
    """Whether ``schema`` may follow ``version`` of ``subject`` under the subject's level (``verbose``: with the
    registry's messages)."""
    body = schema_body(schema, schema_type=schema_type, references=references)
    path = f"/compatibility/subjects/{quote(subject)}/versions/{_version(version)}" + _query(verbose=True)
    return Request("POST", path, body)


def put_config(level: str, subject: str | None = None) -> Request:
    if level not in LEVELS:
        raise ValueError(f"compatibility level {level!r} is not one of {', '.join(LEVELS)}")
    return Request("PUT", "/config" if subject is None else f"/config/{quote(subject)}", {"compatibility": level})


def delete_config(subject: str) -> Request:
    """Back to the global level."""
    return Request("DELETE", f"/config/{quote(subject)}")


def put_mode(mode: str, subject: str | None = None) -> Request:
    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is not one of {', '.join(MODES)}")
    return Request("PUT", "/mode" if subject is None else f"/mode/{quote(subject)}", {"mode": mode})


def delete_subject(subject: str, *, permanent: bool = False) -> Request:
    return Request("DELETE", f"/subjects/{quote(subject)}" + _query(permanent=permanent))


# -------------------------------------------------------------------------------------------- endpoints
_PATTERNS = (
    ("/subjects", ()),
    ("/subjects/{subject}", ("subject",)),
    ("/subjects/{subject}/versions", ("subject",)),
    ("/subjects/{subject}/versions/{version}", ("subject", "version")),
    ("/subjects/{subject}/versions/{version}/referencedby", ("subject", "version")),
    ("/compatibility/subjects/{subject}/versions/{version}", ("subject", "version")),
    ("/config", ()),
    ("/config/{subject}", ("subject",)),
    ("/mode", ()),
    ("/mode/{subject}", ("subject",)),
    ("/schemas/types", ()),
    ("/schemas/ids/{id}", ("id",)),
    ("/schemas/ids/{id}/versions", ("id",)),
)
_ROUTES = Routes(_PATTERNS)


def route(path: str) -> tuple[str, dict[str, str], dict[str, str]]:
    """The template a path matches, its decoded names and its query (``("?", {}, {})`` for an unknown path)."""
    template, values, query = _ROUTES.route(path)
    return template, values, dict(query)


def endpoint(method: str, path: str) -> str:
    """``GET /subjects/{subject}/versions/{version}``: what a request calls, without names (for counts)."""
    return _ROUTES.endpoint(method, path)


def error_code(answer: Any) -> int:
    """The registry's ``error_code`` in an error answer (0 when there is none)."""
    if isinstance(answer, Mapping):
        code = answer.get("error_code")
        if isinstance(code, int):
            return code
    return 0

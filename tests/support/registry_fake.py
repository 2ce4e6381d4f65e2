"""An in-memory Schema Registry answering the Confluent REST API as Confluent documents it, for unit tests.

``FakeRegistry`` is a ``reconciler.registry.port.Transport``: it takes the ``Request``s the port builds and routes
them with the same ``requests.route`` the port's counts use, so a path the builders get wrong is a 404 here too.
Bodies are round-tripped through JSON, as on the wire. It answers where Confluent and Apicurio differ as Confluent
does (docs/schema-registry.md): ``/mode`` is served, a 409 carries ``error_code`` 409, the global level starts at
BACKWARD, ``GET /config/{subject}`` with nothing set is 40408 (unless ``defaultToGlobal=true``), soft-deleted
versions and subjects are hidden unless ``deleted=true``, a permanent delete needs a soft delete first (40405), a
second soft delete is 40404, and ``IMPORT`` mode is refused (42205) where a schema was ever registered unless
``force=true``.

Compatibility is decided by a deliberately small rule, enough to exercise the port, not Avro's resolution rules:
for two Avro records, BACKWARD refuses a field added without a default or a field whose type changed, FORWARD a
field removed that had no default, FULL both; ``*_TRANSITIVE`` checks every live version, the others the latest.
Other schema types are always compatible. Each request is kept in ``requests`` (to count them).
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from typing import Any

from reconciler.registry import canonical
from reconciler.registry import requests as rq
from reconciler.registry.port import RegistryError


@dataclasses.dataclass
class _Version:
    version: int
    id: int
    deleted: bool = False


def _error(code: int, message: str) -> tuple[int, Any]:
    return (code if code < 1000 else code // 100), {"error_code": code, "message": message}


class FakeRegistry:
    """See the module docstring; ``global_level`` and ``global_mode`` as Confluent starts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: list[rq.Request] = []
        self.schemas: dict[int, dict[str, Any]] = {}  # id -> {"schema", "schemaType", "references"}
        self.subjects: dict[str, list[_Version]] = {}
        self.levels: dict[str, str] = {}
        self.modes: dict[str, str] = {}
        self.global_level = "BACKWARD"
        self.global_mode = "READWRITE"

    def exchange(self, request: rq.Request, *, deadline: float) -> tuple[int, Any]:
        if time.monotonic() >= deadline:
            raise RegistryError(f"{request.method} {request.path}: the deadline passed before the registry answered")
        body = None if request.body is None else json.loads(json.dumps(request.body))
        with self._lock:
            self.requests.append(request)
            template, names, query = rq.route(request.path)
            handler = _ROUTES.get(f"{request.method} {template}")
            if handler is None:
                return _error(404, "HTTP 404 Not Found")
            status, answer = handler(self, names, query, body)
        return status, json.loads(json.dumps(answer))

    # ------------------------------------------------------------------------------------------ helpers
    def _live(self, subject: str) -> list[_Version]:
        return [v for v in self.subjects.get(subject, ()) if not v.deleted]

    def _find(self, subject: str, version: str, *, deleted: bool) -> _Version | tuple[int, Any]:
        versions = self.subjects.get(subject, []) if deleted else self._live(subject)
        if not versions:
            return _error(40401, f"Subject '{subject}' not found.")
        if version == "latest":
            return versions[-1]
        found = next((v for v in versions if str(v.version) == version), None)
        return found if found is not None else _error(40402, f"Version {version} not found.")

    def _answer(self, subject: str, found: _Version) -> dict[str, Any]:
        schema = self.schemas[found.id]
        answer: dict[str, Any] = {"subject": subject, "version": found.version, "id": found.id}
        answer["schema"] = schema["schema"]
        if schema["schemaType"] != "AVRO":
            answer["schemaType"] = schema["schemaType"]
        if schema["references"]:
            answer["references"] = schema["references"]
        return answer

    def level(self, subject: str) -> str:
        return self.levels.get(subject, self.global_level)

    def _incompatible(self, subject: str, body: dict[str, Any], against: list[_Version]) -> list[str]:
        level = self.level(subject)
        if level == "NONE" or body.get("schemaType", "AVRO") != "AVRO":
            return []
        messages: list[str] = []
        for old in against:
            messages += _avro_messages(self.schemas[old.id]["schema"], body["schema"], level, old.version)
        return messages

    def _parse(self, body: dict[str, Any]) -> tuple[int, Any] | None:
        kind = body.get("schemaType", "AVRO")
        try:
            canonical.normalize(body.get("schema", ""), kind)
        except ValueError as exc:
            return _error(42201, f"Invalid schema: {exc}")
        for ref in body.get("references") or ():
            if not any(str(v.version) == str(ref["version"]) for v in self._live(ref["subject"])):
                return _error(42201, f"Invalid schema: reference {ref['name']!r} not found")
        return None

    def _same(self, body: dict[str, Any]) -> int | None:
        kind = body.get("schemaType", "AVRO")
        text = canonical.normalize(body["schema"], kind)
        refs = body.get("references") or []
        for schema_id, held in self.schemas.items():
            same_text = held["schemaType"] == kind and canonical.normalize(held["schema"], kind) == text
            if same_text and held["references"] == refs:
                return schema_id
        return None


class InflightCounting(FakeRegistry):
    """A fake that records how many requests are in flight at once (``most``); while ``all_in`` is clear, each
    request waits until three are in (a test sets it to let requests through at once)."""

    def __init__(self) -> None:
        super().__init__()
        self.inflight = 0
        self.most = 0
        self.gate = threading.Lock()
        self.all_in = threading.Event()

    def exchange(self, request: rq.Request, *, deadline: float) -> tuple[int, Any]:
        with self.gate:
            self.inflight += 1
            self.most = max(self.most, self.inflight)
            if self.inflight == 3:
                self.all_in.set()
        self.all_in.wait(timeout=30)  # the first three meet here; a bound of 3 lets no fourth in meanwhile
        try:
            return super().exchange(request, deadline=deadline)
        finally:
            with self.gate:
                self.inflight -= 1


def _fields(text: str) -> dict[str, dict[str, Any]] | None:
    parsed = json.loads(text)
    if not isinstance(parsed, dict) or parsed.get("type") != "record":
        return None
    return {f["name"]: f for f in parsed.get("fields", ())}


def _avro_messages(old_text: str, new_text: str, level: str, version: int) -> list[str]:
    old, new = _fields(old_text), _fields(new_text)
    if old is None or new is None:
        return []
    found: list[str] = []
    if level.startswith(("BACKWARD", "FULL")):
        for name, field in new.items():
            if name not in old and "default" not in field:
                found.append(f"version {version}: READER_FIELD_MISSING_DEFAULT_VALUE: {name}")
            elif name in old and json.dumps(old[name]["type"]) != json.dumps(field["type"]):
                found.append(f"version {version}: TYPE_MISMATCH: {name}")
    if level.startswith(("FORWARD", "FULL")):
        for name, field in old.items():
            if name not in new and "default" not in field:
                found.append(f"version {version}: READER_FIELD_MISSING_DEFAULT_VALUE: {name} (forward)")
    return found


# ---------------------------------------------------------------------------------------------- handlers
Args = tuple[FakeRegistry, dict[str, str], dict[str, str], Any]


def _subjects(r: FakeRegistry, n: dict[str, str], q: dict[str, str], body: Any) -> tuple[int, Any]:
    deleted = q.get("deleted") == "true"
    return 200, sorted(s for s, vs in r.subjects.items() if vs and (deleted or any(not v.deleted for v in vs)))


def _versions(r: FakeRegistry, n: dict[str, str], q: dict[str, str], body: Any) -> tuple[int, Any]:
    versions = r.subjects.get(n["subject"], []) if q.get("deleted") == "true" else r._live(n["subject"])
    if not versions:
        return _error(40401, f"Subject '{n['subject']}' not found.")
    return 200, [v.version for v in versions]


def _version(r: FakeRegistry, n: dict[str, str], q: dict[str, str], body: Any) -> tuple[int, Any]:
    found = r._find(n["subject"], n["version"], deleted=q.get("deleted") == "true")
    return found if isinstance(found, tuple) else (200, r._answer(n["subject"], found))


def _register(r: FakeRegistry, n: dict[str, str], q: dict[str, str], body: Any) -> tuple[int, Any]:
    subject = n["subject"]
    if r.modes.get(subject, r.global_mode) == "READONLY":
        return _error(42205, f"Subject {subject} is in read-only mode")
    invalid = r._parse(body)
    if invalid is not None:
        return invalid
    same = r._same(body)
    live = r._live(subject)
    if same is not None and any(v.id == same for v in live):
        return 200, {"id": same}
    against = live if r.level(subject).endswith("_TRANSITIVE") else live[-1:]
    messages = r._incompatible(subject, body, against)
    if messages:
        detail = f'Schema being registered is incompatible with an earlier schema for subject "{subject}"'
        return _error(409, f"{detail}, details: {messages}")
    schema_id = same if same is not None else max(r.schemas, default=0) + 1
    r.schemas.setdefault(
        schema_id,
        {
            "schema": body["schema"],
            "schemaType": body.get("schemaType", "AVRO"),
            "references": body.get("references") or [],
        },
    )
    every = r.subjects.setdefault(subject, [])
    every.append(_Version(max((v.version for v in every), default=0) + 1, schema_id))
    return 200, {"id": schema_id}


def _check(r: FakeRegistry, n: dict[str, str], q: dict[str, str], body: Any) -> tuple[int, Any]:
    found = r._find(n["subject"], n["version"], deleted=False)
    if isinstance(found, tuple):
        return found
    invalid = r._parse(body)
    if invalid is not None:
        return invalid
    messages = r._incompatible(n["subject"], body, [found])
    answer: dict[str, Any] = {"is_compatible": not messages}
    if q.get("verbose") == "true":
        answer["messages"] = messages
    return 200, answer


def _get_config(r: FakeRegistry, n: dict[str, str], q: dict[str, str], body: Any) -> tuple[int, Any]:
    subject = n.get("subject")
    if subject is None:
        return 200, {"compatibilityLevel": r.global_level}
    if subject in r.levels:
        return 200, {"compatibilityLevel": r.levels[subject]}
    if q.get("defaultToGlobal") == "true":
        return 200, {"compatibilityLevel": r.global_level}
    return _error(40408, f"Subject '{subject}' does not have subject-level compatibility configured")


def _put_config(r: FakeRegistry, n: dict[str, str], q: dict[str, str], body: Any) -> tuple[int, Any]:
    level = (body or {}).get("compatibility")
    if level not in rq.LEVELS:
        return _error(42203, "Invalid compatibility level. Valid values are none, backward, forward, full, ...")
    if "subject" in n:
        r.levels[n["subject"]] = level
    else:
        r.global_level = level
    return 200, {"compatibility": level}


def _delete_config(r: FakeRegistry, n: dict[str, str], q: dict[str, str], body: Any) -> tuple[int, Any]:
    previous = r.levels.pop(n["subject"], None)
    if previous is None:
        return _error(40401, f"Subject '{n['subject']}' not found.")
    return 200, {"compatibilityLevel": previous}


def _get_mode(r: FakeRegistry, n: dict[str, str], q: dict[str, str], body: Any) -> tuple[int, Any]:
    subject = n.get("subject")
    if subject is None:
        return 200, {"mode": r.global_mode}
    if subject in r.modes:
        return 200, {"mode": r.modes[subject]}
    return _error(40409, f"Subject '{subject}' does not have subject-level mode configured")


def _put_mode(r: FakeRegistry, n: dict[str, str], q: dict[str, str], body: Any) -> tuple[int, Any]:
    mode = (body or {}).get("mode")
    if mode not in rq.MODES:
        return _error(42204, "Invalid mode. Valid values are READWRITE, READONLY, IMPORT.")
    # IMPORT only where no schema was ever registered (soft-deleted ones count), unless force=true
    held = [r.subjects.get(n["subject"], [])] if "subject" in n else list(r.subjects.values())
    if mode == "IMPORT" and q.get("force") != "true" and any(held):
        return _error(42205, "Cannot import since found existing subjects")
    if "subject" in n:
        r.modes[n["subject"]] = mode
    else:
        r.global_mode = mode
    return 200, {"mode": mode}


def _delete_subject(r: FakeRegistry, n: dict[str, str], q: dict[str, str], body: Any) -> tuple[int, Any]:
    subject = n["subject"]
    every = r.subjects.get(subject, [])
    if not every:
        return _error(40401, f"Subject '{subject}' not found.")
    live = r._live(subject)
    if q.get("permanent") == "true":
        if live:
            return _error(40405, f"Subject '{subject}' was not deleted first before being permanently deleted")
        del r.subjects[subject]
        return 200, [v.version for v in every]
    if not live:
        return _error(40404, f"Subject '{subject}' was soft deleted.Set permanent=true to delete permanently")
    for other, versions in r.subjects.items():
        for held in (r.schemas[v.id] for v in versions if not v.deleted and other != subject):
            if any(ref["subject"] == subject for ref in held["references"]):
                return _error(42206, f"One or more references exist to the schema {{subject={subject}}}.")
    for version in live:
        version.deleted = True
    return 200, [v.version for v in live]


def _referenced_by(r: FakeRegistry, n: dict[str, str], q: dict[str, str], body: Any) -> tuple[int, Any]:
    found = r._find(n["subject"], n["version"], deleted=False)
    if isinstance(found, tuple):
        return found
    wanted = {"subject": n["subject"], "version": found.version}
    return 200, sorted(
        v.id
        for versions in r.subjects.values()
        for v in versions
        if not v.deleted
        and any({"subject": x["subject"], "version": x["version"]} == wanted for x in r.schemas[v.id]["references"])
    )


def _holders(r: FakeRegistry, n: dict[str, str], q: dict[str, str], body: Any) -> tuple[int, Any]:
    schema_id = int(n["id"])
    if schema_id not in r.schemas:
        return _error(40403, f"Schema {schema_id} not found")
    held = [
        (s, v.version) for s, versions in r.subjects.items() for v in versions if v.id == schema_id and not v.deleted
    ]
    return 200, [{"subject": s, "version": v} for s, v in sorted(held)]


def _types(r: FakeRegistry, n: dict[str, str], q: dict[str, str], body: Any) -> tuple[int, Any]:
    return 200, ["JSON", "PROTOBUF", "AVRO"]


_ROUTES = {
    "GET /subjects": _subjects,
    "GET /subjects/{subject}/versions": _versions,
    "GET /subjects/{subject}/versions/{version}": _version,
    "POST /subjects/{subject}/versions": _register,
    "POST /compatibility/subjects/{subject}/versions/{version}": _check,
    "GET /config": _get_config,
    "GET /config/{subject}": _get_config,
    "PUT /config": _put_config,
    "PUT /config/{subject}": _put_config,
    "DELETE /config/{subject}": _delete_config,
    "GET /mode": _get_mode,
    "GET /mode/{subject}": _get_mode,
    "PUT /mode": _put_mode,
    "PUT /mode/{subject}": _put_mode,
    "DELETE /subjects/{subject}": _delete_subject,
    "GET /schemas/types": _types,
    "GET /subjects/{subject}/versions/{version}/referencedby": _referenced_by,
    "GET /schemas/ids/{id}/versions": _holders,
}

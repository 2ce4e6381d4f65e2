"""``RegistryPort``: what the tool asks of a Schema Registry (Confluent's REST API), and its implementation.

``RestRegistryPort`` sends the requests built by ``reconciler.registry.requests`` through a ``Transport`` (the
HTTP adapter ``reconciler.registry_access.http.HttpTransport``, or the in-memory fake of the tests) and reads the
answers as Confluent documents them, tolerating where Apicurio Registry answers otherwise (docs/schema-registry.md):
``/mode`` may be unsupported (``features``), a 409's ``error_code`` may be 0, ``GET /config/{subject}`` of a
subject without a level may answer NONE while the registry checks under the global level. The API has no bulk
read: ``read_subjects`` reads each subject's latest version and level with two requests, a bounded number of
subjects at a time. Every call takes the command's deadline (``time.monotonic()`` seconds); no request is sent
after it. An answer asking to come back later (429 of a rate limit, as Confluent Cloud answers one; 502-504) is sent
again after a back-off within the deadline; any other answer is final (a 409 is the registry's verdict).
"""

from __future__ import annotations

import collections
import dataclasses
import threading
import time
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from reconciler.base import errors
from reconciler.registry import requests as rq
from reconciler.registry.requests import Reference

READ_CONCURRENCY = 16  # subjects read at a time (each two requests); measured: docs/benchmarks.md, Schema Registry

RETRIED = frozenset({429, 502, 503, 504})  # come back later: rate limited (Confluent Cloud), a proxy, a restart
BACKOFF_S = (0.1, 0.25, 0.5, 1.0, 2.0)  # pauses before each try again, the last repeated; none past the deadline

SUBJECT_NOT_FOUND = 40401
SCHEMA_NOT_FOUND = 40403
VERSION_NOT_FOUND = 40402
SUBJECT_LEVEL_NOT_SET = 40408
SUBJECT_MODE_NOT_SET = 40409


class RegistryError(errors.ReconcilerError):
    """The registry refused a request or could not be reached; ``status`` is the HTTP status (0: none) and
    ``error_code`` the registry's own code (0: none given)."""

    def __init__(self, message: str, *, status: int = 0, error_code: int = 0, answer_lost: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.error_code = error_code
        self.answer_lost = answer_lost  # a write sent whose answer never came: the registry may have carried it out


class Transport(Protocol):
    """Sends one request by its deadline: the HTTP status and the decoded JSON answer (raises ``RegistryError``
    only when no answer came)."""

    def exchange(self, request: rq.Request, *, deadline: float) -> tuple[int, Any]: ...


@dataclasses.dataclass(frozen=True, slots=True)
class SchemaVersion:
    """One registered version of a subject."""

    subject: str
    version: int
    id: int
    schema: str
    schema_type: str = "AVRO"
    references: tuple[Reference, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class SubjectState:
    """A subject as a plan reads it: its latest version and its own compatibility level (``None``: the registry
    says none is set on the subject; on Apicurio this is never ``None``, see ``RestRegistryPort.compatibility``)."""

    subject: str
    latest: SchemaVersion | None
    compatibility: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class Compatibility:
    """The registry's verdict on a schema against one version, with its messages when it gave any."""

    compatible: bool
    version: int | str
    messages: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Features:
    """What the server supports beyond the common API: ``mode`` (``/mode``; Apicurio 2.4 answers 404)."""

    mode: bool
    schema_types: tuple[str, ...]


class RegistryPort(Protocol):
    """What plan and apply call on a Schema Registry (``RestRegistryPort``)."""

    @property
    def request_count(self) -> int: ...

    @property
    def request_counts(self) -> Mapping[str, int]: ...

    def features(self, *, deadline: float) -> Features: ...

    def subjects(self, *, deadline: float, deleted: bool = False) -> tuple[str, ...]: ...

    def versions(self, subject: str, *, deadline: float) -> tuple[int, ...]: ...

    def latest(self, subject: str, *, deadline: float) -> SchemaVersion | None: ...

    def read_subjects(
        self, subjects: Iterable[str], *, deadline: float, concurrency: int = READ_CONCURRENCY
    ) -> dict[str, SubjectState]: ...

    def referenced_by(self, subject: str, version: int, *, deadline: float) -> tuple[int, ...]: ...

    def holders(self, schema_id: int, *, deadline: float) -> tuple[tuple[str, int], ...]: ...

    def compatibility(self, subject: str | None = None, *, deadline: float) -> str | None: ...

    def mode(self, subject: str | None = None, *, deadline: float) -> str | None: ...

    def register(
        self, subject: str, schema: str, *, schema_type: str, references: Sequence[Reference] = (), deadline: float
    ) -> int: ...

    def check(
        self,
        subject: str,
        schema: str,
        *,
        schema_type: str,
        references: Sequence[Reference] = (),
        version: int | str = "latest",
        deadline: float,
    ) -> Compatibility: ...

    def check_all(
        self, subject: str, schema: str, *, schema_type: str, references: Sequence[Reference] = (), deadline: float
    ) -> tuple[Compatibility, ...]: ...

    def set_compatibility(self, level: str, subject: str | None = None, *, deadline: float) -> None: ...

    def set_mode(self, mode: str, subject: str | None = None, *, deadline: float) -> None: ...

    def delete(self, subject: str, *, permanent: bool = False, deadline: float) -> tuple[int, ...]: ...


class RestRegistryPort:
    """``RegistryPort`` over the Confluent REST API (see the module docstring)."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self._sent = 0
        self._by_endpoint: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()

    @property
    def request_count(self) -> int:
        return self._sent

    @property
    def request_counts(self) -> Mapping[str, int]:
        """The requests sent so far per endpoint, without names (``POST /subjects/{subject}/versions``)."""
        with self._lock:
            return dict(self._by_endpoint)

    def _call(self, request: rq.Request, *, deadline: float, missing: Iterable[int] = ()) -> Any:
        """The answer of a 2xx; ``None`` when the registry's ``error_code`` (or the HTTP status) is one of
        ``missing``; else raises ``RegistryError``. An answer asking to come back later (``RETRIED``: a 429 of a
        rate limit, a 502-504 of a proxy or a restart; the request was not carried out) is sent again after a
        back-off while the deadline leaves time for it."""
        attempt = 0
        while True:
            with self._lock:
                self._sent += 1
                self._by_endpoint[request.endpoint] += 1
            status, answer = self.transport.exchange(request, deadline=deadline)
            pause = BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]
            if status not in RETRIED or time.monotonic() + pause >= deadline:
                break
            time.sleep(pause)
            attempt += 1
        if 200 <= status < 300:
            return answer
        code = rq.error_code(answer)
        if code in missing or status in missing:
            return None
        where = f"{request.method} {urllib.parse.unquote(request.path.split('?', 1)[0])}"
        raise RegistryError(f"{where}: {_message(status, answer)}", status=status, error_code=code)

    # ------------------------------------------------------------------------------------------- reads
    def features(self, *, deadline: float) -> Features:
        """Whether ``/mode`` answers (Apicurio 2.4: 404 "Operation not supported") and the schema types served."""
        mode = self._call(rq.get_mode(), deadline=deadline, missing=(404,)) is not None
        types = self._call(rq.schema_types(), deadline=deadline, missing=(404,))
        listed = tuple(str(t) for t in types) if isinstance(types, list) else ("AVRO",)
        return Features(mode=mode, schema_types=listed)

    def subjects(self, *, deadline: float, deleted: bool = False) -> tuple[str, ...]:
        """The subjects (``deleted``: also the soft-deleted ones)."""
        answer = self._call(rq.list_subjects(deleted=deleted), deadline=deadline)
        return tuple(sorted(str(s) for s in answer or ()))

    def versions(self, subject: str, *, deadline: float) -> tuple[int, ...]:
        """The subject's versions (empty: no such subject). Apicurio also lists soft-deleted versions here."""
        answer = self._call(rq.list_versions(subject), deadline=deadline, missing=(SUBJECT_NOT_FOUND,))
        return tuple(sorted(int(v) for v in answer or ()))

    def latest(self, subject: str, *, deadline: float) -> SchemaVersion | None:
        """The subject's latest version (``None``: no such subject, or no version left)."""
        missing = (SUBJECT_NOT_FOUND, VERSION_NOT_FOUND)
        answer = self._call(rq.get_version(subject, "latest"), deadline=deadline, missing=missing)
        return None if answer is None else _version(subject, answer)

    def read_subjects(
        self, subjects: Iterable[str], *, deadline: float, concurrency: int = READ_CONCURRENCY
    ) -> dict[str, SubjectState]:
        """Each subject's latest version and own level: two requests a subject, ``concurrency`` subjects at a time;
        the first error stops the read (the subjects not started are not read)."""
        names = sorted(set(subjects))
        if not names:
            return {}

        def one(subject: str) -> SubjectState:
            latest = self.latest(subject, deadline=deadline)
            return SubjectState(subject, latest, self.compatibility(subject, deadline=deadline))

        with ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(names)))) as pool:
            futures = [pool.submit(one, name) for name in names]
            try:
                return {f.result().subject: f.result() for f in futures}
            finally:
                for future in futures:
                    future.cancel()

    def referenced_by(self, subject: str, version: int, *, deadline: float) -> tuple[int, ...]:
        """The ids of the schemas that reference ``version`` of ``subject`` (empty: none, or no such version).
        Apicurio 2.4 soft-deletes a referenced subject (Confluent refuses, 42206): a delete must ask this first."""
        missing = (SUBJECT_NOT_FOUND, VERSION_NOT_FOUND)
        answer = self._call(rq.referenced_by(subject, version), deadline=deadline, missing=missing)
        return tuple(sorted(int(i) for i in answer or ()))

    def holders(self, schema_id: int, *, deadline: float) -> tuple[tuple[str, int], ...]:
        """The (subject, version) pairs holding schema ``schema_id`` (empty: no such schema), to name the referrer
        ``referenced_by`` answers only by id."""
        answer = self._call(rq.schema_versions(schema_id), deadline=deadline, missing=(404, SCHEMA_NOT_FOUND))
        return tuple(sorted((str(h["subject"]), int(h["version"])) for h in answer or ()))

    def compatibility(self, subject: str | None = None, *, deadline: float) -> str | None:
        """The level set on ``subject`` (``None``: none set, Confluent's 40408), or the global level. Apicurio 2.4
        answers NONE for a subject with none set, whatever the global level, and checks it under the global level:
        there a NONE read may mean "unset" (the same as the global level only while that is NONE)."""
        missing = (SUBJECT_NOT_FOUND, SUBJECT_LEVEL_NOT_SET) if subject is not None else ()
        answer = self._call(rq.get_config(subject), deadline=deadline, missing=missing)
        return _level(answer) if isinstance(answer, Mapping) else None

    def mode(self, subject: str | None = None, *, deadline: float) -> str | None:
        """The mode of ``subject`` or the global mode (``None``: none set on the subject, or ``/mode`` unsupported:
        ask ``features`` first)."""
        answer = self._call(rq.get_mode(subject), deadline=deadline, missing=(404, SUBJECT_MODE_NOT_SET))
        return str(answer["mode"]) if isinstance(answer, Mapping) and "mode" in answer else None

    # ------------------------------------------------------------------------------------------ checks
    def check(
        self,
        subject: str,
        schema: str,
        *,
        schema_type: str,
        references: Sequence[Reference] = (),
        version: int | str = "latest",
        deadline: float,
    ) -> Compatibility:
        """The registry's own compatibility check of ``schema`` against ``version`` under the subject's level."""
        request = rq.check_compatibility(
            subject, schema, schema_type=schema_type, version=version, references=references
        )
        answer = self._call(request, deadline=deadline)
        compatible = bool(answer.get("is_compatible")) if isinstance(answer, Mapping) else False
        raw = answer.get("messages") if isinstance(answer, Mapping) else None
        messages = tuple(str(m) for m in raw) if isinstance(raw, list) else ()
        return Compatibility(compatible, version, messages)

    def check_all(
        self, subject: str, schema: str, *, schema_type: str, references: Sequence[Reference] = (), deadline: float
    ) -> tuple[Compatibility, ...]:
        """The check against every version of the subject (for the ``*_TRANSITIVE`` levels), oldest first."""
        return tuple(
            self.check(subject, schema, schema_type=schema_type, references=references, version=v, deadline=deadline)
            for v in self.versions(subject, deadline=deadline)
        )

    # ------------------------------------------------------------------------------------------ writes
    def register(
        self, subject: str, schema: str, *, schema_type: str, references: Sequence[Reference] = (), deadline: float
    ) -> int:
        """Register ``schema`` under ``subject``: its id (the same id when the schema is already registered). An
        incompatible schema raises ``RegistryError`` with status 409."""
        request = rq.register(subject, schema, schema_type=schema_type, references=references)
        answer = self._call(request, deadline=deadline)
        return int(answer["id"])

    def set_compatibility(self, level: str, subject: str | None = None, *, deadline: float) -> None:
        self._call(rq.put_config(level, subject), deadline=deadline)

    def set_mode(self, mode: str, subject: str | None = None, *, deadline: float) -> None:
        self._call(rq.put_mode(mode, subject), deadline=deadline)

    def delete(self, subject: str, *, permanent: bool = False, deadline: float) -> tuple[int, ...]:
        """Delete the subject (soft, or ``permanent``; Confluent wants a soft delete first and answers 40405
        otherwise): the versions deleted."""
        answer = self._call(rq.delete_subject(subject, permanent=permanent), deadline=deadline)
        return tuple(sorted(int(v) for v in answer or ()))


def _version(subject: str, answer: Mapping[str, Any]) -> SchemaVersion:
    references = tuple(
        Reference(str(r["name"]), str(r["subject"]), int(r["version"])) for r in answer.get("references") or ()
    )
    return SchemaVersion(
        subject=str(answer.get("subject", subject)),
        version=int(answer["version"]),
        id=int(answer["id"]),
        schema=str(answer["schema"]),
        schema_type=str(answer.get("schemaType") or "AVRO"),
        references=references,
    )


def _message(status: int, answer: Any) -> str:
    """The registry's message (first line, bounded) and its error code; never a header or the body sent."""
    if isinstance(answer, Mapping) and isinstance(answer.get("message"), str):
        code = rq.error_code(answer)
        suffix = f" (error {code})" if code else ""
        return f"HTTP {status}{suffix}: {answer['message'].splitlines()[0][:300]}"
    return f"HTTP {status}"


def _level(answer: Mapping[str, Any]) -> str | None:
    """The level in a config answer (``compatibilityLevel`` when read, ``compatibility`` when written)."""
    level = answer.get("compatibilityLevel", answer.get("compatibility"))
    return None if level is None else str(level)

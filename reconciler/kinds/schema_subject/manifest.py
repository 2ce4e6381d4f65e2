"""The ``SchemaSubject`` manifest model and the ``DesiredSubject`` a document builds.

The subject's name is ``subject:``, else derived from ``topic:`` with ``part:`` (``key`` or ``value``) by the
serializer's naming ``strategy:`` (``TopicNameStrategy``: ``<topic>-<part>``; ``RecordNameStrategy``: the
schema's record name; ``TopicRecordNameStrategy``: ``<topic>-<record name>``), else ``metadata.name``. The record
name is the Avro schema's full name, a JSON Schema's ``title``, or a Protobuf file's package and first message.
The schema is ``schemaFile:`` (a path relative to the manifest's file) or inline ``schema:`` (text, or a YAML
mapping for Avro and JSON Schema, written as JSON). A schema file that cannot be read (missing, not a regular
file, over ``MAX_SCHEMA_BYTES``), or a schema text that is not valid for its type (nested too deeply included), is
an error at the field naming it, and names the file. The manifests reach this model through the kind's manifest
part (``documents.MANIFEST``); the model itself imports nothing of the manifest pipeline, so it carries its own
strict configuration, the same as every manifest model's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from reconciler.registry import canonical
from reconciler.registry.requests import Reference

if TYPE_CHECKING:  # validate loads this model without the planner's side of the kind (tests/tooling/test_startup.py)
    from reconciler.kinds.schema_subject import views
    from reconciler.kinds.schema_subject.diff import SubjectRule
    from reconciler.model import desired

Level = Literal["NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"]
Mode = Literal["READWRITE", "READONLY", "IMPORT"]
Strategy = Literal["TopicNameStrategy", "RecordNameStrategy", "TopicRecordNameStrategy"]
MAX_SCHEMA_BYTES = 8 * 1024 * 1024  # a schema file larger than this is refused before it is read
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
PROTO_PACKAGE = re.compile(r"^\s*package\s+([A-Za-z_][\w.]*)\s*;", re.M)
PROTO_MESSAGE = re.compile(r"^\s*message\s+([A-Za-z_]\w*)", re.M)

Path_ = tuple[str | int, ...]
Error = Callable[[Path_, str], None]


class _Strict(BaseModel):
    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True, defer_build=True
    )


class ReferenceSpec(_Strict):
    """A reference to another subject's version, as the schema imports it."""

    name: str = Field(
        min_length=1,
        description="How the schema names the referenced schema: an Avro full name, a JSON Schema $ref URL, a "
        "Protobuf import path.",
    )
    subject: str = Field(min_length=1, description="The subject holding the referenced schema.")
    version: int = Field(strict=True, ge=1, description="The referenced subject's version.")


class SchemaSubjectSpec(_Strict):
    """``SchemaSubject`` spec: a subject of the Cluster profile's Schema Registry."""

    subject: str | None = Field(default=None, min_length=1, description="The subject's name, as written.")
    topic: str | None = Field(
        default=None,
        min_length=1,
        description="The topic whose keys or values the schema describes; the subject's name is derived from it by "
        "strategy (instead of subject).",
    )
    part: Literal["key", "value"] = Field(default="value", description="With topic: the record's key or value.")
    strategy: Strategy = Field(
        default="TopicNameStrategy",
        description="With topic: the serializer's subject naming strategy (TopicNameStrategy: <topic>-<part>; "
        "RecordNameStrategy: the record name; TopicRecordNameStrategy: <topic>-<record name>).",
    )
    schema_type: Literal["AVRO", "JSON", "PROTOBUF"] = Field(default="AVRO", description="The schema's type.")
    schema_file: str | None = Field(
        default=None, min_length=1, description="The schema's file, relative to this manifest's file."
    )
    schema_: str | dict[str, Any] | list[Any] | None = Field(
        default=None,
        alias="schema",
        description="The schema inline: its text, or for AVRO and JSON a YAML mapping (written as JSON).",
    )
    references: list[ReferenceSpec] = Field(
        default_factory=list, description="Other subjects' versions the schema references (registered before it)."
    )
    compatibility: Level | None = Field(
        default=None,
        description="The subject's compatibility level; a new version is checked by the registry under it in the "
        "plan (a change of level planned with it counts). Unset: not managed.",
    )
    mode: Mode | None = Field(
        default=None, description="The subject's mode, where the registry serves /mode. Unset: not managed."
    )

    @model_validator(mode="after")
    def _one_schema_and_one_name(self) -> SchemaSubjectSpec:
        if (self.schema_file is None) == (self.schema_ is None):
            raise ValueError("give exactly one of schemaFile and schema")
        if self.subject is not None and self.topic is not None:
            raise ValueError("give subject or topic, not both")
        return self


class SubjectRuleSpec(_Strict):
    """One Ownership ``schemaSubjects`` rule: exactly one of ``name``, ``prefix``, ``glob`` (fnmatch) or ``regex``
    (full match), and whether a delete of an undeclared subject it owns is permanent."""

    name: str | None = Field(default=None, min_length=1, description="The one subject this rule owns, by name.")
    prefix: str | None = Field(default=None, min_length=1, description="Owns every subject starting with this.")
    glob: str | None = Field(default=None, min_length=1, description="Owns every subject matching this fnmatch glob.")
    regex: str | None = Field(default=None, min_length=1, description="Owns every subject this regex fully matches.")
    permanent: bool = Field(
        default=False,
        strict=True,
        description="Delete an undeclared subject this rule owns permanently (its versions and ids gone for good; "
        "the plan shows it). Default: a soft delete, which the registry can still list and restore.",
    )

    @model_validator(mode="after")
    def _exactly_one(self) -> SubjectRuleSpec:
        if sum(v is not None for v in (self.name, self.prefix, self.glob, self.regex)) != 1:
            raise ValueError("give exactly one of name, prefix, glob or regex")
        if self.regex is not None:
            try:
                re.compile(self.regex)
            except re.error as exc:
                raise ValueError(f"regex {self.regex!r} does not compile: {exc}") from None
        return self

    def rule(self) -> SubjectRule:
        """The rule the diff matches subjects with."""
        from reconciler.kinds.schema_subject.diff import SubjectRule  # start-up: see the imports above
        from reconciler.model import desired

        for kind, value in (("exact", self.name), ("prefix", self.prefix), ("glob", self.glob), ("regex", self.regex)):
            if value is not None:
                return SubjectRule(desired.NamePattern(kind, value), self.permanent)
        raise AssertionError("validated: one of name, prefix, glob, regex is set")


def record_name(text: str, schema_type: str) -> str | None:
    """The record name a RecordNameStrategy names a subject by (``None``: the schema has none)."""
    if schema_type == "PROTOBUF":
        message = PROTO_MESSAGE.search(text)
        package = PROTO_PACKAGE.search(text)
        if message is None:
            return None
        return f"{package.group(1)}.{message.group(1)}" if package else message.group(1)
    parsed = json.loads(text)
    if not isinstance(parsed, dict):
        return None
    if schema_type == "JSON":
        title = parsed.get("title")
        return title if isinstance(title, str) and title else None
    name = parsed.get("name")
    if not isinstance(name, str) or not name:
        return None
    namespace = parsed.get("namespace")
    return name if "." in name or not namespace else f"{namespace}.{name}"


def subject_name(spec: SchemaSubjectSpec, name: str, *, schema: str) -> str | None:
    """The subject ``spec`` declares (see the module docstring); ``None`` when the strategy needs a record name the
    schema lacks."""
    if spec.subject is not None:
        return spec.subject
    if spec.topic is None:
        return name
    if spec.strategy == "TopicNameStrategy":
        return f"{spec.topic}-{spec.part}"
    record = record_name(schema, spec.schema_type)
    if record is None:
        return None
    return record if spec.strategy == "RecordNameStrategy" else f"{spec.topic}-{record}"


def served_topics(spec: SchemaSubjectSpec, subject: str) -> tuple[str, ...]:
    """The topics the subject's schema describes: ``topic:``, or the topic of a ``<topic>-key``/``-value`` name."""
    if spec.topic is not None:
        return (spec.topic,)
    for suffix in ("-key", "-value"):
        if subject.endswith(suffix) and len(subject) > len(suffix):
            return (subject[: -len(suffix)],)
    return ()


def _schema_text(spec: SchemaSubjectSpec, manifest_file: Path, *, error: Error) -> tuple[str, str] | None:
    """The schema's text and where it came from, or ``None`` after reporting why it cannot be had."""
    if spec.schema_file is None:
        inline = spec.schema_
        text = inline if isinstance(inline, str) else json.dumps(inline, indent=2, ensure_ascii=False)
        if not isinstance(inline, str) and spec.schema_type == "PROTOBUF":
            error(("spec", "schema"), "a PROTOBUF schema is written as text, not as a mapping")
            return None
        return text, str(manifest_file)
    path = Path(spec.schema_file)
    if not path.is_absolute():
        path = manifest_file.parent / path
    try:
        if path.exists() and not path.is_file():
            error(("spec", "schemaFile"), f"schema file {path} is not a regular file")
            return None
        size = path.stat().st_size
        if size > MAX_SCHEMA_BYTES:
            limit = MAX_SCHEMA_BYTES // 1024 // 1024
            error(
                ("spec", "schemaFile"),
                f"schema file {path} is {size / 1024 / 1024:.1f} MiB, over the {limit} MiB limit",
            )
            return None
        return path.read_text(encoding="utf-8"), str(path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        error(("spec", "schemaFile"), f"cannot read schema file {path}: {reason}")
        return None


def build(
    name: str,
    spec: SchemaSubjectSpec,
    *,
    manifest_file: Path,
    error: Error,
    source: desired.Source | None = None,
) -> views.DesiredSubject | None:
    """The subject document ``name`` declares; ``None`` after reporting each problem through ``error`` (a path in
    the document and a message)."""
    found = _schema_text(spec, manifest_file, error=error)
    if found is None:
        return None
    text, origin = found
    field: Path_ = ("spec", "schemaFile") if spec.schema_file is not None else ("spec", "schema")
    try:
        canonical.normalize(text, spec.schema_type)
    except ValueError as exc:
        error(field, f"the {spec.schema_type} schema in {origin} is not valid: {exc}")
        return None
    if spec.schema_type == "PROTOBUF" and not text.strip():
        error(field, f"the PROTOBUF schema in {origin} is empty")
        return None
    subject = subject_name(spec, name, schema=text)
    if subject is None:
        error(
            ("spec", "strategy"),
            f"{spec.strategy} names the subject by the schema's record name, and the schema in {origin} has none",
        )
        return None
    if CONTROL.search(subject):
        error(("spec", "subject"), f"subject name {subject!r} holds a control character")
        return None
    from reconciler.kinds.schema_subject import views  # start-up: see the imports above

    refs = tuple(Reference(r.name, r.subject, r.version) for r in spec.references)
    if any(r.subject == subject for r in refs):
        error(("spec", "references"), f"subject {subject!r} references itself")
        return None
    return views.DesiredSubject(
        subject=subject,
        schema=text,
        schema_type=spec.schema_type,
        references=refs,
        compatibility=spec.compatibility,
        mode=spec.mode,
        topics=served_topics(spec, subject),
        schema_origin=origin,
        source=source,
    )

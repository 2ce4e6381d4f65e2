"""The typed ``before``/``after`` payload of a plan change: one type per resource kind, and its JSON form.

The planner builds these, ``Change.to_dict`` writes them with ``to_dict`` and ``Change.from_dict`` reads them back
with ``decode``, so apply and the renderers read fields, never dict keys written by another stage.
``to_dict(from_dict(d)) == d`` for every payload the planner writes, so a saved plan re-serialises byte for byte. A
payload in a plan file that does not have its kind's shape (a plan edited by hand and resealed) is kept as
``Unreadable``: the plan can still be shown, and apply refuses it, naming the change, before anything is written.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

from reconciler.model import configs, deletion, state
from reconciler.model.attributes import AttributeChange, Writing
from reconciler.model.config_payload import CONFIG_ATTRIBUTE_PREFIX as CONFIG_ATTRIBUTE_PREFIX
from reconciler.model.config_payload import BrokerConfigPayload as BrokerConfigPayload
from reconciler.model.config_payload import ConfigAction as ConfigAction
from reconciler.model.config_payload import ConfigOp as ConfigOp
from reconciler.model.config_payload import EntityConfigPayload as EntityConfigPayload
from reconciler.model.config_payload import config_attribute as config_attribute
from reconciler.model.config_payload import config_ops_of, config_values, ops_shown
from reconciler.model.connector_payload import CONNECTOR_STATES as CONNECTOR_STATES
from reconciler.model.connector_payload import ConnectorPayload as ConnectorPayload
from reconciler.model.kinds import Kind
from reconciler.model.payload_errors import PayloadError as PayloadError
from reconciler.model.payload_errors import fields as _fields
from reconciler.model.payload_types import CLASSES, of_kind, type_of
from reconciler.model.payload_types import TYPES as TYPES
from reconciler.model.payload_types import Payload as Payload


def _int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PayloadError(f"the change's {field} is not a whole number")
    return value


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise PayloadError(f"the change's {field} is not text")
    return value


def _assignment(value: Any) -> tuple[tuple[int, ...], ...]:
    if not isinstance(value, list) or not all(isinstance(r, list) for r in value):
        raise PayloadError("the change's assignment is not a list of replica lists")
    return tuple(tuple(_int(b, "assignment") for b in r) for r in value)


@of_kind(Kind.TOPIC)
@dataclasses.dataclass(frozen=True, slots=True)
class TopicPayload:
    """A topic, or the part of it one phase changes; a field is ``None`` when that phase does not involve it.

    ``configs`` values are Kafka strings (``plan.REDACTED`` for a sensitive one); ``usage`` is the evidence of use
    recorded with a delete, plain JSON data that is shown, never decided on. ``config_ops`` (the ``after`` of a config
    change, which holds nothing else) are the writes the change makes, key by key.
    """

    partitions: int | None = None
    replication_factor: int | None = None
    configs: Mapping[str, str | None] | None = None
    assignment: tuple[tuple[int, ...], ...] | None = None
    usage: Any = None
    config_ops: tuple[ConfigOp, ...] | None = None

    _FIELDS = ("partitions", "replication_factor", "configs", "assignment", "usage", "config_ops")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.partitions is not None:
            out["partitions"] = self.partitions
        if self.replication_factor is not None:
            out["replication_factor"] = self.replication_factor
        if self.configs is not None:
            out["configs"] = dict(self.configs)
        if self.assignment is not None:
            out["assignment"] = [list(r) for r in self.assignment]
        if self.usage is not None:
            out["usage"] = self.usage
        if self.config_ops is not None:
            out["config_ops"] = [op.to_dict() for op in self.config_ops]
        return out

    @classmethod
    def from_dict(cls, data: Any) -> TopicPayload:
        d = _fields(data, cls._FIELDS)
        return cls(
            partitions=None if d.get("partitions") is None else _int(d["partitions"], "partitions"),
            replication_factor=(
                None if d.get("replication_factor") is None else _int(d["replication_factor"], "replication_factor")
            ),
            configs=None if d.get("configs") is None else config_values(d["configs"]),
            assignment=None if d.get("assignment") is None else _assignment(d["assignment"]),
            usage=d.get("usage"),
            config_ops=None if d.get("config_ops") is None else config_ops_of(d["config_ops"]),
        )

    # The plan-file names of the phases whose topic changes write other than config operations (``plans.Phase``),
    # each read below by its name here, so the test holding them to ``plans.Phase`` holds what is compared.
    PHASES_WRITING = CREATE, RESIZE, REASSIGN, DELETE = ("TOPIC_CREATE", "PARTITIONS", "REASSIGN", "TOPIC_DELETE")

    @classmethod
    def shown(
        cls, before: TopicPayload | None, after: TopicPayload | None, writing: Writing
    ) -> tuple[AttributeChange, ...] | None:
        """What a topic change shows: a reassignment the replicas it moves, partitions added the new count, a
        creation the topic it creates, a config change its config writes; a deletion nothing derived."""
        if writing.phase == cls.REASSIGN and before is not None and after is not None:
            return reassign_attributes(before, after)
        if writing.phase == cls.RESIZE and before is not None and after is not None:
            return (AttributeChange("partitions", before.partitions, after.partitions),)
        if writing.phase == cls.CREATE and after is not None and before is None:
            return create_attributes(after)
        return ops_shown(before, after)

    @classmethod
    def check(cls, address: str, before: TopicPayload | None, writing: Writing, lines: Sequence[str]) -> str | None:
        """What is wrong with a topic deletion's reasons and warnings (``lines``): they state only what its ``before``
        holds (``deletion.problem``); ``None`` for every other topic change."""
        if writing.phase != cls.DELETE or before is None:
            return None
        return deletion.problem(before.partitions, before.usage, lines)


@of_kind(Kind.ACL)
@dataclasses.dataclass(frozen=True, slots=True)
class AclPayload:
    """One ACL binding."""

    binding: state.AclBinding

    def to_dict(self) -> dict[str, Any]:
        return self.binding.to_dict()

    @classmethod
    def from_dict(cls, data: Any) -> AclPayload:
        names = tuple(f.name for f in dataclasses.fields(state.AclBinding))
        d = _fields(data, names)
        missing = [n for n in names if n not in d]
        if missing:
            raise PayloadError(f"the change has no {', '.join(repr(n) for n in missing)} field")
        texts = {n: _text(d[n], n) for n in names}
        try:  # the four enum fields become their members here, or the change is refused naming the field
            return cls(state.AclBinding(**texts))
        except ValueError as exc:
            raise PayloadError(str(exc)) from None

    @classmethod
    def shown(
        cls, before: AclPayload | None, after: AclPayload | None, writing: Writing
    ) -> tuple[AttributeChange, ...] | None:
        """An ACL change shows its binding, which its address names: nothing is derived."""
        return None


@of_kind(Kind.QUOTA)
@dataclasses.dataclass(frozen=True, slots=True)
class QuotaPayload:
    """The quota values of one entity (``producer_byte_rate`` -> bytes per second), with the entity itself, typed:
    apply writes to ``entity``, never to an entity parsed back from the change's address."""

    entity: state.QuotaEntity
    values: Mapping[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {"entity": self.entity.to_list(), "values": dict(self.values)}

    @classmethod
    def from_dict(cls, data: Any) -> QuotaPayload:
        d = _fields(data, ("entity", "values"))
        values = d.get("values")
        if not isinstance(values, Mapping) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in values.values()
        ):
            raise PayloadError("the change's quota values are not an object of numbers")
        return cls(_quota_entity(d.get("entity")), {str(k): v for k, v in values.items()})

    @classmethod
    def shown(
        cls, before: QuotaPayload | None, after: QuotaPayload | None, writing: Writing
    ) -> tuple[AttributeChange, ...] | None:
        """What a quota change shows: the values it sets and removes (``quota_attributes``)."""
        had = before.values if before is not None else {}
        wants = after.values if after is not None and not writing.deleting else {}
        return quota_attributes(had, wants)


def _quota_entity(value: Any) -> state.QuotaEntity:
    """A plan file's quota entity: a list of ``{type, name}`` (``name`` ``null`` for the default), each type once."""
    if not isinstance(value, list) or not value:
        raise PayloadError("the change's quota entity is not a list of {type, name}")
    parts = []
    for part in value:
        p = _fields(part, ("type", "name"))
        if p.get("type") not in state.QUOTA_ENTITY_TYPES or "name" not in p:
            raise PayloadError(f"the change's quota entity type is not one of {', '.join(state.QUOTA_ENTITY_TYPES)}")
        if p["name"] is not None and not isinstance(p["name"], str):
            raise PayloadError("the change's quota entity name is not text or null")
        parts.append((str(p["type"]), p["name"]))
    if len({t for t, _ in parts}) != len(parts):
        raise PayloadError("the change's quota entity names a type twice")
    return state.QuotaEntity(tuple(sorted(parts, key=lambda part: part[0])))


@of_kind(Kind.SCRAM_USER)
@dataclasses.dataclass(frozen=True, slots=True)
class ScramPayload:
    """A user's SCRAM credentials (mechanism -> iterations); ``password`` describes the secret's reference
    (``env:NAME``), never its value; ``rotation`` is the manifests' rotation marker."""

    credentials: Mapping[str, int]
    name: str | None = None
    password: str | None = None
    rotation: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.name is not None:
            out["name"] = self.name
        out["credentials"] = {m: {"iterations": n} for m, n in self.credentials.items()}
        if self.password is not None:
            out["password"] = self.password
        if self.rotation is not None:
            out["rotation"] = self.rotation
        return out

    @classmethod
    def from_dict(cls, data: Any) -> ScramPayload:
        d = _fields(data, ("name", "credentials", "password", "rotation"))
        creds = d.get("credentials")
        if not isinstance(creds, Mapping) or not all(
            isinstance(v, Mapping) and set(v) == {"iterations"} for v in creds.values()
        ):
            raise PayloadError("the change's credentials are not an object of {iterations: n}")
        return cls(
            credentials={str(m): _int(v["iterations"], "iterations") for m, v in creds.items()},
            name=None if d.get("name") is None else _text(d["name"], "name"),
            password=None if d.get("password") is None else _text(d["password"], "password"),
            rotation=None if d.get("rotation") is None else _text(d["rotation"], "rotation"),
        )

    @classmethod
    def shown(
        cls, before: ScramPayload | None, after: ScramPayload | None, writing: Writing
    ) -> tuple[AttributeChange, ...] | None:
        """What a SCRAM change shows (``scram_attributes``)."""
        return scram_attributes(before, None if writing.deleting else after)


@dataclasses.dataclass(frozen=True, slots=True)
class Unreadable:
    """A plan file's payload that its kind's type cannot read: kept as written, with the reason."""

    raw: Any
    problem: str

    def to_dict(self) -> Any:
        return self.raw

    @classmethod
    def shown(cls, before: Any, after: Any, writing: Writing) -> tuple[AttributeChange, ...] | None:
        """Nothing is derived from data a plan file holds unreadable."""
        return None


def quota_attributes(before: Mapping[str, float], after: Mapping[str, float]) -> tuple[AttributeChange, ...]:
    """What a quota change shows: each key whose value differs (numerically), set, changed or removed."""
    out = []
    for key in sorted(before.keys() | after.keys()):
        new, old = after.get(key), before.get(key)
        if new is not None and old is not None and math.isclose(new, old, rel_tol=1e-9, abs_tol=1e-9):
            continue
        out.append(AttributeChange(key, old, new))
    return tuple(out)


def create_attributes(topic: TopicPayload) -> tuple[AttributeChange, ...]:
    """What a topic creation shows: partitions, replication factor, each config, and the assignment when given."""
    out = [
        AttributeChange("partitions", None, topic.partitions),
        AttributeChange("replication_factor", None, topic.replication_factor),
    ]
    for key, value in (topic.configs or {}).items():
        out.append(AttributeChange(config_attribute(key), None, value, sensitive=configs.is_sensitive(key)))
    if topic.assignment is not None:
        out.append(AttributeChange("assignment", None, [list(r) for r in topic.assignment]))
    return tuple(out)


def _iterations(n: int | None) -> dict[str, int] | None:
    return None if n is None else {"iterations": n}


def scram_attributes(before: ScramPayload | None, after: ScramPayload | None) -> tuple[AttributeChange, ...]:
    """What a SCRAM change shows: each credential it sets whose iterations differ from the live ones, each live
    credential it removes (every one when ``after`` is ``None``, a deletion), and the password reference it sets."""
    had = dict(before.credentials) if before is not None else {}
    wants = dict(after.credentials) if after is not None else {}
    out = [
        AttributeChange(f"credentials.{mech}", _iterations(had.get(mech)), _iterations(n))
        for mech, n in wants.items()
        if had.get(mech) != n
    ]
    out += [AttributeChange(f"credentials.{mech}", _iterations(had[mech]), None) for mech in sorted(had.keys() - wants)]
    if after is not None:
        out.append(AttributeChange("password", None, after.password))
    return tuple(out)


def reassign_attributes(before: TopicPayload, after: TopicPayload) -> tuple[AttributeChange, ...]:
    """What a reassignment shows: the replication factor, if it changes, and each partition whose replicas move."""
    out = []
    if before.replication_factor != after.replication_factor:
        out.append(AttributeChange("replication_factor", before.replication_factor, after.replication_factor))
    have = before.assignment or ()
    for p, replicas in enumerate(after.assignment or ()):
        current = list(have[p]) if p < len(have) else None
        if current != list(replicas):
            out.append(AttributeChange(f"assignment.{p}", current, list(replicas)))
    return tuple(out)


def decode(kind: Kind, data: Any) -> Payload | None:
    """The payload of ``kind`` that ``data`` (from a plan file) describes; ``Unreadable`` when it does not fit."""
    if data is None:
        return None
    try:
        payload: Payload = type_of(kind).from_dict(data)
    except PayloadError as exc:  # only a payload of the wrong shape; anything else is a bug, and stays one
        return Unreadable(data, str(exc))
    return payload


def coerce(kind: Kind, value: Any) -> Payload | None:
    """``value`` when it is a payload already, else the payload of ``kind`` it describes as plan-file data."""
    if value is None or type(value) in CLASSES or isinstance(value, Unreadable):
        payload: Payload | None = value
        return payload
    return decode(kind, value)


def encode(payload: Payload | None) -> Any:
    """The plan file's JSON data of a payload (``None`` for an absent resource)."""
    return None if payload is None else payload.to_dict()

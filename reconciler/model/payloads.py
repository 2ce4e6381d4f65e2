"""The typed ``before``/``after`` payload of a plan change: one type per resource kind, and its JSON form.

The planner builds these, ``Change.to_dict`` writes them with ``to_dict`` and ``Change.from_dict`` reads them back
with ``decode``, so apply and the renderers read fields, never dict keys written by another stage.
``to_dict(from_dict(d)) == d`` for every payload the planner writes, so a saved plan re-serialises byte for byte. A
payload in a plan file that does not have its kind's shape (a plan edited by hand and resealed) is kept as
``Unreadable``: the plan can still be shown, and apply refuses it, naming the change, before anything is written.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from reconciler.base.secret import Secret
from reconciler.model import configs, state
from reconciler.model.connector_payload import CONNECTOR_STATES as CONNECTOR_STATES
from reconciler.model.connector_payload import ConnectorPayload as ConnectorPayload
from reconciler.model.kinds import Kind
from reconciler.model.payload_errors import PayloadError as PayloadError
from reconciler.model.payload_errors import fields as _fields
from reconciler.model.schema_subject_payload import SubjectPayload as SubjectPayload

# A config key's attribute name in a change's ``attributes`` (the display of a diff): ``configs.retention.ms``.
CONFIG_ATTRIBUTE_PREFIX = "configs."


def config_attribute(key: str) -> str:
    """The attribute name that shows config ``key`` in a plan: ``configs.<key>``."""
    return CONFIG_ATTRIBUTE_PREFIX + key


class ConfigAction(str, enum.Enum):
    """What an incremental config change does to one key."""

    SET = "set"
    DELETE = "delete"  # remove the override: the key falls back to its default


@dataclasses.dataclass(frozen=True, slots=True)
class ConfigOp:
    """One config write of a change, the one type every stage uses: set ``key`` to ``value`` (``plan.REDACTED`` for a
    sensitive value, which apply reads from the manifests, or a ``Secret`` once read), or delete it (``value`` is
    ``None``: the key falls back to its default, ``default`` when known, which is shown and never sent).

    The planner builds these; the plan shows them (``plans.config_attributes``), apply sends exactly these and the
    read-back verifies exactly these: a config change carries its writes once."""

    key: str
    action: ConfigAction
    value: str | Secret | None = None  # a ``Secret`` only inside apply, once a redacted value was read
    default: str | None = None

    @classmethod
    def set(cls, key: str, value: str | Secret) -> ConfigOp:
        return cls(key, ConfigAction.SET, value)

    @classmethod
    def delete(cls, key: str, default: str | None = None) -> ConfigOp:
        return cls(key, ConfigAction.DELETE, None, default)

    def to_dict(self) -> dict[str, Any]:
        out = {"key": self.key, "op": self.action.value, "value": self.value}
        if self.default is not None:
            out["default"] = self.default
        return out

    @classmethod
    def from_dict(cls, data: Any) -> ConfigOp:
        d = _fields(data, ("key", "op", "value", "default"))
        key, op, value, default = d.get("key"), d.get("op"), d.get("value"), d.get("default")
        if not isinstance(key, str) or op not in ("set", "delete"):
            raise PayloadError("a config operation is not {key, op: set|delete, value}")
        if (op == "set") != isinstance(value, str):
            raise PayloadError(f"the config operation on {key} has a value that does not fit '{op}'")
        if default is not None and (op != "delete" or not isinstance(default, str)):
            raise PayloadError(f"the config operation on {key} has a default, which only a delete shows, as text")
        return cls(key, ConfigAction(op), value, default)


def _config_ops(value: Any) -> tuple[ConfigOp, ...]:
    if not isinstance(value, list):
        raise PayloadError("the change's config_ops are not a list")
    ops = tuple(ConfigOp.from_dict(v) for v in value)
    if len({op.key for op in ops}) != len(ops):
        raise PayloadError("the change's config_ops name a key twice")
    return ops


def _int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PayloadError(f"the change's {field} is not a whole number")
    return value


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise PayloadError(f"the change's {field} is not text")
    return value


def _configs(value: Any) -> dict[str, str | None]:
    if not isinstance(value, Mapping) or not all(isinstance(v, str) or v is None for v in value.values()):
        raise PayloadError("the change's configs are not an object of text values")
    return {str(k): v for k, v in value.items()}


def _assignment(value: Any) -> tuple[tuple[int, ...], ...]:
    if not isinstance(value, list) or not all(isinstance(r, list) for r in value):
        raise PayloadError("the change's assignment is not a list of replica lists")
    return tuple(tuple(_int(b, "assignment") for b in r) for r in value)


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
            configs=None if d.get("configs") is None else _configs(d["configs"]),
            assignment=None if d.get("assignment") is None else _assignment(d["assignment"]),
            usage=d.get("usage"),
            config_ops=None if d.get("config_ops") is None else _config_ops(d["config_ops"]),
        )


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


def _configs_and_ops(configs: Mapping[str, str | None] | None, ops: tuple[ConfigOp, ...] | None) -> dict[str, Any]:
    out: dict[str, Any] = {} if configs is None else {"configs": dict(configs)}
    if ops is not None:
        out["config_ops"] = [op.to_dict() for op in ops]
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class BrokerConfigPayload:
    """The dynamic configs of one broker or of the cluster default (``before``), or the writes a change makes, key by
    key (``config_ops``, its ``after``)."""

    configs: Mapping[str, str | None] | None = None
    config_ops: tuple[ConfigOp, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        return _configs_and_ops(self.configs, self.config_ops)

    @classmethod
    def from_dict(cls, data: Any) -> BrokerConfigPayload:
        d = _fields(data, ("configs", "config_ops"))
        if d.get("configs") is None and d.get("config_ops") is None:
            raise PayloadError("the change has no 'configs' or 'config_ops' field")
        ops = None if d.get("config_ops") is None else _config_ops(d["config_ops"])
        return cls(None if d.get("configs") is None else _configs(d["configs"]), config_ops=ops)


@dataclasses.dataclass(frozen=True, slots=True)
class EntityConfigPayload:
    """The configs set on a group (by id) or a client-metrics subscription (by name) (``before``), or the writes a
    change makes (``config_ops``, its ``after``). Decoding checks each value a set writes as strictly as the
    manifest field it came from: a catalogued key gets a value of its type and range, in Kafka's canonical form."""

    configs: Mapping[str, str | None] | None = None
    config_ops: tuple[ConfigOp, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        return _configs_and_ops(self.configs, self.config_ops)

    @classmethod
    def from_dict(cls, data: Any) -> EntityConfigPayload:
        d = _fields(data, ("configs", "config_ops"))
        if d.get("configs") is None and d.get("config_ops") is None:
            raise PayloadError("the change has no 'configs' or 'config_ops' field")
        ops = None if d.get("config_ops") is None else _config_ops(d["config_ops"])
        for op in ops or ():
            _check_entity_value(op)
        return cls(None if d.get("configs") is None else _configs(d["configs"]), config_ops=ops)


def _check_entity_value(op: ConfigOp) -> None:
    """A set of a catalogued group or client-metrics key must write a value the manifests could have produced."""
    spec = configs.GROUP_CONFIGS.get(op.key) or configs.CLIENT_METRICS_CONFIGS.get(op.key)
    if spec is None:
        raise PayloadError(f"the config operation names {op.key!r}, which is not a group or client-metrics config")
    if op.value is None:
        return
    problems = configs.validate_config(spec, op.value)
    if not problems and configs.canonical(op.key, op.value) != op.value:
        problems = [f"{op.key}: {op.value!r} is not in Kafka's form ({configs.canonical(op.key, op.value)!r})"]
    if problems:
        raise PayloadError(f"the config operation on {op.key} is not valid: {'; '.join(problems)}")


@dataclasses.dataclass(frozen=True, slots=True)
class Unreadable:
    """A plan file's payload that its kind's type cannot read: kept as written, with the reason."""

    raw: Any
    problem: str

    def to_dict(self) -> Any:
        return self.raw


Payload = (
    TopicPayload
    | AclPayload
    | QuotaPayload
    | ScramPayload
    | BrokerConfigPayload
    | EntityConfigPayload
    | ConnectorPayload
    | SubjectPayload
    | Unreadable
)

PAYLOAD_TYPES = (
    TopicPayload,
    AclPayload,
    QuotaPayload,
    ScramPayload,
    BrokerConfigPayload,
    EntityConfigPayload,
    ConnectorPayload,
    SubjectPayload,
    Unreadable,
)
TYPES: Mapping[Kind, Any] = {
    Kind.TOPIC: TopicPayload,
    Kind.ACL: AclPayload,
    Kind.QUOTA: QuotaPayload,
    Kind.SCRAM_USER: ScramPayload,
    Kind.BROKER_CONFIG: BrokerConfigPayload,
    Kind.GROUP_CONFIG: EntityConfigPayload,
    Kind.CLIENT_METRICS: EntityConfigPayload,
    Kind.CONNECTOR: ConnectorPayload,
    Kind.SCHEMA_SUBJECT: SubjectPayload,
}


def decode(kind: Kind, data: Any) -> Payload | None:
    """The payload of ``kind`` that ``data`` (from a plan file) describes; ``Unreadable`` when it does not fit."""
    if data is None:
        return None
    try:
        payload: Payload = TYPES[kind].from_dict(data)
    except PayloadError as exc:  # only a payload of the wrong shape; anything else is a bug, and stays one
        return Unreadable(data, str(exc))
    return payload


def coerce(kind: Kind, value: Any) -> Payload | None:
    """``value`` when it is a payload already, else the payload of ``kind`` it describes as plan-file data."""
    if value is None or isinstance(value, PAYLOAD_TYPES):
        return value
    return decode(kind, value)


def encode(payload: Payload | None) -> Any:
    """The plan file's JSON data of a payload (``None`` for an absent resource)."""
    return None if payload is None else payload.to_dict()

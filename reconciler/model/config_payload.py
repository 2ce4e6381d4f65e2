"""The config writes a change makes (``ConfigOp``), the payloads of the config kinds (``BrokerConfigPayload``,
``EntityConfigPayload``) and what a config change shows (``config_attributes``): one ``configs.<key>`` line per
write, derived from the writes themselves, so the plan shows exactly what apply sends. ``reconciler.model.payloads``
lists these payloads with the other kinds' and re-exports the names.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping, Sequence
from typing import Any

from reconciler.base.secret import Secret
from reconciler.model import configs
from reconciler.model.attributes import REDACTED, AttributeChange, Writing
from reconciler.model.kinds import Kind
from reconciler.model.payload_errors import PayloadError
from reconciler.model.payload_errors import fields as _fields
from reconciler.model.payload_types import of_kind

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


def config_ops_of(value: Any) -> tuple[ConfigOp, ...]:
    if not isinstance(value, list):
        raise PayloadError("the change's config_ops are not a list")
    ops = tuple(ConfigOp.from_dict(v) for v in value)
    if len({op.key for op in ops}) != len(ops):
        raise PayloadError("the change's config_ops name a key twice")
    return ops


def config_values(value: Any) -> dict[str, str | None]:
    if not isinstance(value, Mapping) or not all(isinstance(v, str) or v is None for v in value.values()):
        raise PayloadError("the change's configs are not an object of text values")
    return {str(k): v for k, v in value.items()}


def _configs_and_ops(configs: Mapping[str, str | None] | None, ops: tuple[ConfigOp, ...] | None) -> dict[str, Any]:
    out: dict[str, Any] = {} if configs is None else {"configs": dict(configs)}
    if ops is not None:
        out["config_ops"] = [op.to_dict() for op in ops]
    return out


@of_kind(Kind.BROKER_CONFIG)
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
        ops = None if d.get("config_ops") is None else config_ops_of(d["config_ops"])
        return cls(None if d.get("configs") is None else config_values(d["configs"]), config_ops=ops)

    @classmethod
    def shown(
        cls, before: BrokerConfigPayload | None, after: BrokerConfigPayload | None, writing: Writing
    ) -> tuple[AttributeChange, ...] | None:
        """What a change of it shows: its config writes (``config_attributes``)."""
        return ops_shown(before, after)


@of_kind(Kind.GROUP_CONFIG, Kind.CLIENT_METRICS)
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
        ops = None if d.get("config_ops") is None else config_ops_of(d["config_ops"])
        for op in ops or ():
            _check_entity_value(op)
        return cls(None if d.get("configs") is None else config_values(d["configs"]), config_ops=ops)

    @classmethod
    def shown(
        cls, before: EntityConfigPayload | None, after: EntityConfigPayload | None, writing: Writing
    ) -> tuple[AttributeChange, ...] | None:
        """What a change of it shows: its config writes (``config_attributes``)."""
        return ops_shown(before, after)


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


def config_attributes(before: Mapping[str, str | None], ops: Sequence[ConfigOp]) -> tuple[AttributeChange, ...]:
    """What a config change shows, derived from the writes it makes (``ops``) and the configs set before: one
    ``configs.<key>`` attribute per operation, in order. The only way a config change's attributes are made, so the
    plan shows exactly what apply sends."""
    out = []
    for op in ops:
        was = before.get(op.key)
        after = op.value if op.action is ConfigAction.SET else None
        out.append(
            AttributeChange(
                name=config_attribute(op.key),
                before=was,
                after=after,
                default=op.default,
                sensitive=REDACTED in (was, after),
            )
        )
    return tuple(out)


def ops_shown(
    before: BrokerConfigPayload | EntityConfigPayload | Any, after: BrokerConfigPayload | EntityConfigPayload | Any
) -> tuple[AttributeChange, ...] | None:
    """What a change whose ``after`` holds config writes shows (``config_attributes``, over the configs ``before``
    holds); ``None`` when ``after`` holds none."""
    ops = getattr(after, "config_ops", None)
    if ops is None:
        return None
    return config_attributes(getattr(before, "configs", None) or {}, ops)

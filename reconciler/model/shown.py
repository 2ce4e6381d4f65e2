"""What a change shows: its attributes (``AttributeChange``), derived from the data apply writes (``derive``).

A config change shows its config operations (``config_attributes``), a quota change the values it sets and removes
(``quota_attributes``), a topic creation the topic it creates (``create_attributes``), a SCRAM change the
credentials it sets and removes and the password reference (``scram_attributes``), a reassignment the replicas it
moves (``reassign_attributes``), a connector change the config keys and state it writes
(``connector_attributes``): the planner builds these changes' attributes with the same functions, and a plan
file whose stored attributes differ is refused on load, so
``show`` prints exactly what apply sends. A topic deletion's lines about the data it destroys are checked against its
``before`` the same way (``check_deletion``)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from reconciler.model import configs, connector_defaults, connector_offsets, deletion, payloads, schema_subject_payload
from reconciler.model.schema_subject_payload import SubjectPayload
from reconciler.registry import canonical

REDACTED = "(sensitive value)"
MASKED = "(masked by Kafka Connect)"  # a live connector value the worker answered masked (connect.secrets.MASKED)


class ChangeMismatch(ValueError):
    """A change whose parts disagree (a plan edited and resealed): what renders show would not be what apply writes."""


def check_deletion(address: str, before: payloads.TopicPayload, lines: Sequence[str]) -> None:
    """A topic deletion's reasons and warnings state only what its ``before`` holds (``deletion.problem``)."""
    wrong = deletion.problem(before.partitions, before.usage, lines)
    if wrong is not None:
        raise ChangeMismatch(f"the change at {address!r} {wrong}")


@dataclasses.dataclass(frozen=True, slots=True)
class AttributeChange:
    """One attribute of a resource: ``configs.retention.ms`` from ``before`` to ``after``.

    ``after`` is ``None`` for a reset to default; ``default`` then says what it falls back to, if known.
    """

    name: str
    before: Any
    after: Any
    default: Any = None
    sensitive: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "before": self.before,
            "after": self.after,
            "default": self.default,
            "sensitive": self.sensitive,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> AttributeChange:
        return cls(
            name=str(d["name"]),
            before=d.get("before"),
            after=d.get("after"),
            default=d.get("default"),
            sensitive=bool(d.get("sensitive", False)),
        )


def config_attributes(
    before: Mapping[str, str | None], ops: Sequence[payloads.ConfigOp]
) -> tuple[AttributeChange, ...]:
    """What a config change shows, derived from the writes it makes (``ops``) and the configs set before: one
    ``configs.<key>`` attribute per operation, in order. The only way a config change's attributes are made, so the
    plan shows exactly what apply sends."""
    out = []
    for op in ops:
        was = before.get(op.key)
        after = op.value if op.action is payloads.ConfigAction.SET else None
        out.append(
            AttributeChange(
                name=payloads.config_attribute(op.key),
                before=was,
                after=after,
                default=op.default,
                sensitive=REDACTED in (was, after),
            )
        )
    return tuple(out)


def quota_attributes(before: Mapping[str, float], after: Mapping[str, float]) -> tuple[AttributeChange, ...]:
    """What a quota change shows: each key whose value differs (numerically), set, changed or removed."""
    out = []
    for key in sorted(before.keys() | after.keys()):
        new, old = after.get(key), before.get(key)
        if new is not None and old is not None and math.isclose(new, old, rel_tol=1e-9, abs_tol=1e-9):
            continue
        out.append(AttributeChange(key, old, new))
    return tuple(out)


def create_attributes(topic: payloads.TopicPayload) -> tuple[AttributeChange, ...]:
    """What a topic creation shows: partitions, replication factor, each config, and the assignment when given."""
    out = [
        AttributeChange("partitions", None, topic.partitions),
        AttributeChange("replication_factor", None, topic.replication_factor),
    ]
    for key, value in (topic.configs or {}).items():
        out.append(AttributeChange(payloads.config_attribute(key), None, value, sensitive=configs.is_sensitive(key)))
    if topic.assignment is not None:
        out.append(AttributeChange("assignment", None, [list(r) for r in topic.assignment]))
    return tuple(out)


def _iterations(n: int | None) -> dict[str, int] | None:
    return None if n is None else {"iterations": n}


def scram_attributes(
    before: payloads.ScramPayload | None, after: payloads.ScramPayload | None
) -> tuple[AttributeChange, ...]:
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


def reassign_attributes(before: payloads.TopicPayload, after: payloads.TopicPayload) -> tuple[AttributeChange, ...]:
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


CONNECTOR_CONFIG = "config."  # a connector config key's attribute name: ``config.file``
OFFSETS = "offsets"  # a connector's declared offsets set (KIP-875)
RESTART, RESTART_AFTER = "restart", "restart what failed"  # a connector declared running that Connect reports FAILED
_RUNNING_AGAIN = ("failed", "unassigned")  # live states a declared ``running`` restarts from without a state write


def connector_attributes(
    before: payloads.ConnectorPayload | None,
    after: payloads.ConnectorPayload | None,
    *,
    secrets_changed: Iterable[str] = (),
) -> tuple[AttributeChange, ...]:
    """What a connector change shows, from the live connector (``before``) and the one apply writes (``after``;
    ``None`` for a deletion, which shows nothing): each config key whose value differs, each secret key shown only as
    changed, and the state. A created connector lists its config, then its secrets, then its state; an updated one
    every differing key in key order (a key Connect defaults, ``tasks.max``, compared as Connect runs it), then the
    state, then a ``restart`` when ``after`` is running and ``before`` lists FAILED parts.

    A secret's value is compared by digest when the plan is made, which its payload does not hold (both sides show
    ``plans.REDACTED``): a secret key that is a secret on both sides is shown when it is in ``secrets_changed``; one
    that was not a secret before is always shown."""
    if after is None:
        return ()
    changed = frozenset(secrets_changed)
    if before is None:
        out = [AttributeChange(CONNECTOR_CONFIG + k, None, v) for k, v in sorted(after.config.items())]
        out += [AttributeChange(CONNECTOR_CONFIG + k, None, REDACTED, sensitive=True) for k in sorted(after.secrets)]
        out.append(AttributeChange("state", None, after.state))
        return (*out, *offsets_attributes(None, after))
    out = []
    keys = set(after.config.keys() | after.secrets.keys() | before.config.keys() | before.secrets.keys())
    if connector_offsets.RECORD_KEY not in after.config:  # no offsets declared: a record left by an earlier one
        keys.discard(connector_offsets.RECORD_KEY)  # is kept as it is, not shown as removed
    for key in sorted(keys):
        hidden = key in before.secrets
        masked = before.secrets.get(key) == MASKED  # the worker answered a mask: comparable only as a secret
        old = REDACTED if hidden else connector_defaults.value(before.config, key)  # tasks.max left out: 1
        if key in after.secrets:
            if not hidden or key in changed:
                was = None if old is None else REDACTED
                out.append(AttributeChange(CONNECTOR_CONFIG + key, was, REDACTED, sensitive=True))
            continue
        new = after.config.get(key)
        if new != old and not (masked and new is not None):
            out.append(AttributeChange(CONNECTOR_CONFIG + key, old, new, sensitive=hidden))
    if before.state != after.state and not (after.state == "running" and before.state in _RUNNING_AGAIN):
        out.append(AttributeChange("state", before.state, after.state))
    out += offsets_attributes(before, after)
    if after.state == "running" and before.failed:
        out.append(restart_attribute(before.failed))
    return tuple(out)


def alters_offsets(before: payloads.ConnectorPayload | None, after: payloads.ConnectorPayload) -> bool:
    """Whether a connector change sets the declared offsets: declared, and their digest is not the one recorded on
    the live connector (``connector_offsets``)."""
    record = connector_offsets.RECORD_KEY
    return bool(after.offsets) and (before is None or before.config.get(record) != after.config.get(record))


def offsets_attributes(
    before: payloads.ConnectorPayload | None, after: payloads.ConnectorPayload
) -> tuple[AttributeChange, ...]:
    """The ``offsets`` line of a change that sets the declared offsets: those Connect holds (read by the plan) and
    those declared."""
    if not alters_offsets(before, after):
        return ()
    return (
        AttributeChange(
            OFFSETS,
            None if before is None else connector_offsets.shown(before.offsets),
            connector_offsets.shown(after.offsets),
        ),
    )


def restart_attribute(failed: Sequence[str]) -> AttributeChange:
    """The ``restart`` line of a connector declared running that Connect reports FAILED (``ConnectorPayload.failed``:
    the connector or a task, each with its trace's first line): apply restarts only what failed."""
    parts = (part.replace(":", " FAILED:", 1) if ":" in part else f"{part} FAILED" for part in failed)
    return AttributeChange(RESTART, "; ".join(parts), RESTART_AFTER)


def _secrets_shown(attributes: Sequence[AttributeChange]) -> frozenset[str]:
    """The config keys a connector change's stored attributes show as a changed secret."""
    return frozenset(
        a.name.removeprefix(CONNECTOR_CONFIG)
        for a in attributes
        if a.sensitive and a.after == REDACTED and a.name.startswith(CONNECTOR_CONFIG)
    )


def _schema_text(schema: str | None, schema_type: str | None) -> str | None:
    if schema is None or schema_type is None:
        return None
    try:
        return canonical.normalize(schema, schema_type)
    except ValueError:
        return schema


def subject_attributes(before: SubjectPayload | None, after: SubjectPayload | None) -> tuple[AttributeChange, ...]:
    """What a subject change shows, derived from its payloads: the schema (canonical text) when a new version is
    written, its type and references when they change, the level and mode written, and how a delete deletes."""
    if after is None:
        how = "permanent" if before is not None and before.permanent else "soft"
        return (AttributeChange("delete", None, how),)
    out: list[AttributeChange] = []
    if schema_subject_payload.new_version(before, after):
        was = before if before is not None else SubjectPayload()
        out.append(
            AttributeChange(
                "schema", _schema_text(was.schema, was.schema_type), _schema_text(after.schema, after.schema_type)
            )
        )
        if was.schema_type != after.schema_type:
            out.append(AttributeChange("schemaType", was.schema_type, after.schema_type))
        if was.references != after.references:
            shown = [[f"{r.name} = {r.subject} v{r.version}" for r in p.references] for p in (was, after)]
            out.append(AttributeChange("references", shown[0], shown[1]))
    for key in ("compatibility", "mode"):
        held = None if before is None else getattr(before, key)
        wanted = getattr(after, key)
        if wanted is not None and wanted != held:
            out.append(AttributeChange(key, held, wanted))
    return tuple(out)


def derive(
    before: payloads.Payload | None,
    after: payloads.Payload | None,
    *,
    creating_topic: bool,
    resizing: bool,
    deleting: bool,
    reassigning: bool = False,
    stored: Sequence[AttributeChange] = (),
) -> tuple[AttributeChange, ...] | None:
    """The attributes a change shows, from its data, for the changes whose data says everything they write (config
    changes, quota changes, topic creations, partitions added, SCRAM changes, reassignments, connectors); ``None`` for
    the others (a blocked reassignment writes nothing and has no ``after``) and for data a plan file holds unreadable.
    ``stored`` are the attributes the change carries: a connector's secret compared by digest is shown when they
    show it (``connector_attributes``)."""
    if isinstance(before, payloads.Unreadable) or isinstance(after, payloads.Unreadable):
        return None
    if isinstance(before, payloads.ConnectorPayload) or isinstance(after, payloads.ConnectorPayload):
        return connector_attributes(
            before if isinstance(before, payloads.ConnectorPayload) else None,
            None if deleting or not isinstance(after, payloads.ConnectorPayload) else after,
            secrets_changed=_secrets_shown(stored),
        )
    if isinstance(before, schema_subject_payload.SubjectPayload) or isinstance(
        after, schema_subject_payload.SubjectPayload
    ):
        return subject_attributes(
            before if isinstance(before, schema_subject_payload.SubjectPayload) else None,
            None if deleting or not isinstance(after, schema_subject_payload.SubjectPayload) else after,
        )
    if isinstance(before, payloads.ScramPayload) or isinstance(after, payloads.ScramPayload):
        live = before if isinstance(before, payloads.ScramPayload) else None
        sets = after if isinstance(after, payloads.ScramPayload) and not deleting else None
        return scram_attributes(live, sets)
    if reassigning and isinstance(before, payloads.TopicPayload) and isinstance(after, payloads.TopicPayload):
        return reassign_attributes(before, after)
    if resizing and isinstance(before, payloads.TopicPayload) and isinstance(after, payloads.TopicPayload):
        return (AttributeChange("partitions", before.partitions, after.partitions),)
    if isinstance(before, payloads.QuotaPayload) or isinstance(after, payloads.QuotaPayload):
        had = before.values if isinstance(before, payloads.QuotaPayload) else {}
        wants = after.values if isinstance(after, payloads.QuotaPayload) and not deleting else {}
        return quota_attributes(had, wants)
    if creating_topic and isinstance(after, payloads.TopicPayload) and before is None:
        return create_attributes(after)
    ops = getattr(after, "config_ops", None)
    if ops is None:
        return None
    return config_attributes(getattr(before, "configs", None) or {}, ops)

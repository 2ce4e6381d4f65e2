"""The plan as data: actions, phases, changes, and the versioned JSON plan-file format.

A ``Plan`` is produced by ``reconciler.planner.plan`` (pure), rendered by ``reconciler.render``,
saved with ``to_json``/``save`` and executed by ``reconciler.apply``. Every change carries the
fingerprint of the live resource it was computed from, so a saved plan can be checked for
staleness before any write. The plan file never holds a secret value: sensitive values are
replaced by ``REDACTED`` before a ``Change`` is built.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import reconciler
from reconciler.base import errors, fileio
from reconciler.model import impact as impact_mod
from reconciler.model import payloads, planfile, shown, state
from reconciler.model.kinds import Kind

REDACTED = shown.REDACTED
AttributeChange = shown.AttributeChange
config_attributes = shown.config_attributes
ChangeMismatch = shown.ChangeMismatch


class Action(str, enum.Enum):
    """The closed set of things a plan can say about one resource."""

    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"
    NOOP = "no-op"
    BLOCKED = "blocked"

    @property
    def symbol(self) -> str:
        return {"create": "+", "update": "~", "delete": "-", "no-op": " ", "blocked": "!"}[self.value]

    @property
    def rank(self) -> int:
        """Which action an address with several changes shows: blocked > delete > create > update > no-op."""
        return {"no-op": 0, "update": 1, "create": 2, "delete": 3, "blocked": 4}[self.value]


class Phase(enum.IntEnum):
    """Apply order: deletes before adds. A plan's changes are sorted by phase, then address."""

    ACL_DELETE = 10
    CONNECTOR_DELETE = 15  # before the topics a connector used
    TOPIC_DELETE = 20
    SCHEMA_SUBJECT_DELETE = 25  # after the topics it served (referrers before the subjects they reference)
    SCHEMA_SUBJECT = 27  # levels and new versions: before the topics and connectors that use them
    TOPIC_CREATE = 30
    PARTITIONS = 40
    TOPIC_CONFIG = 50
    REASSIGN = 60
    QUOTA = 70
    SCRAM = 80
    BROKER_CONFIG = 90
    GROUP_CONFIG = 92
    CLIENT_METRICS = 94
    ACL_CREATE = 100
    CONNECTOR = 110  # after the topics and ACLs a connector needs

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


class AddressMismatch(ChangeMismatch):
    """A change whose address does not name its kind and name: renders show one resource and apply writes another."""


class AttributesMismatch(ChangeMismatch):
    """A change whose shown attributes are not those of the data it writes (``shown.derive``)."""


MalformedPlan = planfile.MalformedPlan


@dataclasses.dataclass(frozen=True, slots=True)
class Change:
    """One step on one resource in one phase.

    ``address`` is ``kind/name`` (e.g. ``topic/orders``; see ``AclBinding.address`` and
    ``QuotaEntity.address``). A resource touched in several phases (partitions added and configs
    changed) has one change per phase, sharing the address. ``before``/``after`` are the whole
    resource's typed payload (``reconciler.model.payloads``; ``None`` when absent), ``attributes`` the differing parts.
    ``fingerprint`` is ``state.fingerprint`` of the live resource (``None`` if it did not exist).
    """

    address: str
    kind: Kind
    name: str
    action: Action
    phase: Phase
    before: payloads.Payload | None = None
    after: payloads.Payload | None = None
    attributes: tuple[AttributeChange, ...] = ()
    reasons: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    fingerprint: str | None = None
    source: str | None = None  # "file:line:col (origin)" of the declaration, if any

    def __post_init__(self) -> None:
        kind = Kind.parse(self.kind)
        object.__setattr__(self, "kind", kind)
        if self.address != kind.address(self.name):
            raise AddressMismatch(
                f"the change at {self.address!r} names the {kind} {self.name!r}, whose address is "
                f"{kind.address(self.name)!r}"
            )
        # Plain plan-file data (a change made by hand) becomes the kind's typed payload.
        object.__setattr__(self, "before", payloads.coerce(kind, self.before))
        object.__setattr__(self, "after", payloads.coerce(kind, self.after))
        writing = shown.Writing(self.phase.name, deleting=self.action is Action.DELETE, stored=self.attributes)
        derived = shown.derive(self.before, self.after, writing)
        if derived is not None:  # the change shows what its data writes, nothing else
            if self.attributes and tuple(self.attributes) != derived:
                raise AttributesMismatch(f"the change at {self.address!r} shows other values than its data writes")
            object.__setattr__(self, "attributes", derived)
        if self.action is Action.NOOP and self.attributes:  # nothing is written, so nothing may show as changing
            raise AttributesMismatch(
                f"the change at {self.address!r} is a no-op but shows {len(self.attributes)} attribute line(s)"
            )
        shown.check(self.address, self.before, self.after, writing, (*self.reasons, *self.warnings))

    def to_dict(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "kind": self.kind.value,
            "name": self.name,
            "action": self.action.value,
            "phase": self.phase.name,
            "before": payloads.encode(self.before),
            "after": payloads.encode(self.after),
            "attributes": [a.to_dict() for a in self.attributes],
            "reasons": list(self.reasons),
            "warnings": list(self.warnings),
            "fingerprint": self.fingerprint,
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, d: Any) -> Change:
        """The change a plan file's entry describes; ``MalformedPlan`` naming the field that is missing, unknown or
        not one of its values (``ChangeMismatch`` for parts that disagree)."""
        planfile.check_change_fields(d, actions=[a.value for a in Action], phases=list(Phase.__members__))
        kind = Kind.parse(d["kind"])
        return cls(
            address=str(d["address"]),
            kind=kind,
            name=str(d["name"]),
            action=Action(d["action"]),
            phase=Phase[d["phase"]],
            before=payloads.decode(kind, d.get("before")),
            after=payloads.decode(kind, d.get("after")),
            attributes=tuple(AttributeChange.from_dict(a) for a in planfile.attribute_list(d.get("attributes", []))),
            reasons=planfile.texts(d.get("reasons", []), "reasons"),
            warnings=planfile.texts(d.get("warnings", []), "warnings"),
            fingerprint=planfile.optional_text(d.get("fingerprint"), "fingerprint"),
            source=planfile.optional_text(d.get("source"), "source"),
        )


@dataclasses.dataclass(frozen=True, slots=True)
class Unmanaged:
    """A live resource inside the ownership rules, not declared, kept because deletion is disabled."""

    address: str
    kind: Kind
    name: str
    reason: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Kind.parse(self.kind))

    def to_dict(self) -> dict[str, str]:
        return {"address": self.address, "kind": self.kind.value, "name": self.name, "reason": self.reason}


@dataclasses.dataclass(frozen=True, slots=True)
class PlanWarning:
    """A warning about the plan or the cluster (lint, access gap, unknown default, ...)."""

    message: str
    address: str | None = None
    code: str = "warning"  # short machine-readable code, e.g. "access-gap", "auto-create-enabled"
    severity: str = "warning"  # "warning" or "error" (an error-level lint blocks apply)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterInfo:
    """The header of a plan: which cluster it was computed against."""

    cluster_id: str | None
    controller_id: int | None
    brokers: tuple[state.Broker, ...] = ()
    # How the cluster was reached: address, protocol and the Cluster profile they came from (None: not recorded).
    target: str | None = None

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "cluster_id": self.cluster_id,
            "controller_id": self.controller_id,
            "brokers": [dataclasses.asdict(b) for b in self.brokers],
        }
        if self.target is not None:
            body["target"] = self.target
        return body

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ClusterInfo:
        return cls(
            cluster_id=d.get("cluster_id"),
            controller_id=d.get("controller_id"),
            brokers=tuple(state.Broker(**b) for b in d.get("brokers", [])),
            target=d.get("target"),
        )


SUMMARY_COUNTS = ("create", "update", "delete", "blocked", "unmanaged", "unchanged")  # Summary's count fields


@dataclasses.dataclass(frozen=True, slots=True)
class Summary:
    """Counts of distinct resource addresses per action."""

    create: int = 0
    update: int = 0
    delete: int = 0
    blocked: int = 0
    unmanaged: int = 0
    unchanged: int = 0  # resources compared and found equal (counted, not listed)

    @property
    def has_changes(self) -> bool:
        return bool(self.create or self.update or self.delete)

    def line(self) -> str:
        if not (self.has_changes or self.blocked):
            return "No changes. The cluster matches the manifests."
        text = f"Plan: {self.create} to create, {self.update} to update, {self.delete} to delete"
        if self.blocked:
            text += f", {self.blocked} blocked"
        return text + "."


@dataclasses.dataclass(frozen=True, slots=True)
class Plan:
    """A complete plan for one cluster."""

    cluster: ClusterInfo
    changes: tuple[Change, ...]
    warnings: tuple[PlanWarning, ...] = ()
    unmanaged: tuple[Unmanaged, ...] = ()
    live_fingerprint: str | None = None
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    format_version: int = planfile.PLAN_FORMAT_VERSION
    unchanged: Mapping[Kind, int] = dataclasses.field(default_factory=dict)  # kind -> resources found equal
    impact: impact_mod.PlanImpact | None = None  # what the changes will do (each kind's impact part)
    tool_version: str = reconciler.__version__  # the kafka-reconciler release that wrote the plan
    # What an out-of-band change may not touch for the plan to stay current: the rules, fingerprint and counts of
    # ``reconciler.planner.scope`` (plain JSON data), checked by apply before any write.
    scope: Mapping[str, Any] | None = None

    @property
    def actionable(self) -> tuple[Change, ...]:
        """Changes that apply would carry out (create, update, delete), in phase order."""
        return tuple(c for c in self.changes if c.action in (Action.CREATE, Action.UPDATE, Action.DELETE))

    @property
    def blocked(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.action is Action.BLOCKED)

    def summary(self) -> Summary:
        per_address: dict[str, Action] = {}
        for c in self.changes:
            prev = per_address.get(c.address)
            if prev is None or c.action.rank > prev.rank:
                per_address[c.address] = c.action
        counts = Counter(per_address.values())
        return Summary(
            create=counts[Action.CREATE],
            update=counts[Action.UPDATE],
            delete=counts[Action.DELETE],
            blocked=counts[Action.BLOCKED],
            unmanaged=len(self.unmanaged),
            unchanged=sum(self.unchanged.values()),
        )

    def counts_by_kind(self) -> dict[Kind, dict[str, int]]:
        """Per kind: the summary's counts (distinct addresses per action, unmanaged and unchanged)."""
        kinds = sorted({c.kind for c in self.changes} | {u.kind for u in self.unmanaged} | set(self.unchanged))
        out: dict[Kind, dict[str, int]] = {}
        for kind in kinds:
            part = Plan(
                cluster=self.cluster,
                changes=tuple(c for c in self.changes if c.kind == kind),
                unmanaged=tuple(u for u in self.unmanaged if u.kind == kind),
                unchanged={kind: self.unchanged.get(kind, 0)},
            ).summary()
            out[kind] = {a: int(getattr(part, a)) for a in SUMMARY_COUNTS}
        return out

    # ------------------------------------------------------------------------------------ plan file
    def to_json_dict(self) -> dict[str, Any]:
        body = {
            "format": planfile.PLAN_FORMAT,
            "format_version": self.format_version,
            "tool_version": self.tool_version,
            "cluster": self.cluster.to_dict(),
            "live_fingerprint": self.live_fingerprint,
            "options": dict(self.options),
            "summary": dataclasses.asdict(self.summary()),
            "changes": [c.to_dict() for c in self.changes],
            "warnings": [w.to_dict() for w in self.warnings],
            "unmanaged": [u.to_dict() for u in self.unmanaged],
            "unchanged": {k.value: n for k, n in sorted(self.unchanged.items())},
            **({} if self.impact is None else {"impact": self.impact.to_dict()}),
            **({} if self.scope is None else {"scope": dict(self.scope)}),
        }
        body["checksum"] = planfile.seal(body)
        return body

    def to_json(self) -> str:
        return json.dumps(self.to_json_dict(), indent=2) + "\n"

    @classmethod
    def from_json_dict(cls, doc: Mapping[str, Any], *, other_version: bool = False) -> Plan:
        """Parse and verify a plan document (``planfile.check``); a hand-edited plan fails its checksum, a plan of
        another release is refused unless ``other_version``."""
        written_by = planfile.check(doc, other_version=other_version)
        try:
            missing = [section for section in ("cluster", "changes") if section not in doc]
            if missing:
                raise MalformedPlan(f"the plan lacks its {' and '.join(map(repr, missing))} section(s)")
            return cls(
                cluster=ClusterInfo.from_dict(doc["cluster"]),
                changes=planfile.entries(doc["changes"], Change.from_dict, keep=(ChangeMismatch,)),
                warnings=tuple(
                    PlanWarning(**planfile.strings(w, "warning", optional=("address",)))
                    for w in doc.get("warnings", [])
                ),
                unmanaged=tuple(
                    Unmanaged(**planfile.strings(u, "unmanaged resource")) for u in doc.get("unmanaged", [])
                ),
                live_fingerprint=doc.get("live_fingerprint"),
                options=dict(doc.get("options", {})),
                unchanged={Kind.parse(k): int(v) for k, v in doc.get("unchanged", {}).items()},
                impact=None if doc.get("impact") is None else impact_mod.PlanImpact.from_dict(doc["impact"]),
                tool_version=written_by,
                scope=planfile.scope_section(doc.get("scope")),
            )
        except ChangeMismatch as exc:
            raise errors.PlanFileError(f"refused: {exc}; the plan was edited after it was written") from None
        except MalformedPlan as exc:
            raise errors.PlanFileError(f"malformed plan file: {exc}") from None
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            # AttributeError: a section of the wrong JSON type (a list or a string where an object belongs)
            raise errors.PlanFileError(f"malformed plan file: {type(exc).__name__}: {exc}") from None

    def save(self, path: Path) -> None:
        fileio.write_private_file(path, self.to_json())

    @classmethod
    def load(cls, path: Path, *, other_version: bool = False) -> Plan:
        doc = planfile.read_document(path)
        try:
            return cls.from_json_dict(doc, other_version=other_version)
        except errors.PlanFileError as exc:
            raise errors.PlanFileError(f"{path}: {exc}") from None


def sort_changes(changes: Iterable[Change]) -> tuple[Change, ...]:
    """Phase order, then address: the order apply runs and renderers show."""
    return tuple(sorted(changes, key=lambda c: (c.phase, c.address)))


def addresses(changes: Sequence[Change]) -> list[str]:
    return sorted({c.address for c in changes})

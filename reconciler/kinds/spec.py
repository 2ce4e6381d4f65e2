"""The shape of a kind's declaration (``KindSpec``): what every stage needs of a resource kind, in one record.

A kind declares, in a module of its own under ``reconciler.kinds``, its payload type, the apply phases it writes in
(with the actions each phase carries and the Kafka rights the write and its read-back need), where its resources
are kept in the live state, the desired state and a snapshot, and which ownership rules manage its undeclared
resources. ``reconciler.kinds.registry`` lists the declarations; the stages iterate it instead of branching on the
kind, and a unit test fails when a kind lacks a member or a stage's per-kind table lacks a kind.

The code a stage runs for a kind (its planner, the decoder and runner of each apply phase, its snapshot section, its
fleet rows, its import) is a ``Part``: named by where it lives, ``"package.module:attribute"``, and imported the
first time a stage asks for it. So a kind's code may use the stage frameworks (``reconciler.planner.common``,
``reconciler.apply.batch``) while the stages reach it only through the registry, and a command imports only the
parts it runs (``validate`` none of apply's). ``tests/unit/test_kinds_registry.py`` resolves every part.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar, cast

from reconciler.model import desired, plans, state
from reconciler.model import impact as im
from reconciler.model.kinds import Kind

T = TypeVar("T")
CLUSTER_NAME = "kafka-cluster"  # the one resource name of Kafka's CLUSTER resource type
# A declared resource: its address, its change name and where the manifests declare it.
Declared = tuple[str, str, desired.Source | None]
ConfigSection = Mapping[str, Mapping[str, str | None]]  # name -> the configs set on it
# The configs set on one resource (by name) as read (``None``: its kind was not read, or the kind has no configs).
LiveConfigs = Callable[[state.ClusterState, str], Mapping[str, str | None] | None]
# The configs the manifests declare on one resource (``None``: not declared, or the kind has no configs).
DeclaredConfigs = Callable[[desired.DesiredState, str], Mapping[str, str] | None]
# The lines one attribute of a change shows in the text plan, the first in place of its one line (``None``: that line).
AttributeLines = Callable[[plans.Change, plans.AttributeChange], list[str] | None]
# An apply phase's parts (``PhaseSpec``): the decoder of one change, and the runner of the phase's operations.
PhaseDecoder = Callable[[plans.Change], Any]
PhaseRunner = Callable[..., list[Any]]
# (port, live, wanted, *, deadline) -> ``live`` with the kind's resources a plan of ``wanted`` covers, and the
# evidence the planner weighs, read over the kind's port by ``deadline`` (``time.monotonic()``).
ReadForPlan = Callable[..., state.ClusterState]
# (port, live, *, deadline) -> ``live`` with every resource of the kind the port holds.
ReadEvery = Callable[..., state.ClusterState]
# (live, ops, *, port, wanted, deadline_s, covered) -> ``live`` with the kind's resources the plan's operations
# ``ops`` change (and, with ``covered``, the plan's scope), read over ``port`` (``None``: the command opened none;
# ``ConfigError`` when the plan writes through it), no wait longer than ``deadline_s``.
ReadToApply = Callable[..., state.ClusterState]
# (live, wanted) -> ``live`` read from a snapshot, with what the kind adds without asking its port (the connectors'
# secret digests, resolved from the manifests' references), so an offline plan compares as a live one does.
ReadOffline = Callable[[state.ClusterState, desired.DesiredState], state.ClusterState]
# The members a kind has exactly when it is written through a REST port.
PORT_PARTS = ("read_for_plan", "read_every", "read_to_apply", "read_offline")


@dataclasses.dataclass(frozen=True, slots=True)
class Part(Generic[T]):
    """A piece of a kind's code, named ``"package.module:attribute"`` and imported when first asked for (see the
    module docstring)."""

    where: str

    def get(self) -> T:
        """The named attribute, its module imported on first use (then Python's module cache answers)."""
        module, _, attribute = self.where.partition(":")
        return cast(T, getattr(importlib.import_module(module), attribute))


# A kind's Ownership rules a saved plan's scope records, by ``RuleSet.key``.
Rules = Mapping[str, tuple[desired.NamePattern, ...]]


@dataclasses.dataclass(frozen=True, slots=True)
class RuleSet:
    """Ownership rules of a kind that a saved plan's scope records (``reconciler.planner.scope``), under ``key`` of the
    scope document: a list of ``[rule kind, value]`` pairs, or (``by_kind``) an object of such lists by kind. Recorded
    when the kind's undeclared resources are managed, or ``always``."""

    key: str
    rules: Callable[[desired.Ownership], tuple[desired.NamePattern, ...]]
    by_kind: bool = False
    always: bool = False


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class KindScope:
    """Which live resources of a kind a saved plan depends on (``reconciler.planner.scope``): the declared ones and
    those its recorded rules own. A resource is named by its key in the kind's live and desired sections (a name, an
    ACL binding, a quota entity); ``name`` gives the key's change name."""

    rule_sets: tuple[RuleSet, ...] = ()
    name: Callable[[Any], str] = str
    owns: Callable[[Rules, Any, Any], bool]  # whether the rules own the resource (its key, its live value or ``None``)
    # ``live`` with only the resources of this kind ``keep(key, value)`` accepts (a section not read stays ``None``)
    keep: Callable[[state.ClusterState, Callable[[Any, Any], bool]], state.ClusterState]
    count: Callable[[state.ClusterState], int | None]  # its resources present in ``live`` (``None``: not read)


@dataclasses.dataclass(frozen=True, slots=True)
class Right:
    """An ACL operation on a Kafka resource type: on the change's own resource (``TOPIC``, ``GROUP``: the change's
    name) or on the cluster (``CLUSTER``: ``kafka-cluster``)."""

    resource_type: str  # CLUSTER, TOPIC or GROUP, as Kafka's ACLs name them
    operation: str  # ALTER, ALTER_CONFIGS, CREATE, DELETE, DESCRIBE, DESCRIBE_CONFIGS

    def resource_name(self, change_name: str) -> str:
        """The resource this right is asked on for a change of ``change_name``."""
        return CLUSTER_NAME if self.resource_type == "CLUSTER" else change_name


@dataclasses.dataclass(frozen=True, slots=True)
class PhaseSpec:
    """One apply phase of a kind: the actions its changes may carry, the right the write needs (``None``: the
    port has no Kafka ACL, as Kafka Connect's REST API), and what reading it back needs besides; then, keyword-only,
    the parts apply runs for it: ``decode`` turns one of its changes into the typed write apply carries out
    (``reconciler.apply.decoded``: it raises ``CannotDecode`` for a change that cannot be carried out as written),
    ``run`` carries out the phase's operations, ``run(ctx, operations, *, live) -> outcomes`` (one per operation,
    ``reconciler.apply.engine``)."""

    phase: plans.Phase
    actions: frozenset[plans.Action]
    write: Right | None
    read_back: tuple[Right, ...] = ()
    _: dataclasses.KW_ONLY
    decode: Part[PhaseDecoder]
    run: Part[PhaseRunner]


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class KindSpec:
    """Everything the stages need of one resource kind (see the module docstring)."""

    kind: Kind
    payload: type[Any]  # its ``before``/``after`` payload type (``reconciler.model.payloads``)
    phases: tuple[PhaseSpec, ...]
    live_section: Callable[[state.ClusterState], Any]  # its resources in the live state; ``None`` when not read
    desired_section: Callable[[desired.DesiredState], Mapping[Any, Any]]  # its declared resources
    declared: Callable[[desired.DesiredState], Iterable[Declared]]  # (address, name, source) of each, in any order
    snapshot_section: str  # its section's key in a snapshot document
    owned_by_rules: Callable[[desired.Ownership], bool]  # whether ownership rules name undeclared resources of it
    # the view of resource ``name`` in its live section (empty when not read): what a change's fingerprint covers
    live_view: Callable[[Any, str], Any]
    live_configs: LiveConfigs  # what the read-back compares a config write with
    declared_configs: DeclaredConfigs  # where apply finds a config value a plan holds only as ``plan.REDACTED``
    port: str = "kafka"  # the port that writes it: "kafka" (the wire, ACL-checked), "connect" or "registry" (REST)
    # -- the planner's parts
    plan: Part[Callable[[Any], None]]  # adds the changes and unmanaged entries of this kind to a planner Context
    # its live section as plain values in a fixed order (``None`` when not read): its part of a live fingerprint
    fingerprint_rows: Part[Callable[[state.ClusterState], Any]]
    scope: Part[KindScope]  # which of its live resources a saved plan depends on (``reconciler.planner.scope``)
    label: str  # its resources in a sentence ("client quotas", "dynamic broker configs")
    # the topics whose usage evidence (consumer groups, latest records) a change of this kind needs read before planning
    usage_topics: Part[Callable[[plans.Change, desired.DesiredState], Iterable[str]]]
    # what its changes will do to data, producers and the cluster, from live evidence (``KindImpact``); default none
    impact: Part[KindImpact] = dataclasses.field(default_factory=lambda: DEFAULT_IMPACT)
    # -- apply's parts
    # what an applied operation (``reconciler.apply.decoded.Operation``) of this kind still lacks in the live state
    # read back after the phases (``reconciler.apply.verify``): one sentence per difference, none when it converged
    check_applied: Part[Callable[[Any, state.ClusterState], list[str]]]
    # -- the snapshot's and the renders' parts
    # the text plan's lines of one attribute of a change of this kind, when it shows as more than its one line (a
    # subject's new version: the unified diff of its schema text); ``None``: its one line (``render.values``)
    attribute_lines: Part[AttributeLines] = dataclasses.field(
        default_factory=lambda: Part("reconciler.kinds.spec:one_line")
    )
    snapshot: Part[SnapshotSection]  # its section of a snapshot file and its resources as ``diff A B`` compares them
    # -- fleet's and import's parts
    rows: Part[FleetRows]  # its resources and Ownership rules in the fleet row model (``reconciler.fleet.rows``)
    # adds the documents of its live resources to an import (a ``reconciler.adopt.job.Job``; ``ImportJob`` is what a
    # kind's own package may use of it), with notes on what it left out and how many it wrote
    adopt: Part[Callable[[Any], None]]
    # -- the manifests' parts
    # its manifest documents' model, build, Ownership rule fields and delete hover (``manifests.parts.ManifestPart``)
    manifest: Part[Any]
    # -- the ports' parts
    # A kind written through a REST port (``port`` other than "kafka"; ``reconciler.ports``) reads its resources
    # over it; a Kafka kind has none of these (the Kafka adapter's ``read_state`` reads it).
    read_for_plan: Part[ReadForPlan] | None = None  # its resources a plan of the manifests compares with
    read_every: Part[ReadEvery] | None = None  # every resource of it the port holds (snapshot, import)
    read_to_apply: Part[ReadToApply] | None = None  # what apply's checks and writes compare with, before writing
    read_offline: Part[ReadOffline] | None = None  # what a plan from a snapshot adds to it without asking the port

    def phase(self, phase: plans.Phase) -> PhaseSpec | None:
        """This kind's declaration of ``phase``, if it writes in it."""
        return next((p for p in self.phases if p.phase is phase), None)


ALL_ACTIONS = frozenset({plans.Action.CREATE, plans.Action.UPDATE, plans.Action.DELETE})


def one_line(change: plans.Change, attribute: plans.AttributeChange) -> None:
    """``attribute_lines`` of a kind whose attributes each show as one line."""


def no_live_configs(live: state.ClusterState, name: str) -> None:
    """``live_configs`` of a kind without configs."""


def no_declared_configs(wanted: desired.DesiredState, name: str) -> None:
    """``declared_configs`` of a kind without configs."""


def no_usage_topics(change: plans.Change, wanted: desired.DesiredState) -> tuple[str, ...]:
    """``usage_topics`` of a kind whose changes need no topic's usage."""
    return ()


# -- the planner's parts
Changes = Sequence[plans.Change]


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class KindImpact:
    """What a kind's changes will do to data, producers and the cluster, weighed from live evidence (the topics' is
    ``reconciler.kinds.topic.impact``). ``needs`` names the evidence a first plan's changes need read
    (``operations.with_evidence`` asks the adapter's ``read_impact_evidence`` for it; ``None`` or an empty request:
    nothing); ``assess`` returns the changes with an ``impact: ...`` warning per finding added, and what the plan
    says of it all (``Plan.impact``; ``None`` when nothing was found). Both see every change of the plan, in the
    plan's order, and leave the other kinds' changes as they are."""

    needs: Callable[[Changes, desired.DesiredState, state.ClusterState], im.EvidenceRequest | None]
    assess: Callable[
        [Changes, desired.DesiredState, state.ClusterState], tuple[tuple[plans.Change, ...], im.PlanImpact | None]
    ]


def _no_evidence(changes: Changes, wanted: desired.DesiredState, live: state.ClusterState) -> None:
    return None


def _nothing_found(
    changes: Changes, wanted: desired.DesiredState, live: state.ClusterState
) -> tuple[tuple[plans.Change, ...], None]:
    return tuple(changes), None


# ``impact`` of a kind whose changes have no impact to weigh: no evidence, no finding (the default part)
NO_IMPACT = KindImpact(needs=_no_evidence, assess=_nothing_found)
DEFAULT_IMPACT: Part[KindImpact] = Part("reconciler.kinds.spec:NO_IMPACT")


def live_configs_in(section: Callable[[state.ClusterState], ConfigSection | None]) -> LiveConfigs:
    """``live_configs`` of a kind whose live section maps each name to the configs set on it."""

    def configs(live: state.ClusterState, name: str) -> Mapping[str, str | None] | None:
        found = section(live)
        return None if found is None else found.get(name, {})

    return configs


def declared_configs_in(section: Callable[[desired.DesiredState], Mapping[str, Any]]) -> DeclaredConfigs:
    """``declared_configs`` of a kind whose declared resources each hold ``configs``."""

    def configs(wanted: desired.DesiredState, name: str) -> Mapping[str, str] | None:
        found = section(wanted).get(name)
        if found is None:
            return None
        declared: Mapping[str, str] = found.configs
        return declared

    return configs


# -- fleet's and import's parts
Row = tuple[str, str, str, str | None]  # (kind, name, attribute, value): one fleet row of one cluster
RowSection = Mapping[str, Mapping[str, str | None]]  # one kind's rows: name -> attribute -> value


def _no_rules(own: desired.Ownership) -> Mapping[str, Any]:
    return {}


def _same_rules(own: desired.Ownership, doc: Mapping[str, Any]) -> desired.Ownership:
    return own


def _nothing_resolved(live: state.ClusterState, wanted: desired.DesiredState) -> state.ClusterState:
    return live


def _no_rows(live: state.ClusterState) -> Iterable[Row]:
    return ()


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class FleetRows:
    """A kind in the fleet row model (``reconciler.fleet.rows``): its declared and live resources as rows, and back.

    A side's rows and its rebuild are exact inverses. Attributes named ``@...`` travel but are
    not compared when the two sides are joined; ``optional`` ones are compared only when declared."""

    desired_rows: Callable[[desired.DesiredState], Iterable[Row]]  # the rows of its declared resources
    # ``wanted`` with its declared resources rebuilt from their rows
    rebuild_desired: Callable[[desired.DesiredState, RowSection], desired.DesiredState]
    live_rows: Callable[[state.ClusterState], Iterable[Row]]  # the rows of its live resources
    # ``live`` with its section rebuilt from its rows and its metadata (``meta``'s value; ``None`` for a kind without
    # one); called only when its section was read
    rebuild_live: Callable[[state.ClusterState, RowSection, Any], state.ClusterState]
    # its own live metadata row: (attribute, its JSON value, ``None`` when the section was not read); without one, the
    # ``sections`` metadata row says whether it was read
    meta: tuple[str, Callable[[state.ClusterState], Any]] | None = None
    optional: frozenset[str] = frozenset()  # attributes a declaration may leave out (the cluster always has one)
    # its Ownership rules as the desired rows' ``ownership`` metadata (JSON fields), and the rules those fields give
    rules: Callable[[desired.Ownership], Mapping[str, Any]] = _no_rules
    rebuild_rules: Callable[[desired.Ownership, Mapping[str, Any]], desired.Ownership] = _same_rules
    # ``live`` rebuilt from rows with what the kind resolves where the cluster is planned, as an offline plan does (a
    # connector's declared secrets: their digests; rows never hold a secret)
    resolve: Callable[[state.ClusterState, desired.DesiredState], state.ClusterState] = _nothing_resolved
    # the desired-side rows of what ``resolve`` added, joined with the live rows so that the drift compares as the
    # plan does (a declared secret by its digest)
    resolved_rows: Callable[[state.ClusterState], Iterable[Row]] = _no_rows


class ImportJob(Protocol):
    """An import in progress as a kind's own package sees it (``reconciler.adopt.job.Job``): the live state read, and
    where its documents, notes and counts go."""

    @property
    def live(self) -> state.ClusterState: ...

    def note(self, resource: str, message: str, *, severity: str = "warning") -> None: ...

    def count(self, what: str, n: int) -> None: ...

    # a manifest file of (manifest kind, name, spec) documents and the texts (relative path -> text) they read
    def write(
        self, path: str, documents: Iterable[tuple[str, str, Mapping[str, Any]]], *, texts: Mapping[str, str]
    ) -> None: ...


# -- the snapshot's and the renders' parts


def no_unread_parts(live: state.ClusterState) -> Mapping[str, tuple[str, str]]:
    """``SnapshotSection.unread_parts`` of a kind whose section is read whole or not at all."""
    return {}


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotSection:
    """A kind's section of a snapshot document (``reconciler.snapshot``): the keys it writes and reads, where they
    stand in the document, and its resources as ``kafka-reconciler diff A B`` compares them."""

    # where its keys stand among a document's (``reconciler.snapshot.files``): the order snapshot files have always
    # had; a document is read by key, so a new kind's section may stand anywhere
    order: int
    write: Callable[[state.ClusterState], Mapping[str, Any]]  # its keys in a document and their JSON data
    # the ``ClusterState`` fields its keys in a document give (a malformed one raises ``KeyError``, ``TypeError``,
    # ``ValueError`` or ``reconciler.base.errors.SnapshotError``); a kind keeping its state in ``sections`` gives
    # ``{"sections": {kind: its section}}`` (merged with the other kinds'), or nothing when not read
    read: Callable[[Mapping[str, Any]], Mapping[str, Any]]
    # for ``diff A B``: one entry per resource (its address, or another name of the kind's own), plain nested data;
    # nothing when the section was not read
    resources: Callable[[state.ClusterState], Mapping[str, Any]]
    summary: Callable[[Any], str] | None = None  # an added or removed resource briefly (``None``: its data as shown)
    # parts of a read section that were not read (one Kafka Connect cluster of several): name -> (the start of the
    # addresses it holds, what ``diff A B`` says of it)
    unread_parts: Callable[[state.ClusterState], Mapping[str, tuple[str, str]]] = no_unread_parts

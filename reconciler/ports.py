"""The REST ports a kind may be written through besides the Kafka wire, declared once (``PORTS``): Kafka Connect
(``connect``) and the Schema Registry (``registry``), by the name each kind's declaration gives (``KindSpec.port``).

A port's declaration (``PortSpec``) says how a command opens it (from its target, the manifests' Cluster profile or the
service's environment variable; a fleet's cluster from its Cluster profile only), how long a read of it may take when
the command gives no bound, how to close it, how the manifests' resources are placed on the services a target names, and
which of its errors say its service could not be reached. What is read over a port is its kinds' business: each kind
written through it names its reads (``KindSpec.read_for_plan``, ``read_every``, ``read_to_apply``, ``read_offline``).

The stages reach the ports only through here: ``placed`` (the manifests' resources on the services a target
names), ``offline`` (what a plan from a snapshot adds without asking a port), ``with_live`` (the plan's and
``snapshot``'s live read: for each port the wanted kinds need, that port opened, its kinds read, the port closed),
``with_every`` (every resource of each port, as ``snapshot`` and ``import`` read without manifests), ``in_profile``
(a fleet cluster's read), ``to_apply`` and ``to_apply_in_profile`` (the ports a plan is applied through, by name)
and ``close``. Like the kinds' parts, a port's code is named, not imported, so ``validate`` imports no HTTP client."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from reconciler.base import errors
from reconciler.kinds import registry
from reconciler.kinds.spec import KindSpec, Part
from reconciler.model import desired, plans, state

if TYPE_CHECKING:
    from reconciler import manifests
    from reconciler.manifests.profiles import ClusterProfile
    from reconciler.target import Target

WIRE = "kafka"  # the Kafka wire: its kinds are read and written by the Kafka adapter, not over a REST port

# (target, *, request_bound_s, writes) -> the opened port, or None when the target names none
OpenNamed = Callable[..., Any]
# (profile, *, request_timeout_s, writes) -> the opened port, or None when the profile names none
OpenInProfile = Callable[..., Any]


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class PortSpec:
    """One REST port: how a command opens it, how long its reads may take, how it is closed (see the module
    docstring). ``writes`` (the plan's changes written through it) lets a port opened to apply them open only what
    they name (Kafka Connect: the Connect clusters of their ``<cluster>/<name>`` keys)."""

    name: str
    resources: str  # what a plan writes through it, in messages ("connectors")
    service: str  # what a Cluster profile names to reach it, in messages ("Kafka Connect cluster (connect:)")
    read_bound_s: float  # a plan's read of it when the command gives no bound
    every_bound_s: float  # ``with_every``'s read of it
    # whether apply opens it for a plan whose scope covers its kinds without writing them (to read the scope again)
    for_scope: bool
    named_by: Part[OpenNamed]  # the port of a command's target (its Cluster profile, else the environment)
    in_profile: Part[OpenInProfile]  # the port a fleet cluster's Cluster profile names (no environment variable)
    close: Part[Callable[[Any], None]]  # closes an opened port's connections
    # the error a fleet cluster's row reports when a read of the port of Cluster profile ``name`` failed
    unreadable: Part[Callable[[errors.ReconcilerError, str | None], errors.ReconcilerError]]
    # whether an error is this port's and says its service could not be reached (``None``: not this port's error):
    # a fleet cluster refused for it is ``unreachable``, not ``refused``
    down: Part[Callable[[errors.ReconcilerError], bool | None]]
    # how the manifests' resources of its kinds are placed on its services (``None``: one service serves them all)
    placement: Part[Placement] | None


class Placement(Protocol):
    """How a port with several services (Kafka Connect's clusters) places the manifests' resources on them."""

    def named_by(self, target: Target) -> tuple[str, ...]:
        """The services ``target`` names (its Cluster profile's, else the environment's)."""
        ...

    def in_profile(self, profile: ClusterProfile) -> tuple[str, ...]:
        """The services a Cluster profile names."""
        ...

    def place(self, wanted: desired.DesiredState, services: tuple[str, ...]) -> desired.DesiredState:
        """``wanted`` with each resource of the port's kinds on its service (Kafka Connect: keyed
        ``<cluster>/<name>`` with several clusters); ``wanted`` itself when it declares none of them or ``services``
        is empty. ``ValidationFailed`` at the manifest's line for one naming a service not in ``services``."""
        ...


PORTS: Mapping[str, PortSpec] = {
    p.name: p
    for p in (
        PortSpec(
            name="connect",
            resources="connectors",
            service="Kafka Connect cluster (connect:)",
            read_bound_s=120.0,  # four Connect request timeouts
            every_bound_s=60.0,
            for_scope=False,
            named_by=Part("reconciler.connect.opening:named_by"),
            in_profile=Part("reconciler.connect.opening:in_profile"),
            close=Part("reconciler.connect.opening:close"),
            unreadable=Part("reconciler.connect.opening:unreadable"),
            down=Part("reconciler.connect.opening:down"),
            placement=Part("reconciler.connect.opening:PLACEMENT"),
        ),
        PortSpec(
            name="registry",
            resources="Schema Registry subjects",
            service="registry (schemaRegistry:)",
            read_bound_s=120.0,
            every_bound_s=120.0,
            for_scope=True,
            named_by=Part("reconciler.registry_access.opening:named_by"),
            in_profile=Part("reconciler.registry_access.opening:in_profile"),
            close=Part("reconciler.registry_access.opening:close"),
            unreadable=Part("reconciler.registry_access.opening:unreadable"),
            down=Part("reconciler.registry_access.opening:down"),
            placement=None,
        ),
    )
}


def kinds_of(port: str) -> list[KindSpec]:
    """The declarations of the kinds written through ``port``, in ``Kind`` order."""
    return [d for d in registry.KINDS.values() if d.port == port]


def _wanted(port: PortSpec, wanted: desired.DesiredState) -> list[KindSpec]:
    needs = wanted.needs()
    return [d for d in kinds_of(port.name) if d.kind in needs]


def close(opened: Mapping[str, Any]) -> None:
    """Close every port of ``opened`` (by name, as ``to_apply`` returns them)."""
    for name, port in opened.items():
        if port is not None:  # named, but not opened
            PORTS[name].close.get()(port)


def placed(wanted: desired.DesiredState, target: Target) -> desired.DesiredState:
    """``wanted`` with the resources of each port's kinds on the services ``target`` names (``PortSpec.place``):
    ``ValidationFailed`` at the manifest's line for a resource naming a service the target's profile lacks."""
    for port in PORTS.values():
        if port.placement is not None:
            how = port.placement.get()
            wanted = how.place(wanted, how.named_by(target))
    return wanted


def services_in(profile: ClusterProfile | None) -> dict[str, tuple[str, ...]]:
    """Per port that places resources, the services Cluster profile ``profile`` names (only ports naming some)."""
    found: dict[str, tuple[str, ...]] = {}
    for port in PORTS.values():
        if port.placement is not None and profile is not None and (names := port.placement.get().in_profile(profile)):
            found[port.name] = names
    return found


def placed_on(wanted: desired.DesiredState, services: Mapping[str, tuple[str, ...]]) -> desired.DesiredState:
    """``wanted`` with the resources of each port's kinds on the services ``services`` names for it (as
    ``services_in`` gives them): a fleet cluster's ``placed``."""
    for name, names in services.items():
        placement = PORTS[name].placement
        assert placement is not None  # services_in names only ports that place
        wanted = placement.get().place(wanted, names)
    return wanted


def down(exc: errors.ReconcilerError) -> bool | None:
    """Whether ``exc``, a port's error, says its service could not be reached (``None``: no port's error)."""
    for port in PORTS.values():
        if (found := port.down.get()(exc)) is not None:
            return found
    return None


def placed_load(loaded: manifests.LoadResult, target: Target) -> manifests.LoadResult:
    """``loaded`` with its desired state ``placed`` for ``target``."""
    return dataclasses.replace(loaded, desired=placed(loaded.desired, target))


def offline(live: state.ClusterState, wanted: desired.DesiredState) -> state.ClusterState:
    """``live`` read from a snapshot (or a fleet's rows), with what each REST kind adds to it without asking its port
    (``KindSpec.read_offline``: the connectors' secret digests), so an offline plan compares as a live one does."""
    for declared in registry.KINDS.values():
        if declared.read_offline is not None:
            live = declared.read_offline.get()(live, wanted)
    return live


def with_live(
    live: state.ClusterState,
    wanted: desired.DesiredState,
    target: Target,
    *,
    deadline_s: float | None = None,
    request_bound_s: float | None = None,
) -> state.ClusterState:
    """``live`` with what each port holds of the kinds ``wanted`` covers, read as a plan of ``wanted`` compares with
    (``KindSpec.read_for_plan``); a port no wanted kind needs is not opened, one ``target`` names not is not read
    (the planner says so and blocks those kinds' changes). No request waits past ``deadline_s`` from the port's
    opening (default: the port's ``read_bound_s``) nor longer than ``request_bound_s``."""
    for port in PORTS.values():
        kinds = _wanted(port, wanted)
        if not kinds:
            continue
        opened = port.named_by.get()(target, request_bound_s=request_bound_s)
        if opened is None:
            continue
        deadline = time.monotonic() + (port.read_bound_s if deadline_s is None else deadline_s)
        try:
            for declared in kinds:
                assert declared.read_for_plan is not None  # a REST port's kind reads over it
                live = declared.read_for_plan.get()(opened, live, wanted, deadline=deadline)
        finally:
            port.close.get()(opened)
    return live


def with_every(live: state.ClusterState, target: Target) -> state.ClusterState:
    """``live`` with every resource of each kind a port ``target`` names holds (``KindSpec.read_every``): what
    ``snapshot`` and ``import`` read without manifests. A port the target does not name is not read."""
    for port in PORTS.values():
        opened = port.named_by.get()(target)
        if opened is None:
            continue
        deadline = time.monotonic() + port.every_bound_s
        try:
            for declared in kinds_of(port.name):
                assert declared.read_every is not None
                live = declared.read_every.get()(opened, live, deadline=deadline)
        finally:
            port.close.get()(opened)
    return live


def in_profile(
    live: state.ClusterState,
    wanted: desired.DesiredState,
    *,
    profile: ClusterProfile | None,
    profile_name: str | None,
    request_timeout_s: float,
    deadline_at: float | None,
    min_bound_s: float,
) -> state.ClusterState:
    """A fleet cluster's ``with_live``: each port read from the cluster's Cluster profile ``profile`` only (no
    environment variable: one cannot name every cluster's service), no request waiting longer than
    ``request_timeout_s`` nor past the run's ``deadline_at`` (epoch seconds; at least ``min_bound_s``). A port that
    cannot be read raises the error its ``unreadable`` gives (naming the profile)."""
    if profile is None:
        return live
    for port in PORTS.values():
        kinds = _wanted(port, wanted)
        if not kinds:
            continue
        opened = port.in_profile.get()(profile, request_timeout_s=request_timeout_s)
        if opened is None:
            continue
        bound = port.read_bound_s if deadline_at is None else max(min_bound_s, deadline_at - time.time())
        deadline = time.monotonic() + bound
        try:
            for declared in kinds:
                assert declared.read_for_plan is not None
                live = declared.read_for_plan.get()(opened, live, wanted, deadline=deadline)
        except errors.ReconcilerError as exc:
            raise port.unreadable.get()(exc, profile_name) from None
        finally:
            port.close.get()(opened)
    return live


def written(changes: Iterable[plans.Change], port: str) -> list[plans.Change]:
    """The changes of ``changes`` written through ``port``."""
    return [c for c in changes if registry.spec(c.kind).port == port]


def _needed(p: plans.Plan, port: PortSpec) -> tuple[list[plans.Change], bool]:
    """The plan's changes written through ``port``, and whether apply opens it (they exist, or the plan's scope
    covers a kind of it and the port is read for the scope check)."""
    writes = written(p.actionable, port.name)
    kinds = p.scope.get("kinds", ()) if p.scope is not None else ()
    covered = port.for_scope and any(d.kind.value in kinds for d in kinds_of(port.name))
    return writes, bool(writes) or covered


def _opening(p: plans.Plan, open_one: Callable[[PortSpec, Sequence[plans.Change]], Any]) -> dict[str, Any]:
    opened: dict[str, Any] = {}
    try:
        for port in PORTS.values():
            writes, needed = _needed(p, port)
            if needed and (found := open_one(port, writes)) is not None:
                opened[port.name] = found
    except BaseException:
        close(opened)
        raise
    return opened


def to_apply(target: Target, p: plans.Plan) -> dict[str, Any]:
    """The ports ``p`` is applied through, by name: each one its changes are written through or (``for_scope``) its
    scope covers, as ``target`` names it (a port it does not name is left out: apply refuses the changes that need
    it, nothing written). Close them with ``close``."""
    return _opening(p, lambda port, writes: port.named_by.get()(target, writes=writes))


def to_apply_in_profile(
    p: plans.Plan, *, cluster: str, profile: ClusterProfile | None, profile_name: str | None
) -> dict[str, Any]:
    """A fleet cluster's ``to_apply``: the ports its Cluster profile ``profile`` names, as ``fleet plan`` read them.
    ``ConfigError`` naming ``cluster`` (the cluster is refused, nothing written) when the plan writes through a port
    the profile does not name."""

    def open_one(port: PortSpec, writes: Sequence[plans.Change]) -> Any:
        try:
            found = None if profile is None else port.in_profile.get()(profile, writes=writes)
        except errors.ConfigError as exc:
            raise errors.ConfigError(f"cluster {cluster}: {exc}") from None
        if found is None and writes:
            raise errors.ConfigError(
                f"cluster {cluster}: the plan changes {port.resources}, but its Cluster profile "
                f"({profile_name or 'none'}) names no {port.service} to apply them through"
            )
        return found

    return _opening(p, open_one)


def sent(opened: Mapping[str, Any]) -> tuple[int, dict[str, int]]:
    """The requests the ports of ``opened`` sent so far: in all and per API (each port counts its requests per
    endpoint, without names: Kafka Connect's ``GET /connectors``, the registry's ``POST
    /subjects/{subject}/versions``)."""
    total, counts = 0, {}
    for port in opened.values():
        if port is None:  # named, but not opened: the target names no such service
            continue
        total += port.request_count
        counts.update(port.request_counts)
    return total, counts

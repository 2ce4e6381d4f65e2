"""What apply reads over the REST ports before writing: for each kind written through one (``reconciler.ports``),
its resources the plan changes (the kind's ``read_to_apply``, over the port the command opened): the live view the
staleness and scope checks compare with the plan, and the state the kind's writes start from."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from reconciler.apply import decoded
from reconciler.kafka.port import AdminPort
from reconciler.kinds import registry
from reconciler.model import desired, state
from reconciler.model.kinds import Kind
from reconciler.planner import scope


class Options(Protocol):
    """What the reads take of the apply's options (``engine.ApplyOptions``)."""

    @property
    def ports(self) -> Mapping[str, Any]: ...
    @property
    def desired(self) -> desired.DesiredState | None: ...
    @property
    def deadline_s(self) -> float | None: ...


def with_ports(
    live: state.ClusterState, ops: decoded.Operations, options: Options, *, covered: scope.Scope | None = None
) -> state.ClusterState:
    """``live`` with what the plan's REST ports hold of the kinds written through them (``covered``: the plan's
    scope, for the scope check), in ``Kind`` order."""
    for declared in registry.KINDS.values():
        if declared.read_to_apply is not None:
            live = declared.read_to_apply.get()(
                live,
                ops,
                port=options.ports.get(declared.port),
                wanted=options.desired,
                deadline_s=options.deadline_s,
                covered=covered,
            )
    return live


def scope_reader(
    adapter: AdminPort, ops: decoded.Operations, options: Options, *, doc: Mapping[str, Any] | None
) -> Callable[[frozenset[Kind], Callable[[str], bool]], state.ClusterState]:
    """``preflight.check_scope``'s read of the plan's scope ``doc``: the Kafka adapter's, with what the REST ports
    hold in it."""
    covered = None if doc is None else scope.Scope.from_dict(doc)
    return lambda kinds, wanted: with_ports(
        adapter.read_state(kinds=kinds, topic_filter=wanted), ops, options, covered=covered
    )

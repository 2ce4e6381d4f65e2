"""Convergence check after an apply: does the read-back cluster hold what each applied operation asked for?

Each applied operation (``reconciler.apply.decoded``) is compared with the live resource read back afterwards, with
the value comparison the planner uses for configs (``configs.same_value``: ``7d`` and ``604800000`` are the same
retention). A config change is checked key by key on exactly the config operations it sent. Values the plan holds
redacted (sensitive configs) cannot be compared and are taken on trust. Each kind's check is the part its
declaration names (``KindSpec.check_applied``), in the kind's own place (``reconciler.kinds.<kind>.apply``); here
are what they share (``configs_mismatch``), the config entities' check, and the read-back's generic parts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping

from reconciler.apply import decoded
from reconciler.apply.apply_report import NotConverged
from reconciler.kinds import registry
from reconciler.model import configs, entities, payloads, plans, state
from reconciler.model.kinds import Kind


def configs_mismatch(want: Iterable[payloads.ConfigOp], have: Mapping[str, str | None]) -> list[str]:
    """What the configs read back (``have``) lack of the config operations written: one sentence per key."""
    out = []
    for op in want:
        if op.action is payloads.ConfigAction.DELETE or op.value is None:
            if op.key in have:
                out.append(f"{op.key} is still set")
        elif not isinstance(op.value, str) or op.value == plans.REDACTED:
            continue  # a sensitive value: the cluster never shows it, so it is taken on trust
        elif not configs.same_value(op.key, op.value, have.get(op.key)):
            out.append(f"{op.key} is {have.get(op.key)!r}, wanted {op.value!r}")
    return out


def entity_applied(op: decoded.Operation, live: state.ClusterState) -> list[str]:
    """The check of a config entity's write (a group's, a client-metrics subscription's): both entity kinds'."""
    section = entities.live_section(live, op.change.kind) or {}
    return configs_mismatch(op.want(decoded.AlterConfigs).ops, section.get(op.name, {}))


def read_back_in_its_phase(_op: decoded.Operation, _live: state.ClusterState) -> list[str]:
    """The check of a kind whose phase reads each write back itself before it ends (connectors, until each task
    runs; subjects, until the registry answers what was written): nothing is left to compare here."""
    return []


@functools.cache
def _check(kind: Kind) -> Callable[[decoded.Operation, state.ClusterState], list[str]]:
    """The check the declaration of ``kind`` names (``KindSpec.check_applied``), looked up once per kind."""
    check: Callable[[decoded.Operation, state.ClusterState], list[str]] = registry.spec(kind).check_applied.get()
    return check


def not_converged(applied: Iterable[decoded.Operation], live: state.ClusterState) -> list[NotConverged]:
    """One entry per applied operation whose resource does not hold what it asked for."""
    out = []
    for op in applied:
        problems = _check(op.change.kind)(op, live)
        if problems:
            out.append(NotConverged(op.address, f"{op.change.phase.label}: " + "; ".join(problems)))
    return out


def _live_configs(op: decoded.Operation, live: state.ClusterState) -> Mapping[str, str | None] | None:
    """The configs set on the resource of a config operation, as read back (``None`` when its kind was not read)."""
    return registry.spec(op.change.kind).live_configs(live, op.name)


def behind(op: decoded.Operation, live: state.ClusterState) -> bool:
    """Whether the resource of a config write still shows, for every key the write changes, the value it held
    before: a write the controller accepted that the broker answering the read has not applied yet (its metadata
    lags), rather than an outcome other than the one written. Keys whose earlier value the plan holds redacted are
    not compared; a write with no key left to compare is not ``behind``."""
    request = op.request
    have = _live_configs(op, live) if isinstance(request, decoded.AlterConfigs) else None
    if have is None or not isinstance(request, decoded.AlterConfigs):
        return False
    before = getattr(op.change.before, "configs", None) or {}
    keys = [o.key for o in request.ops if before.get(o.key) != plans.REDACTED]
    return bool(keys) and all(_same(k, before.get(k), have.get(k)) for k in keys)


def _same(key: str, a: str | None, b: str | None) -> bool:
    return a == b if a is None or b is None else configs.same_value(key, a, b)


def expected_topics(applied: Iterable[decoded.Operation]) -> dict[str, tuple[decoded.Operation, int | None]]:
    """The topics whose presence or partition count every broker must show: name -> (operation, partitions wanted,
    ``None`` for a deleted topic). Configs, ACLs, quotas and SCRAM credentials are not in a broker's Metadata."""
    out: dict[str, tuple[decoded.Operation, int | None]] = {}
    for op in applied:
        request = op.request
        if isinstance(request, decoded.DeleteTopic):
            out[op.name] = (op, None)
        elif isinstance(request, decoded.CreateTopic):
            out[op.name] = (op, len(request.assignment) if request.assignment else request.partitions)
        elif isinstance(request, decoded.AddPartitions):
            out[op.name] = (op, request.total)
    return out


def lagging(
    wanted: Mapping[str, tuple[decoded.Operation, int | None]], views: Mapping[int, Mapping[str, int]]
) -> list[NotConverged]:
    """One entry per topic some broker does not show as wanted yet (``views``: what each broker's Metadata lists)."""
    out = []
    for name, (op, partitions) in sorted(wanted.items()):
        problems = []
        for broker, seen in sorted(views.items()):
            have = seen.get(name)
            if partitions is None and have is not None:
                problems.append(f"broker {broker} still lists it")
            elif partitions is not None and have is None:
                problems.append(f"broker {broker} does not list it yet")
            elif partitions is not None and have is not None and have < partitions:
                problems.append(f"broker {broker} shows {have} partition(s), wanted {partitions}")
        if problems:
            out.append(NotConverged(op.address, f"{op.change.phase.label}: " + "; ".join(problems)))
    return out


def expected_acls(applied: Iterable[decoded.Operation]) -> dict[state.AclBinding, tuple[decoded.Operation, bool]]:
    """The bindings every broker's authorizer must hold (``True``: created) or no longer hold (``False``: deleted)."""
    out: dict[state.AclBinding, tuple[decoded.Operation, bool]] = {}
    for op in applied:
        binding = op.binding
        if binding is not None:
            out[binding] = (op, op.change.action is not plans.Action.DELETE)
    return out


def acl_lagging(
    wanted: Mapping[state.AclBinding, tuple[decoded.Operation, bool]],
    views: Mapping[int, frozenset[state.AclBinding]],
) -> list[NotConverged]:
    """One entry per binding some broker's authorizer does not show as wanted yet (``views``: what each holds)."""
    out = []
    for binding, (op, present) in sorted(wanted.items()):
        behind = [broker for broker, held in sorted(views.items()) if (binding in held) != present]
        if behind:
            what = "does not hold it yet" if present else "still holds it"
            lag = "; ".join(f"broker {broker}'s authorizer {what}" for broker in behind)
            out.append(NotConverged(op.address, f"{op.change.phase.label}: {lag}"))
    return out

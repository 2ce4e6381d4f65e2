"""What plan, apply and snapshot do end to end, without a terminal: connect, read, plan, apply, read back.

The commands (``reconciler.commands``) parse options, call these functions and render what they return; tests,
the fleet reader and the benchmarks call them directly. The single steps come first: ``load_manifests``
(manifests -> desired state), ``read_live`` (an ``AdminPort`` -> ``ClusterState``), ``make_plan`` (planner ->
``Plan``, with the evidence ``with_evidence`` reads); then the commands' flows. The cluster a command is pointed
at and its planning options are ``reconciler.target``'s (``Target``, ``PlanRequest``). Nothing here prints or
asks: the apply command asks for confirmation between ``prepare_apply`` (everything that can fail without a
cluster) and ``apply``, handing the plan's decoded operations from one to the other.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reconciler import manifests, planner
from reconciler import ports as rest_ports
from reconciler.base import collector, errors
from reconciler.kinds import registry
from reconciler.model import configs, defaults, desired, entities, plan_compare, plans, state
from reconciler.model.kinds import Kind
from reconciler.snapshot import files
from reconciler.target import PlanRequest as PlanRequest
from reconciler.target import Target as Target

if TYPE_CHECKING:
    from reconciler.apply import decoded  # imported by the apply paths only: a plan does not hold apply's modules
    from reconciler.apply import lock as apply_lock
    from reconciler.apply.apply_report import ApplyReport
    from reconciler.apply.events import EventSink
    from reconciler.kafka.adapter import KafkaAdapter
    from reconciler.kafka.port import AdminPort


# ------------------------------------------------------------------------------------------ the single steps
def load_manifests(
    paths: Sequence[Path], *, environment: str | None = None, env: Mapping[str, str] | None = None
) -> manifests.LoadResult:
    """Load and validate manifests; raises ``ValidationFailed`` with every diagnostic."""
    with collector.paused():
        return manifests.load(list(paths), environment=environment, env=env)


def read_filters(wanted: desired.DesiredState) -> tuple[Callable[[str], bool], Callable[[str], bool]]:
    """Topic and principal filters so the read covers only what the manifests and ownership rules need."""
    declared_topics = frozenset(wanted.topics)
    # Live topics whose names collide with a declared one ('.' and '_' alike) are read too: the planner blocks
    # such a create instead of letting the broker refuse it at apply.
    collision_keys = frozenset(desired.topic_collision_key(n) for n in declared_topics)
    ownership = wanted.ownership
    principals = {b.principal for b in wanted.acls}
    principals |= {f"User:{name}" for name in wanted.scram_users}
    for entity in wanted.quotas:
        principals |= {f"User:{n}" for t, n in entity.parts if t == "user" and n is not None}

    def topic_filter(name: str) -> bool:
        return (
            name in declared_topics or ownership.owns_topic(name) or desired.topic_collision_key(name) in collision_keys
        )

    if ownership.quota_entities:
        # Quota entities owned by name may name any user: read every principal (the planner applies ownership).
        return topic_filter, lambda _principal: True

    def principal_filter(principal: str) -> bool:
        return principal in principals or ownership.owns_principal(principal)

    return topic_filter, principal_filter


def read_live(adapter: AdminPort, wanted: desired.DesiredState) -> state.ClusterState:
    """Read what ``wanted`` needs from the cluster; a kind the cluster's version cannot manage is left unread (the
    plan blocks its changes, naming what the cluster lacks)."""
    kinds, (topics, principals) = planner.planned_kinds(wanted), read_filters(wanted)
    entity_filters = entities.read_filters(wanted)
    return adapter.read_state(
        kinds=kinds, topic_filter=topics, principal_filter=principals, entity_filters=entity_filters
    )


def make_plan(
    wanted: desired.DesiredState,
    live: state.ClusterState,
    *,
    rotate_passwords: Sequence[str] = (),
    target: str | None = None,
    adapter: AdminPort | None = None,
    allow_delete_in_use: bool = False,
    in_use_window_ms: int | None = None,
    max_deletes: int | None = None,
) -> plans.Plan:
    """Run the pure planner with the command-line options; ``target`` (how the cluster was reached) goes into
    the plan's header.

    With an ``adapter``, the usage and impact evidence of the topics the plan changes is read first
    (``with_evidence``), so each delete shows what it would destroy (one of a topic in use is blocked unless
    ``allow_delete_in_use``) and each change what it will do (each kind's ``impact`` part: ``planner.impact_parts``).
    """
    unknown = sorted(set(rotate_passwords) - set(wanted.scram_users))
    if unknown:
        raise errors.ConfigError(
            f"--rotate-password names SCRAM user(s) not declared in the manifests: {', '.join(unknown)}"
        )
    options = planner.PlanOptions(
        rotate_scram_users=frozenset(rotate_passwords),
        allow_delete_in_use=allow_delete_in_use,
        max_deletes=max_deletes,
        **({} if in_use_window_ms is None else {"in_use_window_ms": in_use_window_ms}),
    )
    with collector.paused():  # also over the evidence read between two plans: a few requests, few objects
        if adapter is not None and (live.topic_usage is None or live.impact is None):
            # The first plan names the topics whose evidence is read; when only impact evidence was added (no usage,
            # which can block deletes), the impact is attached to it instead of planning everything again.
            first = planner.plan(wanted, live, options=options, assess_impact=False)
            read = with_evidence(adapter, wanted, live, first=first)
            if read.topic_usage is live.topic_usage:
                result = planner.with_impact(first, wanted, read)
            else:
                result = planner.plan(wanted, read, options=options)
        else:
            result = planner.plan(wanted, live, options=options)
    if target is None:
        return result
    return dataclasses.replace(result, cluster=dataclasses.replace(result.cluster, target=target))


def with_evidence(
    adapter: AdminPort, wanted: desired.DesiredState, live: state.ClusterState, *, first: plans.Plan | None = None
) -> state.ClusterState:
    """``live`` with the usage evidence of the topics a plan's changes need (each kind's ``usage_topics``: the topics
    it deletes or adds partitions to, those served by a subject given a new version with a change of level), and the
    impact evidence its changes need (each kind's ``impact`` part's ``needs``: the topics it changes; ``live``
    unchanged when it changes none, or already carries the evidence).

    The topics come from a first plan (``first``, else planned here); the evidence is read for exactly those, in
    batched requests.
    """
    if live.topic_usage is not None and live.impact is not None:
        return live
    with collector.paused():
        first = first if first is not None else planner.plan(wanted, live, assess_impact=False)
    if live.topic_usage is None:
        needs = {kind: declared.usage_topics.get() for kind, declared in registry.KINDS.items()}
        used = sorted({t for c in first.changes for t in needs[c.kind](c, wanted)})
        if used:
            live = dataclasses.replace(live, topic_usage=adapter.read_topic_usage(used))
    if live.impact is None:
        for impact in planner.impact_parts():  # at most one (the topics'): the changes it weighs
            request = impact.needs(first.changes, wanted, live)
            if request:
                live = dataclasses.replace(live, impact=adapter.read_impact_evidence(request))
    return live


# ------------------------------------------------------------------------------------- the commands' flows

APPLY_CONNECTION_MARGIN_S = 60.0


def in_use_window_ms(text: str) -> int:
    """``--in-use-window`` in milliseconds: a duration as in manifests (``7d``, ``12h``, ``0``)."""
    try:
        window = int(configs.canonical("retention.ms", text))
    except ValueError:
        raise errors.ConfigError(f"--in-use-window: {text!r} is not a duration (e.g. 7d, 12h, 30m, 0)") from None
    if window < 0:
        raise errors.ConfigError("--in-use-window must not be negative")
    return window


def compute_plan(
    loaded: manifests.LoadResult,
    *,
    target: Target,
    request: PlanRequest,
    live_state: Path | None = None,
    connect_timeout_s: float | None = None,
    request_bound_s: float | None = None,
    deadline_s: float | None = None,
) -> plans.Plan:
    """Plan ``loaded`` against a snapshot file (``live_state``) or the live cluster of ``target``.

    ``connect_timeout_s`` bounds connecting, ``request_bound_s`` each request, ``deadline_s`` every wait.

    Against a cluster, the plan's header names how it was reached, and a plan that deletes topics reads their
    usage evidence through the same connection.
    """
    window = in_use_window_ms(request.in_use_window)
    loaded = rest_ports.placed_load(loaded, target)
    with contextlib.ExitStack() as stack:
        adapter: KafkaAdapter | None = None
        if live_state is not None:
            live = rest_ports.offline(files.read_snapshot(live_state), loaded.desired)
        else:
            adapter = stack.enter_context(
                target.connect(timeout_s=connect_timeout_s, request_bound_s=request_bound_s, deadline_s=deadline_s)
            )
            live = read_live(adapter, loaded.desired)
            live = rest_ports.with_live(
                live, loaded.desired, target, deadline_s=deadline_s, request_bound_s=request_bound_s
            )
            logging.getLogger("reconciler").info(
                "read the live state of %s in %d admin requests", adapter.settings.describe(), adapter.request_count
            )
        return make_plan(
            loaded.desired,
            live,
            rotate_passwords=request.rotate_passwords,
            target=None if adapter is None else adapter.settings.target(),
            adapter=adapter,
            allow_delete_in_use=request.allow_delete_in_use,
            in_use_window_ms=window,
            max_deletes=request.max_deletes,
        )


def plan_to_apply(
    *,
    plan_file: Path | None,
    loaded: manifests.LoadResult | None,
    target: Target,
    request: PlanRequest,
    timeout_s: float | None,
    other_version: bool = False,
) -> tuple[plans.Plan, decoded.Operations | None]:
    """The plan ``apply`` carries out, and its operations when it was decoded here (a saved plan): the saved
    ``plan_file`` (of another release only with ``other_version``), else a plan of ``loaded`` made now; ``timeout_s``
    bounds planning, connecting included (``apply --timeout``). With both, the manifests are planned again (with the
    saved plan's options) and the saved plan is refused (``PlanMismatch``, nothing written) unless they still produce
    it: a plan reviewed before the manifests changed is not theirs."""
    bounds: dict[str, Any] = {"connect_timeout_s": timeout_s, "deadline_s": timeout_s}  # apply --timeout: planning too
    if plan_file is not None:
        if given := _planning_options_given(request):
            raise errors.ConfigError(
                f"{', '.join(given)} shape a plan made now; a saved plan keeps the options it was made with. "
                "Give them to plan (plan --out FILE), then apply --plan FILE"
            )
        from reconciler.apply import decoded  # a plan's own memory: see the TYPE_CHECKING import

        saved, ops = decoded.load_checked(plan_file, other_version=other_version)  # refused as show refuses it
        if loaded is not None:
            fresh = compute_plan(loaded, target=target, request=saved_request(saved), **bounds)
            differences = plan_compare.differences(saved, fresh)
            if differences:
                raise PlanMismatch(
                    f"{plan_file}: the manifests no longer produce this saved plan, so it is not applied: "
                    f"{'; '.join(differences)}. Run plan again and review the new plan (or apply --plan FILE without "
                    "manifest paths to apply the saved plan as reviewed)"
                )
        return saved, ops
    if loaded is not None:
        return compute_plan(loaded, target=target, request=request, **bounds), None
    raise errors.ConfigError("give manifest paths to plan and apply, or --plan FILE")


def _planning_options_given(request: PlanRequest) -> list[str]:
    """The planning options of ``request`` that differ from their defaults, as the command line spells them."""
    default = PlanRequest()
    checks = (
        ("--rotate-password", tuple(request.rotate_passwords) != tuple(default.rotate_passwords)),
        ("--allow-deleting-topics-in-use", request.allow_delete_in_use != default.allow_delete_in_use),
        ("--in-use-window", request.in_use_window != default.in_use_window),
        ("--max-deletes", request.max_deletes != default.max_deletes),
    )
    return [flag for flag, given in checks if given]


class PlanMismatch(errors.PlanFileError):
    """``apply PATHS --plan FILE``: the manifests, planned now, give another plan than the saved one."""


def saved_request(saved: plans.Plan) -> PlanRequest:
    """The planning options a saved plan was made with (its ``options``), to plan the manifests the same way."""
    options = saved.options
    window = options.get("in_use_window_ms")
    return PlanRequest(
        rotate_passwords=tuple(options.get("rotate_scram_users", ())),
        allow_delete_in_use=bool(options.get("allow_delete_in_use", False)),
        in_use_window=defaults.IN_USE_WINDOW if window is None else str(window),
        max_deletes=options.get("max_deletes"),
    )


def has_work(p: plans.Plan) -> bool:
    """Whether apply has anything to do or report: changes, blocked changes or error-level findings.

    A plan with a global error-level finding is refused by apply (exit 1); one about a single resource blocks that
    resource's changes; blocked changes are reported as such (exit 3): nothing applied while the manifests want a
    change is never a success.
    """
    return bool(p.actionable or p.blocked or any(w.severity == "error" for w in p.warnings))


def prepare_apply(
    p: plans.Plan,
    *,
    target: Target,
    timeout_s: float | None,
    dry_run: bool,
    checked: decoded.Operations | None = None,
) -> tuple[KafkaAdapter, decoded.Operations]:
    """Everything that can fail without a cluster, before anyone is asked to confirm: the plan's error-level
    findings (too many deletes, ...) and changes that cannot be carried out, the connection settings (profile
    secrets included) and the SCRAM passwords the plan sets. ``checked``: ``p``'s operations when loading it decoded
    them (``plan_to_apply``). Returns the (not yet connected) adapter and the plan's operations, to hand to ``apply``;
    the adapter is bounded by the apply's deadline (``--timeout``, else the default that scales with the work) plus
    ``APPLY_CONNECTION_MARGIN_S``: the apply's own deadline ends it first, the connection's is the backstop."""
    from reconciler.apply import decoded, engine, secrets_at_write

    ops = decoded.decode(p, checked=checked)
    bound = timeout_s if timeout_s is not None else engine.default_deadline_s(p.actionable)
    adapter = target.connect(timeout_s=timeout_s, deadline_s=bound + APPLY_CONNECTION_MARGIN_S)
    if p.actionable and not dry_run:
        secrets_at_write.resolve_secrets(ops.items, environ=None)
    return adapter, ops


def apply(
    p: plans.Plan,
    adapter: KafkaAdapter,
    *,
    dry_run: bool,
    allow_self_lockout: bool = False,
    timeout_s: float | None,
    timeout_given_s: float | None = None,
    replication_throttle: int | None = None,
    read_back_timeout_s: float | None = None,
    loaded: manifests.LoadResult | None = None,
    events: EventSink | None = None,
    lock: apply_lock.LockRequest | None = None,
    ops: decoded.Operations | None = None,
    ports: Mapping[str, Any] | None = None,
) -> ApplyReport:
    """Carry out ``p`` through ``adapter`` (then close it) holding its apply ``lock``; ``ops``: ``p``'s operations
    as ``prepare_apply`` returned them; ``ports``: the REST ports it writes through (``reconciler.ports.to_apply``:
    the caller closes them); the rest as ``ApplyOptions``'."""
    from reconciler import apply as apply_mod

    options = apply_mod.ApplyOptions(
        dry_run=dry_run,
        allow_self_lockout=allow_self_lockout,
        deadline_s=timeout_s,
        timeout_given_s=timeout_given_s,
        replication_throttle=replication_throttle,
        settle_s=read_back_timeout_s,
        desired=None if loaded is None else loaded.desired,
        ports={} if ports is None else ports,
        lock=None if lock is None else lock.bound(adapter),
    )
    with adapter:
        return apply_mod.apply_plan(p, adapter, options=options, events=events, operations=ops)


def read_snapshot_state(
    *, target: Target, wanted: manifests.LoadResult | None = None
) -> tuple[state.ClusterState, int]:
    """The live state ``snapshot --out`` writes and the admin requests it took: with manifests, only what they need
    (and the usage and impact evidence of the topics a plan would change); without, every kind the cluster supports,
    and every resource each REST port the target names holds (``reconciler.ports.with_every``)."""
    with target.connect() as adapter:
        if wanted is not None:
            wanted = rest_ports.placed_load(wanted, target)
            live = with_evidence(adapter, wanted.desired, read_live(adapter, wanted.desired))
            live = rest_ports.with_live(live, wanted.desired, target)  # connectors' secrets: digests only
        else:
            kinds = frozenset(k for k in Kind if not adapter.missing_apis([k]))
            live = rest_ports.with_every(adapter.read_state(kinds=kinds), target)
        return live, adapter.request_count

"""``apply``: plan now or load a saved plan, confirm, carry it out (``reconciler.operations``) and report.

``run_and_report`` draws the progress and the report of an apply or a dry run; ``plan --validate`` uses it too.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from reconciler.commands import confirm, output
from reconciler.commands.options import (
    AllowInUseOpt,
    ApplyFormat,
    BootstrapOpt,
    ClusterOpt,
    CommandConfigOpt,
    CompactOpt,
    EnvironmentOpt,
    InUseWindowOpt,
    LockTimeoutOpt,
    MaxDeletesOpt,
    NoColorOpt,
    NoLockOpt,
    OtherVersionOpt,
    PlanFormat,
    RotateOpt,
    VerboseOpt,
)
from reconciler.model import defaults

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console

    from reconciler import manifests, operations
    from reconciler.apply.apply_report import ApplyReport
    from reconciler.apply.decoded import Operations
    from reconciler.apply.events import EventSink
    from reconciler.apply.lock import LockRequest
    from reconciler.kafka.adapter import KafkaAdapter
    from reconciler.model import plans


def run_and_report(
    p: plans.Plan,
    adapter: KafkaAdapter,
    *,
    dry_run: bool,
    fmt: ApplyFormat,
    console: Console,
    loaded: manifests.LoadResult | None,
    allow_self_lockout: bool,
    timeout: float | None,
    replication_throttle: int | None = None,
    read_back_timeout: float | None = None,
    target: operations.Target | None = None,
    timeout_given: float | None = None,
    lock: LockRequest | None = None,
    ops: Operations | None = None,
) -> ApplyReport:
    """Apply ``p`` (or dry-run it) with progress on stderr, then print the report on ``console`` (JSON: stdout);
    ``ops``: its operations as ``operations.prepare_apply`` returned them. ``target`` names the REST ports (Kafka
    Connect, a Schema Registry) of a plan that writes through them (``reconciler.ports.to_apply``). ``timeout`` is
    what is left for the apply of ``timeout_given`` (the --timeout of the whole command, planning included).
    ``lock``: the cluster's apply lock (``None``: not taken). Ctrl-C while it runs: ``run_interruptible``."""
    from reconciler import operations, ports
    from reconciler.base import terminal
    from reconciler.commands import apply_display

    opened = {} if target is None else ports.to_apply(target, p)  # the REST ports the plan writes through
    _say_target(p, adapter, dry_run=dry_run, unlocked=lock is not None and lock.skip and not dry_run, fmt=fmt)

    def run(events: EventSink | None) -> ApplyReport:
        return operations.apply(
            p,
            adapter,
            dry_run=dry_run,
            allow_self_lockout=allow_self_lockout,
            timeout_s=timeout,
            timeout_given_s=timeout_given,
            replication_throttle=replication_throttle,
            read_back_timeout_s=read_back_timeout,
            loaded=loaded,
            events=events,
            ports=opened,
            lock=None if dry_run else lock,
            ops=ops,
        )

    try:
        report = run_interruptible(run, progress=fmt is ApplyFormat.text and bool(p.actionable))
    finally:
        ports.close(opened)
    if fmt is ApplyFormat.json:
        output.echo(report.to_json())
    elif terminal.is_tty(console.file):
        console.print(apply_display.report_table(report, max_rows=max(console.size.height - 8, 20)))
        console.print(apply_display.summary_line(report), markup=False)
    else:
        console.print(apply_display.report_text(report), markup=False, end="")
    return report


def _say_target(p: plans.Plan, adapter: KafkaAdapter, *, dry_run: bool, unlocked: bool, fmt: ApplyFormat) -> None:
    """The apply's first line: the cluster it writes to, and ``--no-lock`` when the apply lock is not taken (on
    stderr when the report is JSON)."""
    head = "Dry run against" if dry_run else "Applying to"
    without = " (without the cluster's apply lock: --no-lock)" if unlocked else ""
    (output.console(stderr=True) if fmt is ApplyFormat.json else output.console()).print(
        f"{head} {adapter.settings.target()}, cluster {p.cluster.cluster_id or '(unknown id)'}{without}", markup=False
    )


def run_interruptible(run: Callable[[EventSink | None], ApplyReport], *, progress: bool) -> ApplyReport:
    """``run`` (with progress on stderr when ``progress``) under ``reconciler.base.interrupt.handling``: the first
    Ctrl-C stops new writes and the report is still written (exit 130); a second exits at once."""
    from reconciler.base import interrupt
    from reconciler.commands import apply_display

    with interrupt.handling():
        if not progress:
            return run(None)
        with apply_display.progress(output.console(stderr=True)) as sink:
            return run(sink)


def lock_request(lock_timeout: float, *, no_lock: bool, plan_file: Path | None) -> LockRequest:
    """The apply lock ``apply`` asks for (``--lock-timeout``, ``--no-lock``); a wait is said once on stderr."""
    from reconciler.apply.lock import LockRequest

    plan = f"plan file {plan_file.name}" if plan_file is not None else "a plan made now"
    return LockRequest(wait_s=lock_timeout, skip=no_lock, plan=plan, on_wait=lambda text: output.say(text, err=True))


def broker_rejects(p: plans.Plan, *, target: operations.Target, loaded: manifests.LoadResult, console: Console) -> bool:
    """Dry-run ``p`` (validateOnly requests), print what the brokers say, and whether they rejected any of it."""
    from reconciler.apply.apply_report import Outcome

    timeout = 120.0
    checked = run_and_report(
        p,
        target.connect(timeout_s=timeout),
        dry_run=True,
        fmt=ApplyFormat.text,
        console=console,
        loaded=loaded,
        allow_self_lockout=False,
        timeout=timeout,
    )
    return any(i.outcome is Outcome.DRY_RUN_REJECTED for i in checked.items)


ApplyPathsArg = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Manifest files or directories. With --plan: planned again, and the saved plan is refused unless "
        "they still produce it.",
        show_default=False,
    ),
]
SavedPlanOpt = Annotated[
    Path | None,
    typer.Option("--plan", help="Apply this saved (reviewed) plan instead of planning now; no confirmation is asked."),
]
AutoApproveOpt = Annotated[
    bool, typer.Option("--auto-approve", help="Do not ask for confirmation (apply --plan never asks).")
]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Send validateOnly requests; show what the broker says; write nothing.")
]
SelfLockoutOpt = Annotated[
    bool,
    typer.Option(
        "--allow-self-lockout-risk",
        help="Apply even if it deletes ACLs this tool's own principal needs to keep managing the cluster.",
    ),
]
ApplyFormatOpt = Annotated[ApplyFormat, typer.Option("--format", help="Report format.")]
ApplyTimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        help="Bound on the whole command, in seconds: planning, writes and read-back (not the time a confirmation "
        "waits for its answer); default: 300 s + 30 ms per partition created or added and per other change.",
        show_default=False,
    ),
]
ReadBackTimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--read-back-timeout",
        min=0,
        help="Bound, in seconds, on the read-back that waits for the brokers to show every change (default: "
        "as long as the work needs, until nothing more converges for 15 s + 20 ms per partition and change; "
        "always within --timeout).",
        show_default=False,
    ),
]
ThrottleOpt = Annotated[
    int | None,
    typer.Option(
        "--replication-throttle",
        min=1,
        help="Throttle reassignment traffic to this many bytes/s per broker while replicas move.",
    ),
]


def _planned(
    *,
    plan_file: Path | None,
    loaded: manifests.LoadResult | None,
    target: operations.Target,
    request: operations.PlanRequest,
    timeout: float | None,
    other_version: bool,
) -> tuple[plans.Plan, Operations | None, float | None]:
    """The plan to apply, its operations when loading it decoded them, and what planning left of ``--timeout``: one
    bound for the whole command (the time a confirmation waits for its answer is not counted)."""
    from reconciler import operations

    started = time.monotonic()
    p, ops = operations.plan_to_apply(
        plan_file=plan_file,
        loaded=loaded,
        target=target,
        request=request,
        timeout_s=timeout,
        other_version=other_version,
    )
    return p, ops, None if timeout is None else max(0.001, timeout - (time.monotonic() - started))


def _prepared(
    p: plans.Plan,
    checked: Operations | None,
    *,
    target: operations.Target,
    left: float | None,
    timeout: float | None,
    dry_run: bool,
) -> tuple[KafkaAdapter, Operations]:
    """``operations.prepare_apply`` (``checked``: the operations of a saved plan, decoded when it was loaded): the
    adapter, told that its connect has what planning (or loading the saved plan) left of ``--timeout``, so that a
    connect that times out names the --timeout and what used it, and the plan's operations."""
    from reconciler import operations

    adapter, ops = operations.prepare_apply(p, target=target, timeout_s=left, dry_run=dry_run, checked=checked)
    if timeout is not None and left is not None:
        adapter.name_budget(given_s=timeout, left_s=left, used_by="planning" if checked is None else "loading the plan")
    return adapter, ops


def _request(
    rotate: list[str] | None, allow_in_use: bool, in_use_window: str, max_deletes: int | None
) -> operations.PlanRequest:
    from reconciler import operations

    return operations.PlanRequest(
        rotate_passwords=rotate or (),
        allow_delete_in_use=allow_in_use,
        in_use_window=in_use_window,
        max_deletes=max_deletes,
    )


def _target(
    loaded: manifests.LoadResult | None,
    *,
    cluster: str | None,
    bootstrap_server: str | None,
    command_config: Path | None,
) -> operations.Target:
    """The cluster ``apply`` was pointed at: its flags and the manifests' Cluster profiles."""
    from reconciler import operations

    profiles = loaded.profiles if loaded is not None else {}
    return operations.Target(
        cluster=cluster, bootstrap_server=bootstrap_server, command_config=command_config, profiles=profiles
    )


def _nothing_to_do(fmt: ApplyFormat) -> None:
    if fmt is ApplyFormat.json:
        import json

        typer.echo(json.dumps({"applied": 0, "message": "no changes"}))


def apply(
    paths: ApplyPathsArg = None,
    plan_file: SavedPlanOpt = None,
    auto_approve: AutoApproveOpt = False,
    dry_run: DryRunOpt = False,
    allow_self_lockout: SelfLockoutOpt = False,
    environment: EnvironmentOpt = None,
    cluster: ClusterOpt = None,
    bootstrap_server: BootstrapOpt = None,
    command_config: CommandConfigOpt = None,
    fmt: ApplyFormatOpt = ApplyFormat.text,
    timeout: ApplyTimeoutOpt = None,
    read_back_timeout: ReadBackTimeoutOpt = None,
    replication_throttle: ThrottleOpt = None,
    rotate_password: RotateOpt = None,
    allow_in_use: AllowInUseOpt = False,
    in_use_window: InUseWindowOpt = defaults.IN_USE_WINDOW,
    max_deletes: MaxDeletesOpt = None,
    allow_other_version: OtherVersionOpt = False,
    lock_timeout: LockTimeoutOpt = 0.0,
    no_lock: NoLockOpt = False,
    compact: CompactOpt = False,
    no_color: NoColorOpt = False,
    verbose: VerboseOpt = 0,
) -> None:
    """Plan and apply (or apply a saved plan): deletes before adds, batched, verified by a read-back.

    A plan made now is shown and confirmed (--auto-approve: not asked); a saved plan (--plan FILE) was reviewed when
    it was made and is applied without a question. Manifest paths given with --plan are planned again, and the saved
    plan is refused (exit 1, nothing written) unless they still produce it.
    """
    output.setup_logging(verbose)
    output.use_color(no_color)
    with output.errors_to_exit():
        from reconciler import operations, ports

        loaded = output.load(paths, environment) if paths else None
        target = _target(loaded, cluster=cluster, bootstrap_server=bootstrap_server, command_config=command_config)
        loaded = None if loaded is None else ports.placed_load(loaded, target)
        p, checked, left = _planned(
            plan_file=plan_file,
            loaded=loaded,
            target=target,
            request=_request(rotate_password, allow_in_use, in_use_window, max_deletes),
            timeout=timeout,
            other_version=allow_other_version,
        )
        if fmt is ApplyFormat.text:
            output.echo(output.render_plan(p, PlanFormat.text, compact=compact))
        if not operations.has_work(p):
            _nothing_to_do(fmt)
            return
        adapter, ops = _prepared(p, checked, target=target, left=left, timeout=timeout, dry_run=dry_run)
        # A saved plan was reviewed when it was made (as terraform apply PLANFILE): only a plan made now is confirmed.
        if p.actionable and not dry_run and not auto_approve and plan_file is None:
            confirm.ask(deletes=confirm.deleted_count(p))
        report = run_and_report(
            p,
            adapter,
            dry_run=dry_run,
            fmt=fmt,
            console=output.console(),
            loaded=loaded,
            allow_self_lockout=allow_self_lockout,
            timeout=left,
            replication_throttle=replication_throttle,
            read_back_timeout=read_back_timeout,
            target=target,
            timeout_given=timeout,
            lock=lock_request(lock_timeout, no_lock=no_lock, plan_file=plan_file),
            ops=ops,
        )
    if report.exit_code:
        raise typer.Exit(code=report.exit_code)

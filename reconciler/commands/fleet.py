"""``fleet plan`` and ``fleet apply``: plan every cluster of a fleet file (``reconciler.fleet.run_fleet_plan``),
or apply the plans of one such run (``reconciler.fleet.applying.run_fleet_apply``), and summarise.

``app`` is the ``fleet`` group of commands.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from reconciler.commands import output
from reconciler.commands.options import ApiUrlOpt, DriftLabelOpt, LockTimeoutOpt, NoLockOpt, RepoOpt, VerboseOpt
from reconciler.commands.plain_help import PlainCommand

if TYPE_CHECKING:
    from reconciler.apply.lock import LockRequest
    from reconciler.fleet import FleetEvent, FleetResult
    from reconciler.fleet.apply_results import ClusterApply, FleetApplyResult
    from reconciler.fleet.applying import PlannedCluster


class FleetEngine(str, enum.Enum):
    local = "local"
    spark = "spark"


class FleetFormat(str, enum.Enum):
    text = "text"
    json = "json"


app = typer.Typer(
    name="fleet",
    help="Plan many clusters at once (fleet.yaml), and apply those plans.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_text(result: FleetResult, *, out_dir: Path) -> None:
    summary = result.summary
    for c in result.clusters:
        if c.status == "planned":
            n = c.counts
            output.say(
                f"{c.name}: {n['create']} to create, {n['update']} to update, {n['delete']} to delete, "
                f"{n['blocked']} blocked ({c.plan_path})"
            )
        else:
            output.say(f"{c.name}: {c.status.upper()}: {c.reason}", style="yellow")
    status = "PARTIAL" if result.partial else "complete"
    changes = "changes present" if result.has_changes else "no changes"
    output.say(
        f"Fleet: {status}, {changes}: {summary['clusters_planned']} of {summary['clusters_total']} cluster(s) "
        f"planned, {summary['clusters_with_changes']} with changes, in {result.seconds:.1f} s "
        f"({result.engine} engine, run {summary['run']['id']})."
    )
    for note in result.notes:
        output.say(note, err=True)
    output.say(f"Report: {out_dir / 'report.html'} (and {out_dir / 'report.md'}, {out_dir / 'summary.json'})")


FleetFileArg = Annotated[Path, typer.Argument(help="The fleet file listing the clusters (see docs/fleet.md).")]
EngineOpt = Annotated[
    FleetEngine,
    typer.Option("--engine", help="local: in this process; spark: Apache Spark (needs the spark extra)."),
]
MasterOpt = Annotated[
    str | None, typer.Option("--master", help="Spark master URL (default local[*]); only with --engine spark.")
]
PlanOutOpt = Annotated[
    Path, typer.Option("--out", help="Directory for <cluster>/plan.json, summary.json, report.md, *.parquet.")
]
FleetFormatOpt = Annotated[FleetFormat, typer.Option("--format", help="What to print at the end.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines on stderr.")]
FleetExitcodeOpt = Annotated[
    bool,
    typer.Option(
        "--detailed-exitcode", help="Exit 2 when some cluster has changes; 4 when partial and some has changes."
    ),
]
PlanClustersOpt = Annotated[
    str | None, typer.Option("--clusters", help="Plan only these clusters (comma-separated names).")
]
ReadConcurrencyOpt = Annotated[
    int | None,
    typer.Option(
        "--read-concurrency",
        min=1,
        help="Clusters read at once (local default 8; spark: tasks, default 1-4 per core).",
    ),
]
PlanDeadlineOpt = Annotated[
    float | None,
    typer.Option("--deadline", min=1.0, help="Whole-run deadline in seconds; clusters not read by then: skipped."),
]
ConfOpt = Annotated[
    list[str] | None,
    typer.Option("--conf", help="A Spark setting key=value (repeatable); only with --engine spark."),
]
RetryFailedOpt = Annotated[
    Path | None,
    typer.Option(
        "--retry-failed",
        help="An earlier run's summary.json: plan only the clusters it could not plan (into its folder: "
        "keep the others).",
    ),
]


KeepHistoryOpt = Annotated[
    str | None,
    typer.Option(
        "--keep-history",
        help="Prune history/ after the run: keep the last N runs (e.g. 30) or the runs of the last N days (e.g. 14d).",
    ),
]


WebhookOpt = Annotated[
    str | None,
    typer.Option(
        "--webhook",
        envvar="KAFKA_RECONCILER_FLEET_WEBHOOK",
        show_envvar=True,
        help="POST a JSON message (with a Slack-compatible text field) on new drift, resolved drift or a failed "
        "run. The URL is never printed.",
    ),
]


@app.command("plan", cls=PlainCommand)
def plan(
    fleet_file: FleetFileArg,
    engine: EngineOpt = FleetEngine.local,
    master: MasterOpt = None,
    out_dir: PlanOutOpt = Path("fleet-plan"),
    fmt: FleetFormatOpt = FleetFormat.text,
    quiet: QuietOpt = False,
    detailed_exitcode: FleetExitcodeOpt = False,
    clusters: PlanClustersOpt = None,
    read_concurrency: ReadConcurrencyOpt = None,
    deadline: PlanDeadlineOpt = None,
    conf: ConfOpt = None,
    retry_failed: RetryFailedOpt = None,
    keep_history: KeepHistoryOpt = None,
    webhook: WebhookOpt = None,
    verbose: VerboseOpt = 0,
) -> None:
    """Plan every cluster of a fleet; exit 0 all planned, 3 partial, 1 on error (see --detailed-exitcode)."""
    output.setup_logging(verbose, quiet_kafka=True)  # a cluster that is down is reported once, with its reason
    from reconciler import fleet
    from reconciler.base import errors
    from reconciler.fleet import history
    from reconciler.fleet.runner import FleetRunFailed

    def progress(event: FleetEvent) -> None:
        if not quiet:
            style = "yellow" if event.stage == "unreadable" else None
            output.say(f"[{event.stage}] {event.message}", err=True, style=style)

    with output.errors_to_exit():
        if (master is not None or conf) and engine is not FleetEngine.spark:
            raise errors.ConfigError("--master and --conf need --engine spark")
        spark_conf = fleet.spark_conf(conf or [])
        retention = None if keep_history is None else history.Retention.parse(keep_history)
        names = [n.strip() for n in clusters.split(",") if n.strip()] if clusters is not None else None
        spec = fleet.select_clusters(fleet.load_fleet(fleet_file), names)
        try:
            result = fleet.run_fleet_plan(
                spec,
                engine=engine.value,
                master=master,
                out_dir=out_dir,
                progress=progress,
                spark_conf=spark_conf,
                read_concurrency=read_concurrency,
                deadline_s=deadline,
                retry_failed=retry_failed,
                keep_history=retention,
                webhook=webhook,
            )
        except FleetRunFailed as failed:  # recorded as a failed run: say what else happened, then the error
            for note in failed.result.notes:
                output.say(note, err=True)
            raise
    _finish_plan(result, fmt=fmt, out_dir=out_dir, detailed_exitcode=detailed_exitcode)


def _finish_plan(result: FleetResult, *, fmt: FleetFormat, out_dir: Path, detailed_exitcode: bool) -> None:
    """Print the run's result and exit with its code."""
    if fmt is FleetFormat.json:
        import json

        typer.echo(json.dumps({k: v for k, v in result.summary.items() if k != "drift"}, indent=2))
    else:
        _print_text(result, out_dir=out_dir)
    code = result.detailed_exit_code if detailed_exitcode else result.exit_code
    if code:
        raise typer.Exit(code=code)


def _show_planned(planned: list[PlannedCluster], run_id: str) -> int:
    """One line per cluster of what apply will do; returns how many clusters have work."""
    from reconciler import operations

    with_work = 0
    output.say(f"Plans of fleet plan run {run_id}:", err=True)
    for item in planned:
        if item.plan is None:
            output.say(f"  {item.spec.name}: NOT APPLIED: {item.problem}", err=True, style="yellow")
            continue
        s = item.plan.summary()
        work = operations.has_work(item.plan)
        with_work += work
        output.say(
            f"  {item.spec.name}: {s.create} to create, {s.update} to update, {s.delete} to delete, "
            f"{s.blocked} blocked" + ("" if work else " (nothing to apply)"),
            err=True,
        )
    return with_work


def _print_apply(result: FleetApplyResult, *, plans_dir: Path) -> None:
    for c in result.clusters:
        n = c.counts
        done = f"{n.get('applied', 0)} applied, {n.get('failed', 0)} failed" if n else ""
        if c.status in ("applied", "validated", "no-changes"):
            output.say(f"{c.name}: {c.status}" + (f" ({done})" if done else ""))
        else:
            output.say(f"{c.name}: {c.status.upper()}: {c.reason}" + (f" ({done})" if done else ""), style="yellow")
    ok = sum(1 for c in result.clusters if c.status in ("applied", "validated", "no-changes"))
    status = "PARTIAL" if result.partial else "complete"
    head = "Fleet dry run" if result.dry_run else "Fleet apply"
    counts = result.summary["outcomes"]
    others = "".join(
        f", {counts[s]} {s}"
        for s in ("partial", "refused", "unreachable", "not-applied", "skipped", "failed")
        if counts[s]
    )
    output.say(
        f"{head}: {status}: {ok} of {len(result.clusters)} cluster(s) applied or unchanged{others}, in "
        f"{result.seconds:.1f} s (plan run {result.run_id})."
    )
    output.say(
        f"Report: {plans_dir / 'report.html'} (apply results beside the plans; {plans_dir / 'apply-summary.json'})"
    )


ApplyFleetFileArg = Annotated[
    Path, typer.Argument(help="The fleet file the plans were made from (for the connections).")
]
PlansDirOpt = Annotated[Path, typer.Option("--plans", help="The output folder of the fleet plan run to apply.")]
RunIdOpt = Annotated[
    str | None,
    typer.Option("--run", help="Apply only if the folder still holds this run (the id in its report)."),
]
ApplyClustersOpt = Annotated[
    str | None, typer.Option("--clusters", help="Apply only these clusters (comma-separated names).")
]
ConcurrencyOpt = Annotated[int, typer.Option("--concurrency", min=1, help="Clusters applied at once.")]
ApplyTimeoutOpt = Annotated[
    float | None,
    typer.Option("--timeout", min=1.0, help="Bound on each cluster's apply, in seconds (default: as apply)."),
]
ApplyDeadlineOpt = Annotated[
    float | None,
    typer.Option("--deadline", min=1.0, help="Whole-run deadline in seconds; clusters not started: skipped."),
]
DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="validateOnly requests; write nothing.")]
AutoApproveOpt = Annotated[bool, typer.Option("--auto-approve", help="Do not ask for confirmation.")]


@app.command("apply", cls=PlainCommand)
def apply(
    fleet_file: ApplyFleetFileArg,
    plans_dir: PlansDirOpt = Path("fleet-plan"),
    run_id: RunIdOpt = None,
    clusters: ApplyClustersOpt = None,
    concurrency: ConcurrencyOpt = 4,
    timeout: ApplyTimeoutOpt = None,
    deadline: ApplyDeadlineOpt = None,
    dry_run: DryRunOpt = False,
    auto_approve: AutoApproveOpt = False,
    fmt: FleetFormatOpt = FleetFormat.text,
    quiet: QuietOpt = False,
    lock_timeout: LockTimeoutOpt = 0.0,
    no_lock: NoLockOpt = False,
    verbose: VerboseOpt = 0,
) -> None:
    """Apply the saved plans of a fleet plan run; exit 0 all applied or unchanged, 3 partial, 1 on error, 130 Ctrl-C."""
    output.setup_logging(verbose, quiet_kafka=True)
    from reconciler import fleet
    from reconciler.base import interrupt
    from reconciler.fleet import apply_results, applying, lock

    def on_done(result: ClusterApply) -> None:
        if not quiet:
            style = None if result.status in apply_results.OK_STATUSES else "yellow"
            output.say(f"[apply] {result.name}: {result.status}", err=True, style=style)

    with output.errors_to_exit():
        names = [n.strip() for n in clusters.split(",") if n.strip()] if clusters is not None else None
        spec = fleet.select_clusters(fleet.load_fleet(fleet_file), names)
        # held from reading the plans, through the confirmation, to the last write
        with lock.hold(plans_dir, command=lock.command_line(), create=False):
            found, planned = applying.planned_clusters(spec, plans_dir, run_id=run_id)
            if not quiet or not auto_approve:
                with_work = _show_planned(planned, found)
                if with_work and not dry_run and not auto_approve:
                    from reconciler.commands import confirm

                    deletes = sum(confirm.deleted_count(item.plan) for item in planned if item.plan is not None)
                    confirm.ask(f"Apply these changes to {with_work} cluster(s)?", deletes=deletes)
            with interrupt.handling():  # the first Ctrl-C starts no other cluster, the running ones send nothing new
                result = applying.run_fleet_apply(
                    spec,
                    out_dir=plans_dir,
                    concurrency=concurrency,
                    dry_run=dry_run,
                    timeout_s=timeout,
                    deadline_s=deadline,
                    on_done=on_done,
                    planned=planned,
                    cluster_lock=_cluster_lock(lock_timeout, no_lock=no_lock, dry_run=dry_run, quiet=quiet),
                )
    _finish(result, fmt=fmt, plans_dir=plans_dir)


INTERRUPTED_RUN = (
    "interrupted (Ctrl-C): no cluster was started after it, and the running ones sent nothing new; each cluster's "
    "report says what was applied and what was not sent. Run fleet plan to see what is left"
)


def _cluster_lock(lock_timeout: float, *, no_lock: bool, dry_run: bool, quiet: bool) -> LockRequest | None:
    """The apply lock each cluster's apply takes (``--lock-timeout``, ``--no-lock``, said once); none in a dry run."""
    from reconciler.apply.lock import LockRequest

    if dry_run:
        return None
    if no_lock and not quiet:
        output.say("Applying without the clusters' apply locks (--no-lock)", err=True)
    return LockRequest(wait_s=lock_timeout, skip=no_lock, plan="fleet apply")


def _finish(result: FleetApplyResult, *, fmt: FleetFormat, plans_dir: Path) -> None:
    """Print the run's outcome (JSON: the summary), say when Ctrl-C stopped it, and exit with its code."""
    if fmt is FleetFormat.json:
        import json

        typer.echo(json.dumps(dict(result.summary), indent=2))
    else:
        _print_apply(result, plans_dir=plans_dir)
    if result.interrupted:
        output.say(INTERRUPTED_RUN, err=True)
    if result.exit_code:
        raise typer.Exit(code=result.exit_code)


@app.command("drift-issue", cls=PlainCommand)
def drift_issue(
    plans_dir: PlansDirOpt = Path("fleet-plan"),
    name: Annotated[str, typer.Option("--name", help="The fleet's name, in the issue's title.")] = "default",
    close_if_clean: Annotated[
        bool, typer.Option("--close-if-clean", help="Close the open issue when a complete run finds no drift.")
    ] = False,
    label: DriftLabelOpt = "kafka-drift",
    repo: RepoOpt = None,
    api_url: ApiUrlOpt = None,
) -> None:
    """Open, update or close the fleet's drift issue from a fleet plan folder ($GITHUB_TOKEN)."""
    from reconciler.fleet import issue
    from reconciler.gitops import event

    with output.errors_to_exit():
        ctx = event.context_from_env(repo=repo, api_url=api_url)
        drift, result = issue.report_fleet_drift(
            plans_dir, name=name, close_if_clean=close_if_clean, ctx=ctx, label=label
        )
    where = f" #{result.number} {result.url}" if result.number is not None else ""
    typer.echo(f"Drift across fleet {name}: {'yes' if drift else 'no'}; issue {result.action}{where}")

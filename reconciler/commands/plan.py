"""``plan``: compare the manifests with the live cluster or a snapshot (``operations.compute_plan``) and render."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from reconciler.commands import output
from reconciler.commands.options import (
    AllowInUseOpt,
    BootstrapOpt,
    ClusterOpt,
    CommandConfigOpt,
    CompactOpt,
    EnvironmentOpt,
    InUseWindowOpt,
    LiveStateOpt,
    MaxDeletesOpt,
    NoColorOpt,
    PathsArg,
    PlanFormat,
    PlanFormatOpt,
    RotateOpt,
    VerboseOpt,
)
from reconciler.model import defaults

if TYPE_CHECKING:
    from reconciler import manifests, operations
    from reconciler.model import plans


OutOpt = Annotated[Path | None, typer.Option("--out", help="Save the plan as JSON for 'apply --plan'.")]
DetailedExitcodeOpt = Annotated[
    bool, typer.Option("--detailed-exitcode", help="Exit 0 when no changes, 2 when changes, 1 on error.")
]
TitleNameOpt = Annotated[
    str | None,
    typer.Option(
        "--name",
        help="Name of the cluster for people: heads the markdown plan, as 'comment --name' heads the pull-request "
        "comment (default: --cluster).",
    ),
]
ValidateOpt = Annotated[
    bool, typer.Option("--validate", help="Also ask the broker to validate the changes (validateOnly).")
]
TimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        help="Give up connecting after this many seconds, and on any request unanswered for as long "
        "(default: the request timeout, 30 s).",
        show_default=False,
        min=0.001,
    ),
]


def plan(
    paths: PathsArg,
    environment: EnvironmentOpt = None,
    cluster: ClusterOpt = None,
    bootstrap_server: BootstrapOpt = None,
    command_config: CommandConfigOpt = None,
    live_state: LiveStateOpt = None,
    out_file: OutOpt = None,
    fmt: PlanFormatOpt = PlanFormat.text,
    name: TitleNameOpt = None,
    detailed_exitcode: DetailedExitcodeOpt = False,
    validate_on_broker: ValidateOpt = False,
    timeout: TimeoutOpt = None,
    rotate_password: RotateOpt = None,
    allow_in_use: AllowInUseOpt = False,
    in_use_window: InUseWindowOpt = defaults.IN_USE_WINDOW,
    max_deletes: MaxDeletesOpt = None,
    compact: CompactOpt = False,
    no_color: NoColorOpt = False,
    verbose: VerboseOpt = 0,
) -> None:
    """Compare the manifests with the live cluster (or a snapshot) and show what apply would do."""
    output.setup_logging(verbose)
    output.use_color(no_color)
    with output.errors_to_exit():
        from reconciler import operations

        loaded = output.load(paths, environment)
        target = operations.Target(
            cluster=cluster, bootstrap_server=bootstrap_server, command_config=command_config, profiles=loaded.profiles
        )
        request = operations.PlanRequest(
            rotate_passwords=rotate_password or (),
            allow_delete_in_use=allow_in_use,
            in_use_window=in_use_window,
            max_deletes=max_deletes,
        )
        p = operations.compute_plan(
            loaded,
            target=target,
            request=request,
            live_state=live_state,
            connect_timeout_s=timeout,
            request_bound_s=timeout,
        )
        if out_file is not None:
            p.save(out_file)
        _warn_unset_secrets(p)
        output.echo(output.render_plan(p, fmt, cluster_name=name or cluster, compact=compact))
        if out_file is not None and fmt is PlanFormat.text:
            output.say(f"Saved the plan to {out_file}.", err=True)
        if validate_on_broker:
            _validate_on_broker(p, target=target, loaded=loaded, live_state=live_state, fmt=fmt)
    if any(w.severity == "error" and w.address is None for w in p.warnings):
        # apply would refuse this plan (a section it needs could not be read): the exit status says so too
        raise typer.Exit(code=1)
    if detailed_exitcode and (p.summary().has_changes or p.blocked):
        raise typer.Exit(code=2)


def _warn_unset_secrets(p: plans.Plan) -> None:
    """A secret the plan sets that cannot be read here (an unset variable): apply would refuse, so say it now."""
    from reconciler.apply import secrets_at_write

    for problem in secrets_at_write.unset_secrets(p.changes):
        output.say(f"warning: {problem}; apply refuses this plan until it is there", err=True, style="yellow")


def _validate_on_broker(
    p: plans.Plan, *, target: operations.Target, loaded: manifests.LoadResult, live_state: Path | None, fmt: PlanFormat
) -> None:
    """``--validate``: the broker's dry run of the plan (validateOnly); exit 1 when it rejects any part."""
    from reconciler.base import errors
    from reconciler.commands import apply as apply_cmd

    if live_state is not None:
        raise errors.ConfigError("--validate needs a live cluster, not --live-state")
    console = output.console(stderr=fmt is not PlanFormat.text)
    if apply_cmd.broker_rejects(p, target=target, loaded=loaded, console=console):
        output.say("error: the broker rejected part of this plan (see the dry run above)", err=True)
        raise typer.Exit(code=1)

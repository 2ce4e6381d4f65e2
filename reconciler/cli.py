"""The typer command-line app: parses options, calls library functions, renders, maps errors to exit codes.

This is the only module that prints. Commands stay thin; the work lives in ``reconciler.workflow``,
the planner, the apply engine and the renderers. Exit codes: 0 success, 1 error before any write,
2 changes present (``plan --detailed-exitcode``), 3 partial failure (apply) or partial result (fleet),
4 partial result with changes present (``fleet plan --detailed-exitcode``).
"""

import enum
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

import reconciler
from reconciler import cli_help, cli_tools, errors, terminal

if TYPE_CHECKING:  # imported where used, so --help, --version and validate start fast (docs/benchmarks.md)
    import logging

    from rich.console import Console

    from reconciler import manifests
    from reconciler import plan as plan_model
    from reconciler.apply.apply_report import ApplyReport
    from reconciler.kafka.adapter import KafkaAdapter

app = typer.Typer(
    name="kafka-reconciler",
    help="Declarative GitOps reconciler for Apache Kafka: validate manifests, plan, apply.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    epilog="Colour: --no-color or NO_COLOR=1 turn it off; FORCE_COLOR=1 turns it on for pipes and CI logs. "
    "Internal errors print one line; KAFKA_RECONCILER_DEBUG=1 shows the Python traceback (for a bug report).",
)


_no_color = False  # --no-color, before or after the command name


def _console(*, stderr: bool = False) -> "Console":
    """The rich console for tables and progress (apply); plain lines go through ``_say``."""
    return terminal.console(stderr=stderr, no_color=_no_color)


def _colour(*, err: bool = False) -> bool:
    """Colour codes or not (``reconciler.terminal``: --no-color, NO_COLOR, FORCE_COLOR, else a terminal)."""
    return terminal.color_wanted(sys.stderr if err else sys.stdout, no_color=_no_color)


def _say(text: str, *, err: bool = False, style: str | None = None) -> None:
    """Print one line as it is (no markup), on stderr when ``err``, in ``style`` colour when colour is wanted."""
    typer.secho(text, fg=style, err=err, color=_colour(err=err))


def _log() -> "logging.Logger":
    import logging

    return logging.getLogger("reconciler")


def _use_color(no_color: bool) -> None:
    global _no_color
    _no_color = _no_color or no_color


F = TypeVar("F", bound=Callable[..., Any])


class PlanFormat(str, enum.Enum):
    text = "text"
    markdown = "markdown"
    json = "json"


class ApplyFormat(str, enum.Enum):
    text = "text"
    json = "json"


class DiagFormat(str, enum.Enum):
    text = "text"
    json = "json"
    github = "github"
    gitlab = "gitlab"


# ---------------------------------------------------------------------------------- shared options
PathsArg = Annotated[
    list[Path],
    typer.Argument(help="Manifest files or directories (searched recursively for *.yaml / *.yml).", show_default=False),
]
EnvironmentOpt = Annotated[
    str | None, typer.Option("--environment", "-e", help="Environment overlay to apply (e.g. prod).")
]
BootstrapOpt = Annotated[
    str | None,
    typer.Option(
        "--bootstrap-server", help="host:port[,host:port] of the cluster (overrides profile and environment)."
    ),
]
CommandConfigOpt = Annotated[
    Path | None,
    typer.Option("--command-config", help="Kafka client properties file, as for Kafka's own CLI tools."),
]
ClusterOpt = Annotated[
    str | None, typer.Option("--cluster", help="Name of a Cluster profile declared in the manifests.")
]
LiveStateOpt = Annotated[
    Path | None,
    typer.Option("--live-state", help="Plan offline against a snapshot written by 'snapshot --out'."),
]
VerboseOpt = Annotated[int, typer.Option("--verbose", "-v", count=True, help="More logging on stderr (-v, -vv).")]
AllowInUseOpt = Annotated[
    bool,
    typer.Option(
        "--allow-deleting-topics-in-use",
        help="Delete topics the plan would delete even when consumer groups hold offsets on them or they were "
        "written to within --in-use-window.",
    ),
]
InUseWindowOpt = Annotated[
    str,
    typer.Option(
        "--in-use-window",
        help="A topic whose latest record is newer than this (e.g. 7d, 12h; 0 turns the test off) is in use.",
    ),
]
NoColorOpt = Annotated[
    bool, typer.Option("--no-color", help="No colour codes in the output (also NO_COLOR=1).", show_default=False)
]
CompactOpt = Annotated[
    bool, typer.Option("--compact", help="Text plan: one line per resource instead of one block.", show_default=False)
]
RotateOpt = Annotated[
    list[str] | None,
    typer.Option("--rotate-password", help="Re-set the password of this SCRAM user (repeatable)."),
]


def _setup_logging(verbose: int, *, quiet_kafka: bool = False) -> None:
    from reconciler import logs

    logs.setup(verbose, quiet_kafka=quiet_kafka)


def _print_diagnostics(diagnostics: list[errors.Diagnostic]) -> None:
    for d in diagnostics:
        style = "red" if d.severity is errors.Severity.ERROR else "yellow"
        _say(d.format(), err=True, style=style)


@contextmanager
def _errors_to_exit() -> Iterator[None]:
    """Map library errors to exit codes with one plain message; never a traceback."""
    try:
        yield
    except typer.Exit:
        raise
    except errors.ValidationFailed as exc:
        _print_diagnostics(exc.diagnostics)
        n = len(errors.errors_only(exc.diagnostics))
        _say(f"error: {terminal.count(n, 'problem')} in the manifests; nothing was sent to any cluster.", err=True)
        raise typer.Exit(code=1) from None
    except errors.ReconcilerError as exc:
        _say(f"error: {exc}", err=True)
        raise typer.Exit(code=exc.exit_code) from None
    except KeyboardInterrupt:
        _say("interrupted", err=True)
        raise typer.Exit(code=130) from None
    except Exception as exc:
        if os.environ.get("KAFKA_RECONCILER_DEBUG"):
            raise
        _say(f"internal error: {type(exc).__name__} (set KAFKA_RECONCILER_DEBUG=1 for details and report it)", err=True)
        raise typer.Exit(code=1) from None


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"kafka-reconciler {reconciler.__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool | None,
        typer.Option("--version", callback=_version_callback, is_eager=True, help="Show the version and exit."),
    ] = None,
    no_color: NoColorOpt = False,
) -> None:
    """Declarative GitOps reconciler for Apache Kafka."""
    global _no_color
    _no_color = no_color


# -------------------------------------------------------------------------------------- validate
def _validate_once(paths: list[Path], environment: str | None) -> tuple[list[errors.Diagnostic], str | None]:
    """Diagnostics and the summary line (``None`` when the manifests are invalid)."""
    from reconciler import manifests  # not workflow: validate needs neither the planner nor a Kafka client

    try:
        result = manifests.load(paths, environment=environment)
    except errors.ValidationFailed as exc:
        return exc.diagnostics, None
    d, n = result.desired, terminal.count
    summary = (
        f"valid: {n(len(d.topics), 'topic')}, {n(len(d.acls), 'ACL')}, {n(len(d.quotas), 'quota')}, "
        f"{n(len(d.scram_users), 'SCRAM user')}, {n(len(d.broker_configs), 'broker config set')}, "
        f"{n(len(result.profiles), 'cluster profile')}"
    )
    return result.diagnostics, summary


@app.command(cls=cli_help.PlainCommand)
def validate(
    paths: PathsArg,
    environment: EnvironmentOpt = None,
    fmt: Annotated[DiagFormat, typer.Option("--format", help="Diagnostics format.")] = DiagFormat.text,
    tree: Annotated[
        bool,
        typer.Option(
            "--tree",
            help="Each file stands for the whole manifest tree it belongs to (its top-level directory, or --root): "
            "for pre-commit, which passes only the changed files.",
        ),
    ] = False,
    roots: Annotated[
        list[Path] | None,
        typer.Option("--root", metavar="DIR", help="With --tree: a directory that is one manifest tree (repeatable)."),
    ] = None,
) -> None:
    """Validate manifests offline: exit 0 when valid, 1 otherwise."""
    diagnostics: list[errors.Diagnostic] = []
    summaries: list[str] = []
    failed = False
    with _errors_to_exit():
        runs: list[tuple[list[Path], str | None, str]] = [(list(paths), environment, "")]
        if tree:
            from reconciler.manifests import tree as trees_mod

            runs = []
            for t in trees_mod.trees(paths, roots=roots or ()):
                envs = [environment] if environment is not None else [None, *t.environments]
                runs += [(list(t.paths), env, f"{t.label}{f' ({env})' if env else ''}: ") for env in envs]
        seen: set[str] = set()
        for run_paths, env, label in runs:
            found, summary = _validate_once(run_paths, env)
            for d in found:
                if d.format() not in seen:  # a base error shows once, not once per environment
                    seen.add(d.format())
                    diagnostics.append(d)
            failed = failed or summary is None
            if summary is not None:
                summaries.append(label + summary)
    if fmt is DiagFormat.json:
        import json

        typer.echo(json.dumps({"valid": not failed, "diagnostics": [d.to_dict() for d in diagnostics]}, indent=2))
    elif fmt in (DiagFormat.github, DiagFormat.gitlab):
        from reconciler.gitops import annotations as gh_annotations

        workspace = Path(os.environ["GITHUB_WORKSPACE"]) if os.environ.get("GITHUB_WORKSPACE") else None
        if fmt is DiagFormat.github:
            for line in gh_annotations.github_annotations(diagnostics, workspace=workspace):
                typer.echo(line)
        else:
            import json

            typer.echo(json.dumps(gh_annotations.gitlab_code_quality(diagnostics, workspace=workspace), indent=2))
        _print_diagnostics(diagnostics)
    else:
        _print_diagnostics(diagnostics)
        if not failed:
            for summary in summaries:
                _say(summary)
    if failed:
        raise typer.Exit(code=1)


# ------------------------------------------------------------------------------------------ plan
def _echo(text: str) -> None:
    # Colour was decided when the text was rendered (reconciler.terminal); click must not strip it again.
    typer.echo(text, nl=not text.endswith("\n"), color=True)


def _render(p: "plan_model.Plan", fmt: PlanFormat, *, cluster_name: str | None = None, compact: bool = False) -> str:
    from reconciler.render import json as render_json
    from reconciler.render import markdown as render_markdown
    from reconciler.render import text as render_text

    if fmt is PlanFormat.json:
        return render_json.render(p)
    if fmt is PlanFormat.markdown:
        return render_markdown.render(p, title=cluster_name)
    return render_text.render(p, color=_colour(), compact=compact)


def _load(paths: list[Path], environment: str | None) -> "manifests.LoadResult":
    from reconciler import workflow

    result = workflow.load_manifests(paths, environment=environment)
    _print_diagnostics(result.diagnostics)
    return result


def _connect(
    *,
    bootstrap_server: str | None,
    command_config: Path | None,
    cluster: str | None = None,
    profiles: "Mapping[str, manifests.ClusterProfile] | None" = None,
    connect_timeout_s: float | None = None,
) -> "KafkaAdapter":
    """An adapter for the cluster chosen by the flags, ``--command-config``, a profile or the environment.

    It connects on its first request, giving up after ``connect_timeout_s`` (default: the request timeout);
    use it as a context manager so the connection is closed.
    """
    from reconciler import connection_sources
    from reconciler.kafka.adapter import KafkaAdapter

    settings = connection_sources.resolve(
        bootstrap_server=bootstrap_server, command_config=command_config, profile_name=cluster, profiles=profiles
    )
    return KafkaAdapter(settings, connect_timeout_s=connect_timeout_s)


def _window_ms(text: str) -> int:
    """``--in-use-window`` in milliseconds: a duration as in manifests (``7d``, ``12h``, ``0``)."""
    from reconciler import configs

    try:
        window = int(configs.canonical("retention.ms", text))
    except ValueError:
        raise errors.ConfigError(f"--in-use-window: {text!r} is not a duration (e.g. 7d, 12h, 30m, 0)") from None
    if window < 0:
        raise errors.ConfigError("--in-use-window must not be negative")
    return window


def _compute_plan(
    loaded: "manifests.LoadResult",
    *,
    cluster: str | None,
    bootstrap_server: str | None,
    command_config: Path | None,
    live_state: Path | None,
    rotate: list[str] | None,
    connect_timeout_s: float | None = None,
    allow_in_use: bool = False,
    in_use_window: str = "7d",
) -> "plan_model.Plan":
    from reconciler import state, workflow

    result = loaded
    window = _window_ms(in_use_window)
    if live_state is not None:
        live = state.read_snapshot(live_state)
        return workflow.make_plan(
            result.desired,
            live,
            rotate_passwords=rotate or (),
            allow_delete_in_use=allow_in_use,
            in_use_window_ms=window,
        )
    with _connect(
        bootstrap_server=bootstrap_server,
        command_config=command_config,
        cluster=cluster,
        profiles=result.profiles,
        connect_timeout_s=connect_timeout_s,
    ) as adapter:
        live = workflow.read_live(adapter, result.desired)
        _log().info(
            "read the live state of %s in %d admin requests", adapter.settings.describe(), adapter.request_count
        )
        target = adapter.settings.target()
        # A plan that deletes topics reads their usage evidence through the same connection.
        return workflow.make_plan(
            result.desired,
            live,
            rotate_passwords=rotate or (),
            target=target,
            adapter=adapter,
            allow_delete_in_use=allow_in_use,
            in_use_window_ms=window,
        )


@app.command(cls=cli_help.PlainCommand)
def plan(
    paths: PathsArg,
    environment: EnvironmentOpt = None,
    cluster: ClusterOpt = None,
    bootstrap_server: BootstrapOpt = None,
    command_config: CommandConfigOpt = None,
    live_state: LiveStateOpt = None,
    out_file: Annotated[Path | None, typer.Option("--out", help="Save the plan as JSON for 'apply --plan'.")] = None,
    fmt: Annotated[PlanFormat, typer.Option("--format", help="Output format.")] = PlanFormat.text,
    detailed_exitcode: Annotated[
        bool, typer.Option("--detailed-exitcode", help="Exit 0 when no changes, 2 when changes, 1 on error.")
    ] = False,
    validate_on_broker: Annotated[
        bool, typer.Option("--validate", help="Also ask the broker to validate the changes (validateOnly).")
    ] = False,
    rotate_password: RotateOpt = None,
    allow_in_use: AllowInUseOpt = False,
    in_use_window: InUseWindowOpt = "7d",
    compact: CompactOpt = False,
    no_color: NoColorOpt = False,
    verbose: VerboseOpt = 0,
) -> None:
    """Compare the manifests with the live cluster (or a snapshot) and show what apply would do."""
    _setup_logging(verbose)
    _use_color(no_color)
    with _errors_to_exit():
        loaded = _load(paths, environment)
        p = _compute_plan(
            loaded,
            cluster=cluster,
            bootstrap_server=bootstrap_server,
            command_config=command_config,
            live_state=live_state,
            rotate=rotate_password,
            allow_in_use=allow_in_use,
            in_use_window=in_use_window,
        )
        if out_file is not None:
            p.save(out_file)
        _echo(_render(p, fmt, cluster_name=cluster, compact=compact))
        if out_file is not None and fmt is PlanFormat.text:
            _say(f"Saved the plan to {out_file}.", err=True)
        if validate_on_broker:
            if live_state is not None:
                raise errors.ConfigError("--validate needs a live cluster, not --live-state")
            from reconciler.apply.apply_report import Outcome as ApplyOutcome

            checked = _run_apply(
                p,
                dry_run=True,
                cluster=cluster,
                loaded=loaded,
                bootstrap_server=bootstrap_server,
                command_config=command_config,
                fmt="text",
                allow_self_lockout=False,
                timeout=120.0,
                console=_console(stderr=fmt is not PlanFormat.text),
            )
            if any(i.outcome is ApplyOutcome.DRY_RUN_REJECTED for i in checked.items):
                _say("error: the broker rejected part of this plan (see the dry run above)", err=True)
                raise typer.Exit(code=1)
    if detailed_exitcode and p.summary().has_changes:
        raise typer.Exit(code=2)
    if detailed_exitcode and p.blocked:
        raise typer.Exit(code=2)


# ------------------------------------------------------------------------------------------ show
@app.command(cls=cli_help.PlainCommand)
def show(
    plan_file: Annotated[Path, typer.Argument(help="A plan saved with 'plan --out'.")],
    fmt: Annotated[PlanFormat, typer.Option("--format", help="Output format.")] = PlanFormat.text,
    compact: CompactOpt = False,
    no_color: NoColorOpt = False,
) -> None:
    """Render a saved plan."""
    from reconciler import plan as plan_model

    _use_color(no_color)
    with _errors_to_exit():
        p = plan_model.Plan.load(plan_file)
        _echo(_render(p, fmt, compact=compact))


# -------------------------------------------------------------------------------------- snapshot
@app.command(cls=cli_help.PlainCommand)
def snapshot(
    out_file: Annotated[Path, typer.Option("--out", help="Where to write the JSON snapshot.")],
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Optional manifests: read only what they need (default: everything).", show_default=False),
    ] = None,
    environment: EnvironmentOpt = None,
    cluster: ClusterOpt = None,
    bootstrap_server: BootstrapOpt = None,
    command_config: CommandConfigOpt = None,
    verbose: VerboseOpt = 0,
) -> None:
    """Write the live state of a cluster as a versioned JSON snapshot (for offline plans and reviews)."""
    _setup_logging(verbose)
    from reconciler import desired, state, workflow

    with _errors_to_exit():
        profiles = {}
        if paths:
            result = workflow.load_manifests(paths, environment=environment)
            profiles = result.profiles
        with _connect(
            bootstrap_server=bootstrap_server, command_config=command_config, cluster=cluster, profiles=profiles
        ) as adapter:
            if paths:
                live = workflow.with_usage(adapter, result.desired, workflow.read_live(adapter, result.desired))
            else:
                kinds = frozenset(k for k in desired.KINDS if not adapter.missing_apis([k]))
                live = adapter.read_state(kinds=kinds)
            requests = adapter.request_count
        state.write_snapshot(live, out_file)
        n = terminal.count
        acls = "ACLs not read" if live.acls is None else n(len(live.acls), "ACL")
        _say(
            f"Wrote {out_file}: cluster {live.cluster_id}, {n(len(live.brokers), 'broker')}, "
            f"{n(len(live.topics or {}), 'topic')}, {acls} ({n(requests, 'admin request')}).",
            err=True,
        )


# ----------------------------------------------------------------------------------------- apply
def _run_apply(
    p: "plan_model.Plan",
    *,
    dry_run: bool,
    cluster: str | None,
    loaded: "manifests.LoadResult | None",
    bootstrap_server: str | None,
    command_config: Path | None,
    fmt: str,
    allow_self_lockout: bool,
    timeout: float,
    replication_throttle: int | None = None,
    read_back_timeout: float | None = None,
    adapter: "KafkaAdapter | None" = None,
    console: "Console | None" = None,
) -> "ApplyReport":
    from reconciler import apply as apply_mod
    from reconciler import apply_display

    console = console or _console()
    profiles = loaded.profiles if loaded is not None else {}
    wanted = loaded.desired if loaded is not None else None
    if adapter is None:
        adapter = _connect(
            bootstrap_server=bootstrap_server,
            command_config=command_config,
            cluster=cluster,
            profiles=profiles,
            connect_timeout_s=timeout,
        )
    head = "Dry run against" if dry_run else "Applying to"
    (_console(stderr=True) if fmt == "json" else console).print(
        f"{head} {adapter.settings.target()}, cluster {p.cluster.cluster_id or '(unknown id)'}", markup=False
    )
    options = apply_mod.ApplyOptions(
        dry_run=dry_run,
        allow_self_lockout=allow_self_lockout,
        deadline_s=timeout,
        replication_throttle=replication_throttle,
        settle_s=read_back_timeout,
        desired=wanted,
    )
    with adapter:
        if fmt == "text" and p.actionable:
            with apply_display.progress(_console(stderr=True)) as sink:
                report = apply_mod.apply_plan(p, adapter, options=options, events=sink)
        else:
            report = apply_mod.apply_plan(p, adapter, options=options)
    if fmt == "json":
        _echo(report.to_json())
    elif terminal.is_tty(console.file):
        console.print(apply_display.report_table(report))
        console.print(apply_display.summary_line(report), markup=False)
    else:
        console.print(apply_display.report_text(report), markup=False, end="")
    return report


@app.command(cls=cli_help.PlainCommand)
def apply(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Manifest files or directories (not needed with --plan).", show_default=False),
    ] = None,
    plan_file: Annotated[
        Path | None, typer.Option("--plan", help="Apply this saved plan instead of planning now.")
    ] = None,
    auto_approve: Annotated[bool, typer.Option("--auto-approve", help="Do not ask for confirmation.")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Send validateOnly requests; show what the broker says; write nothing.")
    ] = False,
    allow_self_lockout: Annotated[
        bool,
        typer.Option(
            "--allow-self-lockout-risk",
            help="Apply even if it deletes ACLs this tool's own principal needs to keep managing the cluster.",
        ),
    ] = False,
    environment: EnvironmentOpt = None,
    cluster: ClusterOpt = None,
    bootstrap_server: BootstrapOpt = None,
    command_config: CommandConfigOpt = None,
    fmt: Annotated[ApplyFormat, typer.Option("--format", help="Report format.")] = ApplyFormat.text,
    timeout: Annotated[float, typer.Option("--timeout", help="Bound on the whole apply, in seconds.")] = 300.0,
    read_back_timeout: Annotated[
        float | None,
        typer.Option(
            "--read-back-timeout",
            min=0,
            help="Bound, in seconds, on the read-back that waits for the brokers to show every change (default: "
            "as long as the work needs, until nothing more converges for 15 s + 20 ms per partition and change; "
            "always within --timeout).",
            show_default=False,
        ),
    ] = None,
    replication_throttle: Annotated[
        int | None,
        typer.Option(
            "--replication-throttle",
            min=1,
            help="Throttle reassignment traffic to this many bytes/s per broker while replicas move.",
        ),
    ] = None,
    rotate_password: RotateOpt = None,
    allow_in_use: AllowInUseOpt = False,
    in_use_window: InUseWindowOpt = "7d",
    compact: CompactOpt = False,
    no_color: NoColorOpt = False,
    verbose: VerboseOpt = 0,
) -> None:
    """Plan and apply (or apply a saved plan): deletes before adds, batched, verified by a read-back."""
    from reconciler import plan as plan_model

    _setup_logging(verbose)
    _use_color(no_color)
    with _errors_to_exit():
        loaded = _load(paths, environment) if paths else None
        if plan_file is not None:
            p = plan_model.Plan.load(plan_file)
        elif loaded is not None:
            p = _compute_plan(
                loaded,
                cluster=cluster,
                bootstrap_server=bootstrap_server,
                command_config=command_config,
                live_state=None,
                rotate=rotate_password,
                connect_timeout_s=timeout,
                allow_in_use=allow_in_use,
                in_use_window=in_use_window,
            )
        else:
            raise errors.ConfigError("give manifest paths to plan and apply, or --plan FILE")
        if fmt is ApplyFormat.text:
            _echo(_render(p, PlanFormat.text, compact=compact))
        if not (p.actionable or p.blocked or any(w.severity == "error" for w in p.warnings)):
            if fmt is ApplyFormat.json:
                import json

                typer.echo(json.dumps({"applied": 0, "message": "no changes"}))
            return
        # Everything that can fail without a cluster (connection settings, profile and SCRAM secrets) is
        # resolved before the question, so a missing secret is reported before anyone answers it.
        adapter = _connect(
            bootstrap_server=bootstrap_server,
            command_config=command_config,
            cluster=cluster,
            profiles=loaded.profiles if loaded is not None else {},
            connect_timeout_s=timeout,
        )
        if p.actionable and not dry_run:
            from reconciler.apply import preflight

            preflight.resolve_secrets(p.actionable, environ=None)
        # A plan with error-level findings is refused by apply (exit 1); one with only blocked changes is
        # reported as such (exit 3): nothing applied while the manifests want a change is never a success.
        if p.actionable and not dry_run and not auto_approve:
            if not sys.stdin.isatty():
                raise errors.ConfigError("refusing to apply without confirmation: use --auto-approve when not on a TTY")
            # The question goes to stderr: with stdout redirected to a file the user still sees it.
            if not typer.confirm("Apply these changes?", default=False, err=True):
                _say("Apply cancelled; nothing was written.", err=True)
                raise typer.Exit(code=1)
        report = _run_apply(
            p,
            dry_run=dry_run,
            cluster=cluster,
            loaded=loaded,
            bootstrap_server=bootstrap_server,
            command_config=command_config,
            adapter=adapter,
            fmt=fmt.value,
            allow_self_lockout=allow_self_lockout,
            timeout=timeout,
            replication_throttle=replication_throttle,
            read_back_timeout=read_back_timeout,
        )
    if report.exit_code:
        raise typer.Exit(code=report.exit_code)


# ---------------------------------------------------------------------------------------- GitHub
PlanFileOpt = Annotated[Path, typer.Option("--plan", dir_okay=False, help="Saved plan file written by 'plan --out'.")]
ClusterNameOpt = Annotated[
    str | None,
    typer.Option("--cluster", help="Cluster name; keys the comment/issue (default: the plan's cluster id)."),
]
RepoOpt = Annotated[str | None, typer.Option("--repo", help="OWNER/NAME (default: $GITHUB_REPOSITORY).")]
ApiUrlOpt = Annotated[
    str | None, typer.Option("--api-url", help="GitHub API URL (default: $GITHUB_API_URL or https://api.github.com).")
]


class CommentPlatform(str, enum.Enum):
    github = "github"
    gitlab = "gitlab"


@app.command("comment", cls=cli_help.PlainCommand)
def comment_cmd(
    plan_file: Annotated[
        Path | None, typer.Option("--plan", dir_okay=False, help="Saved plan file written by 'plan --out'.")
    ] = None,
    failed: Annotated[
        Path | None,
        typer.Option(
            "--failed",
            dir_okay=False,
            metavar="ERROR_FILE",
            help="The plan failed: replace the comment's plan with this error output (the plan command's stderr), "
            "so an old plan never looks current.",
        ),
    ] = None,
    cluster: ClusterNameOpt = None,
    repo: RepoOpt = None,
    pr: Annotated[
        int | None, typer.Option("--pr", min=1, help="Pull request number (default: from $GITHUB_EVENT_PATH).")
    ] = None,
    api_url: Annotated[
        str | None,
        typer.Option(
            "--api-url",
            help="API URL (default: $GITHUB_API_URL or https://api.github.com; GitLab: $CI_API_V4_URL or "
            "https://gitlab.com/api/v4).",
        ),
    ] = None,
    platform: Annotated[
        CommentPlatform | None,
        typer.Option(
            "--platform", help="Where to post (default: gitlab when $GITLAB_CI is set and $GITHUB_ACTIONS is not)."
        ),
    ] = None,
    project: Annotated[
        str | None,
        typer.Option("--project", help="GitLab project: GROUP/NAME or numeric id (default: $CI_PROJECT_ID)."),
    ] = None,
    mr: Annotated[
        int | None, typer.Option("--mr", min=1, help="GitLab merge request iid (default: $CI_MERGE_REQUEST_IID).")
    ] = None,
) -> None:
    """Create or update this cluster's plan comment on the pull or merge request ($GITHUB_TOKEN, $GITLAB_TOKEN)."""
    from reconciler import plan as plan_model
    from reconciler.gitops import publish

    with _errors_to_exit():
        if (plan_file is None) == (failed is None):
            raise errors.ConfigError("give --plan PLAN_FILE, or --failed ERROR_FILE when the plan failed")
        if plan_file is not None:
            p = plan_model.Plan.load(plan_file)
            name = publish.cluster_label(p, cluster)
            markdown = _render(p, PlanFormat.markdown, cluster_name=name)
        else:
            assert failed is not None
            name = cluster or "default"
            markdown = publish.failed_plan_markdown(publish.read_error_file(failed), cluster=name)
        noun, result = publish.publish_plan(
            markdown=markdown,
            cluster=name,
            platform=platform.value if platform else None,
            repo=repo,
            pr=pr,
            project=project,
            mr=mr,
            api_url=api_url,
        )
    typer.echo(f"Plan {noun} for {name} {result.action}: {result.url or f'id {result.id}'}")


@app.command("drift-issue", cls=cli_help.PlainCommand)
def drift_issue_cmd(
    plan_file: PlanFileOpt,
    cluster: ClusterNameOpt = None,
    close_if_clean: Annotated[
        bool, typer.Option("--close-if-clean", help="Close the open drift issue when the plan has no changes.")
    ] = False,
    label: Annotated[str, typer.Option("--label", help="Label that marks drift issues.")] = "kafka-drift",
    repo: RepoOpt = None,
    api_url: ApiUrlOpt = None,
) -> None:
    """Open, update or close this cluster's drift issue from a saved plan ($GITHUB_TOKEN)."""
    from reconciler import plan as plan_model
    from reconciler.gitops import event as gh_event
    from reconciler.gitops import publish

    with _errors_to_exit():
        p = plan_model.Plan.load(plan_file)
        ctx = gh_event.context_from_env(repo=repo, api_url=api_url)
        name = publish.cluster_label(p, cluster)
        drift = publish.has_drift(p)
        result = publish.report_drift(
            markdown=_render(p, PlanFormat.markdown, cluster_name=name),
            cluster=name,
            drift=drift,
            close_if_clean=close_if_clean,
            ctx=ctx,
            label=label,
        )
    where = f" #{result.number} {result.url}" if result.number is not None else ""
    typer.echo(f"Drift on {name}: {'yes' if drift else 'no'}; issue {result.action}{where}")


# ------------------------------------------------------------------------------- import, convert
class ConvertFormat(str, enum.Enum):
    strimzi = "strimzi"
    kafka_gitops = "kafka-gitops"


OutDirOpt = Annotated[Path, typer.Option("--out", help="Directory to write the manifests into (must be empty).")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Write into a non-empty directory, overwriting files.")]


def _print_adoption(report: Any, *, written: Path) -> None:
    for line in report.lines():
        _say(line)
    _say(f"Details and next steps: {written}", err=True)


@app.command(name="import", cls=cli_help.PlainCommand)
def import_cmd(
    out_dir: OutDirOpt,
    force: ForceOpt = False,
    include_tool_topics: Annotated[
        bool,
        typer.Option(
            "--include-tool-topics", help="Also import topics run by Kafka Connect, Schema Registry and MirrorMaker."
        ),
    ] = False,
    bootstrap_server: BootstrapOpt = None,
    command_config: CommandConfigOpt = None,
    verbose: VerboseOpt = 0,
) -> None:
    """Write manifests describing an existing cluster, so the first plan against it shows no changes."""
    _setup_logging(verbose)
    from reconciler.adopt import from_live

    with _errors_to_exit():
        with _connect(bootstrap_server=bootstrap_server, command_config=command_config) as adapter:
            live = from_live.read_for_adoption(adapter)
        report = from_live.adopt_cluster(live, out_dir=out_dir, force=force, include_tool_topics=include_tool_topics)
    _print_adoption(report, written=out_dir / "IMPORT.md")


@app.command(name="convert", cls=cli_help.PlainCommand)
def convert_cmd(
    inputs: Annotated[
        list[Path], typer.Argument(help="Input YAML files or directories of the other tool.", show_default=False)
    ],
    source: Annotated[ConvertFormat, typer.Option("--from", help="Format of the inputs.")],
    out_dir: OutDirOpt,
    force: ForceOpt = False,
) -> None:
    """Convert Strimzi KafkaTopic/KafkaUser resources or kafka-gitops state files into manifests."""
    from reconciler import convert

    with _errors_to_exit():
        report = convert.convert(source.value, inputs, out_dir=out_dir, force=force)
    _print_adoption(report, written=out_dir / "CONVERSION.md")


# ------------------------------------------------------------------------------------ schema, diff
app.command("schema", cls=cli_help.PlainCommand)(cli_tools.schema_cmd)
app.command("diff", cls=cli_help.PlainCommand)(cli_tools.diff_cmd)


# ----------------------------------------------------------------------------------------- fleet
class FleetEngine(str, enum.Enum):
    local = "local"
    spark = "spark"


class FleetFormat(str, enum.Enum):
    text = "text"
    json = "json"


fleet_app = typer.Typer(help="Plan many clusters at once (fleet.yaml).", no_args_is_help=True)
app.add_typer(fleet_app, name="fleet")


@fleet_app.command("plan", cls=cli_help.PlainCommand)
def fleet_plan(
    fleet_file: Annotated[Path, typer.Argument(help="The fleet file listing the clusters (see docs/fleet.md).")],
    engine: Annotated[
        FleetEngine,
        typer.Option("--engine", help="local: in this process; spark: Apache Spark (needs the spark extra)."),
    ] = FleetEngine.local,
    master: Annotated[
        str | None, typer.Option("--master", help="Spark master URL (default local[*]); only with --engine spark.")
    ] = None,
    out_dir: Annotated[
        Path, typer.Option("--out", help="Directory for <cluster>/plan.json, summary.json, report.md, *.parquet.")
    ] = Path("fleet-plan"),
    fmt: Annotated[FleetFormat, typer.Option("--format", help="What to print at the end.")] = FleetFormat.text,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines on stderr.")] = False,
    detailed_exitcode: Annotated[
        bool,
        typer.Option(
            "--detailed-exitcode", help="Exit 2 when some cluster has changes; 4 when partial and some has changes."
        ),
    ] = False,
    clusters: Annotated[
        str | None, typer.Option("--clusters", help="Plan only these clusters (comma-separated names).")
    ] = None,
    read_concurrency: Annotated[
        int | None,
        typer.Option(
            "--read-concurrency", min=1, help="Clusters read at once (local default 8; spark: one task per cluster)."
        ),
    ] = None,
    deadline: Annotated[
        float | None,
        typer.Option("--deadline", min=1.0, help="Whole-run deadline in seconds; clusters not read by then: skipped."),
    ] = None,
    conf: Annotated[
        list[str] | None,
        typer.Option("--conf", help="A Spark setting key=value (repeatable); only with --engine spark."),
    ] = None,
    verbose: VerboseOpt = 0,
) -> None:
    """Plan every cluster of a fleet; exit 0 all planned, 3 partial, 1 on error (see --detailed-exitcode)."""
    _setup_logging(verbose, quiet_kafka=True)  # a cluster that is down is reported once, with its reason
    from reconciler import fleet as fleet_mod

    def progress(event: fleet_mod.FleetEvent) -> None:
        if not quiet:
            style = "yellow" if event.stage == "unreadable" else None
            _say(f"[{event.stage}] {event.message}", err=True, style=style)

    with _errors_to_exit():
        if (master is not None or conf) and engine is not FleetEngine.spark:
            raise errors.ConfigError("--master and --conf need --engine spark")
        spark_conf = _spark_conf(conf or [])
        names = [n.strip() for n in clusters.split(",") if n.strip()] if clusters is not None else None
        spec = fleet_mod.select_clusters(fleet_mod.load_fleet(fleet_file), names)
        result = fleet_mod.run_fleet_plan(
            spec,
            engine=engine.value,
            master=master,
            out_dir=out_dir,
            progress=progress,
            spark_conf=spark_conf,
            read_concurrency=read_concurrency,
            deadline_s=deadline,
        )
    summary = result.summary
    if fmt is FleetFormat.json:
        import json

        typer.echo(json.dumps({k: v for k, v in summary.items() if k != "drift"}, indent=2))
    else:
        for c in result.clusters:
            if c.status == "planned":
                n = c.counts
                _say(
                    f"{c.name}: {n['create']} to create, {n['update']} to update, {n['delete']} to delete, "
                    f"{n['blocked']} blocked ({c.plan_path})"
                )
            else:
                _say(f"{c.name}: {c.status.upper()}: {c.reason}", style="yellow")
        status = "PARTIAL" if result.partial else "complete"
        changes = "changes present" if result.has_changes else "no changes"
        _say(
            f"Fleet: {status}, {changes}: {summary['clusters_planned']} of {summary['clusters_total']} cluster(s) "
            f"planned, {summary['clusters_with_changes']} with changes, in {result.seconds:.1f} s "
            f"({result.engine} engine, run {summary['run']['id']}). Report: {out_dir / 'report.md'}"
        )
        for note in result.notes:
            _say(note, err=True)
    code = result.detailed_exit_code if detailed_exitcode else result.exit_code
    if code:
        raise typer.Exit(code=code)


def _spark_conf(items: list[str]) -> dict[str, str]:
    settings: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise errors.ConfigError(f"--conf {item!r}: expected key=value, e.g. --conf spark.executor.memory=2g")
        settings[key.strip()] = value
    return settings

"""The ``kafka-reconciler`` command line: the typer app, its global options, and which command runs where.

Each command lives in its own module under ``reconciler.commands`` (a few lines over a library function);
this module only builds the app from them. The console script ``kafka-reconciler`` is ``reconciler.cli:app``.
Exit codes are listed in ``reconciler.commands.output``.
"""

from typing import Annotated

import typer

import reconciler
from reconciler.commands import adopt, apply, fleet, gitops, output, plan, show, snapshot, tools, validate
from reconciler.commands.options import NoColorOpt
from reconciler.commands.plain_help import PlainCommand

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
    output.reset_color(no_color)


app.command("validate", cls=PlainCommand)(validate.validate)
app.command("plan", cls=PlainCommand)(plan.plan)
app.command("show", cls=PlainCommand)(show.show)
app.command("snapshot", cls=PlainCommand)(snapshot.snapshot)
app.command("apply", cls=PlainCommand)(apply.apply)
app.command("comment", cls=PlainCommand)(gitops.comment)
app.command("drift-issue", cls=PlainCommand)(gitops.drift_issue)
app.command("import", cls=PlainCommand)(adopt.import_cluster)
app.command("convert", cls=PlainCommand)(adopt.convert)
app.command("schema", cls=PlainCommand)(tools.schema_cmd)
app.command("diff", cls=PlainCommand)(tools.diff_cmd)

fleet_app = typer.Typer(help="Plan many clusters at once (fleet.yaml).", no_args_is_help=True)
fleet_app.command("plan", cls=PlainCommand)(fleet.plan)
app.add_typer(fleet_app, name="fleet")

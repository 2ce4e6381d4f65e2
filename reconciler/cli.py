"""The typer command-line app: parses options, calls library functions, renders, maps errors to exit codes.

This is the only module that prints. Commands stay thin; the work lives in the library modules.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

import reconciler

app = typer.Typer(
    name="kafka-reconciler",
    help="Declarative GitOps reconciler for Apache Kafka: validate manifests, plan, apply.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err_console = Console(stderr=True)


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
) -> None:
    """Declarative GitOps reconciler for Apache Kafka."""


def _not_yet(command: str) -> None:
    err_console.print(f"kafka-reconciler {command}: not available yet in this version.", highlight=False)
    raise typer.Exit(code=1)


for _name, _help in (
    ("validate", "Validate manifests offline."),
    ("plan", "Compute a plan against the live cluster or a snapshot."),
    ("apply", "Apply a plan to the cluster."),
    ("show", "Render a saved plan."),
    ("snapshot", "Write the live state as a JSON snapshot."),
    ("import", "Write manifests for an existing cluster."),
    ("fleet", "Plan many clusters at once."),
):

    def _make(name: str, help_text: str) -> None:
        @app.command(name=name, help=help_text + " (not available yet)")
        def _cmd() -> None:
            _not_yet(name)

    _make(_name, _help)

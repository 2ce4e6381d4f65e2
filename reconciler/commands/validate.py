"""``validate``: check manifests offline (``reconciler.manifests.check``) and print the diagnostics."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from reconciler.commands import output
from reconciler.commands.options import DiagFormat, EnvironmentOpt, NoColorOpt, PathsArg


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
    no_color: NoColorOpt = False,
) -> None:
    """Validate manifests offline: exit 0 when valid, 1 otherwise."""
    import json  # not at start-up: --help lists this command without it

    output.use_color(no_color)

    with output.errors_to_exit():
        from reconciler.manifests import check  # not operations: validate needs neither the planner nor a Kafka client

        result = check.validate(paths, environment=environment, tree=tree, roots=roots or ())
    if fmt is DiagFormat.json:
        doc = {"valid": not result.failed, "diagnostics": [d.to_dict() for d in result.diagnostics]}
        typer.echo(json.dumps(doc, indent=2))
    elif fmt in (DiagFormat.github, DiagFormat.gitlab):
        from reconciler.gitops import annotations

        workspace = Path(os.environ["GITHUB_WORKSPACE"]) if os.environ.get("GITHUB_WORKSPACE") else None
        if fmt is DiagFormat.github:
            for line in annotations.github_annotations(result.diagnostics, workspace=workspace):
                typer.echo(line)
        else:
            typer.echo(json.dumps(annotations.gitlab_code_quality(result.diagnostics, workspace=workspace), indent=2))
        output.print_diagnostics(result.diagnostics)
    else:
        output.print_diagnostics(result.diagnostics)
        if not result.failed:
            for line in result.summaries:
                output.say(line)
    if result.failed:
        raise typer.Exit(code=1)

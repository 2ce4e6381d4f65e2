"""The confirmation ``apply`` and ``fleet apply`` ask before writing a plan made now: ``ask``, naming how many
resources the plan deletes (``deleted_count``)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from reconciler.commands import output

if TYPE_CHECKING:
    from reconciler.model import plans


def ask(question: str = "Apply these changes?", *, deletes: int = 0) -> None:
    """Ask before writing, for the word ``yes`` (as Terraform does); refuse without a terminal to ask on.

    Any other answer, Ctrl-C or Ctrl-D (end of input) cancels: one line says nothing was written, exit 1.
    ``deletes`` (how many resources the plan deletes) is named in the question. ``fleet apply`` asks too.
    """
    from reconciler.base import errors, terminal

    if not sys.stdin.isatty():
        raise errors.ConfigError("refusing to apply without confirmation: use --auto-approve when not on a TTY")
    removal = f" It deletes {terminal.count(deletes, 'resource')}." if deletes else ""
    # The question goes to stderr: with stdout redirected to a file the user still sees it.
    try:
        answer = typer.prompt(
            f"{question}{removal} Only 'yes' will be accepted to approve",
            default="",
            show_default=False,
            err=True,
        )
    except typer.Abort:  # Ctrl-C or Ctrl-D at the question
        typer.echo("", err=True)  # end the question's line
        answer = None
    if answer is None or answer.strip() != "yes":
        why = "" if answer is None or not answer.strip() else " (the answer was not 'yes')"
        output.say(f"Apply cancelled{why}; nothing was written.", err=True)
        raise typer.Exit(code=1)


def deleted_count(p: plans.Plan) -> int:
    """How many resources ``p`` deletes (each address once), as the confirmation names them."""
    from reconciler.model import plans as plan_model  # not on the start-up path of --help

    return len({c.address for c in p.changes if c.action is plan_model.Action.DELETE})

"""``show``: render a saved plan file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from reconciler.commands import output
from reconciler.commands.options import CompactOpt, NoColorOpt, OtherVersionOpt, PlanFormat, PlanFormatOpt


def show(
    plan_file: Annotated[Path, typer.Argument(help="A plan saved with 'plan --out'.")],
    fmt: PlanFormatOpt = PlanFormat.text,
    compact: CompactOpt = False,
    no_color: NoColorOpt = False,
    allow_other_version: OtherVersionOpt = False,
) -> None:
    """Render a saved plan (refused, as apply refuses it, when apply could not decode it)."""
    output.use_color(no_color)
    with output.errors_to_exit():
        from reconciler.apply import decoded

        output.echo(
            output.render_plan(decoded.load(plan_file, other_version=allow_other_version), fmt, compact=compact)
        )

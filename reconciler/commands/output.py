"""What every command shares for output: ``--no-color``, plain lines, diagnostics, rendered plans, logging, and
library errors mapped to one plain message and an exit code (never a traceback).

Exit codes: 0 success, 1 error before any write (usage errors too: ``reconciler.cli``), 2 changes present
(``plan --detailed-exitcode``, ``diff --detailed-exitcode``), 3 partial
failure (apply) or partial result (fleet), 4 partial result with changes present (``fleet plan
--detailed-exitcode``), 130 interrupted.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from reconciler.base import terminal
from reconciler.commands.options import PlanFormat

if TYPE_CHECKING:  # imported where used, so --help, --version and validate start fast (docs/benchmarks.md)
    from rich.console import Console

    from reconciler import manifests
    from reconciler.base import errors
    from reconciler.model import plans

_no_color = False  # --no-color, before or after the command name


def reset_color(no_color: bool) -> None:
    """The main callback's ``--no-color`` (each run starts from it)."""
    global _no_color
    _no_color = no_color


def use_color(no_color: bool) -> None:
    """A command's own ``--no-color``: turns colour off, never back on."""
    global _no_color
    _no_color = _no_color or no_color


def console(*, stderr: bool = False) -> Console:
    """The rich console for tables and progress (apply); plain lines go through ``say``."""
    return terminal.console(stderr=stderr, no_color=_no_color)


def colour(*, err: bool = False) -> bool:
    """Colour codes or not (``reconciler.base.terminal``: --no-color, NO_COLOR, FORCE_COLOR, else a terminal)."""
    return terminal.color_wanted(sys.stderr if err else sys.stdout, no_color=_no_color)


def say(text: str, *, err: bool = False, style: str | None = None) -> None:
    """Print one line as it is (no markup), on stderr when ``err``, in ``style`` colour when colour is wanted."""
    typer.secho(text, fg=style, err=err, color=colour(err=err))


def echo(text: str) -> None:
    """Print rendered text; its colour was decided when it was rendered, so click must not strip it again."""
    typer.echo(text, nl=not text.endswith("\n"), color=True)


def setup_logging(verbose: int, *, quiet_kafka: bool = False) -> None:
    from reconciler.base import logs

    logs.setup(verbose, quiet_kafka=quiet_kafka)


_PLACES_SHOWN = 3


def diagnostic_lines(diagnostics: list[errors.Diagnostic]) -> list[tuple[errors.Diagnostic, str]]:
    """Each diagnostic as its line; one repeated at ``errors.GROUP_AT`` places or more (the same
    ``repeat_key``: one mistake copied into 2,000 topics) as the first one's line, then a line with how many more
    and where (``--format json`` keeps every one)."""
    from reconciler.base import errors

    groups: dict[tuple[object, ...], list[errors.Diagnostic]] = {}
    for d in diagnostics:
        groups.setdefault(d.repeat_key(), []).append(d)
    out: list[tuple[errors.Diagnostic, str]] = []
    for group in groups.values():
        first, rest = group[0], group[1:]
        if len(group) < errors.GROUP_AT:
            out.extend((d, d.format()) for d in group)
            continue
        places = ", ".join(d.location() for d in rest[:_PLACES_SHOWN])
        more = len(rest) - _PLACES_SHOWN
        tail = f", ... and {more:,} more" if more > 0 else ""
        line = (
            f"  the same {first.severity.value} at {len(rest):,} more places: {places}{tail} (--format json lists each)"
        )
        out.append((first, f"{first.format()}\n{line}"))
    order = {id(d): i for i, d in enumerate(diagnostics)}
    return sorted(out, key=lambda pair: order[id(pair[0])])


def print_diagnostics(diagnostics: list[errors.Diagnostic]) -> None:
    from reconciler.base import errors

    for d, text in diagnostic_lines(diagnostics):
        style = "red" if d.severity is errors.Severity.ERROR else "yellow"
        say(text, err=True, style=style)


def load(paths: list[Path], environment: str | None) -> manifests.LoadResult:
    """Load and validate the manifests, printing their warnings."""
    from reconciler import operations

    result = operations.load_manifests(paths, environment=environment)
    print_diagnostics(result.diagnostics)
    return result


def render_plan(p: plans.Plan, fmt: PlanFormat, *, cluster_name: str | None = None, compact: bool = False) -> str:
    from reconciler.render import json as render_json
    from reconciler.render import markdown as render_markdown
    from reconciler.render import text as render_text

    if fmt is PlanFormat.json:
        return render_json.render(p)
    if fmt is PlanFormat.markdown:
        return render_markdown.render(p, cluster=cluster_name)
    return render_text.render(p, color=colour(), compact=compact)


@contextmanager
def errors_to_exit() -> Iterator[None]:
    """Map library errors to exit codes with one plain message; never a traceback."""
    from reconciler.base import errors

    try:
        yield
    except typer.Exit:
        raise
    except errors.ValidationFailed as exc:
        print_diagnostics(exc.diagnostics)
        n = len(errors.errors_only(exc.diagnostics))
        say(f"error: {terminal.count(n, 'problem')} in the manifests; nothing was sent to any cluster.", err=True)
        raise typer.Exit(code=1) from None
    except errors.ReconcilerError as exc:
        say(f"error: {exc}", err=True)
        raise typer.Exit(code=exc.exit_code) from None
    except KeyboardInterrupt:
        say("interrupted", err=True)
        raise typer.Exit(code=130) from None
    except Exception as exc:
        if os.environ.get("KAFKA_RECONCILER_DEBUG"):
            raise
        say(f"internal error: {type(exc).__name__} (set KAFKA_RECONCILER_DEBUG=1 for details and report it)", err=True)
        raise typer.Exit(code=1) from None

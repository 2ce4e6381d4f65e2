"""Terminal conventions shared by the commands: when to colour, the two consoles, counted nouns.

Colour follows the common conventions, strongest first: ``--no-color``, then ``NO_COLOR`` (any non-empty value
turns colour off, https://no-color.org), then ``FORCE_COLOR`` (any non-empty value but ``0`` turns it on, also when
the output is a pipe or a CI log), else colour only on a terminal. Layout (progress bars, tables) follows whether
the stream really is a terminal, never ``FORCE_COLOR``: a CI log gets coloured plain lines, not redrawn bars.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:  # rich is imported where a console is made: validate and --help never need it
    from rich.console import Console


def color_wanted(stream: IO[str], *, no_color: bool = False, environ: Mapping[str, str] | None = None) -> bool:
    """Whether text written to ``stream`` should carry colour codes."""
    env = os.environ if environ is None else environ
    if no_color or env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    return is_tty(stream)


def is_tty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


def console(*, stderr: bool, no_color: bool = False) -> Console:
    """A rich console for stdout or stderr whose colour follows ``color_wanted``."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    color = color_wanted(stream, no_color=no_color)
    return Console(
        stderr=stderr,
        highlight=False,
        soft_wrap=True,
        force_terminal=color or None,
        no_color=not color,
        color_system="standard" if color else None,
    )


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 broker``, ``3 brokers``; ``plural`` for irregular nouns (``count(2, "ACL", "ACLs")`` is the default rule)."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"

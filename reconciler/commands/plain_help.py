"""Help text in the words of a shell user, not of Python: ``PATH...``, ``--cluster NAME``, never ``<list[Path]>``.

Typer labels each parameter with its Python type (``<str>``, ``<list[Path]>``, ``{paths}...``). ``PlainCommand``
is the command class every command uses: it names each argument and value option with a metavar (from
``METAVARS`` or the option's name) and drops the type label; choices still show their values (``<text|json>``).
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperCommand, TyperOption

# Option or argument name -> what the user types there.
METAVARS = {
    "--environment": "ENV",
    "--cluster": "NAME",
    "--bootstrap-server": "HOST:PORT[,...]",
    "--command-config": "FILE",
    "--live-state": "SNAPSHOT",
    "--plan": "FILE",
    "--out": "PATH",
    "--timeout": "SECONDS",
    "--replication-throttle": "BYTES",
    "--rotate-password": "USER",
    "--repo": "OWNER/NAME",
    "--api-url": "URL",
    "--pr": "NUMBER",
    "--project": "PROJECT",
    "--mr": "IID",
    "--label": "LABEL",
    "--master": "URL",
    "paths": "PATH",
    "inputs": "PATH",
    "plan_file": "PLAN_FILE",
    "fleet_file": "FLEET_FILE",
    "snapshot_a": "SNAPSHOT_A",
    "snapshot_b": "SNAPSHOT_B",
}


class PlainArgument(TyperArgument):
    """An argument shown as ``PATH...`` (usage and help), without a type label."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def _rich_display_name(self) -> str:
        name = self.display_name_raw
        return name + "..." if self.nargs != 1 else name

    def _usage_display_name(self) -> str:
        name = self._rich_display_name()
        return name if self.required else f"[{name}]"


def _plain(param: Any) -> None:
    if isinstance(param, TyperArgument):
        param.__class__ = PlainArgument
        param.metavar = param.metavar or METAVARS.get(param.name or "", (param.name or "").upper())
    elif isinstance(param, TyperOption) and not param.is_flag and not param.count:
        if param.type_descriptor.is_choice:
            return
        long = max(param.opts, key=len)
        param.metavar = param.metavar or METAVARS.get(long, long.lstrip("-").upper())


class PlainCommand(TyperCommand):
    """A typer command whose help and usage name parameters plainly (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            _plain(param)

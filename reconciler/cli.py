"""The ``kafka-reconciler`` command line: the typer app, its global options, and which command runs where.

Each command lives in its own module under ``reconciler.commands`` (a few lines over a library function);
this module only names them. The console script ``kafka-reconciler`` is ``reconciler.cli:app``. Exit codes are
listed in ``reconciler.commands.output``.

A command's click object (its options, their types) is built only when that command runs or shows its own help:
``kafka-reconciler --help`` lists every command from its docstring alone, and ``validate`` builds only itself
(docs/benchmarks.md, start-up). Typer builds every registered command up front, hence ``LazyCommands``.
"""

import contextlib
import importlib
import inspect
import os
import sys
import types
from collections.abc import Iterator, MutableMapping
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup
from typer.main import get_command_from_info, get_group
from typer.models import CommandInfo

import reconciler
from reconciler.commands import output
from reconciler.commands.options import NoColorOpt
from reconciler.commands.plain_help import PlainCommand

# Command name -> (module of reconciler.commands, its function or, for a group, its typer app), in help order.
COMMANDS = {
    "validate": ("validate", "validate"),
    "plan": ("plan", "plan"),
    "show": ("show", "show"),
    "snapshot": ("snapshot", "snapshot"),
    "apply": ("apply", "apply"),
    "comment": ("gitops", "comment"),
    "drift-issue": ("gitops", "drift_issue"),
    "import": ("adopt", "import_cluster"),
    "convert": ("adopt", "convert"),
    "schema": ("tools", "schema_cmd"),
    "diff": ("tools", "diff_cmd"),
    "fleet": ("fleet", "app"),
}


def _target(name: str) -> Any:
    module, attr = COMMANDS[name]
    return getattr(importlib.import_module(f"reconciler.commands.{module}"), attr)


class LazyCommands(MutableMapping[str, Any]):
    """The app's commands by name, each built on first use (a mapping, so typer's typo suggestions still work)."""

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in COMMANDS:
                raise KeyError(name)
            target = _target(name)
            if isinstance(target, typer.Typer):
                self._built[name] = get_group(target)
            else:
                info = CommandInfo(name=name, callback=target, cls=PlainCommand)
                self._built[name] = get_command_from_info(
                    info, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=None
                )
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        raise TypeError("the commands are fixed")

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


def _stand_in(name: str) -> TyperCommand:
    """What the app's help lists for a command: its name and help text, without building its options."""
    target = _target(name)
    text = target.info.help if isinstance(target, typer.Typer) else inspect.getdoc(target)
    return TyperCommand(name, help=text, rich_markup_mode=None)


# The UsageError of the click that typer runs on (recent typer releases carry their own copy): BadParameter's base.
_USAGE_ERROR: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def close_options(typed: str, offered: list[str]) -> list[str]:
    """The options of ``offered`` close to the mistyped ``typed``, compared without their leading dashes: click
    compares them with the dashes, which two strings of letters share, so ``--bogus`` was "close" to ``--out``."""
    import difflib  # only on this error path: start-up imports nothing it does not use

    bare = typed.lstrip("-")
    return [o for o in offered if difflib.SequenceMatcher(None, bare, o.lstrip("-")).ratio() >= 0.6]


@contextlib.contextmanager
def _usage_errors_exit_1() -> Iterator[None]:
    """A usage error (unknown option, bad value, missing argument) exits 1, not click's 2: exit 2 means "changes
    present" (``plan --detailed-exitcode``) or "snapshots differ" (``diff``), and a drift job must not read a typo
    as drift. An unknown option's suggestions are only the close ones (``close_options``)."""
    try:
        yield
    except _USAGE_ERROR as exc:
        exc.exit_code = 1  # type: ignore[attr-defined]
        offered = getattr(exc, "possibilities", None)
        if offered:
            exc.possibilities = close_options(str(getattr(exc, "option_name", "")), list(offered))  # type: ignore[attr-defined]
        raise


class LazyGroup(TyperGroup):
    """The app's group: commands from ``LazyCommands``; its help lists stand-ins. Usage errors exit 1."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.commands = LazyCommands()

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        with _usage_errors_exit_1():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: Any) -> Any:
        with _usage_errors_exit_1():  # a command's (or a fleet subcommand's) own options are parsed in here
            return super().invoke(ctx)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        commands = self.commands
        self.commands = {name: _stand_in(name) for name in COMMANDS}
        try:
            super().format_commands(ctx, formatter)
        finally:
            self.commands = commands


app = typer.Typer(
    name="kafka-reconciler",
    cls=LazyGroup,
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


def _no_plugin_lookup() -> None:
    """With plugins disabled pydantic's plugin loader finds none, but importing it imports ``importlib.metadata``
    (and with it email, zipfile, csv, ...: 10-20 ms of every ``validate``). Where plugins are disabled and the loader
    is not imported yet, a stand-in giving the same answer (no plugins) takes its place in ``sys.modules``."""
    name = "pydantic.plugin._loader"
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") not in ("__all__", "1", "true") or name in sys.modules:
        return
    stand_in = types.ModuleType(name, "pydantic's plugin loader while plugins are disabled: there are none.")
    stand_in.__dict__["get_plugins"] = tuple
    sys.modules[name] = stand_in


# The manifest models use no pydantic plugin; looking for one reads every installed package's metadata. Set before
# typer builds the first option's validator; PYDANTIC_DISABLE_PLUGINS set in the environment (even empty) is kept.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
_no_plugin_lookup()


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

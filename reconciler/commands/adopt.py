"""``import`` and ``convert``: write manifests from an existing cluster (``adopt.from_live``) or from another
tool's files (``reconciler.convert``), then print what was written and what to do next."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated, Any

import typer

from reconciler.commands import output
from reconciler.commands.options import BootstrapOpt, CommandConfigOpt, ForceOpt, OutDirOpt, VerboseOpt


class ConvertFormat(str, enum.Enum):
    strimzi = "strimzi"
    kafka_gitops = "kafka-gitops"


def _print_adoption(report: Any, *, written: Path) -> None:
    for line in report.lines():
        output.say(line)
    output.say(f"Details and next steps: {written}", err=True)


def import_cluster(
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
    output.setup_logging(verbose)
    from reconciler import operations, ports
    from reconciler.adopt import from_live

    with output.errors_to_exit():
        target = operations.Target(bootstrap_server=bootstrap_server, command_config=command_config)
        with target.connect() as adapter:
            # and every resource of each REST port named (KAFKA_CONNECT_URL, SCHEMA_REGISTRY_URL)
            live = ports.with_every(from_live.read_for_adoption(adapter), target)
        report = from_live.adopt_cluster(live, out_dir=out_dir, force=force, include_tool_topics=include_tool_topics)
    _print_adoption(report, written=out_dir / "IMPORT.md")


def convert(
    inputs: Annotated[
        list[Path], typer.Argument(help="Input YAML files or directories of the other tool.", show_default=False)
    ],
    source: Annotated[ConvertFormat, typer.Option("--from", help="Format of the inputs.")],
    out_dir: OutDirOpt,
    force: ForceOpt = False,
) -> None:
    """Convert Strimzi KafkaTopic/KafkaUser resources or kafka-gitops state files into manifests."""
    from reconciler import convert as convert_mod

    with output.errors_to_exit():
        report = convert_mod.convert(source.value, inputs, out_dir=out_dir, force=force)
    _print_adoption(report, written=out_dir / "CONVERSION.md")

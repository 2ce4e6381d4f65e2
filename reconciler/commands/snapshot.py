"""``snapshot``: write a cluster's live state (``operations.read_snapshot_state``) as a versioned JSON file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from reconciler.commands import output
from reconciler.commands.options import BootstrapOpt, ClusterOpt, CommandConfigOpt, EnvironmentOpt, VerboseOpt


def snapshot(
    out_file: Annotated[Path, typer.Option("--out", help="Where to write the JSON snapshot.")],
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Optional manifests: read only what they need (default: everything).", show_default=False),
    ] = None,
    environment: EnvironmentOpt = None,
    cluster: ClusterOpt = None,
    bootstrap_server: BootstrapOpt = None,
    command_config: CommandConfigOpt = None,
    verbose: VerboseOpt = 0,
) -> None:
    """Write the live state of a cluster as a versioned JSON snapshot (for offline plans and reviews)."""
    output.setup_logging(verbose)
    with output.errors_to_exit():
        from reconciler import operations
        from reconciler.base import terminal
        from reconciler.model import entities
        from reconciler.model.kinds import Kind
        from reconciler.snapshot import files

        loaded = operations.load_manifests(paths, environment=environment) if paths else None
        target = operations.Target(
            cluster=cluster,
            bootstrap_server=bootstrap_server,
            command_config=command_config,
            profiles=loaded.profiles if loaded is not None else {},
        )
        live, requests = operations.read_snapshot_state(target=target, wanted=loaded)
        files.write_snapshot(live, out_file)
        n = terminal.count
        acls = "ACLs not read" if live.acls is None else n(len(live.acls), "ACL")
        output.say(
            f"Wrote {out_file}: cluster {live.cluster_id}, {n(len(live.brokers), 'broker')}, "
            f"{n(len(live.topics or {}), 'topic')}, {acls} ({n(requests, 'admin request')}).",
            err=True,
        )
        for kind, unread in sorted(live.unread_entities.items()):
            text = entities.unread_text(Kind.parse(kind), unread)
            output.say(f"warning: recorded as unread (not known to a plan from this snapshot): {text}", err=True)

"""Commands around the core loop: ``schema`` (copy the packaged JSON Schemas out) and ``diff`` (two snapshots).

This module only parses, calls and prints, and imports what a command needs when it runs (``--help`` stays
light).
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

from reconciler.commands.options import NoColorOpt


class DiffFormat(str, enum.Enum):
    text = "text"
    json = "json"


def schema_cmd(
    out_dir: Annotated[Path, typer.Option("--out", help="Directory to write the schemas into (created if needed).")],
) -> None:
    """Write the manifests' JSON Schemas (one per kind, and manifest.json for any kind) for editors and CI."""
    import shutil

    from reconciler.manifests import schema

    source = schema.PACKAGED
    names = sorted(p.name for p in source.glob("*.json"))
    if not names:
        typer.echo(f"error: no schemas found in {source}; the installation is incomplete", err=True)
        raise typer.Exit(code=1)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for name in names:
            shutil.copyfile(source / name, out_dir / name)
    except OSError as exc:
        typer.echo(f"error: cannot write schemas to {out_dir}: {exc.strerror}", err=True)
        raise typer.Exit(code=1) from None
    typer.echo(f"Wrote {len(names)} schemas to {out_dir} ({', '.join(names)}).")


def diff_cmd(
    snapshot_a: Annotated[Path, typer.Argument(help="The earlier snapshot (written by 'snapshot --out').")],
    snapshot_b: Annotated[Path, typer.Argument(help="The later snapshot.")],
    fmt: Annotated[DiffFormat, typer.Option("--format", help="Output format.")] = DiffFormat.text,
    detailed_exitcode: Annotated[
        bool, typer.Option("--detailed-exitcode", help="Exit 0 when the snapshots match, 2 when they differ.")
    ] = False,
    no_color: NoColorOpt = False,  # accepted like every command's; the diff is plain text
) -> None:
    """What changed on a cluster between two snapshots: added, removed and changed resources, down to each value."""
    import json

    from reconciler.base import errors
    from reconciler.snapshot import diff as snapshot_diff
    from reconciler.snapshot import files

    try:
        before, after = files.read_snapshot(snapshot_a), files.read_snapshot(snapshot_b)
    except errors.ReconcilerError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=1) from None
    result = snapshot_diff.compare(before, after)
    if fmt is DiffFormat.json:
        doc = {
            "clusters": list(result.cluster_ids),
            "differences": [d.to_dict() for d in result.differences],
            "not_compared": list(result.not_compared),
        }
        typer.echo(json.dumps(doc, indent=2, default=str))
    else:
        for line in snapshot_diff.text_lines(result):
            typer.echo(line)
    if detailed_exitcode and result.differences:
        raise typer.Exit(code=2)

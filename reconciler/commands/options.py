"""The options several commands share, as ``Annotated`` aliases (one help text each), and the output formats."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer


class PlanFormat(str, enum.Enum):
    text = "text"
    markdown = "markdown"
    json = "json"


class ApplyFormat(str, enum.Enum):
    text = "text"
    json = "json"


class DiagFormat(str, enum.Enum):
    text = "text"
    json = "json"
    github = "github"
    gitlab = "gitlab"


PathsArg = Annotated[
    list[Path],
    typer.Argument(help="Manifest files or directories (searched recursively for *.yaml / *.yml).", show_default=False),
]
EnvironmentOpt = Annotated[
    str | None, typer.Option("--environment", "-e", help="Environment overlay to apply (e.g. prod).")
]
BootstrapOpt = Annotated[
    str | None,
    typer.Option(
        "--bootstrap-server", help="host:port[,host:port] of the cluster (overrides profile and environment)."
    ),
]
CommandConfigOpt = Annotated[
    Path | None,
    typer.Option("--command-config", help="Kafka client properties file, as for Kafka's own CLI tools."),
]
ClusterOpt = Annotated[
    str | None, typer.Option("--cluster", help="Name of a Cluster profile declared in the manifests.")
]
LiveStateOpt = Annotated[
    Path | None,
    typer.Option("--live-state", help="Plan offline against a snapshot written by 'snapshot --out'."),
]
OtherVersionOpt = Annotated[
    bool,
    typer.Option(
        "--allow-other-version",
        help="Read a saved plan written by another kafka-reconciler release (refused by default: only the release "
        "that wrote a plan applies it; CI should save and apply with one pinned version).",
    ),
]
VerboseOpt = Annotated[int, typer.Option("--verbose", "-v", count=True, help="More logging on stderr (-v, -vv).")]
AllowInUseOpt = Annotated[
    bool,
    typer.Option(
        "--allow-deleting-topics-in-use",
        help="Delete topics the plan would delete even when consumer groups hold offsets on them or they were "
        "written to within --in-use-window.",
    ),
]
InUseWindowOpt = Annotated[
    str,
    typer.Option(
        "--in-use-window",
        help="A topic whose latest record is newer than this (e.g. 7d, 12h; 0 turns the test off) is in use.",
    ),
]
MaxDeletesOpt = Annotated[
    int | None,
    typer.Option(
        "--max-deletes",
        min=0,
        help="Allow this run's plan to delete up to N resources (default: the Ownership document's maxDeletes, "
        "else 10). A plan deleting more is refused as a whole.",
        show_default=False,
    ),
]
NoColorOpt = Annotated[
    bool, typer.Option("--no-color", help="No colour codes in the output (also NO_COLOR=1).", show_default=False)
]
CompactOpt = Annotated[
    bool, typer.Option("--compact", help="Text plan: one line per resource instead of one block.", show_default=False)
]
RotateOpt = Annotated[
    list[str] | None,
    typer.Option("--rotate-password", help="Re-set the password of this SCRAM user (repeatable)."),
]
PlanFormatOpt = Annotated[PlanFormat, typer.Option("--format", help="Output format.")]
PlanFileOpt = Annotated[Path, typer.Option("--plan", dir_okay=False, help="Saved plan file written by 'plan --out'.")]
ClusterNameOpt = Annotated[
    str | None,
    typer.Option(
        "--name",
        "--cluster",
        help="Name of the cluster for people: keys the comment/issue (default: the plan's cluster id). Only a "
        "name: the connection was chosen by plan (whose --cluster names a Cluster profile). --cluster is an "
        "older spelling of --name here.",
    ),
]
RepoOpt = Annotated[str | None, typer.Option("--repo", help="OWNER/NAME (default: $GITHUB_REPOSITORY).")]
DriftLabelOpt = Annotated[str, typer.Option("--label", help="Label that marks drift issues.")]
ApiUrlOpt = Annotated[
    str | None, typer.Option("--api-url", help="GitHub API URL (default: $GITHUB_API_URL or https://api.github.com).")
]
OutDirOpt = Annotated[Path, typer.Option("--out", help="Directory to write the manifests into (must be empty).")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Write into a non-empty directory, overwriting files.")]

LockTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--lock-timeout",
        min=0,
        help="Seconds to wait for another apply that holds the cluster's apply lock (a group the applying process "
        "joins) before refusing, exit 1, nothing written (within --timeout).",
    ),
]
NoLockOpt = Annotated[
    bool,
    typer.Option(
        "--no-lock",
        help="Apply without the cluster's apply lock, for a principal that may not join groups: nothing then keeps "
        "two applies apart.",
    ),
]

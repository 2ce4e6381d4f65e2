"""``comment`` and ``drift-issue``: publish a saved plan on a pull/merge request or as a drift issue
(``reconciler.gitops.publish``)."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

from reconciler.commands import output
from reconciler.commands.options import ApiUrlOpt, ClusterNameOpt, DriftLabelOpt, PlanFileOpt, PlanFormat, RepoOpt


class CommentPlatform(str, enum.Enum):
    github = "github"
    gitlab = "gitlab"


CommentPlanOpt = Annotated[
    Path | None, typer.Option("--plan", dir_okay=False, help="Saved plan file written by 'plan --out'.")
]
FailedOpt = Annotated[
    Path | None,
    typer.Option(
        "--failed",
        dir_okay=False,
        metavar="ERROR_FILE",
        help="The plan failed: replace the comment's plan with this error output (the plan command's stderr), "
        "so an old plan never looks current. With --plan (a plan was saved, then refused): the plan, with this "
        "output under its heading.",
    ),
]
ArtifactOpt = Annotated[
    str | None,
    typer.Option(
        "--artifact",
        metavar="NAME",
        help="GitHub: the workflow run's artifact that holds the plan file; the comment links it for the full plan.",
    ),
]
PrOpt = Annotated[
    int | None, typer.Option("--pr", min=1, help="Pull request number (default: from $GITHUB_EVENT_PATH).")
]
CommentApiUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--api-url",
        help="API URL (default: $GITHUB_API_URL or https://api.github.com; GitLab: $CI_API_V4_URL or "
        "https://gitlab.com/api/v4).",
    ),
]
PlatformOpt = Annotated[
    CommentPlatform | None,
    typer.Option(
        "--platform", help="Where to post (default: gitlab when $GITLAB_CI is set and $GITHUB_ACTIONS is not)."
    ),
]
ProjectOpt = Annotated[
    str | None, typer.Option("--project", help="GitLab project: GROUP/NAME or numeric id (default: $CI_PROJECT_ID).")
]
MrOpt = Annotated[
    int | None, typer.Option("--mr", min=1, help="GitLab merge request iid (default: $CI_MERGE_REQUEST_IID).")
]


def comment(
    plan_file: CommentPlanOpt = None,
    failed: FailedOpt = None,
    cluster: ClusterNameOpt = None,
    repo: RepoOpt = None,
    pr: PrOpt = None,
    api_url: CommentApiUrlOpt = None,
    platform: PlatformOpt = None,
    project: ProjectOpt = None,
    mr: MrOpt = None,
    artifact: ArtifactOpt = None,
) -> None:
    """Create or update this cluster's plan comment on the pull or merge request ($GITHUB_TOKEN, $GITLAB_TOKEN)."""
    from reconciler.apply import decoded
    from reconciler.base import errors
    from reconciler.gitops import publish

    with output.errors_to_exit():
        if plan_file is None and failed is None:
            raise errors.ConfigError("give --plan PLAN_FILE, or --failed ERROR_FILE when the plan failed")
        if plan_file is not None:
            p = decoded.load(plan_file)
            name = publish.cluster_label(p, cluster)
            markdown = output.render_plan(p, PlanFormat.markdown, cluster_name=name)
            if failed is not None:
                markdown = publish.refused_plan_markdown(markdown, publish.read_error_file(failed))
        else:
            assert failed is not None
            name = cluster or "default"
            markdown = publish.failed_plan_markdown(publish.read_error_file(failed), cluster=name)
        noun, result = publish.publish_plan(
            markdown=markdown,
            cluster=name,
            platform=platform.value if platform else None,
            repo=repo,
            pr=pr,
            project=project,
            mr=mr,
            api_url=api_url,
            artifact=artifact,
        )
    typer.echo(f"Plan {noun} for {name} {result.action}: {result.url or f'id {result.id}'}")


def drift_issue(
    plan_file: PlanFileOpt,
    cluster: ClusterNameOpt = None,
    close_if_clean: Annotated[
        bool, typer.Option("--close-if-clean", help="Close the open drift issue when the plan has no changes.")
    ] = False,
    label: DriftLabelOpt = "kafka-drift",
    repo: RepoOpt = None,
    api_url: ApiUrlOpt = None,
) -> None:
    """Open, update or close this cluster's drift issue from a saved plan ($GITHUB_TOKEN)."""
    from reconciler.apply import decoded
    from reconciler.gitops import event, publish

    with output.errors_to_exit():
        p = decoded.load(plan_file)
        ctx = event.context_from_env(repo=repo, api_url=api_url)
        name = publish.cluster_label(p, cluster)
        drift = publish.has_drift(p)
        result = publish.report_drift(
            markdown=output.render_plan(p, PlanFormat.markdown, cluster_name=name),
            cluster=name,
            drift=drift,
            close_if_clean=close_if_clean,
            ctx=ctx,
            label=label,
        )
    where = f" #{result.number} {result.url}" if result.number is not None else ""
    typer.echo(f"Drift on {name}: {'yes' if drift else 'no'}; issue {result.action}{where}")

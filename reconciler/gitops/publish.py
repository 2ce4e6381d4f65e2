"""Publishes a rendered plan where reviewers see it: the plan comment or note on the change, or the drift issue.

The CLI commands ``comment`` and ``drift-issue`` are thin wrappers over ``publish_plan`` (a GitHub pull
request comment or a GitLab merge request note) and ``report_drift``: they load the plan, render it
to markdown, and the run context comes from ``event``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from reconciler.base import errors
from reconciler.gitops import event, github, gitlab
from reconciler.gitops.event import GitHubContext, GitLabContext
from reconciler.model import plans
from reconciler.render import markdown as render_markdown


def cluster_label(plan: plans.Plan, cluster: str | None) -> str:
    """The name that keys the comment and issue: ``--cluster``, else the plan's cluster id."""
    return cluster or plan.cluster.cluster_id or "default"


def has_drift(plan: plans.Plan) -> bool:
    """True when the live cluster differs from the manifests: any create, update, delete or blocked change."""
    return plan.summary().has_changes or bool(plan.blocked)


def _footer(cluster: str, run_url: str | None, tail: str, *, run_label: str = "workflow run") -> str:
    text = f"<sub>kafka-reconciler · cluster `{cluster}`"
    if run_url:
        text += f" · [{run_label}]({run_url})"
    return f"{text} · {tail}</sub>"


def plan_comment_body(
    markdown: str,
    *,
    cluster: str,
    run_url: str | None = None,
    platform: event.Platform = "github",
    artifact: str | None = None,
) -> str:
    """The pull-request comment (merge-request note on GitLab): marker, the rendered plan, a footer linking the run
    and, on GitHub, the run's ``artifact`` holding the full plan (when CI uploads one)."""
    if platform == "gitlab":
        footer = _footer(cluster, run_url, "updated on every push to this merge request", run_label="pipeline")
    else:
        tail = "updated on every push to this pull request"
        if artifact and run_url:
            tail = f"full plan: artifact [`{artifact.replace('`', '')}`]({run_url}#artifacts) · {tail}"
        footer = _footer(cluster, run_url, tail)
    return f"{github.comment_marker(cluster)}\n{markdown.rstrip()}\n\n---\n{footer}\n"


_ERROR_LINES = 40
_ERROR_CHARS = 6_000


def read_error_file(path: Path) -> str:
    """The failed command's stderr, as saved by CI; a missing file is an empty error, not a new failure."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _error_tail(error: str) -> str:
    """The last non-blank lines of an error output, within ``_ERROR_CHARS``, safe inside a code block."""
    lines = [line for line in error.splitlines() if line.strip()][-_ERROR_LINES:]
    return "\n".join(lines)[-_ERROR_CHARS:].replace("```", "'''")


def failed_plan_markdown(error: str, *, cluster: str) -> str:
    """The comment when the plan failed: says so first, then the end of the error output, in a code block."""
    text = _error_tail(error) or "(no error output was captured)"
    return (
        f"{render_markdown.heading(cluster, 'failed')}\n\n"
        "**The plan failed, so this pull request has no current plan.** Any plan shown here before is out of "
        "date. Fix the error below and push again (or re-run the job if the cluster was unreachable).\n\n"
        f"```text\n{text}\n```\n"
    )


def refused_plan_markdown(markdown: str, error: str) -> str:
    """A plan that was made but failed its command (refused for an error-level finding, or rejected after): the
    plan's markdown with the end of the command's error output, if any, under its heading."""
    text = _error_tail(error)
    if not text:
        return markdown
    heading, _, rest = markdown.partition("\n\n")
    return f"{heading}\n\nThe plan command failed:\n\n```text\n{text}\n```\n\n{rest}"


def drift_issue_title(cluster: str) -> str:
    return f"Kafka drift on cluster {cluster}"


def drift_issue_body(markdown: str, *, cluster: str, drift: bool, run_url: str | None = None) -> str:
    """The drift issue: what differs and how to resolve it, or a note that the cluster matches again."""
    if drift:
        intro = (
            f"The live state of cluster `{cluster}` no longer matches the manifests on the default branch. "
            "The plan below is what `apply` would change to bring the cluster back in line. Either apply it "
            "(run the apply workflow with `replan: true`), or change the manifests to describe the live state."
        )
        footer = _footer(cluster, run_url, "updated by every drift check while the drift remains")
    else:
        intro = f"Cluster `{cluster}` matches the manifests again; closing."
        footer = _footer(cluster, run_url, "closed by the drift check")
    return f"{github.drift_marker(cluster)}\n{intro}\n\n{markdown.rstrip()}\n\n---\n{footer}\n"


def post_plan_comment(
    *, markdown: str, cluster: str, ctx: GitHubContext, artifact: str | None = None
) -> github.CommentResult:
    """Create or update the plan comment of ``cluster`` on the pull request named by ``ctx``."""
    return github.upsert_pr_comment(
        body=plan_comment_body(markdown, cluster=cluster, run_url=ctx.run_url, artifact=artifact),
        marker=github.comment_marker(cluster),
        pr_number=ctx.require_pr(),
        repo=ctx.repo,
        token=ctx.token,
        api_url=ctx.api_url,
    )


def post_plan_note(*, markdown: str, cluster: str, ctx: GitLabContext) -> github.CommentResult:
    """Create or update the plan note of ``cluster`` on the merge request named by ``ctx``."""
    return gitlab.upsert_mr_note(
        body=plan_comment_body(markdown, cluster=cluster, run_url=ctx.pipeline_url, platform="gitlab"),
        marker=github.comment_marker(cluster),
        project=ctx.project,
        mr_iid=ctx.require_mr(),
        token=ctx.token,
        api_url=ctx.api_url,
        mr_url=ctx.mr_url(),
    )


def publish_plan(
    *,
    markdown: str,
    cluster: str,
    platform: str | None = None,
    repo: str | None = None,
    pr: int | None = None,
    project: str | None = None,
    mr: int | None = None,
    api_url: str | None = None,
    artifact: str | None = None,
) -> tuple[Literal["comment", "note"], github.CommentResult]:
    """Post the plan on the change under review: a pull-request comment, or a merge-request note on GitLab.

    ``platform`` defaults to what the flags name (``repo``/``pr``: GitHub, ``project``/``mr``: GitLab),
    else to the CI system the run is in (see ``event.detect_platform``). Returns what was posted
    (``comment`` or ``note``) and the result. ``artifact``: the name of the GitHub run's artifact holding the plan
    file, linked from the comment.
    """
    github_flags, gitlab_flags = (repo, pr) != (None, None), (project, mr) != (None, None)
    if platform is None and github_flags != gitlab_flags:
        platform = "gitlab" if gitlab_flags else "github"
    if event.detect_platform(platform) == "gitlab":
        if github_flags:
            raise errors.ConfigError("--repo and --pr name a GitHub pull request; on GitLab use --project and --mr")
        lab = event.gitlab_context_from_env(project=project, mr_iid=mr, api_url=api_url)
        return "note", post_plan_note(markdown=markdown, cluster=cluster, ctx=lab)
    if gitlab_flags:
        raise errors.ConfigError("--project and --mr name a GitLab merge request; on GitHub use --repo and --pr")
    hub = event.context_from_env(repo=repo, pr_number=pr, api_url=api_url)
    return "comment", post_plan_comment(markdown=markdown, cluster=cluster, ctx=hub, artifact=artifact)


def report_drift(
    *,
    markdown: str,
    cluster: str,
    drift: bool,
    close_if_clean: bool,
    ctx: GitHubContext,
    label: str = github.DRIFT_LABEL,
) -> github.IssueResult:
    """Open, update or close the drift issue of ``cluster`` in the repository named by ``ctx``."""
    return github.upsert_drift_issue(
        title=drift_issue_title(cluster),
        body=drift_issue_body(markdown, cluster=cluster, drift=drift, run_url=ctx.run_url),
        marker=github.drift_marker(cluster),
        repo=ctx.repo,
        drift=drift,
        close_if_clean=close_if_clean,
        label=label,
        token=ctx.token,
        api_url=ctx.api_url,
    )

"""Publishes a rendered plan where reviewers see it: the pull request's plan comment, or the cluster's drift issue.

The CLI commands ``comment`` and ``drift-issue`` are thin wrappers over ``post_plan_comment`` and
``report_drift``: they load the plan, render it to markdown, and pass the run context from ``event``.
"""

from __future__ import annotations

from reconciler import plan as plan_mod
from reconciler.gitops import github
from reconciler.gitops.event import GitHubContext


def cluster_label(plan: plan_mod.Plan, cluster: str | None) -> str:
    """The name that keys the comment and issue: ``--cluster``, else the plan's cluster name or id."""
    if cluster:
        return cluster
    named = plan.options.get("cluster")
    return str(named or plan.cluster.cluster_id or "default")


def has_drift(plan: plan_mod.Plan) -> bool:
    """True when the live cluster differs from the manifests: any create, update, delete or blocked change."""
    return plan.summary().has_changes or bool(plan.blocked)


def _footer(cluster: str, run_url: str | None, tail: str) -> str:
    text = f"<sub>kafka-reconciler · cluster `{cluster}`"
    if run_url:
        text += f" · [workflow run]({run_url})"
    return f"{text} · {tail}</sub>"


def plan_comment_body(markdown: str, *, cluster: str, run_url: str | None = None) -> str:
    """The pull-request comment: marker, the rendered plan, and a footer linking the run."""
    footer = _footer(cluster, run_url, "updated on every push to this pull request")
    return f"{github.comment_marker(cluster)}\n{markdown.rstrip()}\n\n---\n{footer}\n"


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


def post_plan_comment(*, markdown: str, cluster: str, ctx: GitHubContext) -> github.CommentResult:
    """Create or update the plan comment of ``cluster`` on the pull request named by ``ctx``."""
    return github.upsert_pr_comment(
        body=plan_comment_body(markdown, cluster=cluster, run_url=ctx.run_url),
        marker=github.comment_marker(cluster),
        pr_number=ctx.require_pr(),
        repo=ctx.repo,
        token=ctx.token,
        api_url=ctx.api_url,
    )


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

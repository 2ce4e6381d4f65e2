"""From a plan to the pull-request comment and the drift issue, through the run context, against the local fake API."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.gitops import event, github, publish
from reconciler.model import plans
from reconciler.model.kinds import Kind
from tests.support.fake_github import FakeGitHub

TOKEN = "ghs_publishTestToken_0123456789"
REPO = "acme/kafka-config"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "github"


def make_plan(*actions: plans.Action, options: dict[str, str] | None = None) -> plans.Plan:
    changes = tuple(
        plans.Change(
            address=f"topic/orders-{i}",
            kind=Kind.TOPIC,
            name=f"orders-{i}",
            action=a,
            phase=plans.Phase.TOPIC_CREATE,
        )
        for i, a in enumerate(actions)
    )
    return plans.Plan(
        cluster=plans.ClusterInfo(cluster_id="MkU3OEVBNTcwNTJENDM2Qk", controller_id=1),
        changes=changes,
        options=options or {},
    )


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN) as server:
        yield server


def context(server: FakeGitHub, payload: str) -> event.GitHubContext:
    return event.context_from_env(
        {
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_TOKEN": TOKEN,
            "GITHUB_API_URL": server.url,
            "GITHUB_EVENT_PATH": str(FIXTURES / payload),
            "GITHUB_EVENT_NAME": payload.removesuffix(".json"),
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_RUN_ID": "987",
        }
    )


def test_plan_comment_lands_on_the_pull_request_of_the_event(gh: FakeGitHub) -> None:
    ctx = context(gh, "pull_request.json")
    first = publish.post_plan_comment(markdown="Plan: 1 to create.", cluster="prod-eu", ctx=ctx)
    second = publish.post_plan_comment(markdown="Plan: 2 to create.", cluster="prod-eu", ctx=ctx)

    assert (first.action, second.action, second.id) == ("created", "updated", first.id)
    [comment] = gh.comments[(REPO, 42)]
    body = comment["body"]
    assert body.startswith(github.comment_marker("prod-eu") + "\nPlan: 2 to create.")
    assert "[workflow run](https://github.com/acme/kafka-config/actions/runs/987)" in body


def test_comment_command_on_a_pull_request_comment_event(gh: FakeGitHub) -> None:
    result = publish.post_plan_comment(markdown="x", cluster="prod", ctx=context(gh, "issue_comment.json"))
    assert result.action == "created"
    assert (REPO, 57) in gh.comments


def test_drift_issue_lifecycle_from_plans(gh: FakeGitHub) -> None:
    ctx = context(gh, "push.json")
    drifted = make_plan(plans.Action.CREATE, plans.Action.NOOP)
    clean = make_plan(plans.Action.NOOP)
    assert publish.has_drift(drifted) and not publish.has_drift(clean)

    opened = publish.report_drift(markdown="+ topic/orders-0", cluster="prod", drift=True, close_if_clean=True, ctx=ctx)
    [issue] = gh.issues[REPO]
    assert issue["title"] == "Kafka drift on cluster prod"
    assert "no longer matches the manifests" in issue["body"]

    closed = publish.report_drift(markdown="No changes.", cluster="prod", drift=False, close_if_clean=True, ctx=ctx)
    assert (opened.action, closed.action, closed.number) == ("created", "closed", opened.number)
    assert issue["state"] == "closed"
    assert "matches the manifests again" in issue["body"]


def test_blocked_change_counts_as_drift() -> None:
    assert publish.has_drift(make_plan(plans.Action.BLOCKED))


def test_cluster_label_prefers_the_flag_then_the_plan() -> None:
    assert publish.cluster_label(make_plan(), "prod") == "prod"
    assert publish.cluster_label(make_plan(), None) == "MkU3OEVBNTcwNTJENDM2Qk"


def test_a_refused_plan_keeps_its_heading_first_and_shows_the_error_output_under_it() -> None:
    plan_md = "### prod-eu\n\n**Plan: 0 to create, 0 to update, 30 to delete.**\n"
    shown = publish.refused_plan_markdown(plan_md, "\nerror: the broker rejected part of this plan\n")
    assert shown.startswith("### prod-eu\n\nThe plan command failed:\n\n```text\nerror: the broker rejected")
    assert shown.endswith("**Plan: 0 to create, 0 to update, 30 to delete.**\n")
    assert publish.refused_plan_markdown(plan_md, "  \n") == plan_md  # nothing on stderr: the plan as it is


def test_the_failed_the_refused_and_the_normal_comment_share_one_heading_form() -> None:
    """The failed-plan comment was headed "Kafka plan for prod-eu: failed" and the normal one "prod-eu"."""
    from reconciler.render import render_markdown

    normal = render_markdown(make_plan(plans.Action.CREATE), cluster="prod-eu").splitlines()[0]
    assert normal == "### Kafka plan for prod-eu"
    assert publish.failed_plan_markdown("error: no broker answered", cluster="prod-eu").splitlines()[0] == (
        f"{normal}: failed"
    )
    refusing = dataclasses.replace(
        make_plan(plans.Action.CREATE), warnings=(plans.PlanWarning("no authorizer", None, "acls", "error"),)
    )
    assert render_markdown(refusing, cluster="prod-eu").splitlines()[0] == f"{normal}: refused"

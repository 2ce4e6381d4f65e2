"""The GitLab run context (project, merge request, token from CI variables or flags) and ``comment`` on GitLab."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reconciler.base import errors
from reconciler.cli import app
from reconciler.gitops import event, github, publish
from reconciler.gitops.gitlab import GitLabClient
from reconciler.model import payloads, plans
from reconciler.model.kinds import Kind
from tests.support.fake_gitlab import FakeGitLab

TOKEN = "glpat-cliTestToken_0123456789abcd"
PROJECT = "acme/kafka-config"
MR = 17


@pytest.fixture
def gl() -> Iterator[FakeGitLab]:
    with FakeGitLab(token=TOKEN, project=PROJECT, project_id=4242) as server:
        yield server


# ---------------------------------------------------------------------------------------------- context
CI_ENV = {
    "GITLAB_CI": "true",
    "GITLAB_TOKEN": TOKEN,
    "CI_API_V4_URL": "https://gitlab.example/api/v4",
    "CI_PROJECT_ID": "4242",
    "CI_PROJECT_URL": "https://gitlab.example/acme/kafka-config",
    "CI_MERGE_REQUEST_IID": "17",
    "CI_PIPELINE_SOURCE": "merge_request_event",
    "CI_PIPELINE_URL": "https://gitlab.example/acme/kafka-config/-/pipelines/991",
}


def test_context_from_a_merge_request_pipeline() -> None:
    ctx = event.gitlab_context_from_env(CI_ENV)
    assert (ctx.project, ctx.mr_iid, ctx.require_mr(), ctx.api_url) == ("4242", 17, 17, "https://gitlab.example/api/v4")
    assert ctx.mr_url() == "https://gitlab.example/acme/kafka-config/-/merge_requests/17"


def test_merge_request_from_a_fork_posts_on_the_target_project() -> None:
    env = {
        **CI_ENV,
        "CI_PROJECT_ID": "5555",
        "CI_MERGE_REQUEST_PROJECT_ID": "4242",
        "CI_MERGE_REQUEST_PROJECT_URL": "https://gitlab.example/acme/kafka-config",
    }
    ctx = event.gitlab_context_from_env(env)
    assert ctx.project == "4242"
    assert ctx.mr_url() == "https://gitlab.example/acme/kafka-config/-/merge_requests/17"


def test_flags_win_over_the_environment_and_a_path_gives_the_web_address() -> None:
    ctx = event.gitlab_context_from_env(CI_ENV, project="team/kafka", mr_iid=3, api_url="https://git.example/api/v4/")
    assert (ctx.project, ctx.mr_iid, ctx.api_url) == ("team%2Fkafka", 3, "https://git.example/api/v4")
    assert ctx.mr_url() == "https://git.example/team/kafka/-/merge_requests/3"


@pytest.mark.parametrize(
    ("missing", "named"),
    [
        ("CI_PROJECT_ID", "--project GROUP/NAME (or its numeric id) or set CI_PROJECT_ID"),
        ("GITLAB_TOKEN", "set GITLAB_TOKEN"),
    ],
)
def test_missing_settings_are_named(missing: str, named: str) -> None:
    env = {k: v for k, v in CI_ENV.items() if k != missing}
    with pytest.raises(errors.ConfigError) as info:
        event.gitlab_context_from_env(env)
    assert named in str(info.value)


def test_branch_pipeline_has_no_merge_request() -> None:
    env = {**{k: v for k, v in CI_ENV.items() if k != "CI_MERGE_REQUEST_IID"}, "CI_PIPELINE_SOURCE": "push"}
    ctx = event.gitlab_context_from_env(env)
    with pytest.raises(errors.ConfigError, match=r"CI_MERGE_REQUEST_IID is not set \(pipeline source 'push'\).*--mr"):
        ctx.require_mr()


@pytest.mark.parametrize(
    ("env", "requested", "platform"),
    [
        ({"GITLAB_CI": "true"}, None, "gitlab"),
        ({"GITLAB_CI": "true", "GITHUB_ACTIONS": "true"}, None, "github"),
        ({}, None, "github"),
        ({}, "gitlab", "gitlab"),
        ({"GITLAB_CI": "true"}, "github", "github"),
    ],
)
def test_platform_detection(env: dict[str, str], requested: str | None, platform: str) -> None:
    assert event.detect_platform(requested, env) == platform


def test_note_footer_links_the_pipeline() -> None:
    body = publish.plan_comment_body(
        "Plan: 1 to create.", cluster="prod", run_url=CI_ENV["CI_PIPELINE_URL"], platform="gitlab"
    )
    assert body.startswith(github.comment_marker("prod") + "\nPlan: 1 to create.")
    assert f"[pipeline]({CI_ENV['CI_PIPELINE_URL']})" in body
    assert "this merge request" in body


# ---------------------------------------------------------------------------------------------- CLI
runner = CliRunner()


def save_plan(tmp_path: Path, *names: str) -> Path:
    changes = tuple(
        plans.Change(
            address=f"topic/{n}",
            kind=Kind.TOPIC,
            name=n,
            action=plans.Action.CREATE,
            phase=plans.Phase.TOPIC_CREATE,
            after=payloads.TopicPayload(partitions=3, replication_factor=3, configs={}),  # what apply can decode
        )
        for n in names
    )
    plan = plans.Plan(cluster=plans.ClusterInfo(cluster_id="MkU3OEVBNTcwNTJENDM2Qk", controller_id=1), changes=changes)
    path = tmp_path / f"plan-{len(names)}.json"
    plan.save(path)
    return path


def cli_env(server: FakeGitLab, **extra: str | None) -> dict[str, str | None]:
    return {
        **CI_ENV,
        "CI_API_V4_URL": server.api_url,
        "GITHUB_ACTIONS": None,
        "GITHUB_TOKEN": None,
        **extra,
    }


def test_cli_creates_updates_then_leaves_the_note(gl: FakeGitLab, tmp_path: Path) -> None:
    one, two = save_plan(tmp_path, "orders"), save_plan(tmp_path, "orders", "payments")
    args = ["comment", "--cluster", "prod-eu"]

    runs = [runner.invoke(app, [*args, "--plan", str(p)], env=cli_env(gl)) for p in (one, two, two)]

    assert [r.exit_code for r in runs] == [0, 0, 0], [r.output for r in runs]
    [note] = gl.notes[MR]
    expected = f"https://gitlab.example/acme/kafka-config/-/merge_requests/17#note_{note['id']}"
    assert [r.stdout.strip() for r in runs] == [
        f"Plan note for prod-eu created: {expected}",
        f"Plan note for prod-eu updated: {expected}",
        f"Plan note for prod-eu unchanged: {expected}",
    ]
    assert note["body"].startswith(github.comment_marker("prod-eu"))
    assert "payments" in note["body"] and "/-/pipelines/991" in note["body"]
    assert all(TOKEN not in r.output for r in runs)
    assert [r.method for r in gl.requests if r.method != "GET"] == ["POST", "PUT"]


def test_cli_gitlab_flags_outside_gitlab_ci_mean_gitlab(gl: FakeGitLab, tmp_path: Path) -> None:
    env = {name: None for name in CI_ENV if name != "GITLAB_TOKEN"}
    result = runner.invoke(
        app,
        [
            *("comment", "--plan", str(save_plan(tmp_path, "orders"))),
            *("--project", PROJECT, "--mr", str(MR), "--api-url", gl.api_url),
        ],
        env={**env, "GITLAB_TOKEN": TOKEN, "GITHUB_ACTIONS": None},
    )

    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Plan note for MkU3OEVBNTcwNTJENDM2Qk created: ")
    assert len(gl.notes[MR]) == 1


def test_cli_without_a_token_says_what_to_set(gl: FakeGitLab, tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["comment", "--plan", str(save_plan(tmp_path, "orders"))], env=cli_env(gl, GITLAB_TOKEN=None)
    )

    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        f"error: {GitLabClient.missing_token}",
    ]
    assert "Traceback" not in result.output
    assert not gl.requests


def test_cli_bad_token_is_one_line_without_the_token(gl: FakeGitLab, tmp_path: Path) -> None:
    wrong = "glpat-notTheRightOne_0123456789"
    result = runner.invoke(
        app, ["comment", "--plan", str(save_plan(tmp_path, "orders"))], env=cli_env(gl, GITLAB_TOKEN=wrong)
    )

    assert result.exit_code == 1
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: GitLab rejected the token (HTTP 401)")
    assert wrong not in result.output


def test_cli_rejects_github_flags_on_gitlab(gl: FakeGitLab, tmp_path: Path) -> None:
    plan = str(save_plan(tmp_path, "orders"))
    result = runner.invoke(app, ["comment", "--plan", plan, "--platform", "gitlab", "--pr", "3"], env=cli_env(gl))

    assert result.exit_code == 1
    assert "--repo and --pr name a GitHub pull request; on GitLab use --project and --mr" in result.stderr
    assert not gl.requests


def test_cli_github_flags_inside_gitlab_ci_mean_github(gl: FakeGitLab, tmp_path: Path) -> None:
    plan = str(save_plan(tmp_path, "orders"))
    result = runner.invoke(app, ["comment", "--plan", plan, "--repo", "acme/kafka", "--pr", "3"], env=cli_env(gl))

    assert result.exit_code == 1
    assert result.stderr.startswith("error: no GitHub token: set GITHUB_TOKEN")
    assert not gl.requests

"""Reading the pull request number, repository and token from a workflow run's environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.base import errors
from reconciler.gitops import event

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "github"


@pytest.mark.parametrize(
    ("payload", "number"),
    [("pull_request.json", 42), ("issue_comment.json", 57), ("issue_comment_on_issue.json", None), ("push.json", None)],
)
def test_pr_number_from_event_payloads(payload: str, number: int | None) -> None:
    assert event.pr_number_from_event(event.load_event(FIXTURES / payload)) == number


def runner_env(payload: str, **extra: str) -> dict[str, str]:
    return {
        "GITHUB_REPOSITORY": "acme/kafka-config",
        "GITHUB_TOKEN": "ghs_x",
        "GITHUB_EVENT_PATH": str(FIXTURES / payload),
        "GITHUB_EVENT_NAME": payload.removesuffix(".json"),
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_RUN_ID": "123456",
        **extra,
    }


def test_context_from_a_pull_request_run() -> None:
    ctx = event.context_from_env(runner_env("pull_request.json", GITHUB_API_URL="https://ghe.example/api/v3/"))
    assert (ctx.repo, ctx.pr_number, ctx.require_pr()) == ("acme/kafka-config", 42, 42)
    assert ctx.api_url == "https://ghe.example/api/v3"
    assert ctx.run_url == "https://github.com/acme/kafka-config/actions/runs/123456"


def test_explicit_values_win_over_the_environment() -> None:
    ctx = event.context_from_env(
        runner_env("pull_request.json"), repo="other/repo", pr_number=7, token="ghp_y", api_url="http://127.0.0.1:1"
    )
    assert (ctx.repo, ctx.pr_number, ctx.token, ctx.api_url) == ("other/repo", 7, "ghp_y", "http://127.0.0.1:1")


def test_default_api_url() -> None:
    env = runner_env("push.json")
    assert event.context_from_env(env).api_url == "https://api.github.com"


def test_push_event_has_no_pull_request() -> None:
    ctx = event.context_from_env(runner_env("push.json"))
    with pytest.raises(errors.ConfigError, match=r"'push' event carries none; pass --pr"):
        ctx.require_pr()


@pytest.mark.parametrize(("missing", "message"), [("GITHUB_TOKEN", "no GitHub token"), ("GITHUB_REPOSITORY", "--repo")])
def test_missing_settings_are_named(missing: str, message: str) -> None:
    env = runner_env("pull_request.json")
    del env[missing]
    with pytest.raises(errors.ConfigError, match=message):
        event.context_from_env(env)


def test_unreadable_event_file(tmp_path: Path) -> None:
    broken = tmp_path / "event.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(errors.ConfigError, match="not valid JSON"):
        event.context_from_env(runner_env("x", GITHUB_EVENT_PATH=str(broken)))
    with pytest.raises(errors.ConfigError, match="cannot read"):
        event.load_event(tmp_path / "absent.json")

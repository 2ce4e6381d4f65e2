"""Pull-request plan comments and drift issues, checked against a local server speaking the GitHub REST API."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reconciler.base import errors
from reconciler.gitops import github
from reconciler.gitops.client import GitHubClient, GitHubError
from tests.support.fake_github import FakeGitHub

TOKEN = "ghs_unitTestToken0123456789abcdef"
REPO = "acme/kafka-config"


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN) as server:
        yield server


def client(server: FakeGitHub, *, sleeps: list[float] | None = None, token: str = TOKEN) -> GitHubClient:
    recorded = sleeps if sleeps is not None else []
    return GitHubClient(token=token, api_url=server.url, sleep=recorded.append)


def post_plan(server: FakeGitHub, body: str, *, cluster: str = "prod", pr: int = 42) -> github.CommentResult:
    return github.upsert_pr_comment(
        body=body, marker=github.comment_marker(cluster), pr_number=pr, repo=REPO, token=TOKEN, api_url=server.url
    )


# ---------------------------------------------------------------------------------------------- comments
def test_first_run_creates_comment_with_hidden_marker(gh: FakeGitHub) -> None:
    result = post_plan(gh, "## Plan for prod\n\nPlan: 1 to create, 0 to update, 0 to delete.")

    assert result.action == "created"
    [comment] = gh.comments[(REPO, 42)]
    assert comment["id"] == result.id
    assert comment["body"].startswith("<!-- kafka-reconciler: cluster=prod -->\n## Plan for prod")
    assert result.url.endswith(f"#issuecomment-{result.id}")
    assert all(r.authorization == f"Bearer {TOKEN}" for r in gh.requests)


def test_second_run_edits_the_same_comment(gh: FakeGitHub) -> None:
    first = post_plan(gh, "Plan: 1 to create.")
    second = post_plan(gh, "Plan: 2 to create.")

    assert (second.action, second.id) == ("updated", first.id)
    [comment] = gh.comments[(REPO, 42)]
    assert comment["body"].endswith("Plan: 2 to create.")
    assert [r.method for r in gh.requests if r.method != "GET"] == ["POST", "PATCH"]
    assert gh.calls("PATCH")[0].path == f"/repos/{REPO}/issues/comments/{first.id}"


def test_identical_body_is_left_alone(gh: FakeGitHub) -> None:
    post_plan(gh, "No changes. The cluster matches the manifests.")
    again = post_plan(gh, "No changes. The cluster matches the manifests.")

    assert again.action == "unchanged"
    assert not gh.calls("PATCH")
    assert len(gh.comments[(REPO, 42)]) == 1


def test_each_cluster_keeps_its_own_comment(gh: FakeGitHub) -> None:
    prod = post_plan(gh, "prod v1", cluster="prod")
    prod_eu = post_plan(gh, "prod-eu v1", cluster="prod-eu")
    post_plan(gh, "prod v2", cluster="prod")

    bodies = {c["id"]: c["body"] for c in gh.comments[(REPO, 42)]}
    assert len(bodies) == 2
    assert bodies[prod.id].endswith("prod v2")
    assert bodies[prod_eu.id].endswith("prod-eu v1")


def test_human_comments_are_never_touched(gh: FakeGitHub) -> None:
    human = gh.add_comment(REPO, 42, "Looks good, but please check retention on prod.")
    post_plan(gh, "Plan: 1 to create.")
    post_plan(gh, "Plan: 2 to create.")

    assert gh.comments[(REPO, 42)][0] == human
    assert len(gh.comments[(REPO, 42)]) == 2


@pytest.mark.parametrize("link_headers", [True, False], ids=["link-header", "empty-page"])
def test_marker_found_on_a_later_page(link_headers: bool) -> None:
    with FakeGitHub(token=TOKEN, link_headers=link_headers) as server:
        for i in range(130):
            server.add_comment(REPO, 42, f"discussion {i}")
        ours = server.add_comment(REPO, 42, f"{github.comment_marker('prod')}\nold plan", user="github-actions[bot]")
        for i in range(5):
            server.add_comment(REPO, 42, f"later {i}")

        result = post_plan(server, "new plan")

        assert (result.action, result.id) == ("updated", ours["id"])
        assert len(server.comments[(REPO, 42)]) == 136
        pages = [r.query.get("page", "1") for r in server.calls("GET")]
        assert pages == ["1", "2"]


def test_huge_body_is_cut_below_the_limit_and_keeps_its_start(gh: FakeGitHub) -> None:
    rows = "\n".join(f"| + | topic `orders.{i:06d}` | partitions 12 | rf 3 |" for i in range(5000))
    body = f"## Plan for prod\n\n<details><summary>Details</summary>\n\n```diff\n{rows}\n```\n</details>\n"
    assert len(body) > 200_000

    result = post_plan(gh, body)

    assert result.action == "created"
    sent = gh.calls("POST")[0].body["body"]
    assert len(sent) < github.MAX_BODY_CHARS
    assert sent.startswith("<!-- kafka-reconciler: cluster=prod -->\n## Plan for prod")
    assert "was cut to fit GitHub's 65,536-character limit" in sent
    assert sent.count("```") % 2 == 0, "an open code fence must be closed"
    assert sent.count("<details>") == sent.count("</details>")


def test_fit_body_counts_wide_characters_conservatively() -> None:
    body = "\U0001f680" * 40_000  # each counts as two UTF-16 units
    cut = github.fit_body(body)
    assert len(cut.encode("utf-16-le")) // 2 <= github.MAX_BODY_CHARS
    assert github.fit_body("short") == "short"


def test_server_errors_are_retried_with_backoff(gh: FakeGitHub) -> None:
    gh.fail_next(method="GET", path_pattern=r"/comments$", status=502, times=2)
    sleeps: list[float] = []

    result = github.upsert_pr_comment(
        body="plan", marker=github.comment_marker("prod"), pr_number=42, repo=REPO, client=client(gh, sleeps=sleeps)
    )

    assert result.action == "created"
    assert sleeps == [1.0, 2.0]
    assert len(gh.calls("GET")) == 3


def test_secondary_rate_limit_honours_retry_after(gh: FakeGitHub) -> None:
    gh.fail_next(
        method="POST",
        path_pattern=r"/comments$",
        status=403,
        headers={"Retry-After": "7"},
        body={"message": "You have exceeded a secondary rate limit."},
    )
    sleeps: list[float] = []

    result = github.upsert_pr_comment(
        body="plan", marker=github.comment_marker("prod"), pr_number=42, repo=REPO, client=client(gh, sleeps=sleeps)
    )

    assert result.action == "created"
    assert sleeps == [7.0]
    assert len(gh.comments[(REPO, 42)]) == 1


def test_persistent_server_error_gives_up(gh: FakeGitHub) -> None:
    gh.fail_next(method="GET", path_pattern=r"/comments$", status=500, times=10)
    sleeps: list[float] = []

    with pytest.raises(GitHubError, match="HTTP 500") as info:
        github.upsert_pr_comment(
            body="p", marker=github.comment_marker("prod"), pr_number=42, repo=REPO, client=client(gh, sleeps=sleeps)
        )

    assert info.value.status == 500
    assert len(sleeps) == 3


def test_missing_permission_is_a_clear_error(gh: FakeGitHub) -> None:
    gh.fail_next(
        method="POST",
        path_pattern=r"/comments$",
        status=403,
        body={"message": "Resource not accessible by integration"},
    )

    with pytest.raises(GitHubError) as info:
        post_plan(gh, "plan")

    text = str(info.value)
    assert "HTTP 403" in text
    assert "pull-requests: write" in text
    assert "Resource not accessible by integration" in text
    assert isinstance(info.value, errors.ReconcilerError)
    assert not gh.comments.get((REPO, 42))


def test_bad_token_is_reported_without_the_token(gh: FakeGitHub) -> None:
    wrong = "ghp_wrongTokenValue_ABCDEFGHIJ0123"
    with pytest.raises(GitHubError) as info:
        github.upsert_pr_comment(
            body="p", marker=github.comment_marker("prod"), pr_number=42, repo=REPO, token=wrong, api_url=gh.url
        )
    assert "HTTP 401" in str(info.value)
    assert wrong not in str(info.value)
    assert wrong not in repr(info.value.args)


def test_token_echoed_by_the_server_is_scrubbed(gh: FakeGitHub) -> None:
    gh.fail_next(
        method="GET",
        path_pattern=r"/comments$",
        status=422,
        body={"message": f"Validation Failed for Bearer {TOKEN}", "errors": [{"field": "body", "code": "invalid"}]},
    )
    with pytest.raises(GitHubError) as info:
        post_plan(gh, "p")
    assert TOKEN not in str(info.value)
    assert "HTTP 422" in str(info.value)
    assert "***" in str(info.value)


def test_unknown_pull_request_is_a_clear_404() -> None:
    with FakeGitHub(token=TOKEN) as server:
        server.fail_next(method="GET", path_pattern=r"/comments$", status=404, body={"message": "Not Found"})
        with pytest.raises(GitHubError, match=r"HTTP 404.*check the repository"):
            post_plan(server, "p", pr=9999)


def test_unreachable_api_is_a_clear_error() -> None:
    with FakeGitHub(token=TOKEN) as server:
        url = server.url
    with pytest.raises(GitHubError, match="cannot reach the GitHub API"):
        github.upsert_pr_comment(
            body="p", marker=github.comment_marker("x"), pr_number=1, repo=REPO, token=TOKEN, api_url=url
        )


def test_link_to_another_host_is_not_followed(gh: FakeGitHub) -> None:
    api = client(gh)
    with pytest.raises(GitHubError, match="another host"):
        api.request("GET", "https://attacker.example/repos/acme/kafka-config/issues")
    assert not gh.requests


@pytest.mark.parametrize("repo", ["acme", "acme/kafka/config", "", "acme/kafka config"])
def test_malformed_repository_is_rejected(repo: str) -> None:
    with pytest.raises(errors.ConfigError, match="OWNER/NAME"):
        github.upsert_pr_comment(body="p", marker="m", pr_number=1, repo=repo, token=TOKEN)


def test_marker_cannot_be_broken_by_cluster_name() -> None:
    marker = github.comment_marker("evil --> <b>x</b>\nname")
    assert marker.count("-->") == 1 and marker.endswith("-->")
    assert "\n" not in marker
    assert github.comment_marker("") == "<!-- kafka-reconciler: cluster=default -->"


# ---------------------------------------------------------------------------------------------- drift issue
def drift(
    server: FakeGitHub, body: str, *, found: bool, cluster: str = "prod", close: bool = False
) -> github.IssueResult:
    return github.upsert_drift_issue(
        title=f"Kafka drift on {cluster}",
        body=body,
        marker=github.drift_marker(cluster),
        repo=REPO,
        drift=found,
        close_if_clean=close,
        token=TOKEN,
        api_url=server.url,
    )


def test_drift_issue_created_then_updated(gh: FakeGitHub) -> None:
    created = drift(gh, "1 topic differs", found=True)
    updated = drift(gh, "2 topics differ", found=True)

    assert created.action == "created"
    assert (updated.action, updated.number) == ("updated", created.number)
    [issue] = gh.issues[REPO]
    assert issue["body"].endswith("2 topics differ")
    assert [lab["name"] for lab in issue["labels"]] == [github.DRIFT_LABEL]
    listing = gh.calls("GET")[0]
    assert listing.query["state"] == "open" and listing.query["labels"] == github.DRIFT_LABEL


def test_drift_issue_per_cluster_and_pull_requests_ignored(gh: FakeGitHub) -> None:
    gh.add_issue(REPO, title="PR", body=github.drift_marker("prod"), labels=[github.DRIFT_LABEL], pull_request=True)
    prod = drift(gh, "prod drift", found=True, cluster="prod")
    eu = drift(gh, "eu drift", found=True, cluster="prod-eu")

    assert prod.action == eu.action == "created"
    assert prod.number != eu.number
    assert len(gh.issues[REPO]) == 3


def test_no_drift_creates_nothing_and_closes_only_when_asked(gh: FakeGitHub) -> None:
    assert drift(gh, "clean", found=False).action == "none"
    assert REPO not in gh.issues

    opened = drift(gh, "drift", found=True)
    kept = drift(gh, "clean", found=False)
    assert (kept.action, kept.number) == ("unchanged", opened.number)
    assert gh.issues[REPO][0]["state"] == "open"

    closed = drift(gh, "No drift any more.", found=False, close=True)
    assert (closed.action, closed.number) == ("closed", opened.number)
    assert gh.issues[REPO][0]["state"] == "closed"
    assert gh.issues[REPO][0]["state_reason"] == "completed"

    reopened = drift(gh, "drift again", found=True)
    assert reopened.action == "created" and reopened.number != opened.number


# ---------------------------------------------------------------------------------------------- no duplicates
def test_create_failing_before_the_server_acted_is_retried_once(gh: FakeGitHub) -> None:
    gh.fail_next(method="POST", path_pattern=r"/comments$", status=502)
    sleeps: list[float] = []

    result = github.upsert_pr_comment(
        body="plan", marker=github.comment_marker("prod"), pr_number=42, repo=REPO, client=client(gh, sleeps=sleeps)
    )

    assert result.action == "created"
    assert len(gh.comments[(REPO, 42)]) == 1
    assert len(gh.calls("POST")) == 2
    assert sleeps == [1.0]


def test_create_failing_after_the_server_acted_makes_no_duplicate(gh: FakeGitHub) -> None:
    gh.fail_next(method="POST", path_pattern=r"/comments$", status=504, after=True)

    result = github.upsert_pr_comment(
        body="plan", marker=github.comment_marker("prod"), pr_number=42, repo=REPO, client=client(gh)
    )

    [comment] = gh.comments[(REPO, 42)]
    assert (result.action, result.id) == ("created", comment["id"])
    assert len(gh.calls("POST")) == 1


def test_drift_issue_is_not_duplicated_by_a_failed_create(gh: FakeGitHub) -> None:
    gh.fail_next(method="POST", path_pattern=r"/issues$", status=502, after=True)

    result = github.upsert_drift_issue(
        title="Kafka drift on prod",
        body="drift",
        marker=github.drift_marker("prod"),
        repo=REPO,
        drift=True,
        client=client(gh),
    )

    [issue] = gh.issues[REPO]
    assert (result.action, result.number) == ("created", issue["number"])

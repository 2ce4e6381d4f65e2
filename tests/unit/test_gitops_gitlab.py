"""Merge-request plan notes on GitLab, checked against a local server speaking the GitLab REST v4 note endpoints."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reconciler.base import errors
from reconciler.gitops import github, gitlab
from reconciler.gitops.gitlab import GitLabClient, GitLabError
from tests.support.fake_gitlab import FakeGitLab

TOKEN = "glpat-unitTestToken_0123456789ab"
PROJECT = "acme/kafka-config"
PROJECT_ID = 4242
MR = 17


@pytest.fixture
def gl() -> Iterator[FakeGitLab]:
    with FakeGitLab(token=TOKEN, project=PROJECT, project_id=PROJECT_ID) as server:
        yield server


def client(server: FakeGitLab, *, sleeps: list[float] | None = None, token: str = TOKEN) -> GitLabClient:
    recorded = sleeps if sleeps is not None else []
    return GitLabClient(token=token, api_url=server.api_url, sleep=recorded.append)


def post_plan(
    server: FakeGitLab,
    body: str,
    *,
    cluster: str = "prod",
    project: str = PROJECT,
    sleeps: list[float] | None = None,
) -> github.CommentResult:
    return gitlab.upsert_mr_note(
        body=body,
        marker=github.comment_marker(cluster),
        project=project,
        mr_iid=MR,
        mr_url=f"https://gitlab.example/{PROJECT}/-/merge_requests/{MR}",
        client=client(server, sleeps=sleeps),
    )


# ---------------------------------------------------------------------------------------------- notes
def test_first_run_creates_a_note_with_the_hidden_marker(gl: FakeGitLab) -> None:
    result = post_plan(gl, "## Plan for prod\n\nPlan: 1 to create, 0 to update, 0 to delete.")

    assert result.action == "created"
    [note] = gl.notes[MR]
    assert note["id"] == result.id
    assert note["body"].startswith("<!-- kafka-reconciler: cluster=prod -->\n## Plan for prod")
    assert result.url == f"https://gitlab.example/{PROJECT}/-/merge_requests/{MR}#note_{result.id}"
    assert all(r.authorization == TOKEN for r in gl.requests)
    assert {r.path for r in gl.requests} == {"/api/v4/projects/acme%2Fkafka-config/merge_requests/17/notes"}
    listing = gl.calls("GET")[0]
    assert (listing.query["sort"], listing.query["per_page"]) == ("asc", "100")


def test_second_run_updates_the_same_note_and_a_third_leaves_it_alone(gl: FakeGitLab) -> None:
    first = post_plan(gl, "Plan: 1 to create.")
    second = post_plan(gl, "Plan: 2 to create.")
    third = post_plan(gl, "Plan: 2 to create.")

    assert (second.action, second.id) == ("updated", first.id)
    assert (third.action, third.id) == ("unchanged", first.id)
    [note] = gl.notes[MR]
    assert note["body"].endswith("Plan: 2 to create.")
    assert [r.method for r in gl.requests if r.method != "GET"] == ["POST", "PUT"]
    assert gl.calls("PUT")[0].path == f"/api/v4/projects/acme%2Fkafka-config/merge_requests/17/notes/{first.id}"


def test_numeric_project_id_addresses_the_same_merge_request(gl: FakeGitLab) -> None:
    by_path = post_plan(gl, "v1")
    by_id = post_plan(gl, "v2", project=str(PROJECT_ID))

    assert (by_id.action, by_id.id) == ("updated", by_path.id)
    assert gl.calls("PUT")[0].path.startswith(f"/api/v4/projects/{PROJECT_ID}/merge_requests/17/notes/")


def test_each_cluster_keeps_its_own_note_and_people_s_notes_are_untouched(gl: FakeGitLab) -> None:
    human = gl.add_note(MR, "Please double-check retention on prod.", author="carol")
    prod = post_plan(gl, "prod v1", cluster="prod")
    eu = post_plan(gl, "prod-eu v1", cluster="prod-eu")
    post_plan(gl, "prod v2", cluster="prod")

    bodies = {n["id"]: n["body"] for n in gl.notes[MR]}
    assert len(bodies) == 3
    assert bodies[prod.id].endswith("prod v2")
    assert bodies[eu.id].endswith("prod-eu v1")
    assert bodies[human["id"]] == "Please double-check retention on prod."


def test_system_notes_are_skipped_when_looking_for_the_marker(gl: FakeGitLab) -> None:
    quoted = f"changed the description\n{github.comment_marker('prod')}\nold plan"
    system = gl.add_note(MR, quoted, author="carol", system=True)

    result = post_plan(gl, "new plan")

    assert result.action == "created"
    assert result.id != system["id"]
    assert gl.notes[MR][0]["body"] == quoted
    assert not gl.calls("PUT")


@pytest.mark.parametrize(
    ("link_headers", "next_page_headers"),
    [(True, True), (False, True), (True, False)],
    ids=["link-and-x-next-page", "x-next-page-only", "link-only"],
)
def test_marker_found_on_a_later_page(link_headers: bool, next_page_headers: bool) -> None:
    with FakeGitLab(
        token=TOKEN, max_per_page=5, link_headers=link_headers, next_page_headers=next_page_headers
    ) as server:
        for i in range(12):
            server.add_note(MR, f"discussion {i}")
        ours = server.add_note(MR, f"{github.comment_marker('prod')}\nold plan", author="project_4242_bot")
        for i in range(4):
            server.add_note(MR, f"later {i}")

        result = post_plan(server, "new plan")

        assert (result.action, result.id) == ("updated", ours["id"])
        assert len(server.notes[MR]) == 17
        pages = [r.query.get("page", "1") for r in server.calls("GET")]
        assert pages == ["1", "2", "3"]


def test_marker_not_found_reads_every_page_then_creates_one_note() -> None:
    with FakeGitLab(token=TOKEN, max_per_page=5) as server:
        for i in range(11):
            server.add_note(MR, f"discussion {i}")

        result = post_plan(server, "plan")

        assert result.action == "created"
        assert [r.query.get("page", "1") for r in server.calls("GET")] == ["1", "2", "3"]
        assert len(server.notes[MR]) == 12


def test_huge_body_is_cut_below_gitlab_s_limit() -> None:
    rows = "\n".join(f"| + | topic `orders.{i:07d}` | partitions 12 | rf 3 |" for i in range(25_000))
    body = f"## Plan for prod\n\n<details><summary>Details</summary>\n\n```diff\n{rows}\n```\n</details>\n"
    assert len(body) > gitlab.MAX_NOTE_CHARS
    with FakeGitLab(token=TOKEN) as server:
        result = post_plan(server, body)

        assert result.action == "created"
        sent = server.calls("POST")[0].body["body"]
    assert github.MAX_BODY_CHARS < len(sent) <= gitlab.MAX_NOTE_CHARS
    assert sent.startswith("<!-- kafka-reconciler: cluster=prod -->\n## Plan for prod")
    assert "was cut to fit GitLab's 1,000,000-character limit" in sent
    assert sent.count("```") % 2 == 0
    assert sent.count("<details>") == sent.count("</details>")


# ---------------------------------------------------------------------------------------------- retries
def test_server_errors_are_retried_with_backoff(gl: FakeGitLab) -> None:
    gl.fail_next(method="GET", path_pattern=r"/notes$", status=502, times=2)
    sleeps: list[float] = []

    result = post_plan(gl, "plan", sleeps=sleeps)

    assert result.action == "created"
    assert sleeps == [1.0, 2.0]
    assert len(gl.calls("GET")) == 3


def test_update_retried_after_a_server_error(gl: FakeGitLab) -> None:
    first = post_plan(gl, "v1")
    gl.fail_next(method="PUT", path_pattern=r"/notes/\d+$", status=503)
    sleeps: list[float] = []

    result = post_plan(gl, "v2", sleeps=sleeps)

    assert (result.action, result.id) == ("updated", first.id)
    assert sleeps == [1.0]
    assert gl.notes[MR][0]["body"].endswith("v2")


def test_rate_limit_429_honours_retry_after(gl: FakeGitLab) -> None:
    gl.fail_next(
        method="POST",
        path_pattern=r"/notes$",
        status=429,
        headers={"Retry-After": "5"},
        body={"message": "Retry later"},
    )
    sleeps: list[float] = []

    result = post_plan(gl, "plan", sleeps=sleeps)

    assert result.action == "created"
    assert sleeps == [5.0]
    assert len(gl.notes[MR]) == 1


def test_create_failing_after_the_server_acted_makes_no_duplicate(gl: FakeGitLab) -> None:
    gl.fail_next(method="POST", path_pattern=r"/notes$", status=504, after=True)

    result = post_plan(gl, "plan")

    [note] = gl.notes[MR]
    assert (result.action, result.id) == ("created", note["id"])
    assert len(gl.calls("POST")) == 1


def test_persistent_server_error_gives_up_with_the_status(gl: FakeGitLab) -> None:
    gl.fail_next(method="GET", path_pattern=r"/notes$", status=500, times=10, body={"message": "500 Internal Error"})
    sleeps: list[float] = []

    with pytest.raises(GitLabError, match=r"HTTP 500.*GitLab says: 500 Internal Error") as info:
        post_plan(gl, "plan", sleeps=sleeps)

    assert info.value.status == 500
    assert len(sleeps) == 3


# ---------------------------------------------------------------------------------------------- errors
def test_bad_token_is_a_401_naming_the_variable_without_the_token(gl: FakeGitLab) -> None:
    wrong = "glpat-wrongTokenValue_ABCDEFGHIJ"
    with pytest.raises(GitLabError) as info:
        post_plan_with_token(gl, wrong)

    text = str(info.value)
    assert "HTTP 401" in text and "GITLAB_TOKEN" in text and "api scope" in text
    assert "GitLab says: 401 Unauthorized" in text
    assert wrong not in text and wrong not in repr(info.value.args)
    assert isinstance(info.value, errors.ReconcilerError)
    assert not gl.notes


def post_plan_with_token(server: FakeGitLab, token: str) -> github.CommentResult:
    return gitlab.upsert_mr_note(
        body="p", marker=github.comment_marker("prod"), project=PROJECT, mr_iid=MR, token=token, api_url=server.api_url
    )


def test_missing_scope_is_a_clear_403(gl: FakeGitLab) -> None:
    gl.fail_next(
        method="POST",
        path_pattern=r"/notes$",
        status=403,
        body={"error": "insufficient_scope", "error_description": "The request requires higher privileges."},
    )
    with pytest.raises(GitLabError) as info:
        post_plan(gl, "plan")
    text = str(info.value)
    assert "HTTP 403" in text and "api scope" in text
    assert "insufficient_scope: The request requires higher privileges." in text


def test_unknown_project_is_a_clear_404() -> None:
    with FakeGitLab(token=TOKEN, project="acme/other") as server, pytest.raises(GitLabError) as info:
        post_plan(server, "plan")
    text = str(info.value)
    assert "HTTP 404" in text and "--project or CI_PROJECT_ID" in text and "404 Project Not Found" in text


def test_field_errors_and_echoed_token_are_reported_plainly(gl: FakeGitLab) -> None:
    gl.fail_next(
        method="POST",
        path_pattern=r"/notes$",
        status=400,
        body={"message": {"body": ["is invalid", f"mentions {TOKEN}"]}},
    )
    with pytest.raises(GitLabError) as info:
        post_plan(gl, "plan")
    text = str(info.value)
    assert "HTTP 400" in text and "body is invalid, mentions ***" in text
    assert TOKEN not in text


def test_unreachable_api_is_a_clear_error() -> None:
    with FakeGitLab(token=TOKEN) as server:
        api_url = server.api_url
    with pytest.raises(GitLabError, match="cannot reach the GitLab API"):
        post_plan_with_token_at(api_url)


def post_plan_with_token_at(api_url: str) -> github.CommentResult:
    return gitlab.upsert_mr_note(
        body="p", marker=github.comment_marker("x"), project=PROJECT, mr_iid=MR, token=TOKEN, api_url=api_url
    )


def test_missing_token_names_the_variable_and_the_job_token_limit() -> None:
    with pytest.raises(errors.ConfigError, match=r"GITLAB_TOKEN.*api scope.*CI_JOB_TOKEN cannot write notes"):
        GitLabClient(token="")


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("acme/kafka-config", "acme%2Fkafka-config"),
        ("acme%2Fkafka-config", "acme%2Fkafka-config"),
        ("acme/platform/kafka.config", "acme%2Fplatform%2Fkafka.config"),
        ("4242", "4242"),
    ],
)
def test_project_id_forms(given: str, expected: str) -> None:
    assert gitlab.project_id(given) == expected


@pytest.mark.parametrize("bad", ["", "acme", "acme/kafka config", "0", "acme/?x=1"])
def test_malformed_project_is_rejected(bad: str) -> None:
    with pytest.raises(errors.ConfigError, match="numeric id or a path like group/name"):
        gitlab.project_id(bad)

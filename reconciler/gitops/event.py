"""Reads the CI run context: GitHub Actions (event payload file, GITHUB_* variables) or GitLab CI (CI_* variables).

Explicit arguments win over the environment, so the same code serves a pipeline step and a person
running ``kafka-reconciler comment`` by hand with ``--repo``/``--pr`` or ``--project``/``--mr``.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from reconciler.base import errors, fileio
from reconciler.gitops import gitlab
from reconciler.gitops.client import DEFAULT_API_URL

Platform = Literal["github", "gitlab"]


@dataclass(frozen=True, slots=True)
class GitHubContext:
    """Where to post: repository, pull request (if the event has one), API base URL and token."""

    repo: str
    token: str
    api_url: str
    pr_number: int | None
    event_name: str | None = None
    run_url: str | None = None

    def require_pr(self) -> int:
        """The pull request number, or a clear error when the run is not about a pull request."""
        if self.pr_number is None:
            event = self.event_name or "unknown"
            raise errors.ConfigError(
                f"no pull request number: the '{event}' event carries none; pass --pr NUMBER, "
                "or run this step only on pull_request events"
            )
        return self.pr_number


def load_event(path: Path) -> dict[str, Any]:
    """The event payload written by the runner at ``GITHUB_EVENT_PATH``."""
    text = fileio.read_text(path, what="the GitHub event file")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise errors.ConfigError(f"GitHub event file {path} is not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise errors.ConfigError(f"GitHub event file {path} does not hold a JSON object")
    return doc


def pr_number_from_event(event: Mapping[str, Any]) -> int | None:
    """The pull request a payload is about: ``pull_request.number``, or ``issue.number`` for a comment on one.

    A comment on a plain issue (no ``issue.pull_request`` key) and a push carry no pull request.
    """
    pr = event.get("pull_request")
    if isinstance(pr, Mapping) and isinstance(pr.get("number"), int):
        return int(pr["number"])
    issue = event.get("issue")
    if isinstance(issue, Mapping) and "pull_request" in issue and isinstance(issue.get("number"), int):
        return int(issue["number"])
    return None


def run_url(environ: Mapping[str, str]) -> str | None:
    """The web address of the current workflow run, when the runner variables are present."""
    server, repo, run_id = (environ.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    if server and repo and run_id:
        return f"{server.rstrip('/')}/{repo}/actions/runs/{run_id}"
    return None


def context_from_env(
    environ: Mapping[str, str] | None = None,
    *,
    repo: str | None = None,
    pr_number: int | None = None,
    token: str | None = None,
    api_url: str | None = None,
) -> GitHubContext:
    """Build the context from explicit values, falling back to the runner's environment and event file."""
    env = os.environ if environ is None else environ
    resolved_repo = repo or env.get("GITHUB_REPOSITORY", "")
    if not resolved_repo:
        raise errors.ConfigError("no repository: pass --repo OWNER/NAME or set GITHUB_REPOSITORY")
    resolved_token = token or env.get("GITHUB_TOKEN", "")
    if not resolved_token:
        raise errors.ConfigError(
            "no GitHub token: set GITHUB_TOKEN (in a workflow: env: GITHUB_TOKEN: ${{ github.token }})"
        )
    number = pr_number
    if number is None and env.get("GITHUB_EVENT_PATH"):
        number = pr_number_from_event(load_event(Path(env["GITHUB_EVENT_PATH"])))
    return GitHubContext(
        repo=resolved_repo,
        token=resolved_token,
        api_url=(api_url or env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
        pr_number=number,
        event_name=env.get("GITHUB_EVENT_NAME"),
        run_url=run_url(env),
    )


# ---------------------------------------------------------------------------------------------- GitLab CI
@dataclass(frozen=True, slots=True)
class GitLabContext:
    """Where to post on GitLab: project (id or encoded path), merge request iid, API URL, token, web links."""

    project: str
    token: str
    api_url: str
    mr_iid: int | None
    pipeline_source: str | None = None
    pipeline_url: str | None = None
    project_url: str | None = None

    def require_mr(self) -> int:
        """The merge request iid, or a clear error when the pipeline is not a merge-request pipeline."""
        if self.mr_iid is None:
            source = self.pipeline_source or "unknown"
            raise errors.ConfigError(
                f"no merge request: CI_MERGE_REQUEST_IID is not set (pipeline source '{source}'); pass --mr IID, "
                "or run this job only in merge-request pipelines "
                '(rules: - if: $CI_PIPELINE_SOURCE == "merge_request_event")'
            )
        return self.mr_iid

    def mr_url(self) -> str:
        """The merge request's web page, when the project's web address is known; else ``""``."""
        if self.project_url and self.mr_iid is not None:
            return f"{self.project_url.rstrip('/')}/-/merge_requests/{self.mr_iid}"
        return ""


def detect_platform(requested: str | None = None, environ: Mapping[str, str] | None = None) -> Platform:
    """``requested`` when given; else ``gitlab`` inside GitLab CI (``GITLAB_CI`` set, ``GITHUB_ACTIONS`` not)."""
    if requested in ("github", "gitlab"):
        return "gitlab" if requested == "gitlab" else "github"
    env = os.environ if environ is None else environ
    return "gitlab" if env.get("GITLAB_CI") and not env.get("GITHUB_ACTIONS") else "github"


def gitlab_context_from_env(
    environ: Mapping[str, str] | None = None,
    *,
    project: str | None = None,
    mr_iid: int | None = None,
    api_url: str | None = None,
) -> GitLabContext:
    """Build the context from explicit values, falling back to GitLab CI's predefined variables.

    The project defaults to the merge request's own project (``CI_MERGE_REQUEST_PROJECT_ID``, which
    differs from ``CI_PROJECT_ID`` for a merge request from a fork), then ``CI_PROJECT_ID``.
    """
    env = os.environ if environ is None else environ
    if env.get("CI_MERGE_REQUEST_PROJECT_ID"):
        env_id, env_url = env["CI_MERGE_REQUEST_PROJECT_ID"], env.get("CI_MERGE_REQUEST_PROJECT_URL")
    else:
        env_id, env_url = env.get("CI_PROJECT_ID", ""), env.get("CI_PROJECT_URL")
    chosen = project or env_id
    if not chosen:
        raise errors.ConfigError(
            "no GitLab project: pass --project GROUP/NAME (or its numeric id) or set CI_PROJECT_ID"
        )
    pid = gitlab.project_id(chosen)
    token = env.get("GITLAB_TOKEN", "")
    if not token:
        raise errors.ConfigError(gitlab.GitLabClient.missing_token)
    number = mr_iid
    raw_iid = env.get("CI_MERGE_REQUEST_IID", "")
    if number is None and raw_iid:
        if not raw_iid.isdigit():
            raise errors.ConfigError(f"CI_MERGE_REQUEST_IID must be a number, got {raw_iid!r}")
        number = int(raw_iid)
    api = (api_url or env.get("CI_API_V4_URL") or gitlab.DEFAULT_API_URL).rstrip("/")
    if pid == env_id:
        project_url = env_url
    elif not pid.isdigit() and api.endswith("/api/v4"):
        project_url = f"{api.removesuffix('/api/v4')}/{urllib.parse.unquote(pid)}"
    else:
        project_url = None
    return GitLabContext(
        project=pid,
        token=token,
        api_url=api,
        mr_iid=number,
        pipeline_source=env.get("CI_PIPELINE_SOURCE"),
        pipeline_url=env.get("CI_PIPELINE_URL"),
        project_url=project_url,
    )

"""Reads the GitHub Actions run context: the event payload file and the GITHUB_* environment variables.

Explicit arguments win over the environment, so the same code serves a workflow step and a person
running ``kafka-reconciler comment`` by hand with ``--repo`` and ``--pr``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reconciler import errors
from reconciler.gitops.client import DEFAULT_API_URL


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
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise errors.ConfigError(f"cannot read the GitHub event file {path}: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
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

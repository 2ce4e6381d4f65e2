"""A minimal REST transport over urllib: auth header, JSON, pagination, retries, token scrubbing.

The tool calls a handful of GitHub and GitLab endpoints; the standard library is enough and avoids a
client dependency. ``RestClient`` holds the transport; ``GitHubClient`` (here) and ``GitLabClient``
(in ``gitlab``) add each product's auth header, rate-limit signals and error advice. Errors a user
can cause (bad token, missing permission, unknown repository, rejected body) become an ``ApiError``
with a plain message; the token never appears in any message or exception text.
"""

from __future__ import annotations

import email.utils
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from reconciler import __version__
from reconciler.base import errors, scrubbing

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
MAX_PAGES = 100  # 100 pages x 100 items: far beyond any pull request's comment count
_LINK_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


class ApiError(errors.ReconcilerError):
    """A REST API call failed; ``status`` is the HTTP status (0 when the server was not reached)."""

    def __init__(self, message: str, *, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


class GitHubError(ApiError):
    """A GitHub API call failed; ``status`` is the HTTP status (0 when the server was not reached)."""


@dataclass(frozen=True, slots=True)
class Response:
    """A decoded API answer: status, headers (lower-case names) and the parsed JSON body."""

    status: int
    headers: Mapping[str, str]
    body: Any

    def next_url(self) -> str | None:
        """The ``rel="next"`` target of the ``Link`` header, if any."""
        match = _LINK_NEXT.search(self.headers.get("link", ""))
        return match.group(1) if match else None


def scrub(text: str, secret: str) -> str:
    """``text`` with ``secret`` replaced (``scrubbing.scrub``), so a token cannot leak through a message."""
    return scrubbing.scrub(text, [secret])


class RestClient:
    """Sends authenticated JSON requests to one API base URL; subclasses name the product and its rules.

    Server errors (5xx) and rate-limit answers (429; for products that use it, 403 with ``Retry-After``
    or an exhausted remaining-requests header) are retried up to ``max_retries`` times; the wait honours
    ``Retry-After`` / the rate-limit reset time and otherwise backs off exponentially from ``backoff``.
    A wait longer than ``max_wait`` seconds is not attempted: the call fails with a clear message.
    """

    product: ClassVar[str] = "REST"
    default_api_url: ClassVar[str] = ""
    missing_token: ClassVar[str] = "no API token given"
    error_class: ClassVar[type[ApiError]] = ApiError
    rate_limit_header_prefix: ClassVar[str] = "ratelimit-"
    forbidden_may_be_rate_limit: ClassVar[bool] = False
    # Status -> message for failures the user can fix; ``{where}`` is the method and path.
    advice: ClassVar[Mapping[int, str]] = {}

    def __init__(
        self,
        *,
        token: str,
        api_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        backoff: float = 1.0,
        max_wait: float = 120.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not token:
            raise errors.ConfigError(self.missing_token)
        url = self.default_api_url if api_url is None else api_url
        if urllib.parse.urlsplit(url).scheme not in ("http", "https") or not urllib.parse.urlsplit(url).netloc:
            raise errors.ConfigError(f"{self.product} API URL must be an http(s) URL, got {url!r}")
        self._token = token
        self.api_url = url.rstrip("/")
        self._origin = _origin(self.api_url)
        self._timeout = timeout
        self._max_retries = max_retries
        self._backoff = backoff
        self._max_wait = max_wait
        self._sleep = sleep

    def auth_headers(self) -> dict[str, str]:
        """Headers carrying the token (and any product-specific ones) for every request."""
        return {"Accept": "application/json", "Authorization": f"Bearer {self._token}"}

    # ------------------------------------------------------------------------------------ requests
    def request(
        self, method: str, path: str, *, body: Mapping[str, Any] | None = None, params: Mapping[str, Any] | None = None
    ) -> Response:
        """One API call. ``path`` is relative to the API URL, or an absolute URL on the same host.

        A POST is not repeated after a server error, since the server may have acted on it before
        failing; callers that create things check for the result first (see ``github``). Rate-limit
        answers are retried for every method: the server did not act on those requests.
        """
        url = self._url(path, params)
        data = json.dumps(body).encode("utf-8") if body is not None else None
        attempt = 0
        while True:
            response = self._send(method, url, data)
            if response.status < 400:
                return response
            delay = self._retry_delay(response, attempt)
            if method == "POST" and response.status >= 500:
                delay = None
            if delay is None or attempt >= self._max_retries:
                raise self._error(method, url, response)
            attempt += 1
            self._sleep(delay)

    def backoff(self, attempt: int) -> None:
        """Wait before attempt ``attempt + 1`` of an operation the caller retries itself."""
        self._sleep(self._backoff * (2**attempt))

    def paginate(self, path: str, params: Mapping[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """Every item of a list endpoint: follows ``Link: rel="next"``, else ``X-Next-Page``, else pages on."""
        query = {"per_page": 100, **(params or {})}
        url: str | None = self._url(path, query)
        page = 1
        for _ in range(MAX_PAGES):
            assert url is not None
            response = self.request("GET", url)
            items = response.body if isinstance(response.body, list) else []
            yield from (item for item in items if isinstance(item, dict))
            next_page = response.headers.get("x-next-page", "").strip()
            if "link" in response.headers:
                url = response.next_url()
            elif "x-next-page" in response.headers:
                url = self._url(path, {**query, "page": int(next_page)}) if next_page.isdigit() else None
            elif len(items) >= int(query["per_page"]):
                page += 1
                url = self._url(path, {**query, "page": page})
            else:
                url = None
            if url is None:
                return
        raise self.error_class(f"{self.product} listing {path} has more than {MAX_PAGES} pages; stopped reading")

    # ------------------------------------------------------------------------------------ internals
    def _url(self, path: str, params: Mapping[str, Any] | None) -> str:
        if path.startswith(("http://", "https://")):
            if _origin(path) != self._origin:
                # Never send the token to a host other than the configured API.
                raise self.error_class(
                    f"{self.product} returned a link to another host ({_origin(path)}); refusing to follow it"
                )
            url = path
        else:
            url = self.api_url + "/" + path.lstrip("/")
        if params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params)
        return url

    def _send(self, method: str, url: str, data: bytes | None) -> Response:
        headers = {**self.auth_headers(), "User-Agent": f"kafka-reconciler/{__version__}"}
        if data is not None:
            headers["Content-Type"] = "application/json; charset=utf-8"
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self._timeout) as resp:
                return Response(resp.status, _lower(resp.headers.items()), _decode(resp.read()))
        except urllib.error.HTTPError as exc:
            with exc:
                return Response(exc.code, _lower(exc.headers.items()), _decode(exc.read()))
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            text = f"cannot reach the {self.product} API at {self.api_url}: {reason}"
            raise self.error_class(scrub(text, self._token)) from None

    def _rate_limited(self, response: Response) -> bool:
        status, headers = response.status, response.headers
        if status == 429:
            return True
        return (
            status == 403
            and self.forbidden_may_be_rate_limit
            and (
                _retry_after_seconds(headers.get("retry-after")) is not None
                or headers.get(self.rate_limit_header_prefix + "remaining") == "0"
                or "rate limit" in _message(response.body).lower()
            )
        )

    def _retry_delay(self, response: Response, attempt: int) -> float | None:
        """Seconds to wait before retrying, or ``None`` when the failure is not worth a retry."""
        headers = response.headers
        rate_limited = self._rate_limited(response)
        if not (response.status >= 500 or rate_limited):
            return None
        retry_after = _retry_after_seconds(headers.get("retry-after"))
        remaining, reset = (headers.get(self.rate_limit_header_prefix + k, "") for k in ("remaining", "reset"))
        if retry_after is not None:
            delay = retry_after
        elif remaining == "0" and reset.isdigit():
            delay = max(0.0, float(reset) - time.time())
        elif rate_limited:
            delay = 60.0  # GitHub asks for at least a minute when it gives no hint
        else:
            delay = self._backoff * (2**attempt)
        return delay if delay <= self._max_wait else None

    def _error(self, method: str, url: str, response: Response) -> ApiError:
        where = f"{method} {urllib.parse.urlsplit(url).path}"
        said = _message(response.body)
        said_part = f" {self.product} says: {said}" if said else ""
        status = response.status
        if self._rate_limited(response) and (status == 429 or "retry-after" in response.headers):
            text = f"{self.product} rate limit still exceeded for {where} after retrying (HTTP {status})."
        elif status in self.advice:
            text = self.advice[status].format(where=where)
        else:
            text = f"{self.product} API error for {where}: HTTP {status}."
        return self.error_class(scrub(text + said_part, self._token), status=status)


class GitHubClient(RestClient):
    """The GitHub REST API: bearer token, API version header, secondary rate limits answered with 403."""

    product = "GitHub"
    default_api_url = DEFAULT_API_URL
    missing_token = "no GitHub token: set GITHUB_TOKEN (in a workflow: ${{ github.token }})"
    error_class = GitHubError
    rate_limit_header_prefix = "x-ratelimit-"
    forbidden_may_be_rate_limit = True
    advice = {
        401: "GitHub rejected the token (HTTP 401) for {where}: check GITHUB_TOKEN.",
        403: (
            "GitHub refused {where} (HTTP 403): the token lacks a permission. In a workflow grant "
            "'pull-requests: write' for plan comments and 'issues: write' for drift issues."
        ),
        404: (
            "GitHub found nothing at {where} (HTTP 404): check the repository and number, and that the "
            "token can see the repository (GitHub answers 404 rather than 403 for hidden ones)."
        ),
        422: "GitHub rejected the request {where} (HTTP 422 validation failed).",
    }

    def auth_headers(self) -> dict[str, str]:
        return {
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {self._token}",
            "X-GitHub-Api-Version": API_VERSION,
        }


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _lower(items: Any) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in items}


def _decode(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return raw.decode("utf-8", errors="replace")[:500]


def _message(body: Any) -> str:
    """The server's own explanation from an error body.

    GitHub: ``message`` plus any field ``errors``. GitLab: ``message`` as text, as a list, or as a
    mapping of field to problems; or OAuth-style ``error`` and ``error_description``.
    """
    if isinstance(body, str):
        return body.strip()[:300]
    if not isinstance(body, dict):
        return ""
    raw = body.get("message", "")
    if isinstance(raw, dict):
        text = "; ".join(f"{field} {', '.join(map(str, p)) if isinstance(p, list) else p}" for field, p in raw.items())
    elif isinstance(raw, list):
        text = "; ".join(map(str, raw))
    else:
        text = str(raw)
    if not text and body.get("error"):
        text = str(body["error"]) + (f": {body['error_description']}" if body.get("error_description") else "")
    details = []
    for item in body.get("errors", []) or []:
        if isinstance(item, dict):
            details.append(str(item.get("message") or f"{item.get('field', '?')} {item.get('code', 'invalid')}"))
        else:
            details.append(str(item))
    if details:
        text += " (" + "; ".join(details) + ")"
    return text[:500]


def _retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds: either a number of seconds or an HTTP date."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())

"""SASL OAUTHBEARER for kafka-python: a token provider configured the way Kafka's Java client is (KIP-768).

``sasl.oauthbearer.token.endpoint.url`` names the identity provider's token endpoint; the client id, secret and
scope come from the ``OAuthBearerLoginModule`` JAAS line. The provider asks for a token with the OAuth 2
client-credentials grant, sending the id and secret in HTTP Basic auth (URL-encoded first, as the Java client
does), and reuses it until 80 % of its lifetime has passed. A ``file:`` URL names a file holding a token instead.
Each wait on the endpoint (connect, TLS, the answer) is bounded by ``HTTP_TIMEOUT_S`` and by the connection's
deadline (``deadline_at``, set by the wire before it connects): an endpoint that accepts and never answers is
named with the bound it missed.

Before a token is handed to the broker its claims are read (not verified: that is the broker's job) so that
an expired token is reported as such, and so the tool knows its principal: the claim the brokers'
``sasl.oauthbearer.sub.claim.name`` names (``sub`` by default; ``reconciler.kafka.identity``). Messages name
the endpoint and the client id, never the secret or the token.
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from kafka.net.sasl.oauth import AbstractTokenProvider

from reconciler.connection.settings import ConnectionSettings, Secret
from reconciler.kafka import redact

REFRESH_FRACTION = 0.8
HTTP_TIMEOUT_S = 10.0


class OAuthTokenError(Exception):
    """The token could not be obtained, or is unusable (expired, not a JWT); the message is secret-free."""


def claims(token: str) -> dict[str, Any]:
    """The payload of a JWT, without verifying its signature."""
    parts = token.split(".")
    if len(parts) != 3:
        raise OAuthTokenError("the OAuth token is not a JWT (expected three dot-separated parts)")
    payload = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        decoded = json.loads(base64.urlsafe_b64decode(payload))
    except (binascii.Error, ValueError):
        raise OAuthTokenError("the OAuth token's claims are not base64url-encoded JSON") from None
    if not isinstance(decoded, dict):
        raise OAuthTokenError("the OAuth token's claims are not a JSON object")
    return decoded


class ClientCredentialsTokenProvider(AbstractTokenProvider):  # type: ignore[misc]
    """Fetches, caches and checks OAuth access tokens for one connection's settings."""

    def __init__(self, settings: ConnectionSettings, *, clock: Any = time.time) -> None:
        super().__init__()
        self._settings = settings
        self._clock = clock
        self._lock = threading.Lock()
        self._token: str | None = None
        self._refresh_at = 0.0
        self.subject: str | None = None
        self.claims: dict[str, Any] = {}
        self.deadline_at: float | None = None  # time.monotonic() by which a fetch must have been answered
        self.deadline_s: float | None = None  # the bound named when that deadline cuts a fetch short

    @property
    def endpoint(self) -> str:
        return self._settings.oauth_token_endpoint_url or ""

    def token(self) -> str:
        with self._lock:
            now = self._clock()
            if self._token is None or now >= self._refresh_at:
                token = self._fetch()
                redact.redact_library_logs(Secret(token))  # a bearer token is a credential too
                payload = claims(token)
                expires = payload.get("exp")
                issued = payload.get("iat", now)
                if isinstance(expires, (int, float)):
                    if expires <= now:
                        ago = int(now - expires)
                        raise OAuthTokenError(
                            f"the OAuth token from {self._where()} expired {ago}s ago "
                            f"(exp {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(expires))}); check the token "
                            "endpoint's token lifetime and this machine's clock"
                        )
                    lifetime = max(0.0, expires - (issued if isinstance(issued, (int, float)) else now))
                    self._refresh_at = now + REFRESH_FRACTION * min(lifetime, expires - now)
                else:
                    self._refresh_at = now + 300
                sub = payload.get("sub")
                self.subject = str(sub) if sub is not None else None
                self.claims = payload
                self._token = token
            return self._token

    def _where(self) -> str:
        client = self._settings.oauth_client_id
        return f"{_safe_url(self.endpoint)}" + (f" for client {client}" if client else "")

    def _fetch(self) -> str:
        url = self.endpoint
        if url.startswith("file:"):
            path = urllib.parse.urlparse(url).path
            try:
                with open(path, encoding="utf-8") as handle:
                    return handle.read().strip()
            except OSError as exc:
                raise OAuthTokenError(f"cannot read the OAuth token file {path}: {exc.strerror}") from None
        client_id = self._settings.oauth_client_id or ""
        secret = self._settings.oauth_client_secret.reveal() if self._settings.oauth_client_secret else ""
        basic = f"{urllib.parse.quote(client_id, safe='')}:{urllib.parse.quote(secret, safe='')}"
        form = {"grant_type": "client_credentials"}
        if self._settings.oauth_scope:
            form["scope"] = self._settings.oauth_scope
        request = urllib.request.Request(
            url,
            data=urllib.parse.urlencode(form).encode(),
            headers={
                "Authorization": "Basic " + base64.b64encode(basic.encode()).decode(),
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            },
            method="POST",
        )
        timeout = HTTP_TIMEOUT_S
        if self.deadline_at is not None:
            timeout = min(timeout, self.deadline_at - time.monotonic())
            if timeout <= 0:
                raise OAuthTokenError(f"no time was left to ask the OAuth token endpoint {_safe_url(url)} for a token")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                body = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            raise OAuthTokenError(
                f"the OAuth token endpoint {self._where()} refused the request: HTTP {exc.code}"
                f"{_oauth_error(exc)}; check clientId, clientSecret and scope"
            ) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError):
                cut = self.deadline_s is not None and timeout < HTTP_TIMEOUT_S
                waited = self.deadline_s if cut and self.deadline_s is not None else round(timeout, 1)
                raise OAuthTokenError(
                    f"the OAuth token endpoint {_safe_url(url)} did not answer within {waited:g}s (a hung identity "
                    "provider or a black-holed address?)"
                ) from None
            raise OAuthTokenError(f"cannot reach the OAuth token endpoint {_safe_url(url)}: {reason}") from None
        except ValueError:
            raise OAuthTokenError(f"the OAuth token endpoint {self._where()} did not answer with JSON") from None
        token = body.get("access_token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token:
            raise OAuthTokenError(f"the OAuth token endpoint {self._where()} answered without an access_token")
        return token


def _oauth_error(exc: urllib.error.HTTPError) -> str:
    """`` (invalid_client)`` from a standard OAuth error body, else empty."""
    try:
        body = json.loads(exc.read().decode("utf-8"))
    except (ValueError, OSError):
        return ""
    error = body.get("error") if isinstance(body, dict) else None
    return f" ({error})" if isinstance(error, str) and error.replace("_", "").isalnum() else ""


def _safe_url(url: str) -> str:
    """The URL without any user-info or query (which could carry credentials)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))

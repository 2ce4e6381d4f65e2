"""A tiny OpenID Connect token endpoint on 127.0.0.1 for the OAUTHBEARER tests (client-credentials flow).

``POST /token`` takes ``grant_type=client_credentials`` with the client id and secret in HTTP Basic auth (as
Kafka's Java client sends them) or in the form, and answers ``{"access_token": JWT, "token_type": "Bearer",
"expires_in": ...}``. The JWT is RS256-signed with a key generated when the server starts and carries ``iss``,
``aud``, ``sub`` (the client id), ``iat``, ``exp``, ``scope`` and, for a client registered with ``azp``, an
``azp`` claim that differs from ``sub``. ``GET /jwks`` serves the public key as a JWKS, which
is where the broker's validator fetches it. A client registered with ``lifetime_s`` <= 0 is issued a token that
has already expired, to test how an expired token is reported; one registered with ``foreign_key=True`` is
issued a token signed by a key the JWKS does not publish (under the published ``kid``), which the broker refuses.
``issued`` keeps the last token issued to each client, so tests can check it never appears in output.
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

ISSUER_PATH = "/issuer"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _b64url_int(value: int) -> str:
    return _b64url(value.to_bytes((value.bit_length() + 7) // 8, "big"))


@dataclass
class OidcClient:
    client_id: str
    secret: str = field(repr=False)
    lifetime_s: int = 3600
    foreign_key: bool = False
    azp: str | None = None  # an "azp" (authorized party) claim different from "sub"


class OidcServer:
    """Start with ``start()``, stop with ``close()``; ``token_url`` / ``jwks_url`` / ``issuer`` name it."""

    def __init__(self, *, audience: str = "kafka") -> None:
        self.audience = audience
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = secrets.token_hex(4)
        self.foreign_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.issued: dict[str, str] = {}
        self.clients: dict[str, OidcClient] = {}
        self.token_requests = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="oidc-server", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def token_url(self) -> str:
        return f"{self.base_url}/token"

    @property
    def jwks_url(self) -> str:
        return f"{self.base_url}/jwks"

    @property
    def issuer(self) -> str:
        return f"{self.base_url}{ISSUER_PATH}"

    def register(
        self, client_id: str, *, lifetime_s: int = 3600, foreign_key: bool = False, azp: str | None = None
    ) -> OidcClient:
        client = OidcClient(client_id, secrets.token_urlsafe(16), lifetime_s, foreign_key, azp)
        self.clients[client_id] = client
        return client

    def start(self) -> OidcServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def jwks(self) -> dict[str, Any]:
        numbers = self.key.public_key().public_numbers()
        key = {"kty": "RSA", "use": "sig", "alg": "RS256", "kid": self.kid}
        return {"keys": [{**key, "n": _b64url_int(numbers.n), "e": _b64url_int(numbers.e)}]}

    def mint(
        self, subject: str, *, lifetime_s: int, scope: str = "", foreign_key: bool = False, azp: str | None = None
    ) -> str:
        """A signed JWT for ``subject``; a lifetime <= 0 gives one that expired that many seconds ago (min 60).

        ``foreign_key``: signed by a key that is not in the JWKS, under the JWKS's ``kid`` (a forged token).
        """
        now = int(time.time())
        issued_at = now if lifetime_s > 0 else now - 600
        expires = now + lifetime_s if lifetime_s > 0 else now - max(60, -lifetime_s)
        header = {"alg": "RS256", "typ": "JWT", "kid": self.kid}
        claims = {"iss": self.issuer, "aud": self.audience, "sub": subject, "iat": issued_at, "exp": expires}
        if scope:
            claims["scope"] = scope
        if azp:
            claims["azp"] = azp
        signing_input = f"{_b64url(json.dumps(header).encode())}.{_b64url(json.dumps(claims).encode())}"
        key = self.foreign_key if foreign_key else self.key
        signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        return f"{signing_input}.{_b64url(signature)}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def _json(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path == "/jwks":
                    self._json(200, server.jwks())
                else:
                    self._json(404, {"error": "not_found"})

            def do_POST(self) -> None:
                if self.path != "/token":
                    self._json(404, {"error": "not_found"})
                    return
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
                auth = self.headers.get("Authorization", "")
                if auth.startswith("Basic "):
                    decoded = base64.b64decode(auth[6:]).decode()
                    user, _, password = decoded.partition(":")
                    client_id, secret = urllib.parse.unquote(user), urllib.parse.unquote(password)
                server.token_requests += 1
                if form.get("grant_type") != "client_credentials":
                    self._json(400, {"error": "unsupported_grant_type"})
                    return
                client = server.clients.get(client_id)
                if client is None or not secrets.compare_digest(client.secret, secret):
                    self._json(401, {"error": "invalid_client", "error_description": "bad client credentials"})
                    return
                scope = form.get("scope", "")
                token = server.mint(
                    client.client_id,
                    lifetime_s=client.lifetime_s,
                    scope=scope,
                    foreign_key=client.foreign_key,
                    azp=client.azp,
                )
                server.issued[client.client_id] = token
                self._json(200, {"access_token": token, "token_type": "Bearer", "expires_in": client.lifetime_s})

        return Handler

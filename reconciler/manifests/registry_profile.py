"""A ``Cluster`` profile's ``schemaRegistry`` block as a plain value (``RegistryProfile``), and its checks.

``problems`` says, with the path of each in the document, what does not fit together in a block the model already
validated (one URL form, http(s) URLs without credentials, both halves of basic auth, a positive timeout); ``build``
turns it into a ``RegistryProfile``, paths resolved against the manifest's directory and secrets left as
references. ``reconciler.registry_access.settings`` opens a port from it (or from ``SCHEMA_REGISTRY_URL``). It lives
here, beside ``ConnectProfile``, because packages import ``manifests``, never the other way round.
"""

from __future__ import annotations

import dataclasses
import re
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

from reconciler.base.secret import SecretRef
from reconciler.manifests import models

if TYPE_CHECKING:
    from reconciler.manifests import loader

DEFAULT_TIMEOUT_S = 30.0
_DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ms|s|m)")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0}


@dataclasses.dataclass(frozen=True, kw_only=True)
class RegistryProfile:
    """How to reach one Schema Registry. ``password`` and the store passwords are references (``SecretRef``), never
    values; ``source`` says where the settings were written, for every error about them."""

    urls: tuple[str, ...]
    source: str
    username: str | None = None
    password: SecretRef | None = None
    ssl_cafile: Path | None = None
    ssl_certfile: Path | None = None
    ssl_keyfile: Path | None = None
    ssl_key_password: SecretRef | None = None
    ssl_truststore_location: Path | None = None
    ssl_truststore_type: str | None = None
    ssl_truststore_password: SecretRef | None = None
    ssl_keystore_location: Path | None = None
    ssl_keystore_type: str | None = None
    ssl_keystore_password: SecretRef | None = None
    ssl_check_hostname: bool = True
    request_timeout_s: float = DEFAULT_TIMEOUT_S

    def describe(self) -> str:
        """One line for headers and messages: the URLs, the user, the source; never a password."""
        who = f" as {self.username}" if self.username else ""
        return f"{', '.join(self.urls)}{who} (from {self.source})"


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a registry's REST URL (``None``: it can). A URL carrying credentials is refused without
    being quoted back (the message would hold the password)."""
    if "@" in url:
        return "a URL must not carry credentials; give username and passwordFrom in a Cluster profile"
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"URL {url!r} is not http(s)://host[:port][/path]"
    try:
        parts.port  # noqa: B018  (raises on a port out of range)
    except ValueError:
        return f"URL {url!r} has a port out of range"
    if parts.query or parts.fragment:
        return f"URL {url!r} must not carry a query or a fragment"
    return None


def parse_timeout(text: str) -> float:
    """Seconds of a ``timeout`` duration (``500ms``, ``30s``, ``2m``); ``ValueError`` otherwise."""
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"timeout {text!r} is not a duration such as 500ms, 30s or 2m")
    seconds = float(match.group(1)) * _UNIT_S[match.group(2)]
    if seconds <= 0:
        raise ValueError(f"timeout {text!r} must be more than zero")
    return seconds


def problems(spec: models.SchemaRegistrySpec | None) -> list[tuple[tuple[str | int, ...], str]]:
    """What does not fit together in a ``schemaRegistry`` block: one URL form, http(s) URLs, both halves of basic
    auth."""
    if spec is None:
        return []
    at: tuple[str | int, ...] = ("spec", "schemaRegistry")
    problems: list[tuple[tuple[str | int, ...], str]] = []
    if (spec.url is None) == (spec.urls is None):
        problems.append((at, "schemaRegistry needs exactly one of url or urls"))
    urls: list[tuple[tuple[str | int, ...], str]] = [(("url",), spec.url)] if spec.url is not None else []
    urls += [(("urls", i), url) for i, url in enumerate(spec.urls or ())]
    for path, url in urls:
        problem = url_problem(url)
        if problem is not None:
            problems.append(((*at, *path), problem))
    if spec.username is not None and spec.password_from is None:
        problems.append(((*at, "username"), "basic auth needs passwordFrom with username"))
    if spec.password_from is not None and spec.username is None:
        problems.append(((*at, "passwordFrom"), "basic auth needs username with passwordFrom"))
    if spec.timeout is not None:
        try:
            parse_timeout(spec.timeout)
        except ValueError as exc:
            problems.append(((*at, "timeout"), str(exc)))
    return problems


def build(doc: loader.Document, spec: models.SchemaRegistrySpec) -> RegistryProfile:
    """The Schema Registry part of a ``Cluster`` profile (checked by ``problems``), paths resolved against
    the manifest's directory; its ``source`` names the profile and where its document starts (file:line:column;
    the block's own position would make the loader read every position of the file)."""
    from reconciler.manifests import profiles  # it imports this module

    at = ("spec", "schemaRegistry")
    urls = [spec.url] if spec.url is not None else list(spec.urls or ())
    return RegistryProfile(
        urls=tuple(u.strip().rstrip("/") for u in urls),
        source=f"Cluster profile {doc.name!r} ({doc.raw.file}:{doc.raw.line}:{doc.raw.column}) schemaRegistry",
        **profiles.http_endpoint(doc, spec.tls, username=spec.username, password_from=spec.password_from, at=at),
        request_timeout_s=DEFAULT_TIMEOUT_S if spec.timeout is None else parse_timeout(spec.timeout),
    )

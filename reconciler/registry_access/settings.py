"""The Schema Registry a command talks to: a Cluster profile's ``schemaRegistry`` block, or ``SCHEMA_REGISTRY_URL``.

The settings are a ``RegistryProfile`` (``reconciler.manifests.registry_profile``, beside ``ConnectProfile``, so
that dependencies point one way): the block as the manifest wrote it (URLs, TLS files and stores, basic auth user
and password *reference*, the bound of one request) and where it came from (``source``: the profile and its
file:line:column, or the environment variable), built from a validated ``Cluster`` document, or here from the
environment. ``open_registry`` turns it into a ``RegistryPort``: secrets are resolved then, held as ``Secret``
and put into the ``Authorization`` header only; no ``repr``, error or log line carries them (the settings hold the
reference, never the value). TLS is built by ``reconciler.kafka.tls`` from the same settings type the brokers use,
as the Connect cluster's is (``reconciler.connect.settings``), so the registry takes the same trust and key stores.

The profile is chosen as the Connect cluster's is: ``--cluster``, else the only profile unless flags name another
cluster (``explicit``); when that profile names no registry, ``SCHEMA_REGISTRY_URL`` (comma-separated URLs, no
auth) does. The HTTP layer and TLS are imported when a port is opened, not when settings are looked up.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reconciler.base import errors
from reconciler.base.secret import Secret, SecretRef
from reconciler.manifests.registry_profile import RegistryProfile, url_problem

if TYPE_CHECKING:
    import ssl

    from reconciler.manifests.profiles import ClusterProfile
    from reconciler.registry.port import RestRegistryPort

REGISTRY_URL_ENV = "SCHEMA_REGISTRY_URL"  # comma-separated REST URLs, when no Cluster profile names a registry


def from_environment(environ: Mapping[str, str] | None = None) -> RegistryProfile | None:
    """The registry ``SCHEMA_REGISTRY_URL`` names (``None``: unset or empty); a bad URL raises ``ConfigError``
    naming the variable."""
    text = (os.environ if environ is None else environ).get(REGISTRY_URL_ENV, "")
    urls = tuple(u.strip().rstrip("/") for u in text.split(",") if u.strip())
    if not urls:
        return None
    for url in urls:
        problem = url_problem(url)
        if problem is not None:
            raise errors.ConfigError(f"{REGISTRY_URL_ENV}: {problem}")
    return RegistryProfile(urls=urls, source=REGISTRY_URL_ENV)


def settings_for(
    *,
    cluster: str | None,
    profiles: Mapping[str, ClusterProfile],
    explicit: bool,
    environ: Mapping[str, str] | None = None,
) -> RegistryProfile | None:
    """The registry of the profile a command uses (``--cluster``, else the only one unless flags name another
    cluster: ``explicit``), else ``SCHEMA_REGISTRY_URL``; ``None`` when neither names one."""
    chosen = profiles.get(cluster) if cluster else None
    if chosen is None and cluster is None and not explicit and len(profiles) == 1:
        chosen = next(iter(profiles.values()))
    if chosen is not None and chosen.schema_registry is not None:
        return chosen.schema_registry
    return from_environment(environ)


def _secret(ref: SecretRef | None, what: str, environ: Mapping[str, str] | None) -> Secret | None:
    from reconciler.connection import secrets

    return None if ref is None else Secret(secrets.resolve(ref, what=what, environ=environ))


def ssl_context(settings: RegistryProfile, environ: Mapping[str, str] | None = None) -> ssl.SSLContext | None:
    """The TLS context of an ``https`` registry (``None``: the system's trust, no client certificate)."""
    files = (
        settings.ssl_cafile,
        settings.ssl_certfile,
        settings.ssl_truststore_location,
        settings.ssl_keystore_location,
    )
    if not any(files) and settings.ssl_check_hostname:
        return None
    from reconciler.connection.settings import ConnectionSettings
    from reconciler.kafka import tls

    what = f"Schema Registry TLS ({settings.source})"

    def text(path: Path | None) -> str | None:
        return None if path is None else str(path)

    connection = ConnectionSettings(
        bootstrap_servers=("registry:1",),
        security_protocol="SSL",
        ssl_cafile=text(settings.ssl_cafile),
        ssl_certfile=text(settings.ssl_certfile),
        ssl_keyfile=text(settings.ssl_keyfile),
        ssl_key_password=_secret(settings.ssl_key_password, f"{what} key password", environ),
        ssl_check_hostname=settings.ssl_check_hostname,
        ssl_truststore_location=text(settings.ssl_truststore_location),
        ssl_truststore_type=settings.ssl_truststore_type,
        ssl_truststore_password=_secret(settings.ssl_truststore_password, f"{what} truststore password", environ),
        ssl_keystore_location=text(settings.ssl_keystore_location),
        ssl_keystore_type=settings.ssl_keystore_type,
        ssl_keystore_password=_secret(settings.ssl_keystore_password, f"{what} keystore password", environ),
    )
    try:
        return tls.ssl_context(connection)
    except errors.ConfigError as exc:
        raise errors.ConfigError(f"{what}: {exc}") from None


def open_registry(
    settings: RegistryProfile,
    *,
    environ: Mapping[str, str] | None = None,
    request_timeout_s: float | None = None,
) -> RestRegistryPort:
    """A ``RestRegistryPort`` over HTTP(S) to the registry of ``settings``, its secrets resolved now
    (``request_timeout_s``: a bound below the settings' own, e.g. a fleet's per-cluster bound)."""
    from reconciler.registry.port import RestRegistryPort
    from reconciler.registry_access.http import HttpTransport

    if (settings.username is None) != (settings.password is None):
        raise errors.ConfigError(
            f"{settings.source}: the Schema Registry's basic auth needs both username and passwordFrom"
        )
    password = _secret(settings.password, f"Schema Registry password ({settings.source})", environ)
    bound = (
        settings.request_timeout_s if request_timeout_s is None else min(request_timeout_s, settings.request_timeout_s)
    )
    context = ssl_context(settings, environ)
    try:
        transport = HttpTransport(
            settings.urls,
            username=settings.username,
            password=password,
            ssl_context=context,
            request_timeout_s=bound,
        )
    except errors.ConfigError as exc:
        raise errors.ConfigError(f"{settings.source}: {exc}") from None
    return RestRegistryPort(transport)


def port_of(*, cluster: str | None, profiles: Mapping[str, ClusterProfile], explicit: bool) -> RestRegistryPort | None:
    """``open_registry`` on the registry ``settings_for`` finds; ``None`` when none is named."""
    found = settings_for(cluster=cluster, profiles=profiles, explicit=explicit)
    return None if found is None else open_registry(found)

"""The Kafka Connect clients of a Cluster profile: its ``connect`` section's clusters (URLs, TLS, basic auth), secrets
resolved.

TLS is built by ``reconciler.kafka.tls`` from the same settings type the brokers use, so a Connect cluster takes the
same trust and key stores (PEM, PKCS12, JKS). Secrets are resolved here, when the client is made, and held as
``Secret``.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Mapping

from reconciler.base import errors
from reconciler.connect.http import DEFAULT_REQUEST_TIMEOUT_S, ConnectClient
from reconciler.connect.multi import MultiConnectPort
from reconciler.connect.port import RestConnectPort
from reconciler.connection import secrets
from reconciler.connection.settings import ConnectionSettings, Secret
from reconciler.manifests.profiles import ClusterProfile, ConnectProfile
from reconciler.model import connect_clusters as clusters
from reconciler.model.desired import SecretRef

CONNECT_URL_ENV = "KAFKA_CONNECT_URL"  # comma-separated REST URLs, when no Cluster profile names a Connect cluster


def profiles_for(
    *,
    cluster: str | None,
    profiles: Mapping[str, ClusterProfile],
    explicit: bool,
    environ: Mapping[str, str] | None = None,
) -> dict[str, ConnectProfile]:
    """The Connect clusters, by name, of the profile a command uses (``--cluster``, else the only one unless flags
    name another cluster: ``explicit``), else ``KAFKA_CONNECT_URL``'s (the cluster ``default``); empty when neither
    names one."""
    chosen = profiles.get(cluster) if cluster else None
    if chosen is None and cluster is None and not explicit and len(profiles) == 1:
        chosen = next(iter(profiles.values()))
    if chosen is not None and chosen.connect_clusters:
        return dict(chosen.connect_clusters)
    urls = (os.environ if environ is None else environ).get(CONNECT_URL_ENV, "")
    found = tuple(u.strip() for u in urls.split(",") if u.strip())
    return {clusters.DEFAULT: ConnectProfile(urls=found)} if found else {}


def profile_for(
    *,
    cluster: str | None,
    profiles: Mapping[str, ClusterProfile],
    explicit: bool,
    environ: Mapping[str, str] | None = None,
) -> ConnectProfile | None:
    """The only Connect cluster ``profiles_for`` finds (``None``: none, or several)."""
    found = profiles_for(cluster=cluster, profiles=profiles, explicit=explicit, environ=environ)
    return next(iter(found.values())) if len(found) == 1 else None


def _secret(ref: SecretRef | None, what: str, environ: Mapping[str, str] | None) -> Secret | None:
    return None if ref is None else Secret(secrets.resolve(ref, what=what, environ=environ))


def ssl_context(profile: ConnectProfile, environ: Mapping[str, str] | None = None) -> ssl.SSLContext | None:
    """The TLS context of an ``https`` Connect cluster (``None``: the system's trust, no client certificate)."""
    files = (profile.ssl_cafile, profile.ssl_certfile, profile.ssl_truststore_location, profile.ssl_keystore_location)
    if not any(files) and profile.ssl_check_hostname:
        return None
    from reconciler.kafka import tls

    what = "Kafka Connect TLS"
    settings = ConnectionSettings(
        bootstrap_servers=("connect:1",),
        security_protocol="SSL",
        ssl_cafile=None if profile.ssl_cafile is None else str(profile.ssl_cafile),
        ssl_certfile=None if profile.ssl_certfile is None else str(profile.ssl_certfile),
        ssl_keyfile=None if profile.ssl_keyfile is None else str(profile.ssl_keyfile),
        ssl_key_password=_secret(profile.ssl_key_password, f"{what} key password", environ),
        ssl_check_hostname=profile.ssl_check_hostname,
        ssl_truststore_location=None
        if profile.ssl_truststore_location is None
        else str(profile.ssl_truststore_location),
        ssl_truststore_type=profile.ssl_truststore_type,
        ssl_truststore_password=_secret(profile.ssl_truststore_password, f"{what} truststore password", environ),
        ssl_keystore_location=None if profile.ssl_keystore_location is None else str(profile.ssl_keystore_location),
        ssl_keystore_type=profile.ssl_keystore_type,
        ssl_keystore_password=_secret(profile.ssl_keystore_password, f"{what} keystore password", environ),
    )
    return tls.ssl_context(settings)


def port_for(
    profile: ConnectProfile,
    *,
    environ: Mapping[str, str] | None = None,
    request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S,
    cluster: str | None = None,
) -> RestConnectPort:
    """A ``RestConnectPort`` for one Connect cluster (``cluster``: its name when the profile has several)."""
    if (profile.username is None) != (profile.password is None):
        where = "the Connect cluster's" if cluster is None else f"Connect cluster {cluster}:"
        raise errors.ConfigError(f"{where} basic auth needs both username and passwordFrom")
    client = ConnectClient(
        profile.urls,
        username=profile.username,
        password=_secret(profile.password, "Kafka Connect password", environ),
        ssl_context=ssl_context(profile, environ),
        request_timeout_s=request_timeout_s,
    )
    return RestConnectPort(client, cluster=cluster)


def ports_for(
    found: Mapping[str, ConnectProfile],
    *,
    environ: Mapping[str, str] | None = None,
    request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S,
) -> RestConnectPort | MultiConnectPort | None:
    """The port of a profile's Connect clusters: one cluster's ``RestConnectPort``, a ``MultiConnectPort`` over
    several (each keying its connectors ``<cluster>/<name>``), ``None`` for none."""
    if not found:
        return None
    if len(found) == 1:
        return port_for(next(iter(found.values())), environ=environ, request_timeout_s=request_timeout_s)
    return MultiConnectPort(
        {
            name: port_for(p, environ=environ, request_timeout_s=request_timeout_s, cluster=name)
            for name, p in found.items()
        }
    )


def port_of(
    *, cluster: str | None, profiles: Mapping[str, ClusterProfile], explicit: bool
) -> RestConnectPort | MultiConnectPort | None:
    """``ports_for`` the Connect clusters ``profiles_for`` finds; ``None`` when none is named."""
    return ports_for(profiles_for(cluster=cluster, profiles=profiles, explicit=explicit))

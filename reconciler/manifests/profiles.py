"""Connection profiles: the ``Cluster`` kind turned into plain ``ClusterProfile`` values for the connection code.

Relative file paths (TLS files, ``commandConfig``, ``passwordFrom.file``) are resolved against the
directory of the manifest that names them, so a repository can be checked out anywhere. Secrets stay
references (``SecretRef``); nothing here reads an environment variable or a secret file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reconciler.base import errors
from reconciler.manifests import loader, models, registry_profile
from reconciler.model import desired


@dataclasses.dataclass(frozen=True, kw_only=True)
class ConnectProfile:
    """How to reach the cluster's Kafka Connect workers: REST URLs, TLS files and stores, basic auth."""

    urls: tuple[str, ...]
    username: str | None = None
    password: desired.SecretRef | None = None
    ssl_cafile: Path | None = None
    ssl_certfile: Path | None = None
    ssl_keyfile: Path | None = None
    ssl_key_password: desired.SecretRef | None = None
    ssl_truststore_location: Path | None = None
    ssl_truststore_type: str | None = None
    ssl_truststore_password: desired.SecretRef | None = None
    ssl_keystore_location: Path | None = None
    ssl_keystore_type: str | None = None
    ssl_keystore_password: desired.SecretRef | None = None
    ssl_check_hostname: bool = True


@dataclasses.dataclass(frozen=True, kw_only=True)
class ClusterProfile:
    """How to reach one cluster. ``username`` may be a plain string or a secret reference.

    A plain value class (built from a ``Cluster`` document that its model already validated), so that loading
    manifests builds no second validator for it.
    """

    name: str
    bootstrap_servers: list[str] = dataclasses.field(default_factory=list)
    security_protocol: str | None = None  # None: the manifest does not set it (a lower layer decides)
    sasl_mechanism: str | None = None
    username: desired.SecretRef | str | None = None
    password: desired.SecretRef | None = None
    ssl_cafile: Path | None = None
    ssl_certfile: Path | None = None
    ssl_keyfile: Path | None = None
    ssl_key_password: desired.SecretRef | None = None
    ssl_truststore_location: Path | None = None
    ssl_truststore_type: str | None = None
    ssl_truststore_password: desired.SecretRef | None = None
    ssl_keystore_location: Path | None = None
    ssl_keystore_type: str | None = None
    ssl_keystore_password: desired.SecretRef | None = None
    ssl_check_hostname: bool = True
    ssl_principal_mapping_rules: str | None = None
    oauth_token_endpoint_url: str | None = None
    oauth_client_id: str | None = None
    oauth_client_secret: desired.SecretRef | None = None
    oauth_scope: str | None = None
    command_config: Path | None = None
    source: str | None = None
    # The cluster's Kafka Connect clusters by name (the single form's is ``default``); empty: the profile names none.
    connect_clusters: Mapping[str, ConnectProfile] = dataclasses.field(default_factory=dict)
    schema_registry: registry_profile.RegistryProfile | None = None  # the cluster's Schema Registry, if named


def secret_ref(spec: models.SecretRefSpec, doc: loader.Document, path: tuple[str | int, ...]) -> desired.SecretRef:
    """The ``SecretRef`` of a ``{env: ...}`` / ``{file: ...}`` mapping at ``path`` in ``doc``; a file is resolved
    against the directory of the manifest that wrote ``path`` (looked up only for a file: it needs positions)."""
    if spec.env is not None:
        return desired.SecretRef(env=spec.env)
    return desired.SecretRef(file=str(_resolve(str(spec.file), directory_of(doc, path))))


def directory_of(doc: loader.Document, path: tuple[str | int, ...]) -> Path:
    """The directory of the file that wrote ``path`` (an overlay may have replaced the base value)."""
    return Path(doc.raw.position(path)[0]).parent


def _resolve(path: str, directory: Path) -> Path:
    candidate = Path(path).expanduser()
    return candidate if candidate.is_absolute() else directory / candidate


def _problems(spec: models.ClusterSpec, *, bootstrap: list[str]) -> list[tuple[tuple[str | int, ...], str]]:
    """What does not fit together in a ``Cluster`` spec: each problem's path in the document and message."""
    problems: list[tuple[tuple[str | int, ...], str]] = []
    servers = spec.bootstrap_servers
    for index, server in enumerate(bootstrap):
        host, sep, port = server.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            at: tuple[str | int, ...] = ("spec", "bootstrapServers") + (
                (index,) if not isinstance(servers, str) else ()
            )
            problems.append((at, f"bootstrap server {server!r} must be host:port"))
    if not bootstrap and spec.command_config is None:
        problems.append((("spec",), "missing required field 'bootstrapServers'"))
    # Only a protocol the document writes is checked against its mechanism: left out, commandConfig or KAFKA_*
    # may set it, and the connection settings check the merged result.
    protocol = spec.security_protocol
    sasl = protocol is not None and protocol.startswith("SASL_")
    if sasl and spec.command_config is None:
        if spec.sasl_mechanism is None:
            problems.append((("spec", "securityProtocol"), f"{spec.security_protocol} needs saslMechanism"))
        elif spec.sasl_mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512") and (
            spec.username is None or spec.password_from is None
        ):
            problems.append((("spec", "saslMechanism"), f"{spec.sasl_mechanism} needs username and passwordFrom"))
    if sasl and spec.command_config is None and spec.sasl_mechanism == "OAUTHBEARER" and spec.oauth is None:
        problems.append((("spec", "saslMechanism"), "OAUTHBEARER needs oauth.tokenEndpointUrl"))
    if protocol is not None and not sasl and spec.sasl_mechanism is not None:
        problems.append((("spec", "saslMechanism"), f"saslMechanism is set but securityProtocol is {protocol}"))
    return problems + registry_profile.problems(spec.schema_registry)


def build_profile(doc: loader.Document, diags: list[errors.Diagnostic]) -> ClusterProfile | None:
    """Check a ``Cluster`` document's settings fit together and build its profile."""
    spec: models.ClusterSpec = doc.spec
    servers = spec.bootstrap_servers
    bootstrap = (
        [s.strip() for s in servers.split(",") if s.strip()] if isinstance(servers, str) else list(servers or [])
    )
    problems = _problems(spec, bootstrap=bootstrap)
    for path, message in problems:
        diags.append(doc.raw.diagnostic(path, message))
    if problems:
        return None
    username: desired.SecretRef | str | None
    if isinstance(spec.username, models.SecretRefSpec):
        username = secret_ref(spec.username, doc, ("spec", "username", "file"))
    else:
        username = spec.username
    tls, oauth = spec.tls or models.TlsSpec(), spec.oauth

    def path_of(value: str | None, *at: str) -> Path | None:
        return None if value is None else _resolve(value, directory_of(doc, ("spec", *at)))

    def ref_of(value: models.SecretRefSpec | None, *at: str) -> desired.SecretRef | None:
        return None if value is None else secret_ref(value, doc, ("spec", *at, "file"))

    return ClusterProfile(
        ssl_key_password=ref_of(tls.key_password_from, "tls", "keyPasswordFrom"),
        ssl_truststore_location=path_of(tls.truststore, "tls", "truststore"),
        ssl_truststore_type=tls.truststore_type,
        ssl_truststore_password=ref_of(tls.truststore_password_from, "tls", "truststorePasswordFrom"),
        ssl_keystore_location=path_of(tls.keystore, "tls", "keystore"),
        ssl_keystore_type=tls.keystore_type,
        ssl_keystore_password=ref_of(tls.keystore_password_from, "tls", "keystorePasswordFrom"),
        ssl_check_hostname=tls.endpoint_identification,
        ssl_principal_mapping_rules=tls.principal_mapping_rules,
        oauth_token_endpoint_url=None if oauth is None else oauth.token_endpoint_url,
        oauth_client_id=None if oauth is None else oauth.client_id,
        oauth_client_secret=None if oauth is None else ref_of(oauth.client_secret_from, "oauth", "clientSecretFrom"),
        oauth_scope=None if oauth is None else oauth.scope,
        name=doc.name,
        bootstrap_servers=bootstrap,
        security_protocol=spec.security_protocol,
        sasl_mechanism=spec.sasl_mechanism,
        username=username,
        password=ref_of(spec.password_from, "passwordFrom"),
        ssl_cafile=None if tls.ca_file is None else _resolve(tls.ca_file, directory_of(doc, ("spec", "tls", "caFile"))),
        ssl_certfile=None
        if tls.cert_file is None
        else _resolve(tls.cert_file, directory_of(doc, ("spec", "tls", "certFile"))),
        ssl_keyfile=None
        if tls.key_file is None
        else _resolve(tls.key_file, directory_of(doc, ("spec", "tls", "keyFile"))),
        command_config=None
        if spec.command_config is None
        else _resolve(spec.command_config, directory_of(doc, ("spec", "commandConfig"))),
        source=f"{doc.raw.file}:{doc.raw.line}:{doc.raw.column}",
        connect_clusters={} if spec.connect is None else connect_clusters(doc, spec.connect),
        schema_registry=None if spec.schema_registry is None else registry_profile.build(doc, spec.schema_registry),
    )


def connect_clusters(doc: loader.Document, spec: models.ConnectSpec) -> dict[str, ConnectProfile]:
    """The Kafka Connect clusters of a ``Cluster`` profile by name: the single form is the cluster ``default``."""
    from reconciler.model import connect_clusters as clusters

    if not spec.clusters:
        single = models.ConnectClusterSpec(
            urls=spec.urls or [], tls=spec.tls, username=spec.username, password_from=spec.password_from
        )
        return {clusters.DEFAULT: connect_profile(doc, single, ("spec", "connect"))}
    return {
        name: connect_profile(doc, one, ("spec", "connect", "clusters", name)) for name, one in spec.clusters.items()
    }


def connect_profile(
    doc: loader.Document, spec: models.ConnectClusterSpec, at: tuple[str, ...] = ("spec", "connect")
) -> ConnectProfile:
    """One Kafka Connect cluster of a ``Cluster`` profile, paths resolved against the manifest's directory."""
    return ConnectProfile(
        urls=tuple(spec.urls),
        **http_endpoint(doc, spec.tls, username=spec.username, password_from=spec.password_from, at=at),
    )


def http_endpoint(
    doc: loader.Document,
    tls_spec: models.TlsSpec | None,
    *,
    username: str | None,
    password_from: models.SecretRefSpec | None,
    at: tuple[str, ...],
) -> dict[str, Any]:
    """The basic auth and TLS settings of an HTTP service a ``Cluster`` profile names at ``at`` (a Kafka Connect
    cluster, the Schema Registry), as the keyword arguments ``ConnectProfile`` and ``RegistryProfile`` share: paths
    resolved against the manifest's directory, passwords left as references."""
    tls = tls_spec or models.TlsSpec()

    def path_of(value: str | None, *field: str) -> Path | None:
        return None if value is None else _resolve(value, directory_of(doc, (*at, "tls", *field)))

    def ref_of(value: models.SecretRefSpec | None, *field: str) -> desired.SecretRef | None:
        return None if value is None else secret_ref(value, doc, (*at, *field, "file"))

    return {
        "username": username,
        "password": ref_of(password_from, "passwordFrom"),
        "ssl_cafile": path_of(tls.ca_file, "caFile"),
        "ssl_certfile": path_of(tls.cert_file, "certFile"),
        "ssl_keyfile": path_of(tls.key_file, "keyFile"),
        "ssl_key_password": ref_of(tls.key_password_from, "tls", "keyPasswordFrom"),
        "ssl_truststore_location": path_of(tls.truststore, "truststore"),
        "ssl_truststore_type": tls.truststore_type,
        "ssl_truststore_password": ref_of(tls.truststore_password_from, "tls", "truststorePasswordFrom"),
        "ssl_keystore_location": path_of(tls.keystore, "keystore"),
        "ssl_keystore_type": tls.keystore_type,
        "ssl_keystore_password": ref_of(tls.keystore_password_from, "tls", "keystorePasswordFrom"),
        "ssl_check_hostname": tls.endpoint_identification,
    }

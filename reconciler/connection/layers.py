"""Which cluster a command talks to, and with which settings: the one place connection precedence is decided.

Every command and the fleet runner call ``resolve``. Settings are merged field by field, highest precedence
first (a source overrides only the fields it sets):

1. command-line flags (``--bootstrap-server``; in a fleet file, ``bootstrap``),
2. the ``--command-config`` properties file (``commandConfig``),
3. the chosen ``Cluster`` profile's own fields (secret references resolved here, at connection time),
4. the properties file the profile names (its ``commandConfig``),
5. ``KAFKA_*`` environment variables,
6. the defaults of ``ConnectionSettings`` (PLAINTEXT, client id ``kafka-reconciler``, 30 s requests).

The profile is the one ``--cluster`` names; without it, the only profile the manifests declare when no flag,
``--command-config`` or ``KAFKA_BOOTSTRAP_SERVERS`` names a cluster; otherwise none.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reconciler.base import errors
from reconciler.connection import secrets
from reconciler.connection import settings as connection
from reconciler.model import desired

if TYPE_CHECKING:  # the pydantic models are not needed to merge settings
    from reconciler.manifests.profiles import ClusterProfile

_PATH_FIELDS = ("ssl_cafile", "ssl_certfile", "ssl_keyfile", "ssl_truststore_location", "ssl_keystore_location")
_TEXT_FIELDS = (
    "ssl_truststore_type",
    "ssl_keystore_type",
    "ssl_principal_mapping_rules",
    "oauth_token_endpoint_url",
    "oauth_client_id",
    "oauth_scope",
)
_SECRET_REF_FIELDS = ("ssl_key_password", "ssl_truststore_password", "ssl_keystore_password", "oauth_client_secret")


def resolve(
    *,
    bootstrap_server: str | None = None,
    command_config: Path | None = None,
    profile_name: str | None = None,
    profiles: Mapping[str, ClusterProfile] | None = None,
    environ: Mapping[str, str] | None = None,
) -> connection.ConnectionSettings:
    """Connection settings from every source, with the precedence in this module's docstring.

    The settings' ``origin`` names the profile used and why (the plan and apply headers show it). Raises
    ``ConfigError`` for an unknown profile name, a secret that cannot be read, or settings that do not fit.
    """
    env = os.environ if environ is None else environ
    chosen, origin = choose_profile(
        profile_name=profile_name,
        profiles=profiles or {},
        named_elsewhere=bool(bootstrap_server)
        or command_config is not None
        or bool(env.get("KAFKA_BOOTSTRAP_SERVERS")),
    )
    layers: list[Mapping[str, Any]] = [{"bootstrap_servers": bootstrap_server} if bootstrap_server else {}]
    if command_config is not None:
        layers.append(connection.properties_layer(command_config))
    if chosen is not None:
        layer, profile_properties = profile_layer(chosen, environ=env)
        layers.append(layer)
        if profile_properties is not None:
            layers.append(connection.properties_layer(profile_properties))
    layers.append(connection.env_layer(env))
    layers.append({"origin": origin})
    return connection.ConnectionSettings.from_layers(*layers)


def choose_profile(
    *, profile_name: str | None, profiles: Mapping[str, ClusterProfile], named_elsewhere: bool
) -> tuple[ClusterProfile | None, str | None]:
    """The profile to use and the ``origin`` line that says why, or ``(None, None)``.

    ``named_elsewhere``: a flag, ``--command-config`` or ``KAFKA_BOOTSTRAP_SERVERS`` already names a cluster,
    so a lone profile is not picked implicitly.
    """
    if profile_name is not None:
        if profile_name not in profiles:
            known = ", ".join(sorted(profiles)) or "none declared"
            raise errors.ConfigError(f"no Cluster profile named {profile_name!r} in the manifests (known: {known})")
        return profiles[profile_name], f"Cluster profile {profile_name!r} (--cluster)"
    if len(profiles) == 1 and not named_elsewhere:
        only = next(iter(profiles.values()))
        return only, (
            f"Cluster profile {only.name!r}, the only one in the manifests "
            "(no --cluster, --bootstrap-server, --command-config or KAFKA_BOOTSTRAP_SERVERS given)"
        )
    return None, None


def profile_layer(
    profile: ClusterProfile, *, environ: Mapping[str, str] | None = None
) -> tuple[dict[str, Any], Path | None]:
    """A settings layer from a ``Cluster`` profile, and the properties file it names (if any).

    Secret references are resolved here, at connection time; errors name the profile and reference only.
    A field the profile does not set is left out of the layer, so a lower layer (its properties file, then the
    ``KAFKA_*`` environment) decides it: ``securityProtocol`` included, so servers and a trust store from the
    profile combine with ``KAFKA_SECURITY_PROTOCOL`` and ``KAFKA_SASL_*`` from the environment. TLS host-name
    checking is only ever turned off by the profile, never forced on.
    """
    what = f"cluster profile {profile.name!r}"
    layer: dict[str, Any] = {}
    if profile.bootstrap_servers:
        layer["bootstrap_servers"] = tuple(profile.bootstrap_servers)
    if profile.security_protocol is not None:
        layer["security_protocol"] = profile.security_protocol
    layer["sasl_mechanism"] = profile.sasl_mechanism
    if isinstance(profile.username, desired.SecretRef):
        layer["username"] = secrets.resolve(profile.username, what=f"{what}: username", environ=environ)
    else:
        layer["username"] = profile.username
    if profile.password is not None:
        layer["password"] = connection.Secret(
            secrets.resolve(profile.password, what=f"{what}: password", environ=environ)
        )
    for key in _PATH_FIELDS:
        value = getattr(profile, key)
        layer[key] = None if value is None else str(value)
    for key in _TEXT_FIELDS:
        layer[key] = getattr(profile, key)
    if not profile.ssl_check_hostname:
        layer["ssl_check_hostname"] = False
    for key in _SECRET_REF_FIELDS:
        ref = getattr(profile, key)
        if ref is not None:
            label = key.replace("_", " ")
            layer[key] = connection.Secret(secrets.resolve(ref, what=f"{what}: {label}", environ=environ))
    return layer, profile.command_config

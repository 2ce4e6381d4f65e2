"""Connection settings for one Kafka cluster, and the layers they are built from.

``ConnectionSettings`` holds how to reach and authenticate to a cluster; ``from_layers`` merges partial
layers field by field, highest precedence first, a layer overriding only the fields it sets (so a password may
come from the environment while the rest comes from a properties file). This module builds the layers of a
Kafka CLI ``--command-config`` properties file (``properties_layer``) and of ``KAFKA_*`` environment variables
(``env_layer``); the order in which a command stacks them with flags and a ``Cluster`` profile is decided in
one place, ``reconciler.connection.layers``.

Passwords are held in ``Secret``, whose ``repr``/``str`` never show the value, and no error message built here
ever quotes one. The file syntaxes themselves are read by ``reconciler.connection.properties``.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reconciler.base import errors
from reconciler.base.secret import Secret as Secret
from reconciler.connection.properties import parse_jaas, read_properties

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "AWS_MSK_IAM")
PASSWORD_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
OAUTH_MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
MSK_IAM_MODULE = "software.amazon.msk.auth.iam.IAMLoginModule"
SECRET_FIELDS = (
    "password",
    "ssl_key_password",
    "ssl_truststore_password",
    "ssl_keystore_password",
    "oauth_client_secret",
)
DEFAULT_CLIENT_ID = "kafka-reconciler"
DEFAULT_REQUEST_TIMEOUT_MS = 30_000

_JAAS_MODULES = {
    "org.apache.kafka.common.security.plain.PlainLoginModule": ("PLAIN",),
    "org.apache.kafka.common.security.scram.ScramLoginModule": ("SCRAM-SHA-256", "SCRAM-SHA-512"),
    OAUTH_MODULE: ("OAUTHBEARER",),
    MSK_IAM_MODULE: ("AWS_MSK_IAM",),
}

ENV_VARS = {
    "KAFKA_BOOTSTRAP_SERVERS": "bootstrap_servers",
    "KAFKA_SECURITY_PROTOCOL": "security_protocol",
    "KAFKA_SASL_MECHANISM": "sasl_mechanism",
    "KAFKA_SASL_USERNAME": "username",
    "KAFKA_SASL_PASSWORD": "password",
    "KAFKA_SSL_CAFILE": "ssl_cafile",
    "KAFKA_SSL_CERTFILE": "ssl_certfile",
    "KAFKA_SSL_KEYFILE": "ssl_keyfile",
    "KAFKA_SSL_KEY_PASSWORD": "ssl_key_password",
    "KAFKA_SSL_CHECK_HOSTNAME": "ssl_check_hostname",
    "KAFKA_SSL_TRUSTSTORE_LOCATION": "ssl_truststore_location",
    "KAFKA_SSL_TRUSTSTORE_TYPE": "ssl_truststore_type",
    "KAFKA_SSL_TRUSTSTORE_PASSWORD": "ssl_truststore_password",
    "KAFKA_SSL_KEYSTORE_LOCATION": "ssl_keystore_location",
    "KAFKA_SSL_KEYSTORE_TYPE": "ssl_keystore_type",
    "KAFKA_SSL_KEYSTORE_PASSWORD": "ssl_keystore_password",
    "KAFKA_SSL_PRINCIPAL_MAPPING_RULES": "ssl_principal_mapping_rules",
    "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL": "oauth_token_endpoint_url",
    "KAFKA_SASL_OAUTHBEARER_CLIENT_ID": "oauth_client_id",
    "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET": "oauth_client_secret",
    "KAFKA_SASL_OAUTHBEARER_SCOPE": "oauth_scope",
    "KAFKA_CLIENT_ID": "client_id",
    "KAFKA_REQUEST_TIMEOUT_MS": "request_timeout_ms",
}


SECRET_ENV_VARS = frozenset(var for var, field in ENV_VARS.items() if field in ("password", "ssl_key_password"))


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectionSettings:
    """How to reach and authenticate to one cluster. Invalid combinations raise ``ConfigError``."""

    bootstrap_servers: tuple[str, ...]
    security_protocol: str = "PLAINTEXT"
    sasl_mechanism: str | None = None
    username: str | None = None
    password: Secret | None = None
    ssl_cafile: str | None = None
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    ssl_key_password: Secret | None = None
    ssl_check_hostname: bool = True
    ssl_truststore_location: str | None = None
    ssl_truststore_type: str | None = None
    ssl_truststore_password: Secret | None = None
    ssl_keystore_location: str | None = None
    ssl_keystore_type: str | None = None
    ssl_keystore_password: Secret | None = None
    ssl_principal_mapping_rules: str | None = None
    oauth_token_endpoint_url: str | None = None
    oauth_client_id: str | None = None
    oauth_client_secret: Secret | None = None
    oauth_scope: str | None = None
    client_id: str = DEFAULT_CLIENT_ID
    request_timeout_ms: int = DEFAULT_REQUEST_TIMEOUT_MS
    # Where these settings came from when a Cluster profile was involved, e.g. "Cluster profile 'prod'";
    # shown in the plan and apply headers, never used to connect.
    origin: str | None = dataclasses.field(default=None, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.bootstrap_servers, str):
            object.__setattr__(self, "bootstrap_servers", _split_servers(self.bootstrap_servers))
        else:
            object.__setattr__(self, "bootstrap_servers", tuple(self.bootstrap_servers))
        if not self.bootstrap_servers:
            raise errors.ConfigError("no bootstrap servers given (set --bootstrap-server or KAFKA_BOOTSTRAP_SERVERS)")
        for server in self.bootstrap_servers:
            match = re.fullmatch(r"(\[[0-9a-fA-F:.]+\]|[^\s:,\[\]]+)(:(\d{1,5}))?", server)
            if match is None:
                raise errors.ConfigError(f"bootstrap server {server!r} is not of the form host:port")
            if match.group(3) is None:
                # Kafka's own clients refuse an address without a port rather than guess 9092; so does this tool.
                raise errors.ConfigError(f"bootstrap server {server!r} has no port; write it as host:port")
            if not 0 < int(match.group(3)) < 65536:
                raise errors.ConfigError(f"bootstrap server {server!r}: port must be between 1 and 65535")
        if self.security_protocol not in SECURITY_PROTOCOLS:
            raise errors.ConfigError(
                f"security protocol {self.security_protocol!r} is not one of {', '.join(SECURITY_PROTOCOLS)}"
            )
        if self.security_protocol.startswith("SASL_"):
            if self.sasl_mechanism is None:
                raise errors.ConfigError(
                    f"{self.security_protocol} needs a SASL mechanism ({', '.join(SASL_MECHANISMS)})"
                )
            if self.sasl_mechanism in PASSWORD_MECHANISMS and (not self.username or self.password is None):
                raise errors.ConfigError(f"SASL {self.sasl_mechanism} needs a username and a password")
            if self.sasl_mechanism == "OAUTHBEARER":
                self._check_oauth()
            if self.sasl_mechanism == "AWS_MSK_IAM" and self.security_protocol != "SASL_SSL":
                raise errors.ConfigError("SASL AWS_MSK_IAM needs security protocol SASL_SSL")
        if self.sasl_mechanism is not None and self.sasl_mechanism not in SASL_MECHANISMS:
            raise errors.ConfigError(
                f"SASL mechanism {self.sasl_mechanism!r} is not supported (supported: {', '.join(SASL_MECHANISMS)})"
            )
        if self.request_timeout_ms <= 0:
            raise errors.ConfigError(f"request timeout must be positive, got {self.request_timeout_ms} ms")

    def _check_oauth(self) -> None:
        url = self.oauth_token_endpoint_url
        if not url:
            raise errors.ConfigError("SASL OAUTHBEARER needs sasl.oauthbearer.token.endpoint.url")
        if not url.startswith(("https://", "http://", "file:")):
            raise errors.ConfigError("sasl.oauthbearer.token.endpoint.url must be an http(s):// or file: URL")
        if not url.startswith("file:") and (not self.oauth_client_id or self.oauth_client_secret is None):
            raise errors.ConfigError(
                "SASL OAUTHBEARER needs clientId and clientSecret (in sasl.jaas.config, or "
                "KAFKA_SASL_OAUTHBEARER_CLIENT_ID / KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET)"
            )

    def secrets(self) -> tuple[Secret, ...]:
        """Every secret these settings hold (to keep them out of messages and logs)."""
        found = (getattr(self, name) for name in SECRET_FIELDS)
        return tuple(s for s in found if isinstance(s, Secret))

    @property
    def uses_sasl(self) -> bool:
        return self.security_protocol.startswith("SASL_")

    @property
    def uses_ssl(self) -> bool:
        return self.security_protocol in ("SSL", "SASL_SSL")

    def describe(self) -> str:
        """One line for messages: ``host:port (SASL_PLAINTEXT, PLAIN as admin)``; never the password."""
        servers = ",".join(self.bootstrap_servers)
        if self.uses_sasl:
            who = self.username or self.oauth_client_id
            as_who = f" as {who}" if who else ""
            return f"{servers} ({self.security_protocol}, {self.sasl_mechanism}{as_who})"
        return f"{servers} ({self.security_protocol})"

    def target(self) -> str:
        """The plan/apply header's target line: the address and protocol, then the profile they came from."""
        return self.describe() + (f", from {self.origin}" if self.origin else "")

    # ------------------------------------------------------------------------------------- builders
    @classmethod
    def from_layers(cls, *layers: Mapping[str, Any]) -> ConnectionSettings:
        """Build from partial layers, highest precedence FIRST; a layer overrides only the fields it sets."""
        merged: dict[str, Any] = {}
        for layer in reversed(layers):
            merged.update({k: v for k, v in layer.items() if v is not None})
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(merged) - known)
        if unknown:
            raise errors.ConfigError(f"unknown connection setting(s): {', '.join(unknown)}")
        if "bootstrap_servers" not in merged:
            raise errors.ConfigError("no bootstrap servers given (set --bootstrap-server or KAFKA_BOOTSTRAP_SERVERS)")
        for key in SECRET_FIELDS:
            if isinstance(merged.get(key), str):
                merged[key] = Secret(merged[key])
        if "request_timeout_ms" in merged:
            merged["request_timeout_ms"] = _to_int("request timeout", merged["request_timeout_ms"])
        if isinstance(merged.get("ssl_check_hostname"), str):
            merged["ssl_check_hostname"] = _to_bool("ssl_check_hostname", merged["ssl_check_hostname"])
        return cls(**merged)


def env_layer(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The fields set by ``KAFKA_*`` environment variables (empty values count as unset)."""
    env = os.environ if environ is None else environ
    layer: dict[str, Any] = {}
    for var, field in ENV_VARS.items():
        value = env.get(var, "").strip()
        if value:
            layer[field] = value
    if "bootstrap_servers" in layer:
        layer["bootstrap_servers"] = _split_servers(layer["bootstrap_servers"])
    if "request_timeout_ms" in layer:
        layer["request_timeout_ms"] = _to_int("KAFKA_REQUEST_TIMEOUT_MS", layer["request_timeout_ms"])
    if "ssl_check_hostname" in layer:
        layer["ssl_check_hostname"] = _to_bool("KAFKA_SSL_CHECK_HOSTNAME", layer["ssl_check_hostname"])
    for var, field in ENV_VARS.items():
        if field in SECRET_FIELDS and field in layer:
            layer[field] = Secret(env[var])  # as given, not stripped
    return layer


# ---------------------------------------------------------------------------------- properties files
def properties_layer(path: Path) -> dict[str, Any]:
    """The fields set by a Kafka CLI ``--command-config`` properties file."""
    props = read_properties(path)
    layer: dict[str, Any] = {}

    def where(key: str) -> str:
        return f"{path}:{props[key][1]}"

    def get(key: str) -> str | None:
        entry = props.get(key)
        return None if entry is None else entry[0].strip()

    if (servers := get("bootstrap.servers")) is not None:
        layer["bootstrap_servers"] = _split_servers(servers)
    if (protocol := get("security.protocol")) is not None:
        layer["security_protocol"] = protocol.upper()
    if (mechanism := get("sasl.mechanism")) is not None:
        layer["sasl_mechanism"] = mechanism.upper()
    if (client_id := get("client.id")) is not None:
        layer["client_id"] = client_id
    if (timeout := get("request.timeout.ms")) is not None:
        layer["request_timeout_ms"] = _to_int(f"{where('request.timeout.ms')}: request.timeout.ms", timeout)
    if get("ssl.endpoint.identification.algorithm") == "":
        layer["ssl_check_hostname"] = False
    if (rules := get("ssl.principal.mapping.rules")) is not None:
        layer["ssl_principal_mapping_rules"] = rules
    if (token_url := get("sasl.oauthbearer.token.endpoint.url")) is not None:
        layer["oauth_token_endpoint_url"] = token_url
    if "sasl.jaas.config" in props:
        text, line = props["sasl.jaas.config"]
        layer.update(_jaas_fields(text, where=f"{path}:{line}", mechanism=layer.get("sasl_mechanism", "PLAIN")))
    for store in ("truststore", "keystore"):
        if f"ssl.{store}.certificates" in props or f"ssl.{store}.key" in props:
            line = props.get(f"ssl.{store}.certificates", props.get(f"ssl.{store}.key", ("", 0)))[1]
            raise errors.ConfigError(f"{path}:{line}: inline PEM in ssl.{store}.* is not supported; use a file")
        if (location := get(f"ssl.{store}.location")) is not None:
            layer[f"ssl_{store}_location"] = str(_resolve_file(location, base=path.parent))
        if (store_type := get(f"ssl.{store}.type")) is not None:
            if store_type.upper() not in ("PEM", "PKCS12", "JKS"):
                raise errors.ConfigError(
                    f"{where(f'ssl.{store}.type')}: ssl.{store}.type {store_type} is not supported (PEM, PKCS12, JKS)"
                )
            layer[f"ssl_{store}_type"] = store_type.upper()
        if f"ssl.{store}.password" in props:
            layer[f"ssl_{store}_password"] = Secret(props[f"ssl.{store}.password"][0])
    if "ssl.key.password" in props:
        layer["ssl_key_password"] = Secret(props["ssl.key.password"][0])
    return layer


def _jaas_fields(text: str, *, where: str, mechanism: str) -> dict[str, Any]:
    """The settings a ``sasl.jaas.config`` line gives: username and password, or OAuth client credentials."""
    module, options = parse_jaas(text, where=where, supported=tuple(_JAAS_MODULES))
    if mechanism not in _JAAS_MODULES[module]:
        short = module.rsplit(".", 1)[-1]
        raise errors.ConfigError(
            f"{where}: sasl.jaas.config uses {short}, which does not match sasl.mechanism {mechanism}"
        )
    fields: dict[str, Any] = {"sasl_mechanism": mechanism}
    if module == OAUTH_MODULE:
        if "clientId" in options:
            fields["oauth_client_id"] = options["clientId"]
        if "clientSecret" in options:
            fields["oauth_client_secret"] = Secret(options["clientSecret"])
        if "scope" in options:
            fields["oauth_scope"] = options["scope"]
        return fields
    if module == MSK_IAM_MODULE:
        unsupported = sorted(set(options) - {"awsDebugCreds"})
        if unsupported:
            raise errors.ConfigError(
                f"{where}: IAMLoginModule option(s) {', '.join(unsupported)} are not supported; the AWS credentials "
                "and region come from the environment (AWS_PROFILE, AWS_ROLE_ARN, AWS_REGION ...) as in botocore"
            )
        return fields
    if "username" not in options or "password" not in options:
        raise errors.ConfigError(f'{where}: sasl.jaas.config needs both username="..." and password="..."')
    fields["username"] = options["username"]
    fields["password"] = Secret(options["password"])
    return fields


def _resolve_file(location: str, *, base: Path) -> Path:
    candidate = Path(location).expanduser()
    return candidate if candidate.is_absolute() else (base / candidate)


# ------------------------------------------------------------------------------------------ helpers
def _split_servers(text: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in text.split(",") if s.strip())


def _to_int(what: str, value: object) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise errors.ConfigError(f"{what} must be an integer, got {value!r}") from None


def _to_bool(what: str, value: object) -> bool:
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise errors.ConfigError(f"{what} must be true or false, got {value!r}")

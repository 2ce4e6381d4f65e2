"""Connection settings for one Kafka cluster, and where they come from.

Settings are assembled from up to four layers, field by field, highest precedence first:

1. command-line flags (``--bootstrap-server`` ...),
2. a Kafka CLI ``--command-config`` properties file (``bootstrap.servers``, ``security.protocol``,
   ``sasl.mechanism``, ``sasl.jaas.config``, ``ssl.truststore.location`` ...),
3. a named profile (a mapping of the field names below),
4. environment variables (``KAFKA_BOOTSTRAP_SERVERS``, ``KAFKA_SASL_PASSWORD`` ...).

A layer only overrides the fields it sets, so a password may come from the environment while the rest comes
from a properties file. Passwords are held in ``Secret``, whose ``repr``/``str`` never show the value, and no
error message built here ever quotes one. The Java properties syntax and the JAAS option syntax are parsed by
hand: no library in the stack reads them.
"""

from __future__ import annotations

import dataclasses
import hmac
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reconciler import errors

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
DEFAULT_CLIENT_ID = "kafka-reconciler"
DEFAULT_REQUEST_TIMEOUT_MS = 30_000

_JAAS_MODULES = {
    "org.apache.kafka.common.security.plain.PlainLoginModule": ("PLAIN",),
    "org.apache.kafka.common.security.scram.ScramLoginModule": ("SCRAM-SHA-256", "SCRAM-SHA-512"),
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
    "KAFKA_CLIENT_ID": "client_id",
    "KAFKA_REQUEST_TIMEOUT_MS": "request_timeout_ms",
}


class Secret:
    """A secret string whose ``repr``/``str`` are ``Secret(***)``; ``reveal()`` is the only way to read it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The secret value; call this only where it goes onto the wire."""
        return self._value

    def __repr__(self) -> str:
        return "Secret(***)"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        return hmac.compare_digest(self._value.encode(), other._value.encode())

    def __hash__(self) -> int:
        return hash(("Secret", len(self._value)))

    def __copy__(self) -> Secret:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Secret:
        return self

    def __reduce__(self) -> Any:
        raise TypeError("Secret values cannot be pickled")


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
    client_id: str = DEFAULT_CLIENT_ID
    request_timeout_ms: int = DEFAULT_REQUEST_TIMEOUT_MS

    def __post_init__(self) -> None:
        if isinstance(self.bootstrap_servers, str):
            object.__setattr__(self, "bootstrap_servers", _split_servers(self.bootstrap_servers))
        else:
            object.__setattr__(self, "bootstrap_servers", tuple(self.bootstrap_servers))
        if not self.bootstrap_servers:
            raise errors.ConfigError("no bootstrap servers given (set --bootstrap-server or KAFKA_BOOTSTRAP_SERVERS)")
        for server in self.bootstrap_servers:
            if not re.fullmatch(r"(\[[0-9a-fA-F:.]+\]|[^\s:,\[\]]+)(:\d{1,5})?", server):
                raise errors.ConfigError(f"bootstrap server {server!r} is not of the form host:port")
        if self.security_protocol not in SECURITY_PROTOCOLS:
            raise errors.ConfigError(
                f"security protocol {self.security_protocol!r} is not one of {', '.join(SECURITY_PROTOCOLS)}"
            )
        if self.security_protocol.startswith("SASL_"):
            if self.sasl_mechanism is None:
                raise errors.ConfigError(
                    f"{self.security_protocol} needs a SASL mechanism ({', '.join(SASL_MECHANISMS)})"
                )
            if not self.username or self.password is None:
                raise errors.ConfigError(f"SASL {self.sasl_mechanism} needs a username and a password")
        if self.sasl_mechanism is not None and self.sasl_mechanism not in SASL_MECHANISMS:
            raise errors.ConfigError(
                f"SASL mechanism {self.sasl_mechanism!r} is not supported (supported: {', '.join(SASL_MECHANISMS)})"
            )
        if self.request_timeout_ms <= 0:
            raise errors.ConfigError(f"request timeout must be positive, got {self.request_timeout_ms} ms")

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
            return f"{servers} ({self.security_protocol}, {self.sasl_mechanism} as {self.username})"
        return f"{servers} ({self.security_protocol})"

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
        for key in ("password", "ssl_key_password"):
            if isinstance(merged.get(key), str):
                merged[key] = Secret(merged[key])
        if "request_timeout_ms" in merged:
            merged["request_timeout_ms"] = _to_int("request timeout", merged["request_timeout_ms"])
        if isinstance(merged.get("ssl_check_hostname"), str):
            merged["ssl_check_hostname"] = _to_bool("ssl_check_hostname", merged["ssl_check_hostname"])
        return cls(**merged)

    @classmethod
    def from_properties_file(cls, path: Path | str) -> ConnectionSettings:
        """Settings from a Kafka CLI ``--command-config`` file alone."""
        return cls.from_layers(properties_layer(Path(path)))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ConnectionSettings:
        """Settings from ``KAFKA_*`` environment variables alone (see ``ENV_VARS``)."""
        return cls.from_layers(env_layer(environ))


def resolve_settings(
    *,
    cli: Mapping[str, Any] | None = None,
    properties_file: Path | str | None = None,
    profile: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> ConnectionSettings:
    """Merge every source with the documented precedence: CLI flag > properties file > profile > env."""
    layers: list[Mapping[str, Any]] = [cli or {}]
    if properties_file is not None:
        layers.append(properties_layer(Path(properties_file)))
    layers.append(profile or {})
    layers.append(env_layer(environ))
    return ConnectionSettings.from_layers(*layers)


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
    if "password" in layer:
        layer["password"] = Secret(env["KAFKA_SASL_PASSWORD"])
    if "ssl_key_password" in layer:
        layer["ssl_key_password"] = Secret(env["KAFKA_SSL_KEY_PASSWORD"])
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
    if "sasl.jaas.config" in props:
        text, line = props["sasl.jaas.config"]
        module, options = parse_jaas(text, where=f"{path}:{line}")
        mechanism = layer.get("sasl_mechanism", "PLAIN")
        if mechanism not in _JAAS_MODULES[module]:
            raise errors.ConfigError(
                f"{path}:{line}: sasl.jaas.config uses {module.rsplit('.', 1)[-1]}, "
                f"which does not match sasl.mechanism {mechanism}"
            )
        layer["sasl_mechanism"] = mechanism
        if "username" not in options or "password" not in options:
            raise errors.ConfigError(f'{path}:{line}: sasl.jaas.config needs both username="..." and password="..."')
        layer["username"] = options["username"]
        layer["password"] = Secret(options["password"])
    _truststore(props, path, layer)
    _keystore(props, path, layer)
    return layer


def _truststore(props: Mapping[str, tuple[str, int]], path: Path, layer: dict[str, Any]) -> None:
    if "ssl.truststore.certificates" in props:
        line = props["ssl.truststore.certificates"][1]
        raise errors.ConfigError(
            f"{path}:{line}: inline ssl.truststore.certificates is not supported; "
            "put the CA certificates in a PEM file and set ssl.truststore.location"
        )
    if "ssl.truststore.location" not in props:
        return
    location, line = props["ssl.truststore.location"]
    store_type = props.get("ssl.truststore.type", ("", 0))[0].strip().upper()
    resolved = _resolve_file(location.strip(), base=path.parent)
    if store_type not in ("", "PEM") or (store_type == "" and not _looks_like_pem(resolved)):
        raise errors.ConfigError(
            f"{path}:{line}: ssl.truststore.location must be a PEM file: kafka-python cannot read JKS or PKCS12 "
            f"truststores (convert it, e.g. keytool -exportcert -rfc -keystore truststore.jks -alias <alias> "
            f"-file ca.pem, and set ssl.truststore.type=PEM)"
        )
    layer["ssl_cafile"] = str(resolved)


def _keystore(props: Mapping[str, tuple[str, int]], path: Path, layer: dict[str, Any]) -> None:
    if "ssl.keystore.location" not in props:
        return
    location, line = props["ssl.keystore.location"]
    store_type = props.get("ssl.keystore.type", ("", 0))[0].strip().upper()
    resolved = _resolve_file(location.strip(), base=path.parent)
    if store_type not in ("", "PEM") or (store_type == "" and not _looks_like_pem(resolved)):
        raise errors.ConfigError(
            f"{path}:{line}: ssl.keystore.location must be a PEM file holding the client certificate and key: "
            "kafka-python cannot read JKS or PKCS12 keystores (convert with openssl pkcs12 -in keystore.p12 -nodes)"
        )
    layer["ssl_certfile"] = str(resolved)
    if "ssl.key.password" in props:
        layer["ssl_key_password"] = Secret(props["ssl.key.password"][0])


def _resolve_file(location: str, *, base: Path) -> Path:
    candidate = Path(location).expanduser()
    return candidate if candidate.is_absolute() else (base / candidate)


def _looks_like_pem(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(65536)
    except OSError as exc:
        raise errors.ConfigError(f"cannot read {path}: {exc.strerror}") from None
    return b"-----BEGIN " in head


def read_properties(path: Path) -> dict[str, tuple[str, int]]:
    """Parse a Java ``.properties`` file into ``key -> (value, line)`` (the line where the entry starts)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise errors.ConfigError(f"properties file {path} does not exist") from None
    except OSError as exc:
        raise errors.ConfigError(f"cannot read properties file {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise errors.ConfigError(f"properties file {path} is not UTF-8 text") from None
    result: dict[str, tuple[str, int]] = {}
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        start = index + 1
        logical = lines[index].lstrip()
        index += 1
        if not logical or logical[0] in "#!":
            continue
        while _ends_with_continuation(logical) and index < len(lines):
            logical = logical[:-1] + lines[index].lstrip()
            index += 1
        key, value = _split_property(logical)
        result[_unescape(key)] = (_unescape(value), start)
    return result


def _ends_with_continuation(line: str) -> bool:
    trailing = len(line) - len(line.rstrip("\\"))
    return trailing % 2 == 1


def _split_property(line: str) -> tuple[str, str]:
    i = 0
    while i < len(line):
        char = line[i]
        if char == "\\":
            i += 2
            continue
        if char in "=: \t\f":
            key = line[:i]
            rest = line[i:].lstrip(" \t\f")
            if rest[:1] in ("=", ":") and char in " \t\f":
                rest = rest[1:].lstrip(" \t\f")
            elif char in "=:":
                rest = line[i + 1 :].lstrip(" \t\f")
            return key, rest
        i += 1
    return line, ""


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2 : i + 6]):
                out.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


_JAAS_OPTION = re.compile(r'\s*([A-Za-z_][\w.-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s";]+))')


def parse_jaas(text: str, *, where: str) -> tuple[str, dict[str, str]]:
    """Parse ``<LoginModule> required key="value" ...;`` into the module class and its options.

    Messages name ``where`` (``file:line``) and never quote the text, which holds a password.
    """
    body = text.strip()
    match = re.match(r"([\w.$]+)\s+(required|requisite|sufficient|optional)\b", body)
    if match is None:
        raise errors.ConfigError(
            f"{where}: sasl.jaas.config is malformed: expected '<LoginModule class> required key=\"value\" ... ;'"
        )
    module = match.group(1)
    if module not in _JAAS_MODULES:
        short = module.rsplit(".", 1)[-1]
        raise errors.ConfigError(
            f"{where}: sasl.jaas.config login module {short} is not supported "
            "(supported: PlainLoginModule for PLAIN, ScramLoginModule for SCRAM-SHA-256/512)"
        )
    rest = body[match.end() :]
    options: dict[str, str] = {}
    position = 0
    while True:
        option = _JAAS_OPTION.match(rest, position)
        if option is None:
            break
        quoted, bare = option.group(2), option.group(3)
        options[option.group(1)] = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else bare
        position = option.end()
    if rest[position:].strip() != ";":
        raise errors.ConfigError(
            f'{where}: sasl.jaas.config is malformed after the login module: expected key="value" pairs '
            "ending with ';' (check quotes and the final semicolon)"
        )
    return module, options


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

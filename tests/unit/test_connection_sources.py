"""Connection precedence: which profile a command uses, and which source wins each setting.

Flags > --command-config > Cluster profile > the profile's properties file > KAFKA_* environment > defaults;
a source overrides only the fields it sets. Every case below is one row: the sources given, then the settings
(or the error) a user would see.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from reconciler.base import errors
from reconciler.connection import layers as connection_sources
from reconciler.connection.settings import DEFAULT_CLIENT_ID, DEFAULT_REQUEST_TIMEOUT_MS, Secret
from reconciler.manifests import ClusterProfile
from reconciler.model.desired import SecretRef

SASL_JAAS = (
    'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="{u}" password="{p}";\n'
)


@dataclasses.dataclass(frozen=True)
class Sources:
    """What a user gave: flags, files (as text), profiles (name -> fields), the environment."""

    bootstrap_server: str | None = None
    command_config: str | None = None
    profile_name: str | None = None
    profiles: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    profile_properties: str | None = None  # the properties file every profile here names (commandConfig)
    environ: dict[str, str] = dataclasses.field(default_factory=dict)


def resolve(tmp_path: Path, sources: Sources) -> Any:
    command_config = None
    if sources.command_config is not None:
        command_config = tmp_path / "client.properties"
        command_config.write_text(sources.command_config, encoding="utf-8")
    extra: dict[str, Any] = {}
    if sources.profile_properties is not None:
        extra["command_config"] = tmp_path / "profile.properties"
        extra["command_config"].write_text(sources.profile_properties, encoding="utf-8")
    profiles = {name: ClusterProfile(name=name, **fields, **extra) for name, fields in sources.profiles.items()}
    return connection_sources.resolve(
        bootstrap_server=sources.bootstrap_server,
        command_config=command_config,
        profile_name=sources.profile_name,
        profiles=profiles,
        environ=sources.environ,
    )


# --------------------------------------------------------------------------- which source wins a field
PRECEDENCE = [
    pytest.param(
        Sources(environ={"KAFKA_BOOTSTRAP_SERVERS": "env:9092"}),
        {
            "bootstrap_servers": ("env:9092",),
            "security_protocol": "PLAINTEXT",
            "client_id": DEFAULT_CLIENT_ID,
            "request_timeout_ms": DEFAULT_REQUEST_TIMEOUT_MS,
            "ssl_check_hostname": True,
            "origin": None,
        },
        id="defaults-fill-what-nobody-sets",
    ),
    pytest.param(
        Sources(
            bootstrap_server="flag:9092",
            command_config="bootstrap.servers=file:9092\n",
            profile_name="prod",
            profiles={"prod": {"bootstrap_servers": ["profile:9092"]}},
            environ={"KAFKA_BOOTSTRAP_SERVERS": "env:9092"},
        ),
        {"bootstrap_servers": ("flag:9092",)},
        id="flag-beats-file-profile-and-env",
    ),
    pytest.param(
        Sources(bootstrap_server="a:1, b:2"),
        {"bootstrap_servers": ("a:1", "b:2")},
        id="flag-lists-servers-comma-separated",
    ),
    pytest.param(
        Sources(
            command_config="bootstrap.servers=file:9092\nclient.id=from-file\nrequest.timeout.ms=7000\n"
            "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n" + SASL_JAAS.format(u="file-user", p="file-pw"),
            profile_name="prod",
            profiles={
                "prod": {
                    "bootstrap_servers": ["profile:9092"],
                    "security_protocol": "SASL_SSL",
                    "sasl_mechanism": "PLAIN",
                    "username": "profile-user",
                    "password": SecretRef(env="PROFILE_PW"),
                }
            },
            environ={
                "PROFILE_PW": "profile-pw",
                "KAFKA_BOOTSTRAP_SERVERS": "env:9092",
                "KAFKA_CLIENT_ID": "from-env",
                "KAFKA_REQUEST_TIMEOUT_MS": "1000",
            },
        ),
        {
            "bootstrap_servers": ("file:9092",),
            "security_protocol": "SASL_PLAINTEXT",
            "username": "file-user",
            "password": Secret("file-pw"),
            "client_id": "from-file",
            "request_timeout_ms": 7000,
        },
        id="command-config-beats-profile-and-env",
    ),
    pytest.param(
        Sources(
            profiles={
                "prod": {
                    "bootstrap_servers": ["profile:9092"],
                    "security_protocol": "SASL_SSL",
                    "sasl_mechanism": "SCRAM-SHA-512",
                    "username": "profile-user",
                    "password": SecretRef(env="PROFILE_PW"),
                }
            },
            profile_name="prod",
            profile_properties="bootstrap.servers=props:9092\nsecurity.protocol=SSL\nclient.id=from-props\n",
            environ={
                "PROFILE_PW": "profile-pw",
                "KAFKA_SASL_USERNAME": "env-user",
                "KAFKA_SASL_MECHANISM": "PLAIN",
                "KAFKA_CLIENT_ID": "from-env",
                "KAFKA_REQUEST_TIMEOUT_MS": "1000",
            },
        ),
        {
            "bootstrap_servers": ("profile:9092",),
            "security_protocol": "SASL_SSL",  # named in the profile: beats its own file
            "sasl_mechanism": "SCRAM-SHA-512",
            "username": "profile-user",
            "password": Secret("profile-pw"),
            "client_id": "from-props",  # the profile's file beats the environment
            "request_timeout_ms": 1000,  # only the environment sets it
        },
        id="profile-beats-its-properties-file-which-beats-env",
    ),
    pytest.param(
        Sources(
            profiles={"prod": {"bootstrap_servers": ["profile:9092"]}},
            profile_properties="security.protocol=SSL\n",
        ),
        {"security_protocol": "SSL", "bootstrap_servers": ("profile:9092",)},
        id="profile-default-plaintext-leaves-the-protocol-to-its-file",
    ),
    pytest.param(
        Sources(
            profiles={"prod": {"bootstrap_servers": ["profile:9092"]}},
            environ={"KAFKA_SECURITY_PROTOCOL": "SSL"},
        ),
        {"security_protocol": "SSL", "bootstrap_servers": ("profile:9092",)},
        id="profile-without-protocol-leaves-it-to-env",
    ),
    pytest.param(
        Sources(
            profiles={"prod": {"bootstrap_servers": ["profile:9092"], "security_protocol": "PLAINTEXT"}},
            environ={"KAFKA_SECURITY_PROTOCOL": "SSL"},
        ),
        {"security_protocol": "PLAINTEXT"},
        id="profile-stating-plaintext-beats-env",
    ),
    pytest.param(
        Sources(
            profiles={
                "prod": {
                    "bootstrap_servers": ["profile:9092"],
                    "security_protocol": "SASL_PLAINTEXT",
                    "sasl_mechanism": "PLAIN",
                }
            },
            environ={"KAFKA_SASL_USERNAME": "env-user", "KAFKA_SASL_PASSWORD": "env-pw"},
        ),
        {"username": "env-user", "password": Secret("env-pw"), "sasl_mechanism": "PLAIN"},
        id="env-fills-credentials-the-profile-leaves-out",
    ),
    pytest.param(
        Sources(
            profiles={"prod": {"bootstrap_servers": ["profile:9092"], "ssl_check_hostname": False}},
            environ={"KAFKA_SSL_CHECK_HOSTNAME": "true"},
        ),
        {"ssl_check_hostname": False},
        id="profile-turns-host-name-checks-off",
    ),
    pytest.param(
        Sources(
            profiles={"prod": {"bootstrap_servers": ["profile:9092"]}},
            environ={"KAFKA_SSL_CHECK_HOSTNAME": "false"},
        ),
        {"ssl_check_hostname": False},
        id="profile-default-does-not-force-host-name-checks-on",
    ),
    pytest.param(
        Sources(
            profiles={
                "prod": {
                    "bootstrap_servers": ["profile:9092"],
                    "security_protocol": "SSL",
                    "ssl_cafile": Path("/etc/kafka/ca.pem"),
                    "ssl_keystore_location": Path("/etc/kafka/client.p12"),
                    "ssl_keystore_type": "PKCS12",
                    "ssl_keystore_password": SecretRef(env="KS_PW"),
                    "ssl_key_password": SecretRef(env="KEY_PW"),
                }
            },
            environ={"KS_PW": "ks-pw", "KEY_PW": "key-pw", "KAFKA_SSL_CAFILE": "/env/ca.pem"},
        ),
        {
            "ssl_cafile": "/etc/kafka/ca.pem",
            "ssl_keystore_location": "/etc/kafka/client.p12",
            "ssl_keystore_type": "PKCS12",
            "ssl_keystore_password": Secret("ks-pw"),
            "ssl_key_password": Secret("key-pw"),
        },
        id="profile-tls-files-as-text-and-store-secrets-resolved",
    ),
]


@pytest.mark.parametrize(("sources", "expected"), PRECEDENCE)
def test_each_setting_comes_from_the_highest_source_that_sets_it(
    tmp_path: Path, sources: Sources, expected: dict[str, Any]
) -> None:
    settings = resolve(tmp_path, sources)
    assert {key: getattr(settings, key) for key in expected} == expected


def test_a_username_may_be_a_secret_reference(tmp_path: Path) -> None:
    secret_file = tmp_path / "user.txt"
    secret_file.write_text("file-user\n", encoding="utf-8")
    fields = {
        "bootstrap_servers": ["b:1"],
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "PLAIN",
        "username": SecretRef(file=str(secret_file)),
        "password": SecretRef(env="PW"),
    }
    settings = resolve(tmp_path, Sources(profiles={"prod": fields}, environ={"PW": "pw-value"}))
    assert (settings.username, settings.password) == ("file-user", Secret("pw-value"))


# ------------------------------------------------------------------------------ which profile is used
ONLY = (
    "Cluster profile 'prod', the only one in the manifests "
    "(no --cluster, --bootstrap-server, --command-config or KAFKA_BOOTSTRAP_SERVERS given)"
)
CHOICE = [
    pytest.param(
        Sources(profiles={"prod": {"bootstrap_servers": ["prod:9092"]}}), "prod:9092", ONLY, id="the-only-one"
    ),
    pytest.param(
        Sources(
            profile_name="dev",
            profiles={"prod": {"bootstrap_servers": ["prod:9092"]}, "dev": {"bootstrap_servers": ["dev:9092"]}},
        ),
        "dev:9092",
        "Cluster profile 'dev' (--cluster)",
        id="named-by-cluster",
    ),
    pytest.param(
        Sources(
            profile_name="prod",
            bootstrap_server="flag:9092",
            profiles={"prod": {}},
        ),
        "flag:9092",
        "Cluster profile 'prod' (--cluster)",
        id="named-profile-without-servers-takes-the-flag",
    ),
    pytest.param(
        Sources(bootstrap_server="flag:9092", profiles={"prod": {"bootstrap_servers": ["prod:9092"]}}),
        "flag:9092",
        None,
        id="flag-names-another-cluster",
    ),
    pytest.param(
        Sources(
            command_config="bootstrap.servers=file:9092\n", profiles={"prod": {"bootstrap_servers": ["prod:9092"]}}
        ),
        "file:9092",
        None,
        id="command-config-names-another-cluster",
    ),
    pytest.param(
        Sources(
            environ={"KAFKA_BOOTSTRAP_SERVERS": "env:9092"}, profiles={"prod": {"bootstrap_servers": ["prod:9092"]}}
        ),
        "env:9092",
        None,
        id="env-names-another-cluster",
    ),
    pytest.param(
        Sources(
            environ={"KAFKA_BOOTSTRAP_SERVERS": "env:9092"},
            profiles={"prod": {"bootstrap_servers": ["prod:9092"]}, "dev": {"bootstrap_servers": ["dev:9092"]}},
        ),
        "env:9092",
        None,
        id="two-profiles-none-named",
    ),
]


@pytest.mark.parametrize(("sources", "servers", "origin"), CHOICE)
def test_which_profile_is_used_and_the_header_says_why(
    tmp_path: Path, sources: Sources, servers: str, origin: str | None
) -> None:
    settings = resolve(tmp_path, sources)
    assert settings.bootstrap_servers == (servers,)
    assert settings.origin == origin
    assert settings.target() == f"{servers} (PLAINTEXT)" + (f", from {origin}" if origin else "")


# ----------------------------------------------------------------------------------------- errors
ERRORS = [
    pytest.param(
        Sources(profile_name="prod", profiles={"dev": {}, "test": {}}),
        "no Cluster profile named 'prod' in the manifests (known: dev, test)",
        id="unknown-profile-lists-the-known",
    ),
    pytest.param(
        Sources(profile_name="prod", environ={"KAFKA_BOOTSTRAP_SERVERS": "env:9092"}),
        "no Cluster profile named 'prod' in the manifests (known: none declared)",
        id="unknown-profile-none-declared",
    ),
    pytest.param(Sources(), "no bootstrap servers given", id="no-servers-anywhere"),
    pytest.param(
        Sources(profiles={"prod": {"bootstrap_servers": ["b:1"]}, "dev": {"bootstrap_servers": ["b:2"]}}),
        "no bootstrap servers given",
        id="two-profiles-none-named-nothing-else",
    ),
    pytest.param(
        Sources(
            profiles={
                "prod": {
                    "bootstrap_servers": ["b:1"],
                    "security_protocol": "SASL_SSL",
                    "sasl_mechanism": "PLAIN",
                    "username": "u",
                    "password": SecretRef(env="PROD_PW"),
                }
            }
        ),
        "cluster profile 'prod': password reference env:PROD_PW: environment variable PROD_PW is not set",
        id="missing-secret-names-profile-and-reference",
    ),
    pytest.param(
        Sources(
            profiles={
                "prod": {
                    "bootstrap_servers": ["b:1"],
                    "security_protocol": "SSL",
                    "oauth_client_secret": SecretRef(env="S"),
                }
            },
            environ={"S": ""},
        ),
        "cluster profile 'prod': oauth client secret reference env:S: the value is empty",
        id="empty-secret",
    ),
]


@pytest.mark.parametrize(("sources", "message"), ERRORS)
def test_errors_name_the_source_never_a_secret(tmp_path: Path, sources: Sources, message: str) -> None:
    with pytest.raises(errors.ConfigError) as caught:
        resolve(tmp_path, sources)
    assert message in str(caught.value)

"""Connection settings: properties files, environment variables, layers, and passwords that never show.

Which source wins when several set a field: tests/unit/test_connection_sources.py.
"""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

from reconciler.base import errors
from reconciler.connection.properties import parse_jaas, read_properties
from reconciler.connection.settings import ConnectionSettings, Secret, env_layer, properties_layer

PASSWORD = 's3cr3t-Pa55=;"word'
# The same password as written in a properties file: \\ is the properties escape of \, and \" the JAAS one of ".
JAAS_PASSWORD = 's3cr3t-Pa55=;\\\\"word'
PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


def write(tmp_path: Path, text: str, name: str = "client.properties") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def sasl_file(tmp_path: Path, *, module: str = "plain.PlainLoginModule", mechanism: str = "PLAIN") -> Path:
    return write(
        tmp_path,
        "# admin client\n"
        "bootstrap.servers=b1:9092, b2:9093\n"
        "security.protocol=SASL_PLAINTEXT\n"
        f"sasl.mechanism={mechanism}\n"
        f"sasl.jaas.config=org.apache.kafka.common.security.{module} required \\\n"
        f'    username="ops-admin" password="{JAAS_PASSWORD}";\n',
    )


def test_properties_file_with_plain_jaas(tmp_path: Path) -> None:
    settings = ConnectionSettings.from_layers(properties_layer(sasl_file(tmp_path)))
    assert settings.bootstrap_servers == ("b1:9092", "b2:9093")
    assert settings.security_protocol == "SASL_PLAINTEXT"
    assert settings.sasl_mechanism == "PLAIN"
    assert settings.username == "ops-admin"
    assert settings.password is not None and settings.password.reveal() == PASSWORD


def test_properties_file_with_scram_jaas(tmp_path: Path) -> None:
    path = sasl_file(tmp_path, module="scram.ScramLoginModule", mechanism="SCRAM-SHA-512")
    settings = ConnectionSettings.from_layers(properties_layer(path))
    assert settings.sasl_mechanism == "SCRAM-SHA-512"
    assert settings.username == "ops-admin"


def test_password_never_in_repr_or_str(tmp_path: Path) -> None:
    settings = ConnectionSettings.from_layers(properties_layer(sasl_file(tmp_path)))
    for text in (repr(settings), str(settings), settings.describe(), repr(settings.password), str(settings.password)):
        assert PASSWORD not in text
        assert "s3cr3t" not in text
    assert "Secret(***)" in repr(settings)
    assert settings.describe() == "b1:9092,b2:9093 (SASL_PLAINTEXT, PLAIN as ops-admin)"


def test_secret_cannot_be_pickled_but_copies_keep_it() -> None:
    secret = Secret("hunter2")
    with pytest.raises(TypeError):
        pickle.dumps(secret)
    assert copy.deepcopy(secret).reveal() == "hunter2"
    assert f"{secret}" == "Secret(***)"


def test_jaas_module_must_match_mechanism(tmp_path: Path) -> None:
    path = sasl_file(tmp_path, module="plain.PlainLoginModule", mechanism="SCRAM-SHA-256")
    with pytest.raises(errors.ConfigError, match=r"client.properties:5: .*PlainLoginModule.*SCRAM-SHA-256") as info:
        ConnectionSettings.from_layers(properties_layer(path))
    assert "s3cr3t" not in str(info.value)


@pytest.mark.parametrize(
    "jaas",
    [
        'org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="s3cr3t-x"',
        'org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="s3cr3t-x;',
        'org.apache.kafka.common.security.plain.PlainLoginModule username="a" password="s3cr3t-x";',
        'PlainLoginModule required username="a" password="s3cr3t-x";',
    ],
    ids=["no-semicolon", "unclosed-quote", "no-flag", "unknown-module"],
)
def test_malformed_jaas_is_reported_without_the_password(tmp_path: Path, jaas: str) -> None:
    path = write(tmp_path, f"bootstrap.servers=b:9092\nsecurity.protocol=SASL_SSL\nsasl.jaas.config={jaas}\n")
    with pytest.raises(errors.ConfigError, match=r"client.properties:3: sasl.jaas.config") as info:
        ConnectionSettings.from_layers(properties_layer(path))
    assert "s3cr3t" not in str(info.value)


def test_unsupported_login_module_is_named(tmp_path: Path) -> None:
    jaas = "com.sun.security.auth.module.Krb5LoginModule required;"
    path = write(tmp_path, f"bootstrap.servers=b:9092\nsasl.jaas.config={jaas}\n")
    with pytest.raises(errors.ConfigError, match="Krb5LoginModule is not supported"):
        ConnectionSettings.from_layers(properties_layer(path))


def test_jaas_missing_password(tmp_path: Path) -> None:
    jaas = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="a";'
    path = write(tmp_path, f"bootstrap.servers=b:9092\nsasl.jaas.config={jaas}\n")
    with pytest.raises(errors.ConfigError, match=r'needs both username="\.\.\." and password'):
        ConnectionSettings.from_layers(properties_layer(path))


def test_parse_jaas_options_bare_and_quoted() -> None:
    module, options = parse_jaas(
        'org.apache.kafka.common.security.scram.ScramLoginModule required username=bob password="p w" tokenauth=false;',
        where="x:1",
        supported=("org.apache.kafka.common.security.scram.ScramLoginModule",),
    )
    assert module.endswith("ScramLoginModule")
    assert options == {"username": "bob", "password": "p w", "tokenauth": "false"}


SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"{SCRAM_MODULE} required username='KEY' password='SECRET';", {"username": "KEY", "password": "SECRET"}),
        (
            f'{SCRAM_MODULE} required username=\'it\\\'s\' password="a \\"b\\" c";',
            {"username": "it's", "password": 'a "b" c'},
        ),
        (f"{SCRAM_MODULE} REQUIRED username=\"x'y\" password='p\"q';", {"username": "x'y", "password": 'p"q'}),
        (
            f"{SCRAM_MODULE} required /* a comment */ username=u password=p;// trailing",
            {"username": "u", "password": "p"},
        ),
        (f"{SCRAM_MODULE}\trequired\n username = 'u'\n password = 'p' ;  ", {"username": "u", "password": "p"}),
        (
            f"{SCRAM_MODULE} required username='tab\\there' password='\\101';",
            {"username": "tab\there", "password": "A"},
        ),
    ],
    ids=["confluent-single-quotes", "escaped-quotes", "other-quote-inside", "comments", "blanks", "java-escapes"],
)
def test_parse_jaas_follows_kafkas_grammar(text: str, expected: dict[str, str]) -> None:
    """Quoting and comments as Kafka's JaasConfig (java.io.StreamTokenizer) reads them."""
    module, options = parse_jaas(text, where="x:1", supported=(SCRAM_MODULE,))
    assert module == SCRAM_MODULE
    assert options == expected


@pytest.mark.parametrize(
    "text",
    [
        f"{SCRAM_MODULE} required username='u' password='s3cr3t-x';{SCRAM_MODULE} required username='v';",
        f"{SCRAM_MODULE} required username='u' password=;",
        f"{SCRAM_MODULE} required username='u' password/s3cr3t-x;",
        f"{SCRAM_MODULE} always username='u' password='s3cr3t-x';",
    ],
    ids=["two-modules", "empty-value", "slash-starts-a-comment", "unknown-flag"],
)
def test_parse_jaas_refuses_what_kafka_refuses(text: str) -> None:
    with pytest.raises(errors.ConfigError, match=r"x:1: sasl.jaas.config is malformed") as info:
        parse_jaas(text, where="x:1", supported=(SCRAM_MODULE,))
    assert "s3cr3t" not in str(info.value)


def test_single_quoted_confluent_file(tmp_path: Path) -> None:
    """Regression: Confluent Cloud's username='KEY' password='SECRET' kept the quotes in the credentials."""
    path = write(
        tmp_path,
        "bootstrap.servers=pkc-1.confluent.cloud:9092\nsecurity.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule   required "
        "username='ABCDKEY'   password='cflt/s3cr3t+x';\n",
    )
    settings = ConnectionSettings.from_layers(properties_layer(path))
    assert settings.username == "ABCDKEY"
    assert settings.password is not None and settings.password.reveal() == "cflt/s3cr3t+x"


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    missing = r"cannot read properties file .*nope.properties: No such file or directory"
    with pytest.raises(errors.ConfigError, match=missing):
        ConnectionSettings.from_layers(properties_layer(tmp_path / "nope.properties"))


def test_pem_truststore_is_read_from_its_location(tmp_path: Path) -> None:
    write(tmp_path, PEM, name="ca.pem")
    path = write(
        tmp_path,
        "bootstrap.servers=b:9093\nsecurity.protocol=SSL\nssl.truststore.location=ca.pem\nssl.truststore.type=PEM\n"
        "ssl.endpoint.identification.algorithm=\n",
    )
    settings = ConnectionSettings.from_layers(properties_layer(path))
    assert (settings.ssl_truststore_location, settings.ssl_truststore_type) == (str(tmp_path / "ca.pem"), "PEM")
    assert settings.ssl_check_hostname is False


def test_pem_truststore_is_recognised_without_a_type(tmp_path: Path) -> None:
    write(tmp_path, PEM, name="ca.crt")
    path = write(
        tmp_path, f"bootstrap.servers=b:9093\nsecurity.protocol=SSL\nssl.truststore.location={tmp_path}/ca.crt\n"
    )
    assert ConnectionSettings.from_layers(properties_layer(path)).ssl_truststore_location == str(tmp_path / "ca.crt")


def test_pem_keystore_and_key_password(tmp_path: Path) -> None:
    write(tmp_path, PEM + "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n", name="client.pem")
    path = write(
        tmp_path,
        "bootstrap.servers=b:9093\nsecurity.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.location=client.pem\n"
        "ssl.key.password=k3y-s3cr3t\n",
    )
    settings = ConnectionSettings.from_layers(properties_layer(path))
    assert (settings.ssl_keystore_location, settings.ssl_keystore_type) == (str(tmp_path / "client.pem"), "PEM")
    assert settings.ssl_key_password == Secret("k3y-s3cr3t")
    assert "k3y-s3cr3t" not in repr(settings)


def test_properties_syntax_separators_comments_and_escapes(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "! comment\n# another\n  \nbootstrap.servers : b:1\nclient.id  reconciler\\u0021\nkey\\=with\\=equals=v\n"
        "multi=one,\\\n    two\n",
    )
    props = read_properties(path)
    assert props["bootstrap.servers"] == ("b:1", 4)
    assert props["client.id"] == ("reconciler!", 5)
    assert props["key=with=equals"] == ("v", 6)
    assert props["multi"] == ("one,two", 7)


def test_from_env() -> None:
    env = {
        "KAFKA_BOOTSTRAP_SERVERS": "e1:9092,e2:9092",
        "KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
        "KAFKA_SASL_MECHANISM": "SCRAM-SHA-256",
        "KAFKA_SASL_USERNAME": "svc",
        "KAFKA_SASL_PASSWORD": " env-s3cr3t ",
        "KAFKA_REQUEST_TIMEOUT_MS": "5000",
        "KAFKA_SSL_CHECK_HOSTNAME": "false",
    }
    settings = ConnectionSettings.from_layers(env_layer(env))
    assert settings.bootstrap_servers == ("e1:9092", "e2:9092")
    assert settings.sasl_mechanism == "SCRAM-SHA-256"
    assert settings.password is not None and settings.password.reveal() == " env-s3cr3t "
    assert settings.request_timeout_ms == 5000
    assert settings.ssl_check_hostname is False
    assert "env-s3cr3t" not in repr(settings)


def test_unknown_setting_in_a_layer_is_named() -> None:
    with pytest.raises(errors.ConfigError, match=r"unknown connection setting.*sasl_user"):
        ConnectionSettings.from_layers({}, {"bootstrap_servers": "b:1", "sasl_user": "x"}, {})


def test_sasl_without_credentials_is_refused() -> None:
    with pytest.raises(errors.ConfigError, match="SASL PLAIN needs a username and a password"):
        ConnectionSettings(bootstrap_servers=("b:1",), security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bootstrap_servers": ()}, "no bootstrap servers"),
        ({"bootstrap_servers": ("b:1",), "security_protocol": "TLS"}, "security protocol 'TLS'"),
        ({"bootstrap_servers": ("b:1",), "sasl_mechanism": "GSSAPI"}, "SASL mechanism 'GSSAPI' is not supported"),
        ({"bootstrap_servers": ("b :1",)}, "not of the form host:port"),
        ({"bootstrap_servers": ("127.0.0.1",)}, "bootstrap server '127.0.0.1' has no port; write it as host:port"),
        ({"bootstrap_servers": ("b:1", "kafka-2")}, "bootstrap server 'kafka-2' has no port"),
        ({"bootstrap_servers": ("[::1]",)}, r"bootstrap server '\[::1\]' has no port"),
        ({"bootstrap_servers": ("b:0",)}, "port must be between 1 and 65535"),
        ({"bootstrap_servers": ("b:70000",)}, "port must be between 1 and 65535"),
        ({"bootstrap_servers": ("b:1",), "request_timeout_ms": 0}, "request timeout must be positive"),
    ],
)
def test_invalid_settings(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(errors.ConfigError, match=message):
        ConnectionSettings(**kwargs)  # type: ignore[arg-type]


def test_no_bootstrap_anywhere() -> None:
    with pytest.raises(errors.ConfigError, match="no bootstrap servers given"):
        ConnectionSettings.from_layers({}, {}, {})


def test_bad_number_in_env() -> None:
    with pytest.raises(errors.ConfigError, match="KAFKA_REQUEST_TIMEOUT_MS must be an integer"):
        ConnectionSettings.from_layers(
            env_layer({"KAFKA_BOOTSTRAP_SERVERS": "b:1", "KAFKA_REQUEST_TIMEOUT_MS": "soon"})
        )

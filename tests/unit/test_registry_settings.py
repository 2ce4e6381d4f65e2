"""A Cluster profile's ``schemaRegistry`` block and ``SCHEMA_REGISTRY_URL``: parsing, errors at the manifest's line,
the profile ``--cluster`` picks for brokers, Connect and the registry alike, and passwords kept out of every text."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reconciler import manifests
from reconciler.base import errors
from reconciler.connect import settings as connect_settings
from reconciler.connection import layers
from reconciler.manifests.registry_profile import RegistryProfile
from reconciler.registry_access import settings as registry_settings

H = "apiVersion: kafka-reconciler/v1\n"
SECRET_VALUE = "s3cr3t-Registry-pw"


def write(tmp_path: Path, body: str) -> Path:
    (tmp_path / "clusters.yaml").write_text(textwrap.dedent(body), encoding="utf-8")
    return tmp_path / "clusters.yaml"


def load(tmp_path: Path, body: str, env: dict[str, str] | None = None) -> manifests.LoadResult:
    write(tmp_path, body)
    return manifests.load([tmp_path], env=env or {})


def failures(tmp_path: Path, body: str) -> list[tuple[int | None, int | None, str]]:
    write(tmp_path, body)
    with pytest.raises(errors.ValidationFailed) as failed:
        manifests.load([tmp_path], env={})
    return [(d.line, d.column, d.message) for d in failed.value.diagnostics]


PROD = (
    H
    + """\
kind: Cluster
metadata: {name: prod}
spec:
  bootstrapServers: ["kafka-1:9093"]
  connect:
    urls: ["http://connect-1:8083"]
  schemaRegistry:
    url: https://registry:8081/apis/ccompat/v7/
    tls: {caFile: certs/ca.pem, endpointIdentification: false}
    username: svc-registry
    passwordFrom: {env: REGISTRY_PASSWORD}
    timeout: 1500ms
"""
)
DEV = (
    H
    + """\
kind: Cluster
metadata: {name: dev}
spec:
  bootstrapServers: ["dev-kafka:9092"]
  schemaRegistry:
    urls: ["http://dev-registry-1:8081", "http://dev-registry-2:8081"]
"""
)


def test_the_block_becomes_settings_with_paths_and_references_resolved(tmp_path: Path) -> None:
    loaded = load(tmp_path, PROD)
    found = loaded.profiles["prod"].schema_registry
    assert found is not None
    assert found.urls == ("https://registry:8081/apis/ccompat/v7",)
    assert found.username == "svc-registry"
    assert found.password is not None and found.password.env == "REGISTRY_PASSWORD"
    assert found.ssl_cafile == tmp_path / "certs" / "ca.pem"
    assert found.ssl_check_hostname is False
    assert found.request_timeout_s == 1.5
    assert found.source == f"Cluster profile 'prod' ({tmp_path / 'clusters.yaml'}:1:1) schemaRegistry"


def test_several_urls_and_the_default_timeout(tmp_path: Path) -> None:
    found = load(tmp_path, DEV).profiles["dev"].schema_registry
    assert found is not None
    assert found.urls == ("http://dev-registry-1:8081", "http://dev-registry-2:8081")
    assert (found.username, found.password, found.request_timeout_s) == (None, None, 30.0)


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (
            "    url: http://a:8081\n    urls: [http://b:8081]\n",
            [(7, 5, "schemaRegistry needs exactly one of url or urls")],
        ),
        (
            "    username: svc\n    passwordFrom: {env: PW}\n",
            [(7, 5, "schemaRegistry needs exactly one of url or urls")],
        ),
        ("    url: registry:8081\n", [(7, 10, "URL 'registry:8081' is not http(s)://host[:port][/path]")]),
        ("    urls: [http://a:8081, ftp://b]\n", [(7, 27, "URL 'ftp://b' is not http(s)://host[:port][/path]")]),
        ("    url: http://a:99999\n", [(7, 10, "URL 'http://a:99999' has a port out of range")]),
        ("    url: http://a:8081\n    username: svc\n", [(8, 15, "basic auth needs passwordFrom with username")]),
        (
            "    url: http://a:8081\n    passwordFrom: {env: PW}\n",
            [(8, 19, "basic auth needs username with passwordFrom")],
        ),
        ("    url: http://a:8081\n    timeout: 0s\n", [(8, 14, "timeout '0s' must be more than zero")]),
    ],
)
def test_a_block_that_does_not_fit_is_refused_at_its_line(
    tmp_path: Path, block: str, expected: list[tuple[int, int, str]]
) -> None:
    body = H + "kind: Cluster\nmetadata: {name: prod}\nspec:\n  bootstrapServers: [k:9092]\n  schemaRegistry:\n"
    assert failures(tmp_path, body + block) == expected


def test_a_url_with_credentials_is_refused_without_quoting_them(tmp_path: Path) -> None:
    body = H + "kind: Cluster\nmetadata: {name: prod}\nspec:\n  bootstrapServers: [k:9092]\n  schemaRegistry:\n"
    [(line, _, message)] = failures(tmp_path, body + f"    url: https://svc:{SECRET_VALUE}@registry:8081\n")
    assert line == 7 and SECRET_VALUE not in message
    assert message == "a URL must not carry credentials; give username and passwordFrom in a Cluster profile"


def test_a_timeout_that_is_not_a_duration_is_refused_by_the_schema(tmp_path: Path) -> None:
    body = H + "kind: Cluster\nmetadata: {name: prod}\nspec:\n  bootstrapServers: [k:9092]\n  schemaRegistry:\n"
    [(line, column, message)] = failures(tmp_path, body + "    url: http://a:8081\n    timeout: 30\n")
    assert (line, column) == (8, 14) and "timeout" in message


def test_cluster_prod_reaches_brokers_connect_and_the_registry_of_one_profile(tmp_path: Path) -> None:
    loaded = load(tmp_path, PROD + "---\n" + DEV)
    env = {"REGISTRY_PASSWORD": SECRET_VALUE, "SCHEMA_REGISTRY_URL": "http://elsewhere:8081"}
    kafka = layers.resolve(profile_name="prod", profiles=loaded.profiles, environ=env)
    connect = connect_settings.profile_for(cluster="prod", profiles=loaded.profiles, explicit=False, environ=env)
    registry = registry_settings.settings_for(cluster="prod", profiles=loaded.profiles, explicit=False, environ=env)
    assert kafka.bootstrap_servers == ("kafka-1:9093",)
    assert connect is not None and connect.urls == ("http://connect-1:8083",)
    assert registry is not None and registry.urls == ("https://registry:8081/apis/ccompat/v7",)
    dev = registry_settings.settings_for(cluster="dev", profiles=loaded.profiles, explicit=False, environ=env)
    assert dev is not None and dev.urls[0] == "http://dev-registry-1:8081"


def test_the_environment_names_the_registry_when_the_profile_does_not(tmp_path: Path) -> None:
    loaded = load(tmp_path, H + "kind: Cluster\nmetadata: {name: prod}\nspec:\n  bootstrapServers: [k:9092]\n")
    env = {"SCHEMA_REGISTRY_URL": " http://r1:8081/ , http://r2:8081"}
    only = registry_settings.settings_for(cluster=None, profiles=loaded.profiles, explicit=False, environ=env)
    assert only == RegistryProfile(urls=("http://r1:8081", "http://r2:8081"), source="SCHEMA_REGISTRY_URL")
    assert registry_settings.settings_for(cluster=None, profiles={}, explicit=True, environ={}) is None
    # flags naming another cluster: the only profile is not used, nor its registry
    loaded = load(tmp_path, PROD)
    chosen = registry_settings.settings_for(cluster=None, profiles=loaded.profiles, explicit=True, environ=env)
    assert chosen is not None and chosen.source == "SCHEMA_REGISTRY_URL"
    implied = registry_settings.settings_for(cluster=None, profiles=loaded.profiles, explicit=False, environ=env)
    assert implied is not None and implied.username == "svc-registry"


def test_a_bad_environment_url_names_the_variable_and_never_its_credentials() -> None:
    with pytest.raises(errors.ConfigError) as bad:
        registry_settings.from_environment({"SCHEMA_REGISTRY_URL": "registry:8081"})
    assert str(bad.value) == "SCHEMA_REGISTRY_URL: URL 'registry:8081' is not http(s)://host[:port][/path]"
    with pytest.raises(errors.ConfigError) as secret:
        registry_settings.from_environment({"SCHEMA_REGISTRY_URL": f"http://svc:{SECRET_VALUE}@registry:8081"})
    assert str(secret.value).startswith("SCHEMA_REGISTRY_URL: a URL must not carry credentials")
    assert SECRET_VALUE not in str(secret.value)


def test_an_unset_password_variable_names_the_profile_and_the_variable(tmp_path: Path) -> None:
    found = load(tmp_path, PROD.replace("    tls: {caFile: certs/ca.pem, endpointIdentification: false}\n", ""))
    settings = found.profiles["prod"].schema_registry
    assert settings is not None
    with pytest.raises(errors.ConfigError) as unset:
        registry_settings.open_registry(settings, environ={})
    assert str(unset.value) == (
        f"Schema Registry password (Cluster profile 'prod' ({tmp_path / 'clusters.yaml'}:1:1) schemaRegistry) "
        "reference env:REGISTRY_PASSWORD: environment variable REGISTRY_PASSWORD is not set"
    )


def test_a_missing_ca_file_names_the_profile(tmp_path: Path) -> None:
    settings = load(tmp_path, PROD).profiles["prod"].schema_registry
    assert settings is not None
    with pytest.raises(errors.ConfigError) as missing:
        registry_settings.open_registry(settings, environ={"REGISTRY_PASSWORD": SECRET_VALUE})
    text = str(missing.value)
    assert text.startswith("Schema Registry TLS (Cluster profile 'prod' (") and "ca.pem" in text
    assert SECRET_VALUE not in text


def test_the_password_is_in_no_repr_of_settings_port_or_transport(tmp_path: Path) -> None:
    password_file = tmp_path / "registry-password"
    password_file.write_text(SECRET_VALUE + "\n", encoding="utf-8")
    body = PROD.replace("{env: REGISTRY_PASSWORD}", "{file: registry-password}").replace(
        "    tls: {caFile: certs/ca.pem, endpointIdentification: false}\n", ""
    )
    settings = load(tmp_path, body).profiles["prod"].schema_registry
    assert settings is not None
    port = registry_settings.open_registry(settings, environ={})
    shown = " ".join([repr(settings), str(settings), settings.describe(), repr(port), repr(port.transport)])
    assert SECRET_VALUE not in shown
    assert settings.describe() == (
        f"https://registry:8081/apis/ccompat/v7 as svc-registry (from Cluster profile 'prod' "
        f"({tmp_path / 'clusters.yaml'}:1:1) schemaRegistry)"
    )


def test_a_lower_request_bound_wins_over_the_profile_timeout(tmp_path: Path) -> None:
    settings = load(tmp_path, DEV).profiles["dev"].schema_registry
    assert settings is not None
    from reconciler.registry_access.http import HttpTransport

    transport = registry_settings.open_registry(settings, request_timeout_s=4.0).transport
    assert isinstance(transport, HttpTransport) and transport.request_timeout_s == 4.0
    transport = registry_settings.open_registry(settings, request_timeout_s=90.0).transport
    assert isinstance(transport, HttpTransport) and transport.request_timeout_s == 30.0


def test_a_variable_the_registry_block_reads_as_a_secret_cannot_be_substituted(tmp_path: Path) -> None:
    """The variable a ``schemaRegistry.passwordFrom`` names is refused in ``${...}`` like a top-level one."""
    body = PROD + "---\n" + H + "kind: Topic\nmetadata: {name: orders}\nspec:\n  partitions: 1\n"
    body += "  replicationFactor: 1\n  configs:\n    compression.type: ${REGISTRY_PASSWORD}\n"
    write(tmp_path, body)
    with pytest.raises(errors.ValidationFailed) as failed:
        manifests.load([tmp_path], env={"REGISTRY_PASSWORD": SECRET_VALUE})
    [diag] = failed.value.diagnostics
    assert diag.message == (
        "environment variable 'REGISTRY_PASSWORD' holds a secret and cannot be substituted into a manifest"
    )
    assert SECRET_VALUE not in diag.format()

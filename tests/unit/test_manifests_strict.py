"""Strict, wire-sized values and complete error reports: every field fits the type Kafka's protocol gives it,
and validation reports every error of every document at its own position.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reconciler import manifests
from reconciler.base import errors

H = "apiVersion: kafka-reconciler/v1\n"


def _errors(tmp_path: Path, text: str) -> list[tuple[int | None, int | None, str, str | None]]:
    """(line, column, message, hint) of every error of one manifest file, in file order."""
    (tmp_path / "m.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    with pytest.raises(errors.ValidationFailed) as failed:
        manifests.load([tmp_path], env={})
    return [(d.line, d.column, d.message, d.hint) for d in errors.errors_only(failed.value.diagnostics)]


def _messages(tmp_path: Path, text: str) -> list[tuple[int | None, int | None, str]]:
    return [(line, column, message) for line, column, message, _hint in _errors(tmp_path, text)]


TOPIC = H + "kind: Topic\nmetadata: {name: orders}\nspec:\n"

WIRE_RANGES = [
    # (spec lines, line, column, message): the value sits on line 5 or 6 of the file.
    (
        "  partitions: 2147483648\n  replicationFactor: 1\n",
        5,
        15,
        "partitions must be at most 2147483647, got 2147483648",
    ),
    ("  partitions: 0\n  replicationFactor: 1\n", 5, 15, "partitions must be at least 1, got 0"),
    ("  partitions: 1\n  replicationFactor: 32768\n", 6, 22, "replicationFactor must be at most 32767, got 32768"),
    ("  partitions: true\n  replicationFactor: 1\n", 5, 15, "partitions: expected an integer, got a boolean"),
    ('  partitions: "3"\n  replicationFactor: 1\n', 5, 15, "partitions: expected an integer, got the string '3'"),
    ("  partitions: 3.0\n  replicationFactor: 1\n", 5, 15, "partitions: expected an integer, got the number 3.0"),
    (
        "  partitions: 1\n  replicationFactor: 1\n  replicaAssignment: [[2147483648]]\n",
        7,
        24,
        "replicaAssignment must be at most 2147483647, got 2147483648",
    ),
    (
        "  partitions: 1\n  replicationFactor: 1\n  configs: {segment.bytes: 2147483648}\n",
        7,
        28,
        "segment.bytes: 2147483648 is out of range for a Kafka int",
    ),
    (
        "  partitions: 1\n  replicationFactor: 1\n  configs: {retention.ms: 9223372036854775808}\n",
        7,
        27,
        "retention.ms: 9223372036854775808 is out of range for a Kafka long",
    ),
    (
        "  partitions: 1\n  replicationFactor: 1\n  configs: {min.cleanable.dirty.ratio: .nan}\n",
        7,
        40,
        "min.cleanable.dirty.ratio: nan is not a finite number (out of range for a Kafka double)",
    ),
    (
        "  partitions: 1\n  replicationFactor: 1\n  configs: {min.cleanable.dirty.ratio: 1" + "0" * 400 + "}\n",
        7,
        40,
        "min.cleanable.dirty.ratio: a 401-digit number is not a finite number (out of range for a Kafka double)",
    ),
]


@pytest.mark.parametrize(("spec", "line", "column", "message"), WIRE_RANGES)
def test_topic_numbers_fit_their_wire_type_and_are_strictly_typed(
    spec: str, line: int, column: int, message: str, tmp_path: Path
) -> None:
    """Regression: 2147483648 partitions passed validate and plan, then broke the encoder; true was read as 1."""
    assert _messages(tmp_path, TOPIC + spec) == [(line, column, message)]


def test_topic_defaults_are_range_checked_too(tmp_path: Path) -> None:
    text = H + "kind: TopicDefaults\nmetadata: {name: d}\nspec:\n  partitions: 4294967296\n"
    assert _messages(tmp_path, text) == [(5, 15, "partitions must be at most 2147483647, got 4294967296")]


def test_quota_values_broker_ids_and_flags(tmp_path: Path) -> None:
    """Quota values are doubles on the wire, byte rates a long, a connection rate an int; flags only true/false."""
    text = (
        H
        + "kind: ClientQuota\nmetadata: {name: q}\nspec:\n  entity: {user: alice}\n  values:\n"
        + "    producer_byte_rate: 1" + "0" * 400 + "\n"
        + "    consumer_byte_rate: 9.3e18\n"
        + "---\n" + H
        + "kind: ClientQuota\nmetadata: {name: ip}\nspec:\n  entity: {ip: 10.0.0.1}\n"
        + "  values: {connection_creation_rate: 2147483648}\n"
        + "---\n" + H
        + "kind: BrokerConfig\nmetadata: {name: b}\nspec:\n  broker: 99999999999\n  configs: {log.cleaner.threads: 2}\n"
        + "---\n" + H
        + "kind: Producer\nmetadata: {name: p}\nspec:\n  principal: User:p\n  topics: [orders]\n  idempotent: 'yes'\n"
    )  # fmt: skip
    assert _messages(tmp_path, text) == [
        (7, 25, "producer_byte_rate: expected a finite, non-negative number, got a 401-digit number"),
        (8, 25, "consumer_byte_rate: 9.3e+18 is out of range (at most 9223372036854775807, Kafka's long limit)"),
        (15, 38, "connection_creation_rate: 2147483648 is out of range (at most 2147483647, Kafka's int limit)"),
        (21, 11, "broker id 99999999999 is out of range (a broker id is an INT32, at most 2147483647)"),
        (30, 15, "idempotent: expected true or false, got the string 'yes'"),
    ]


ACL = H + "kind: Acl\nmetadata: {name: a}\nspec:\n  bindings:\n"


def test_a_bad_operation_does_not_hide_the_bad_principal_of_its_binding(tmp_path: Path) -> None:
    """Regression: with operation REED, the principal of the same binding was not checked."""
    text = ACL + "    - principal: alice\n      operation: REED\n      resourceType: TOPIC\n      resourceName: t\n"
    found = _errors(tmp_path, text)
    assert [(line, column) for line, column, _m, _h in found] == [(6, 18), (7, 18)]
    assert found[0][2] == "principal 'alice' must look like User:<name> (or User:* for any user)"
    assert found[1][2].startswith("'REED' is not a valid ACL operation; did you mean READ? expected one of ALL, READ")


def test_the_wildcard_with_prefixed_is_reported_at_the_pattern_type(tmp_path: Path) -> None:
    """Regression: this error pointed at the operation line; it also hid behind another binding's error."""
    text = (
        ACL
        + "    - principal: User:a\n      operation: REED\n      resourceType: TOPIC\n      resourceName: t\n"
        + "    - principal: User:b\n      operation: READ\n      resourceType: TOPIC\n"
        + "      resourceName: '*'\n      patternType: PREFIXED\n"
    )
    assert [(line, column, message.split(";")[0]) for line, column, message in _messages(tmp_path, text)] == [
        (7, 18, "'REED' is not a valid ACL operation"),
        (14, 20, "the wildcard '*' is only valid with patternType LITERAL"),
    ]


def test_a_duplicate_key_does_not_hide_the_other_errors_of_its_document(tmp_path: Path) -> None:
    """Regression: the duplicate key was the only error reported for this document."""
    text = (
        H
        + "kind: Topic\nmetadata: {name: 'bad name!'}\nspec:\n  partitions: 3\n  partitions: 4\n"
        + "  replicationFactor: true\n  configs:\n    retention.ms: forever\n  bogus: 1\n"
    )
    assert _messages(tmp_path, text) == [
        (3, 18, "topic name 'bad name!' contains ' ', '!'; only ASCII letters, digits, '.', '_' and '-' are allowed"),
        (6, 3, "duplicate key 'partitions' (first defined at line 5, column 3)"),
        (7, 22, "replicationFactor: expected an integer, got a boolean"),
        (9, 19, "retention.ms: cannot read 'forever' as a duration (e.g. 7d, 12h, 30000)"),
        (10, 3, "unknown field 'bogus'"),
    ]


@pytest.mark.parametrize(
    ("field", "value", "suggestion"),
    [
        ("permission", "ALOW", "ALLOW"),
        ("resourceType", "TOPC", "TOPIC"),
        ("patternType", "PREFIX", "PREFIXED"),
    ],
)
def test_enum_values_get_did_you_mean(field: str, value: str, suggestion: str, tmp_path: Path) -> None:
    binding = {"principal": "User:a", "operation": "READ", "resourceType": "TOPIC", "resourceName": "t", field: value}
    text = ACL + "    - " + "\n      ".join(f"{k}: {v}" for k, v in binding.items()) + "\n"
    [(_line, _column, message, _hint)] = _errors(tmp_path, text)
    assert f"{value!r} is not a valid" in message and f"did you mean {suggestion}?" in message


def test_literal_values_get_did_you_mean(tmp_path: Path) -> None:
    text = H + "kind: TopicDefaults\nmetadata: {name: d}\nspec:\n  scope: directroy\n"
    assert _errors(tmp_path, text) == [
        (5, 10, "scope must be 'named' or 'directory', got the string 'directroy'", "did you mean directory?")
    ]


def test_every_document_reports_its_errors(tmp_path: Path) -> None:
    """Three documents, each with errors of several kinds: all of them are reported, in file order."""
    text = (
        TOPIC + "  partitions: -1\n  replicationFactor: '3'\n"
        + "---\n" + ACL
        + "    - {principal: bob, host: nowhere, operation: WRITE, resourceType: TOPIC, resourceName: t}\n"
        + "---\n" + H + "kind: Consumer\nmetadata: {name: c}\nspec:\n  principal: carol\n  topics: [t]\n  groups: []\n"
    )  # fmt: skip
    assert [(line, column) for line, column, _m in _messages(tmp_path, text)] == [
        (5, 15),
        (6, 22),
        (13, 19),
        (13, 30),
        (19, 14),
        (21, 11),
    ]


# ------------------------------------------------------------------------------------------- variables
def _load(tmp_path: Path, text: str, env: dict[str, str]) -> manifests.LoadResult:
    (tmp_path / "m.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    return manifests.load([tmp_path], env=env)


def test_an_unquoted_variable_is_typed_as_yaml_types_its_value(tmp_path: Path) -> None:
    """Strict integers still take ``partitions: ${PARTITIONS}``; a quoted "${PARTITIONS}" stays a string."""
    text = TOPIC + "  partitions: ${PARTITIONS}\n  replicationFactor: ${RF:-1}\n"
    topic = _load(tmp_path, text, {"PARTITIONS": "12"}).desired.topics["orders"]
    assert (topic.partitions, topic.replication_factor) == (12, 1)
    quoted = TOPIC + '  partitions: "${PARTITIONS}"\n  replicationFactor: 1\n'
    with pytest.raises(errors.ValidationFailed) as failed:
        _load(tmp_path, quoted, {"PARTITIONS": "12"})
    assert [d.message for d in failed.value.diagnostics] == ["partitions: expected an integer, got the string '12'"]


SECRET_VALUE = "s3cr3t-hunter2"


@pytest.mark.parametrize(
    "variable",
    ["KAFKA_SASL_PASSWORD", "KAFKA_SSL_KEY_PASSWORD", "KAFKA_SASL_USERNAME", "GITHUB_TOKEN", "GITLAB_TOKEN",
     "CI_JOB_TOKEN", "OAUTH_CLIENT_SECRET", "KAFKA_OAUTH_CLIENT_SECRET", "DB_PASSWD", "AWS_SECRET_ACCESS_KEY"],
)  # fmt: skip
def test_variables_the_tool_reads_as_secrets_are_refused(variable: str, tmp_path: Path) -> None:
    """Regression: ${KAFKA_SASL_PASSWORD} in a config value put the connection password into the plan."""
    text = TOPIC + "  partitions: 1\n  replicationFactor: 1\n  configs:\n    compression.type: ${" + variable + "}\n"
    (tmp_path / "m.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(errors.ValidationFailed) as failed:
        manifests.load([tmp_path], env={variable: SECRET_VALUE})
    [diag] = failed.value.diagnostics
    assert (diag.line, diag.column) == (8, 23)
    assert diag.message == f"environment variable {variable!r} holds a secret and cannot be substituted into a manifest"
    assert SECRET_VALUE not in diag.format() and SECRET_VALUE not in str(failed.value)


def test_a_variable_a_manifest_names_as_a_secret_is_refused_even_with_a_fallback(tmp_path: Path) -> None:
    """APP_PW does not look like a secret by name, but a ScramUser reads its password from it."""
    text = (
        TOPIC + "  partitions: 1\n  replicationFactor: 1\n  configs:\n    compression.type: '${APP_PW:-gzip}'\n"
        "---\n" + H + "kind: ScramUser\nmetadata: {name: app}\nspec:\n  passwordFrom: {env: APP_PW}\n"
    )
    (tmp_path / "m.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(errors.ValidationFailed) as failed:
        manifests.load([tmp_path], env={"APP_PW": SECRET_VALUE})
    [diag] = failed.value.diagnostics
    assert (diag.line, diag.column, diag.message) == (
        8,
        23,
        "environment variable 'APP_PW' holds a secret and cannot be substituted into a manifest",
    )
    assert diag.hint is not None and "passwordFrom: {env: APP_PW}" in diag.hint
    assert SECRET_VALUE not in diag.format()


def test_ordinary_variables_still_work(tmp_path: Path) -> None:
    text = TOPIC.replace("orders", "'${TEAM}.orders'") + "  partitions: 1\n  replicationFactor: 1\n"
    assert list(_load(tmp_path, text, {"TEAM": "sales", "KAFKA_SASL_PASSWORD": SECRET_VALUE}).desired.topics) == [
        "sales.orders"
    ]


# ---------------------------------------------------------------------------------------- JSON Schema
def test_the_schema_accepts_the_documented_null_overlay(tmp_path: Path) -> None:
    """Regression: the schema refused ``cleanup.policy: null`` ("None is not of type 'string'"), which the docs
    give as the way an overlay removes a config; the tool itself merges it back to the default."""
    import json

    import jsonschema

    from reconciler.manifests import schema

    base = TOPIC + "  partitions: 1\n  replicationFactor: 1\n  configs: {cleanup.policy: compact, retention.ms: 1d}\n"
    overlay = TOPIC + "  configs:\n    cleanup.policy: null\n"
    (tmp_path / "base.yaml").write_text(base, encoding="utf-8")
    (tmp_path / "overlays" / "prod").mkdir(parents=True)
    (tmp_path / "overlays" / "prod" / "topics.yaml").write_text(overlay, encoding="utf-8")
    topic = manifests.load([tmp_path], environment="prod", env={}).desired.topics["orders"]
    assert "cleanup.policy" not in topic.configs and topic.configs["retention.ms"] == "86400000"
    committed = json.loads((Path(schema.__file__).resolve().parents[1] / "schemas" / "Topic.json").read_text())
    validator = jsonschema.Draft202012Validator(committed)
    from ruamel.yaml import YAML

    document = YAML(typ="safe").load(overlay)
    assert [e.message for e in validator.iter_errors(document)] == []
    document["spec"]["partitions"] = 2147483648
    assert len(list(validator.iter_errors(document))) == 1


def test_a_secret_variable_may_fill_a_sensitive_config_value(tmp_path: Path) -> None:
    """Plans show sensitive config values as a redaction marker, so a secret may be substituted there (this is
    what ``import`` writes for a sensitive topic config); the error about the unknown key does not show it."""
    text = TOPIC + "  partitions: 1\n  replicationFactor: 1\n  configs:\n    x.password: ${VAULT_PASSWORD}\n"
    with pytest.raises(errors.ValidationFailed) as failed:
        _load(tmp_path, text, {"VAULT_PASSWORD": SECRET_VALUE})
    assert [d.message for d in failed.value.diagnostics] == ["unknown topic config 'x.password'"]
    assert SECRET_VALUE not in str([d.format() for d in failed.value.diagnostics])

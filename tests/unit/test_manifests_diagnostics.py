"""Bad manifests: each rule gives the exact message at the exact file, line and column, and never a traceback."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reconciler import manifests
from reconciler.base import errors
from reconciler.manifests import yamlio

H = "apiVersion: kafka-reconciler/v1\n"
Expected = tuple[str, int | None, int | None, str, str]  # file, line, column, severity, message


def _diagnostics(tmp_path: Path, files: dict[str, str], **kwargs: object) -> list[errors.Diagnostic]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    try:
        result = manifests.load([tmp_path], env=kwargs.pop("env", {}), **kwargs)  # type: ignore[arg-type]
    except errors.ValidationFailed as exc:
        return exc.diagnostics
    return result.diagnostics


def _short(tmp_path: Path, diags: list[errors.Diagnostic]) -> list[Expected]:
    prefix = str(tmp_path) + "/"
    return [
        ((d.file or "").replace(prefix, ""), d.line, d.column, d.severity.value, d.message.replace(prefix, ""))
        for d in diags
    ]


TOPIC = H + "kind: Topic\nmetadata: {name: %s}\nspec:\n  partitions: 1\n  replicationFactor: 1\n"

CASES: list[tuple[str, dict[str, str], list[Expected]]] = [
    (
        "unknown field",
        {"m.yaml": H + "kind: Topic\nmetadata: {name: a}\nspec:\n  partitions: 1\n  replicationFactr: 1\n"},
        [
            ("m.yaml", 6, 3, "error", "unknown field 'replicationFactr'"),
        ],
    ),
    (
        "unknown topic config",
        {"m.yaml": TOPIC % "a" + "  configs:\n    retention.mss: 7d\n"},
        [("m.yaml", 8, 5, "error", "unknown topic config 'retention.mss'")],
    ),
    (
        "broker config in a topic",
        {"m.yaml": TOPIC % "a" + "  configs:\n    log.retention.ms: 7d\n"},
        [("m.yaml", 8, 5, "error", "unknown topic config 'log.retention.ms'")],
    ),
    (
        "bad duration",
        {"m.yaml": TOPIC % "a" + "  configs:\n    retention.ms: 7x\n"},
        [("m.yaml", 8, 19, "error", "retention.ms: unknown unit 'x' in '7x' (use one of ms, s, m, h, d, w)")],
    ),
    (
        "config out of range",
        {"m.yaml": TOPIC % "a" + "  configs:\n    min.cleanable.dirty.ratio: 1.5\n"},
        [("m.yaml", 8, 32, "error", "min.cleanable.dirty.ratio: 1.5 is above the maximum 1.0")],
    ),
    (
        "config enum",
        {"m.yaml": TOPIC % "a" + "  configs:\n    cleanup.policy: [compact, remove]\n"},
        [("m.yaml", 8, 21, "error", "cleanup.policy: 'remove' is not one of compact, delete")],
    ),
    (
        "config value is a mapping",
        {"m.yaml": TOPIC % "a" + "  configs:\n    retention.ms: {a: 1}\n"},
        [("m.yaml", 8, 19, "error", "retention.ms: expected a single value or a list, got a mapping")],
    ),
    (
        "partitions zero",
        {"m.yaml": H + "kind: Topic\nmetadata: {name: a}\nspec:\n  partitions: 0\n  replicationFactor: 1\n"},
        [("m.yaml", 5, 15, "error", "partitions must be at least 1, got 0")],
    ),
    (
        "partitions not a number",
        {"m.yaml": H + "kind: Topic\nmetadata: {name: a}\nspec:\n  partitions: many\n  replicationFactor: 1\n"},
        [("m.yaml", 5, 15, "error", "partitions: expected an integer, got the string 'many'")],
    ),
    (
        "replication factor zero",
        {"m.yaml": H + "kind: Topic\nmetadata: {name: a}\nspec:\n  partitions: 1\n  replicationFactor: 0\n"},
        [("m.yaml", 6, 22, "error", "replicationFactor must be at least 1, got 0")],
    ),
    (
        "illegal topic name",
        {"m.yaml": TOPIC % "'a b'"},
        [
            (
                "m.yaml",
                3,
                18,
                "error",
                "topic name 'a b' contains ' '; only ASCII letters, digits, '.', '_' and '-' are allowed",
            )
        ],
    ),
    ("topic name '..'", {"m.yaml": TOPIC % "'..'"}, [("m.yaml", 3, 18, "error", "topic name '..' is not allowed")]),
    (
        "topic name too long",
        {"m.yaml": TOPIC % ("t" * 250)},
        [("m.yaml", 3, 18, "error", "topic name is 250 characters long; Kafka allows at most 249")],
    ),
    (
        "min.insync.replicas above replication factor",
        {"m.yaml": TOPIC % "a" + "  configs:\n    min.insync.replicas: 2\n"},
        [("m.yaml", 8, 26, "error", "min.insync.replicas 2 is greater than the replication factor 1")],
    ),
    (
        "names colliding on dot and underscore",
        {"a.yaml": TOPIC % "orders.new", "b.yaml": TOPIC % "orders_new"},
        [
            (
                "b.yaml",
                3,
                18,
                "error",
                "topic 'orders_new' collides with 'orders.new' (declared at a.yaml:1:1): "
                "Kafka treats '.' and '_' alike in metric names",
            )
        ],
    ),
    (
        "same topic in two files",
        {"a.yaml": TOPIC % "orders", "b.yaml": TOPIC % "orders"},
        [("b.yaml", 3, 18, "error", "Topic 'orders' is declared twice (first at a.yaml:1:1)")],
    ),
    (
        "replica assignment shape",
        {
            "m.yaml": H
            + "kind: Topic\nmetadata: {name: a}\nspec:\n  partitions: 2\n  replicationFactor: 2\n"
            + "  replicaAssignment:\n    - [1, 1]\n"
        },
        [
            ("m.yaml", 8, 5, "error", "replicaAssignment lists 1 partitions but partitions is 2"),
            ("m.yaml", 8, 7, "error", "partition 0 needs 2 distinct broker ids, got [1, 1]"),
        ],
    ),
    (
        "missing partitions without defaults",
        {"m.yaml": H + "kind: Topic\nmetadata: {name: a}\nspec:\n  replicationFactor: 1\n"},
        [("m.yaml", 4, 1, "error", "missing required field 'partitions'")],
    ),
    (
        "unknown TopicDefaults",
        {"m.yaml": TOPIC % "a" + "  defaults: standard\n"},
        [("m.yaml", 7, 13, "error", "no TopicDefaults named 'standard'")],
    ),
    (
        "operation not valid for the resource type",
        {
            "m.yaml": H
            + "kind: Acl\nmetadata: {name: x}\nspec:\n  bindings:\n    - principal: User:a\n"
            + "      operation: WRITE\n      resourceType: GROUP\n      resourceName: g\n"
        },
        [
            (
                "m.yaml",
                7,
                18,
                "error",
                "operation WRITE does not apply to GROUP resources; "
                "valid: ALL, ALTER_CONFIGS, DELETE, DESCRIBE, DESCRIBE_CONFIGS, READ",
            )
        ],
    ),
    (
        "one bad operation in a list",
        {
            "m.yaml": H
            + "kind: Acl\nmetadata: {name: x}\nspec:\n  bindings:\n    - principal: User:a\n"
            + "      operations: [WRITE, IDEMPOTENT_WRITE]\n      resourceType: TRANSACTIONAL_ID\n"
            + "      resourceName: tx\n"
        },
        [
            (
                "m.yaml",
                7,
                27,
                "error",
                "operation IDEMPOTENT_WRITE does not apply to TRANSACTIONAL_ID resources; valid: ALL, DESCRIBE, WRITE",
            )
        ],
    ),
    (
        "unknown operation",
        {
            "m.yaml": H
            + "kind: Acl\nmetadata: {name: x}\nspec:\n  bindings:\n    - principal: User:a\n"
            + "      operation: reed\n      resourceType: TOPIC\n      resourceName: t\n"
        },
        [
            (
                "m.yaml",
                7,
                18,
                "error",
                "'reed' is not a valid ACL operation; did you mean READ? "
                "expected one of ALL, READ, WRITE, CREATE, DELETE, ALTER, "
                "DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE, CREATE_TOKENS, "
                "DESCRIBE_TOKENS",
            )
        ],
    ),
    (
        "principal without type",
        {
            "m.yaml": H
            + "kind: Acl\nmetadata: {name: x}\nspec:\n  bindings:\n    - principal: alice\n"
            + "      operation: READ\n      resourceType: TOPIC\n      resourceName: t\n"
        },
        [("m.yaml", 6, 18, "error", "principal 'alice' must look like User:<name> (or User:* for any user)")],
    ),
    (
        "host is not an address",
        {
            "m.yaml": H
            + "kind: Acl\nmetadata: {name: x}\nspec:\n  bindings:\n    - principal: User:a\n      host: example.com\n"
            + "      operation: READ\n      resourceType: TOPIC\n      resourceName: t\n"
        },
        [("m.yaml", 7, 13, "error", "host 'example.com' must be '*' or an IP address")],
    ),
    (
        "operation and operations both given",
        {
            "m.yaml": H
            + "kind: Acl\nmetadata: {name: x}\nspec:\n  bindings:\n    - principal: User:a\n"
            + "      operation: READ\n      operations: [READ]\n      resourceType: TOPIC\n      resourceName: t\n"
        },
        [("m.yaml", 6, 7, "error", "give exactly one of operation or operations")],
    ),
    (
        "quota key not valid for ip entities",
        {
            "m.yaml": H
            + "kind: ClientQuota\nmetadata: {name: q}\nspec:\n  entity: {ip: 10.0.0.1}\n"
            + "  values: {producer_byte_rate: 1}\n"
        },
        [
            (
                "m.yaml",
                6,
                12,
                "error",
                "quota producer_byte_rate does not apply to ip entities; valid: connection_creation_rate",
            )
        ],
    ),
    (
        "unknown quota key",
        {
            "m.yaml": H
            + "kind: ClientQuota\nmetadata: {name: q}\nspec:\n  entity: {user: alice}\n"
            + "  values: {producer_rate: 1}\n"
        },
        [("m.yaml", 6, 12, "error", "unknown quota key 'producer_rate'; did you mean producer_byte_rate?")],
    ),
    (
        "ip combined with user",
        {
            "m.yaml": H
            + "kind: ClientQuota\nmetadata: {name: q}\nspec:\n  entity: {ip: 10.0.0.1, user: a}\n"
            + "  values: {connection_creation_rate: 1}\n"
        },
        [("m.yaml", 5, 11, "error", "ip quotas cannot be combined with user or clientId")],
    ),
    (
        "inline SCRAM password",
        {
            "m.yaml": H
            + "kind: ScramUser\nmetadata: {name: u}\nspec:\n  password: hunter2\n"
            + "  passwordFrom: {env: U_PASSWORD}\n"
        },
        [("m.yaml", 5, 3, "error", "inline passwords are not allowed in manifests")],
    ),
    (
        "SCRAM iterations below Kafka's minimum",
        {
            "m.yaml": H
            + "kind: ScramUser\nmetadata: {name: u}\nspec:\n  iterations: 1000\n  passwordFrom: {env: U_PASSWORD}\n"
        },
        [("m.yaml", 5, 15, "error", "iterations must be at least 4096, got 1000")],
    ),
    (
        "secret reference with both env and file",
        {
            "m.yaml": H
            + "kind: ScramUser\nmetadata: {name: u}\nspec:\n  passwordFrom: {env: U_PASSWORD, file: pw.txt}\n"
        },
        [("m.yaml", 5, 17, "error", "give exactly one of env or file")],
    ),
    (
        "read-only broker config",
        {
            "m.yaml": H
            + "kind: BrokerConfig\nmetadata: {name: b}\nspec:\n  configs:\n    auto.create.topics.enable: false\n"
        },
        [("m.yaml", 6, 5, "error", "auto.create.topics.enable is read-only: it can only be set in server.properties")],
    ),
    (
        "per-broker config as cluster default",
        {
            "m.yaml": H
            + "kind: BrokerConfig\nmetadata: {name: b}\nspec:\n  configs:\n    listeners: PLAINTEXT://:9092\n"
        },
        [("m.yaml", 6, 5, "error", "listeners can only be set for one broker id, not as the cluster default")],
    ),
    (
        "unknown broker config is refused (the broker would hide its value)",
        {
            "m.yaml": H
            + "kind: BrokerConfig\nmetadata: {name: b}\nspec:\n  broker: 1\n  configs:\n    retention.ms: 1d\n"
        },
        [
            (
                "m.yaml",
                7,
                5,
                "error",
                "'retention.ms' is not a dynamic broker config Kafka knows; the broker would store it as a secret "
                "and never show its value, so it cannot be managed from manifests",
            )
        ],
    ),
    (
        "bad broker id",
        {
            "m.yaml": H
            + "kind: BrokerConfig\nmetadata: {name: b}\nspec:\n  broker: all\n  configs: {num.io.threads: 8}\n"
        },
        [("m.yaml", 5, 11, "error", "broker must be 'default' (the cluster-wide default) or a numeric broker id")],
    ),
    (
        "unknown group config with a did-you-mean, and a value out of Kafka's range",
        {
            "m.yaml": H
            + "kind: GroupConfig\nmetadata: {name: orders}\nspec:\n  configs:\n"
            + "    consumer.sesion.timeout.ms: 50s\n    share.delivery.count.limit: 50\n"
        },
        [
            ("m.yaml", 6, 5, "error", "'consumer.sesion.timeout.ms' is not a group config Kafka knows"),
            ("m.yaml", 7, 33, "error", "share.delivery.count.limit: 50 is above the maximum 10"),
        ],
    ),
    (
        "a share-group reset strategy Kafka's validator refuses (case matters for earliest/latest)",
        {
            "m.yaml": H
            + "kind: GroupConfig\nmetadata: {name: orders}\nspec:\n  configs:\n"
            + "    share.auto.offset.reset: EARLIEST\n"
        },
        [
            (
                "m.yaml",
                6,
                30,
                "error",
                "share.auto.offset.reset: 'EARLIEST' is not latest, earliest or by_duration:<ISO-8601>",
            ),
        ],
    ),
    (
        "client-metrics subscription: interval below Kafka's minimum, unknown selector, comma in a pattern",
        {
            "m.yaml": H
            + "kind: ClientMetrics\nmetadata: {name: p}\nspec:\n  metrics: [org.apache.kafka.producer.]\n"
            + "  intervalMs: 10\n  match:\n    client_idd: x\n    client_id: 'a,b'\n"
        },
        [
            ("m.yaml", 6, 15, "error", "interval.ms: 10 (10ms) is below the minimum 100"),
            ("m.yaml", 8, 5, "error", "'client_idd' is not a client-metrics selector"),
            (
                "m.yaml",
                9,
                16,
                "error",
                "the pattern 'a,b' has a comma, which Kafka reads as the start of the next selector",
            ),
        ],
    ),
    (
        "cluster profile",
        {
            "m.yaml": H
            + "kind: Cluster\nmetadata: {name: c}\nspec:\n  bootstrapServers: [localhost]\n"
            + "  securityProtocol: SASL_SSL\n"
        },
        [
            ("m.yaml", 5, 22, "error", "bootstrap server 'localhost' must be host:port"),
            ("m.yaml", 6, 21, "error", "SASL_SSL needs saslMechanism"),
        ],
    ),
    (
        "unknown kind",
        {"m.yaml": H + "kind: Topik\nmetadata: {name: a}\nspec: {}\n"},
        [("m.yaml", 2, 7, "error", "unknown kind 'Topik'")],
    ),
    (
        "wrong apiVersion",
        {"m.yaml": "apiVersion: v2\nkind: Topic\nmetadata: {name: a}\nspec: {}\n"},
        [("m.yaml", 1, 13, "error", "unsupported apiVersion 'v2'")],
    ),
    (
        "missing name",
        {"m.yaml": H + "kind: Topic\nmetadata: {labels: {a: b}}\nspec: {}\n"},
        [("m.yaml", 3, 11, "error", "missing metadata.name")],
    ),
    (
        "missing spec",
        {"m.yaml": H + "kind: Topic\nmetadata: {name: a}\n"},
        [("m.yaml", 1, 1, "error", "missing required field 'spec'")],
    ),
    (
        "document that is not a mapping",
        {"m.yaml": "- a\n- b\n"},
        [("m.yaml", 1, 1, "error", "a manifest must be a mapping of apiVersion, kind, metadata, spec; got a list")],
    ),
    (
        "YAML syntax error",
        {"m.yaml": H + "kind: Topic\nmetadata: {name: a\nspec: x\n"},
        [("m.yaml", 4, 5, "error", "YAML syntax error: did not find expected ',' or '}'")],
    ),
    (
        "duplicate key",
        {"m.yaml": H + "kind: Topic\nmetadata: {name: a}\nspec:\n  partitions: 1\n  partitions: 2\n"},
        [
            ("m.yaml", 4, 1, "error", "missing required field 'replicationFactor'"),
            ("m.yaml", 6, 3, "error", "duplicate key 'partitions' (first defined at line 5, column 3)"),
        ],
    ),
    (
        "unset variable",
        {"m.yaml": TOPIC % "'${TEAM}.orders'"},
        [("m.yaml", 3, 18, "error", "environment variable 'TEAM' is not set")],
    ),
    (
        "empty file",
        {"m.yaml": "# nothing here\n", "t.yaml": TOPIC % "a"},
        [("m.yaml", None, None, "warning", "file has no YAML documents")],
    ),
    (
        "grant naming an undeclared topic",
        {
            "m.yaml": H
            + "kind: Consumer\nmetadata: {name: c}\nspec:\n  principal: User:c\n  topics: [nope]\n  groups: [g]\n"
        },
        [("m.yaml", 6, 12, "warning", "topic 'nope' is not declared and not covered by the ownership rules")],
    ),
    (
        "grant reference with name and prefix",
        {
            "m.yaml": H
            + "kind: Consumer\nmetadata: {name: c}\nspec:\n  principal: User:c\n"
            + "  topics: [{name: a, prefix: b}]\n  groups: [g]\n"
        },
        [("m.yaml", 6, 12, "error", "give exactly one of name or prefix")],
    ),
    (
        "grant principal",
        {"m.yaml": H + "kind: Producer\nmetadata: {name: p}\nspec:\n  principal: Group:p\n  topics: [{prefix: p.}]\n"},
        [("m.yaml", 5, 14, "error", "principal type 'Group' is not supported; use User:<name>")],
    ),
    (
        "two Ownership documents",
        {
            "a.yaml": H + "kind: Ownership\nmetadata: {name: a}\nspec: {}\n",
            "b.yaml": H + "kind: Ownership\nmetadata: {name: b}\nspec: {}\n",
        },
        [("b.yaml", 2, 7, "error", "only one Ownership document is allowed (first at a.yaml:1:1)")],
    ),
    (
        "bad regex in ownership",
        {"m.yaml": H + "kind: Ownership\nmetadata: {name: a}\nspec:\n  topics: [{regex: 'orders.('}]\n"},
        [("m.yaml", 5, 20, "error", "invalid regular expression: missing ), unterminated subpattern at position 7")],
    ),
    (
        "the same ACL binding twice",
        {
            "m.yaml": H
            + "kind: Acl\nmetadata: {name: x}\nspec:\n  bindings:\n"
            + "    - {principal: 'User:a', operation: READ, resourceType: TOPIC, resourceName: t}\n"
            + "    - {principal: 'User:a', operations: [describe, read], resourceType: topic, resourceName: t}\n"
        },
        [
            (
                "m.yaml",
                7,
                52,
                "warning",
                "ACL acl/User:a/ALLOW/READ/TOPIC:LITERAL:t@* is already declared at m.yaml:1:1",
            )
        ],
    ),
    (
        "removed config is a warning",
        {"m.yaml": TOPIC % "a" + "  configs:\n    message.downconversion.enable: true\n"},
        [("m.yaml", 8, 5, "warning", "message.downconversion.enable was removed in Kafka 4.0")],
    ),
    (
        "quota entity rule written user-first",
        {
            "m.yaml": H
            + "kind: Ownership\nmetadata: {name: o}\nspec:\n  quotaEntities:\n"
            + "    - {glob: 'user=*,client-id=batch'}\n    - {prefix: 'user=svc,client-id='}\n"
        },
        [
            (
                "m.yaml",
                6,
                14,
                "error",
                "'user=*,client-id=batch' puts user before client-id and would match nothing: quota entity names "
                "list client-id first, as plans print them (client-id=x,user=y); write glob: 'client-id=batch,user=*'",
            ),
            (
                "m.yaml",
                7,
                16,
                "error",
                "'user=svc,client-id=' puts user before client-id and would match nothing: quota entity names "
                "list client-id first, as plans print them (client-id=x,user=y)",
            ),
        ],
    ),
]


@pytest.mark.parametrize(("files", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_diagnostic_message_and_position(tmp_path: Path, files: dict[str, str], expected: list[Expected]) -> None:
    assert _short(tmp_path, _diagnostics(tmp_path, files)) == expected


def test_hints_suggest_the_closest_name(tmp_path: Path) -> None:
    diags = _diagnostics(
        tmp_path,
        {
            "m.yaml": H
            + "kind: Topik\nmetadata: {name: a}\nspec: {}\n---\n"
            + TOPIC % "b"
            + "  configs:\n    retension.ms: 1d\n  replicaAsignment: []\n"
        },
    )
    assert [d.hint for d in diags] == [
        "did you mean Topic?",
        "did you mean retention.ms?",
        "did you mean replicaAssignment?",
    ]


@pytest.mark.parametrize(
    ("text", "message", "hint"),
    [
        pytest.param(
            "kind: Acl\nmetadata: {name: a}\nspec:\n  principal: User:alice\n  bindings:\n"
            "    - {principal: User:alice, resourceType: TOPIC, resourceName: orders, operation: READ}\n",
            "unknown field 'principal'",
            "principal belongs under spec.bindings[] (each entry has its own), not here",
            id="acl-principal-beside-bindings",
        ),
        pytest.param(
            "kind: Topic\nmetadata: {name: a}\nspec: {partitions: 1, replicationFactor: 1, kind: Topic}\n",
            "unknown field 'kind'",
            "kind belongs under the top level of the document, not here",
            id="envelope-field-in-spec",
        ),
        pytest.param(
            "kind: Topic\nmetadata: {name: a}\nspec: {partitions: 1, replicationFactor: 1, partitons: 2}\n",
            "unknown field 'partitons'",
            "did you mean partitions?",
            id="near-miss-at-its-place",
        ),
        pytest.param(
            "kind: Cluster\nmetadata: {name: prod}\nspec:\n  bootstrapServers: [k1:9092]\n"
            "  securityProtocol: SASL_SSL\n  saslMechanism: PLAIN\n  username: svc\n  password: {env: KAFKA_PW}\n",
            "the key of a password reference is passwordFrom, not password",
            "rename the key: passwordFrom: {env: KAFKA_PW}",
            id="cluster-password-reference",
        ),
        pytest.param(
            "kind: Cluster\nmetadata: {name: prod}\nspec:\n  bootstrapServers: [k1:9092]\n  password: hunter2\n",
            "inline passwords are not allowed in manifests",
            "use passwordFrom: {env: VARIABLE} or passwordFrom: {file: path}",
            id="cluster-inline-password",
        ),
    ],
)
def test_a_field_in_the_wrong_place_or_under_the_wrong_name_says_where_it_belongs(
    tmp_path: Path, text: str, message: str, hint: str
) -> None:
    diags = _diagnostics(tmp_path, {"m.yaml": H + text})
    found = [d for d in diags if d.message == message]
    assert len(found) == 1, [(d.message, d.hint) for d in diags]
    assert found[0].hint == hint
    assert found[0].hint is not None and "did you mean principal" not in found[0].hint
    assert "hunter2" not in " ".join(f"{d.message} {d.hint}" for d in diags)


def test_every_problem_is_reported_not_just_the_first(tmp_path: Path) -> None:
    diags = _diagnostics(
        tmp_path,
        {
            "a.yaml": TOPIC % "'bad name'" + "  configs:\n    retention.ms: soon\n",
            "b.yaml": H + "kind: Topic\nmetadata: {name: b}\nspec:\n  partitions: -1\n  replicationFactor: x\n",
        },
    )
    assert [(Path(d.file or "").name, d.line) for d in diags] == [
        ("a.yaml", 3),
        ("a.yaml", 8),
        ("b.yaml", 5),
        ("b.yaml", 6),
    ]
    assert all(d.severity is errors.Severity.ERROR for d in diags)


def test_a_password_in_the_wrong_place_is_not_echoed(tmp_path: Path) -> None:
    diags = _diagnostics(
        tmp_path,
        {
            "m.yaml": H + "kind: ScramUser\nmetadata: {name: u}\nspec:\n  passwordFrom: hunter2\n"
            "---\n" + H + "kind: Cluster\nmetadata: {name: c}\nspec:\n  bootstrapServers: ['a:1']\n"
            "  passwordFrom: s3cret\n"
        },
    )
    assert [d.message for d in diags] == [
        "passwordFrom: expected a mapping, got a string (not shown: this field is secret)",
        "passwordFrom: expected a mapping, got a string (not shown: this field is secret)",
    ]
    assert not any("hunter2" in d.format() or "s3cret" in d.format() for d in diags)


def test_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_bytes(b"apiVersion: kafka-reconciler/v1\nkind: \xff\n")
    assert _short(tmp_path, _diagnostics(tmp_path, {})) == [
        ("m.yaml", 2, 7, "error", "not UTF-8 text (byte 0xff cannot be decoded)")
    ]


def test_binary_file(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_bytes(b"\x00\x01\x02")
    assert _short(tmp_path, _diagnostics(tmp_path, {})) == [
        ("m.yaml", 1, 1, "error", "binary file (contains NUL bytes), not YAML text")
    ]


def test_file_over_the_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlio, "MAX_FILE_BYTES", 1024 * 1024)
    (tmp_path / "m.yaml").write_text("# " + "x" * (2 * 1024 * 1024) + "\n")
    assert _short(tmp_path, _diagnostics(tmp_path, {})) == [
        ("m.yaml", None, None, "error", "file is 2.0 MiB, over the 1 MiB limit")
    ]


def test_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        levels.append(f"{chr(ord('a') + i)}: &{chr(ord('a') + i)} [" + ", ".join([f"*{prev}"] * 10) + "]")
    diags = _diagnostics(tmp_path, {"m.yaml": "\n".join(levels) + "\n"})
    assert [d.message for d in diags] == ["alias expansion produces more than 100000 values"]
    assert diags[0].line is not None


def test_directory_without_manifests(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("nothing")
    assert _short(tmp_path, _diagnostics(tmp_path, {})) == [
        (str(tmp_path), None, None, "error", "no *.yaml or *.yml manifests in this directory")
    ]


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(errors.ValidationFailed) as info:
        manifests.load([tmp_path / "nope"], env={})
    assert [d.message for d in info.value.diagnostics] == ["no such file or directory"]


def test_unknown_environment(tmp_path: Path) -> None:
    diags = _diagnostics(tmp_path, {"base/t.yaml": TOPIC % "a", "overlays/dev/t.yaml": TOPIC % "a"}, environment="prd")
    assert [d.message for d in diags] == ["environment 'prd' has no overlays/prd/ directory (found: dev)"]

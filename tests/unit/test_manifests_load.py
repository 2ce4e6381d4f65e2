"""What valid manifests load into: canonical configs, defaults, overlays, variables, grants, quotas, users, profiles."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reconciler import manifests
from reconciler.base import errors
from reconciler.connection import layers
from reconciler.kinds.quota.plan import owned_entity
from reconciler.manifests import yamlio
from reconciler.model import desired
from reconciler.model.kinds import Kind
from reconciler.model.state import AclBinding, QuotaEntity

H = "apiVersion: kafka-reconciler/v1\n"


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _load(root: Path, files: dict[str, str], **kwargs: object) -> manifests.LoadResult:
    _write(root, files)
    env = kwargs.pop("env", {})
    return manifests.load([root], env=env, **kwargs)  # type: ignore[arg-type]


def _topic(name: str, spec: str = "partitions: 1\n  replicationFactor: 1") -> str:
    return H + f"kind: Topic\nmetadata: {{name: {name}}}\nspec:\n  {spec}\n"


def test_human_values_become_kafka_strings(tmp_path: Path) -> None:
    result = _load(
        tmp_path,
        {
            "t.yaml": _topic(
                "orders",
                "partitions: 3\n  replicationFactor: 1\n  configs:\n    retention.ms: 7d\n"
                "    segment.bytes: 256MiB\n    cleanup.policy: [compact, delete]\n    preallocate: true\n"
                "    min.cleanable.dirty.ratio: 0.50",
            )
        },
    )
    topic = result.desired.topics["orders"]
    assert (topic.partitions, topic.replication_factor) == (3, 1)
    assert dict(topic.configs) == {
        "retention.ms": "604800000",
        "segment.bytes": "268435456",
        "cleanup.policy": "compact,delete",
        "preallocate": "true",
        "min.cleanable.dirty.ratio": "0.5",
    }
    assert topic.source == desired.Source(file=str(tmp_path / "t.yaml"), line=1, column=1)
    assert result.diagnostics == []


def test_defaults_layer_directory_then_named_then_topic(tmp_path: Path) -> None:
    result = _load(
        tmp_path,
        {
            "_defaults.yaml": H
            + "kind: TopicDefaults\nmetadata: {name: root}\nspec:\n  scope: directory\n  partitions: 3\n"
            "  replicationFactor: 3\n  configs: {retention.ms: 1d, compression.type: lz4}\n",
            "team/_defaults.yaml": H
            + "kind: TopicDefaults\nmetadata: {name: team}\nspec:\n  scope: directory\n  partitions: 6\n"
            "  configs: {retention.ms: 2d}\n---\n"
            + H
            + "kind: TopicDefaults\nmetadata: {name: compacted}\nspec:\n  configs: {cleanup.policy: compact}\n",
            "team/t.yaml": _topic("a", "defaults: compacted")
            + "---\n"
            + _topic("b", "partitions: 1\n  configs: {retention.ms: 3d}"),
            "other/t.yaml": _topic("c", "replicationFactor: 1"),
        },
    )
    topics = result.desired.topics
    assert (topics["a"].partitions, topics["a"].replication_factor) == (6, 3)
    assert dict(topics["a"].configs) == {
        "retention.ms": "172800000",
        "compression.type": "lz4",
        "cleanup.policy": "compact",
    }
    assert (topics["b"].partitions, dict(topics["b"].configs)) == (
        1,
        {"retention.ms": "259200000", "compression.type": "lz4"},
    )
    assert (topics["c"].partitions, topics["c"].replication_factor) == (3, 1)
    assert dict(topics["c"].configs) == {"retention.ms": "86400000", "compression.type": "lz4"}


def test_overlays_patch_base_documents_and_add_new_ones(tmp_path: Path) -> None:
    files = {
        "base/t.yaml": _topic(
            "orders", "partitions: 3\n  replicationFactor: 1\n  configs: {retention.ms: 1d, preallocate: true}"
        ),
        "overlays/prod/t.yaml": _topic("orders", "partitions: 12\n  configs: {retention.ms: 7d, preallocate: null}")
        + "---\n"
        + _topic("prod.only"),
        "overlays/dev/t.yaml": _topic("dev.only"),
    }
    base = _load(tmp_path, files)
    assert sorted(base.desired.topics) == ["orders"]
    prod = manifests.load([tmp_path], environment="prod", env={})
    assert sorted(prod.desired.topics) == ["orders", "prod.only"]
    orders = prod.desired.topics["orders"]
    assert (orders.partitions, orders.replication_factor, dict(orders.configs)) == (
        12,
        1,
        {"retention.ms": "604800000"},
    )
    assert orders.source is not None and orders.source.file.endswith("base/t.yaml")


def test_overlay_errors_point_into_the_overlay_file(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "base/t.yaml": _topic("orders"),
            "overlays/prod/t.yaml": _topic("orders", "partitions: 0"),
        },
    )
    with pytest.raises(errors.ValidationFailed) as info:
        manifests.load([tmp_path], environment="prod", env={})
    [diag] = info.value.diagnostics
    assert (diag.file, diag.line, diag.column) == (str(tmp_path / "overlays/prod/t.yaml"), 5, 15)


def test_variables_are_substituted_and_escaped(tmp_path: Path) -> None:
    result = _load(
        tmp_path,
        {
            "t.yaml": _topic(
                "'${TEAM}.orders'",
                "partitions: ${PARTITIONS}\n  replicationFactor: ${RF:-1}\n"
                "  configs: {message.timestamp.type: CreateTime}",
            ),
            "b.yaml": H + "kind: BrokerConfig\nmetadata: {name: b}\nspec:\n  broker: 1\n"
            "  configs:\n    max.connections.per.ip.overrides: '$${HOST}:5,${TEAM}-host:7'\n",
        },
        env={"TEAM": "sales", "PARTITIONS": "4"},
    )
    topic = result.desired.topics["sales.orders"]
    assert (topic.partitions, topic.replication_factor) == (4, 1)
    overrides = result.desired.broker_configs["1"].configs["max.connections.per.ip.overrides"]
    assert overrides == "${HOST}:5,sales-host:7"


def test_process_environment_is_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KR_TEST_TOPIC", "from-env")
    _write(tmp_path, {"t.yaml": _topic("'${KR_TEST_TOPIC}'")})
    assert list(manifests.load([tmp_path]).desired.topics) == ["from-env"]


def test_grants_expand_into_exact_acls(tmp_path: Path) -> None:
    result = _load(
        tmp_path,
        {
            "t.yaml": _topic("orders"),
            "g.yaml": H + "kind: Consumer\nmetadata: {name: billing}\nspec:\n  principal: User:billing\n"
            "  topics: [orders, {prefix: 'audit.'}]\n  groups: [billing]\n"
            "---\n" + H + "kind: Producer\nmetadata: {name: shop}\nspec:\n  principal: User:shop\n"
            "  host: 10.0.0.7\n  topics: [orders]\n  transactionalId: {prefix: shop-}\n  idempotent: true\n",
        },
    )
    u = "User:billing"
    consumer = {a for a, s in result.desired.acls.items() if s is not None and s.origin == "Consumer billing"}
    assert consumer == {
        AclBinding("TOPIC", "LITERAL", "orders", u, "*", "READ", "ALLOW"),
        AclBinding("TOPIC", "LITERAL", "orders", u, "*", "DESCRIBE", "ALLOW"),
        AclBinding("TOPIC", "PREFIXED", "audit.", u, "*", "READ", "ALLOW"),
        AclBinding("TOPIC", "PREFIXED", "audit.", u, "*", "DESCRIBE", "ALLOW"),
        AclBinding("GROUP", "LITERAL", "billing", u, "*", "READ", "ALLOW"),
    }
    p = "User:shop"
    producer = {a for a, s in result.desired.acls.items() if s is not None and s.origin == "Producer shop"}
    assert producer == {
        AclBinding("TOPIC", "LITERAL", "orders", p, "10.0.0.7", "WRITE", "ALLOW"),
        AclBinding("TOPIC", "LITERAL", "orders", p, "10.0.0.7", "DESCRIBE", "ALLOW"),
        AclBinding("TRANSACTIONAL_ID", "PREFIXED", "shop-", p, "10.0.0.7", "WRITE", "ALLOW"),
        AclBinding("TRANSACTIONAL_ID", "PREFIXED", "shop-", p, "10.0.0.7", "DESCRIBE", "ALLOW"),
        AclBinding("CLUSTER", "LITERAL", "kafka-cluster", p, "10.0.0.7", "IDEMPOTENT_WRITE", "ALLOW"),
    }


def test_streams_and_connect_expansions(tmp_path: Path) -> None:
    result = _load(
        tmp_path,
        {
            "g.yaml": H + "kind: StreamsApp\nmetadata: {name: enricher}\nspec:\n  principal: User:s\n"
            "  applicationId: enrich\n  inputTopics: [in]\n  outputTopics: [out]\n"
            "---\n" + H + "kind: ConnectWorker\nmetadata: {name: connect}\nspec:\n  principal: User:c\n"
            "  groupId: cg\n  configStorageTopic: cfg\n  offsetStorageTopic: off\n  statusStorageTopic: st\n"
            "  sourceTopics: [src]\n  sinkTopics: [{prefix: sink.}]\n",
        },
    )
    streams = {
        (a.resource_type, a.pattern_type, a.resource_name, a.operation)
        for a in result.desired.acls
        if a.principal == "User:s"
    }
    assert streams == {
        ("TOPIC", "LITERAL", "in", "READ"),
        ("TOPIC", "LITERAL", "in", "DESCRIBE"),
        ("TOPIC", "LITERAL", "out", "WRITE"),
        ("TOPIC", "LITERAL", "out", "DESCRIBE"),
        ("TOPIC", "PREFIXED", "enrich-", "ALL"),
        ("GROUP", "LITERAL", "enrich", "READ"),
        ("GROUP", "LITERAL", "enrich", "DESCRIBE"),
    }
    connect = {
        (a.resource_type, a.pattern_type, a.resource_name, a.operation)
        for a in result.desired.acls
        if a.principal == "User:c"
    }
    storage = {
        ("TOPIC", "LITERAL", t, op)
        for t in ("cfg", "off", "st")
        for op in ("READ", "WRITE", "DESCRIBE", "DESCRIBE_CONFIGS")
    }
    assert connect == storage | {
        ("GROUP", "LITERAL", "cg", "READ"),
        ("TOPIC", "LITERAL", "src", "WRITE"),
        ("TOPIC", "LITERAL", "src", "DESCRIBE"),
        ("TOPIC", "PREFIXED", "sink.", "READ"),
        ("TOPIC", "PREFIXED", "sink.", "DESCRIBE"),
        ("GROUP", "PREFIXED", "connect-", "READ"),
    }
    warned = sorted(d.message for d in result.diagnostics)
    assert warned[0] == "topic 'cfg' is not declared and not covered by the ownership rules"
    assert len(warned) == 6  # in, out, cfg, off, st, src


def test_ownership_rules_silence_undeclared_topic_warnings(tmp_path: Path) -> None:
    result = _load(
        tmp_path,
        {
            "o.yaml": H + "kind: Ownership\nmetadata: {name: o}\nspec:\n  topics: [{glob: 'in*'}, {regex: 'o.t'}]\n"
            "  principals: [{prefix: 'User:s'}]\n  managedKinds: [topic, acl, scramUser]\n  delete: {topic: true}\n",
            "g.yaml": H + "kind: Consumer\nmetadata: {name: c}\nspec:\n  principal: User:s\n  topics: [in, out]\n"
            "  groups: [g]\n",
        },
    )
    assert result.diagnostics == []
    own = result.desired.ownership
    assert own.owns_topic("inbox") and own.owns_topic("out") and not own.owns_topic("outer")
    assert own.owns_principal("User:sam")
    assert own.may_delete(Kind.TOPIC) and not own.may_delete(Kind.ACL)
    assert own.managed_kinds == frozenset({"topic", "acl", "scram_user"})


def test_acl_compact_form(tmp_path: Path) -> None:
    result = _load(
        tmp_path,
        {
            "a.yaml": H + "kind: Acl\nmetadata: {name: ops}\nspec:\n  bindings:\n"
            "    - {principal: 'User:ops', operations: [read, describe-configs], resourceType: topic, "
            "resourceName: orders, patternType: prefixed, permission: deny}\n"
            "    - {principal: 'User:*', operation: describe, resourceType: cluster}\n",
        },
    )
    assert set(result.desired.acls) == {
        AclBinding("TOPIC", "PREFIXED", "orders", "User:ops", "*", "READ", "DENY"),
        AclBinding("TOPIC", "PREFIXED", "orders", "User:ops", "*", "DESCRIBE_CONFIGS", "DENY"),
        AclBinding("CLUSTER", "LITERAL", "kafka-cluster", "User:*", "*", "DESCRIBE", "ALLOW"),
    }


def test_quotas_users_and_broker_configs(tmp_path: Path) -> None:
    result = _load(
        tmp_path,
        {
            "q.yaml": H + "kind: ClientQuota\nmetadata: {name: q1}\nspec:\n  entity: {user: alice, clientId: default}\n"
            "  values: {producer_byte_rate: 1MiB, request_percentage: 50}\n"
            "---\n" + H + "kind: ClientQuota\nmetadata: {name: q2}\nspec:\n  entity: {ip: default}\n"
            "  values: {connection_creation_rate: 10}\n",
            "u.yaml": H + "kind: ScramUser\nmetadata: {name: alice}\nspec:\n  mechanism: scram-sha-256\n"
            "  passwordFrom: {file: secrets/alice}\n  rotation: r2\n",
            "b.yaml": H + "kind: BrokerConfig\nmetadata: {name: b}\nspec:\n  broker: 2\n"
            "  configs: {log.retention.ms: 1d, num.io.threads: 16}\n",
        },
    )
    quotas = result.desired.quotas
    alice = QuotaEntity.of(user="alice", client_id=None)
    assert dict(quotas[alice].values) == {"producer_byte_rate": 1048576.0, "request_percentage": 50.0}
    assert dict(quotas[QuotaEntity.of(ip=None)].values) == {"connection_creation_rate": 10.0}
    user = result.desired.scram_users["alice"]
    assert (user.mechanism, user.iterations, user.rotation) == ("SCRAM-SHA-256", 8192, "r2")
    assert user.password == desired.SecretRef(file=str(tmp_path / "secrets/alice"))
    assert dict(result.desired.broker_configs["2"].configs) == {"log.retention.ms": "86400000", "num.io.threads": "16"}


def test_cluster_profiles(tmp_path: Path) -> None:
    result = _load(
        tmp_path,
        {
            "c/c.yaml": H + "kind: Cluster\nmetadata: {name: prod}\nspec:\n  bootstrapServers: 'a:9093, b:9093'\n"
            "  securityProtocol: sasl_ssl\n  saslMechanism: SCRAM-SHA-512\n  username: {env: KUSER}\n"
            "  passwordFrom: {env: KPASS}\n  tls: {caFile: ca.pem}\n"
            "---\n"
            + H
            + "kind: Cluster\nmetadata: {name: cli}\nspec:\n  commandConfig: /etc/kafka/client.properties\n",
        },
    )
    prod = result.profiles["prod"]
    assert prod.bootstrap_servers == ["a:9093", "b:9093"]
    assert (prod.security_protocol, prod.sasl_mechanism) == ("SASL_SSL", "SCRAM-SHA-512")
    assert prod.username == desired.SecretRef(env="KUSER")
    assert prod.password == desired.SecretRef(env="KPASS")
    assert prod.ssl_cafile == tmp_path / "c" / "ca.pem"
    assert result.profiles["cli"].command_config == Path("/etc/kafka/client.properties")
    assert "KPASS" not in repr(result.desired)


def test_profile_servers_and_trust_with_sasl_from_the_environment(tmp_path: Path) -> None:
    """Regression: a profile with servers and a trust store but no securityProtocol connected as PLAINTEXT
    although KAFKA_SECURITY_PROTOCOL=SASL_SSL and KAFKA_SASL_* were set: the documented "password from the
    environment, servers from the profile" must give SASL_SSL with the environment's credentials."""
    result = _load(
        tmp_path,
        {
            "c.yaml": H + "kind: Cluster\nmetadata: {name: prod}\nspec:\n  bootstrapServers: 'a:9093'\n"
            "  tls: {caFile: ca.pem}\n"
        },
    )
    environ = {
        "KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
        "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
        "KAFKA_SASL_USERNAME": "svc",
        "KAFKA_SASL_PASSWORD": "env-secret",
    }
    settings = layers.resolve(profile_name="prod", profiles=result.profiles, environ=environ)
    assert settings.bootstrap_servers == ("a:9093",)
    assert (settings.security_protocol, settings.sasl_mechanism) == ("SASL_SSL", "SCRAM-SHA-512")
    assert settings.username == "svc"
    assert settings.password is not None and settings.password.reveal() == "env-secret"
    assert settings.ssl_cafile == str(tmp_path / "ca.pem")
    explicit = _load(
        tmp_path / "explicit",
        {
            "c.yaml": H + "kind: Cluster\nmetadata: {name: prod}\nspec:\n  bootstrapServers: 'a:9093'\n"
            "  securityProtocol: PLAINTEXT\n"
        },
    )
    stated = layers.resolve(profile_name="prod", profiles=explicit.profiles, environ=environ)
    assert stated.security_protocol == "PLAINTEXT"  # a protocol the profile states still wins


@pytest.mark.parametrize("where", ["environment", "commandConfig"])
def test_a_profile_with_a_mechanism_takes_its_protocol_from_a_lower_layer(tmp_path: Path, where: str) -> None:
    """Regression: a profile with saslMechanism but no securityProtocol was refused at validation ("saslMechanism
    is set but securityProtocol is PLAINTEXT") although the protocol comes from commandConfig or KAFKA_*."""
    (tmp_path / "client.properties").write_text("security.protocol=SASL_SSL\n", encoding="utf-8")
    command_config = "  commandConfig: client.properties\n" if where == "commandConfig" else ""
    result = _load(
        tmp_path,
        {
            "c.yaml": H + "kind: Cluster\nmetadata: {name: prod}\nspec:\n  bootstrapServers: 'a:9093'\n"
            "  saslMechanism: SCRAM-SHA-512\n  username: svc\n  passwordFrom: {env: KPASS}\n" + command_config
        },
    )
    assert result.profiles["prod"].security_protocol is None  # unset: a lower layer decides
    environ = {"KPASS": "pw"} | ({"KAFKA_SECURITY_PROTOCOL": "SASL_SSL"} if where == "environment" else {})
    settings = layers.resolve(profile_name="prod", profiles=result.profiles, environ=environ)
    assert (settings.security_protocol, settings.sasl_mechanism, settings.username) == (
        "SASL_SSL",
        "SCRAM-SHA-512",
        "svc",
    )


def test_a_quota_entity_rule_written_user_first_matches_the_entity(tmp_path: Path) -> None:
    """Regression: ``user=<default>,client-id=x`` (the order Kafka's tools print) was accepted and matched nothing:
    plans name the entity ``client-id=x,user=<default>``."""
    result = _load(
        tmp_path,
        {
            "o.yaml": H + "kind: Ownership\nmetadata: {name: o}\nspec:\n  quotaEntities:\n"
            "    - {name: 'user=<default>,client-id=batch'}\n    - {name: 'client-id=etl,user=svc'}\n"
        },
    )
    ownership = result.desired.ownership
    assert owned_entity(ownership, QuotaEntity.of(user=None, client_id="batch"))
    assert owned_entity(ownership, QuotaEntity.of(user="svc", client_id="etl"))
    assert not owned_entity(ownership, QuotaEntity.of(user=None, client_id="other"))


def test_anchors_and_merge_keys(tmp_path: Path) -> None:
    result = _load(
        tmp_path,
        {
            "t.yaml": H + "kind: Topic\nmetadata: {name: b, labels: &l {team: x}}\nspec:\n  partitions: 1\n"
            "  replicationFactor: 1\n  configs:\n    <<: &common {retention.ms: 1d, segment.ms: 2h}\n"
            "    segment.ms: 1h\n",
        },
    )
    assert dict(result.desired.topics["b"].configs) == {"retention.ms": "86400000", "segment.ms": "3600000"}


def test_aliases_do_not_cross_documents(tmp_path: Path) -> None:
    _write(tmp_path, {"t.yaml": "a: &x 1\n---\nb: *x\n"})
    with pytest.raises(errors.ValidationFailed) as info:
        manifests.load([tmp_path], env={})
    assert [(d.line, d.column, d.message) for d in info.value.diagnostics] == [
        (1, 1, "missing apiVersion"),
        (3, 4, "YAML syntax error: found undefined alias"),
    ]


def test_files_load_in_sorted_order_and_hidden_directories_are_skipped(tmp_path: Path) -> None:
    result = _load(
        tmp_path,
        {
            "b.yml": _topic("second"),
            "a.yaml": _topic("first"),
            ".git/x.yaml": "not: [valid",
            "notes.txt": "ignored",
        },
    )
    assert list(result.desired.topics) == ["first", "second"]


def test_an_explicit_file_and_a_repeated_path_load_once(tmp_path: Path) -> None:
    _write(tmp_path, {"t.yaml": _topic("a")})
    result = manifests.load([tmp_path / "t.yaml", tmp_path], env={})
    assert list(result.desired.topics) == ["a"]


@pytest.mark.parametrize("text", ["kind: Topic\nmetadata: {name: a\n", "a: 1\na: 2\n", "- [\n"])
def test_pure_python_parser_reports_like_the_c_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    _write(tmp_path, {"m.yaml": text})

    def outcome() -> list[tuple[int | None, int | None, str]]:
        with pytest.raises(errors.ValidationFailed) as info:
            manifests.load([tmp_path], env={})
        # the two parsers word syntax errors differently; kind and position must agree
        return [(d.line, d.column, d.message.split(":")[0]) for d in info.value.diagnostics]

    fast = outcome()
    monkeypatch.setattr(yamlio, "HAVE_C_PARSER", False)
    assert outcome() == fast


def test_pure_python_parser_loads_the_same_state(monkeypatch: pytest.MonkeyPatch) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples" / "platform"
    fast = manifests.load([examples], env={})
    monkeypatch.setattr(yamlio, "HAVE_C_PARSER", False)
    slow = manifests.load([examples], env={})
    assert slow.desired == fast.desired

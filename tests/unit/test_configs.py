"""Config catalogue and value normalisation: what Kafka would store for human-written values."""

from __future__ import annotations

import pytest

from reconciler.model import configs


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("retention.ms", 604800000, "604800000"),
        ("retention.ms", "604800000", "604800000"),
        ("retention.ms", "7d", "604800000"),
        ("retention.ms", "1w", "604800000"),
        ("retention.ms", "168h", "604800000"),
        ("retention.ms", "1.5h", "5400000"),
        ("retention.ms", "30s", "30000"),
        ("retention.ms", "250ms", "250"),
        ("retention.ms", -1, "-1"),
        ("retention.ms", "-1", "-1"),
        ("segment.bytes", "1GiB", "1073741824"),
        ("segment.bytes", "1 GiB", "1073741824"),
        ("segment.bytes", "1GB", "1000000000"),
        ("segment.bytes", "512MiB", "536870912"),
        ("segment.bytes", "100KB", "100000"),
        ("segment.bytes", "100KiB", "102400"),
        ("retention.bytes", "2TiB", "2199023255552"),
        ("retention.bytes", "10B", "10"),
        ("max.message.bytes", 1048588, "1048588"),
        ("min.cleanable.dirty.ratio", 0.5, "0.5"),
        ("min.cleanable.dirty.ratio", "0.5", "0.5"),
        ("min.cleanable.dirty.ratio", "0.50", "0.5"),
        ("min.cleanable.dirty.ratio", 1, "1.0"),
        ("min.cleanable.dirty.ratio", 0.0001, "1.0E-4"),
        ("cleanup.policy", "compact,delete", "compact,delete"),
        ("cleanup.policy", "compact, delete", "compact,delete"),
        ("cleanup.policy", ["compact", "delete"], "compact,delete"),
        ("cleanup.policy", ["delete", "compact"], "delete,compact"),
        ("preallocate", True, "true"),
        ("preallocate", "TRUE", "true"),
        ("unclean.leader.election.enable", False, "false"),
        ("compression.type", "zstd", "zstd"),
        ("min.insync.replicas", 2, "2"),
        ("some.plugin.config", True, "true"),
        ("some.plugin.config", "Mixed Case", "Mixed Case"),
        ("some.plugin.list", ["a", True, 3], "a,true,3"),
        ("log.retention.ms", "3d", "259200000"),
        ("leader.replication.throttled.rate", "10MiB", "10485760"),
    ],
)
def test_canonical_gives_the_string_kafka_stores(key: str, value: object, expected: str) -> None:
    assert configs.canonical(key, value) == expected


def test_the_three_spellings_of_seven_days_are_equal() -> None:
    forms = {configs.canonical("retention.ms", v) for v in (604800000, "604800000", "7d")}
    assert forms == {"604800000"}


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("retention.ms", "7x", "unknown unit 'x'"),
        ("retention.ms", "seven days", "cannot read 'seven days' as a duration"),
        ("retention.ms", "1.5ms", "not a whole number of milliseconds"),
        ("retention.ms", True, "expected a number, got a boolean"),
        ("segment.bytes", "1.3B", "not a whole number of bytes"),
        ("segment.bytes", "1QB", "unknown unit 'QB'"),
        ("preallocate", "yes", "expected true or false"),
        ("min.cleanable.dirty.ratio", "half", "expected a decimal number"),
        ("retention.ms", None, "a value is required"),
        ("retention.ms", [1, 2], "expected a single value, got a list"),
        ("cleanup.policy", {"a": 1}, "got a map"),
        ("flush.messages", "12.5", "expected a whole number"),
    ],
)
def test_canonical_rejects_unreadable_values(key: str, value: object, fragment: str) -> None:
    with pytest.raises(ValueError, match=key.replace(".", r"\.")) as info:
        configs.canonical(key, value)
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("retention.ms", "604800000", "604800000 (7d)"),
        ("retention.ms", "90000", "90000 (1m 30s)"),
        ("retention.ms", "-1", "-1 (unlimited)"),
        ("local.retention.ms", "-2", "-2 (same as retention)"),
        ("flush.ms", str(configs.LONG_MAX), f"{configs.LONG_MAX} (unlimited)"),
        ("segment.bytes", "1073741824", "1073741824 (1 GiB)"),
        ("segment.bytes", "1500000000", "1500000000 (~1.4 GiB)"),
        ("max.message.bytes", "1000", "1000"),
        ("cleanup.policy", "compact", "compact"),
        ("retention.ms", None, "(unset)"),
    ],
)
def test_humanize(key: str, value: str | None, expected: str) -> None:
    assert configs.humanize(key, value) == expected


@pytest.mark.parametrize(
    ("key", "value", "problems"),
    [
        ("retention.ms", "7d", []),
        ("retention.mss", "7d", ["unknown topic config 'retention.mss'; did you mean retention.ms?"]),
        ("segment.bytes", "10", ["segment.bytes: 10 is below the minimum 1048576"]),
        ("segment.bytes", "4GiB", ["segment.bytes: 4294967296 is out of range for a Kafka int"]),
        ("min.cleanable.dirty.ratio", 1.5, ["min.cleanable.dirty.ratio: 1.5 is above the maximum 1.0"]),
        ("cleanup.policy", "compact,foo", ["cleanup.policy: 'foo' is not one of compact, delete"]),
        (
            "compression.type",
            "brotli",
            ["compression.type: 'brotli' is not one of uncompressed, zstd, lz4, snappy, gzip, producer"],
        ),
        ("min.insync.replicas", 0, ["min.insync.replicas: 0 is below the minimum 1"]),
        ("retention.ms", "-3", ["retention.ms: -3 is below the minimum -1"]),
        ("preallocate", "maybe", ["preallocate: expected true or false, got 'maybe'"]),
    ],
)
def test_validate_topic_config(key: str, value: object, problems: list[str]) -> None:
    assert configs.validate_topic_config(key, value) == problems


def test_every_topic_default_is_valid_for_its_own_spec() -> None:
    for name, spec in configs.TOPIC_CONFIGS.items():
        if spec.default:
            assert configs.validate_config(spec, spec.default) == [], name
            assert configs.topic_default(name) == spec.default


def test_catalogue_covers_the_kafka_4_topic_configs() -> None:
    expected = {
        "cleanup.policy", "compression.type", "compression.gzip.level", "compression.lz4.level",
        "compression.zstd.level", "delete.retention.ms", "file.delete.delay.ms", "flush.messages", "flush.ms",
        "follower.replication.throttled.replicas", "index.interval.bytes", "leader.replication.throttled.replicas",
        "local.retention.bytes", "local.retention.ms", "max.compaction.lag.ms", "max.message.bytes",
        "message.timestamp.after.max.ms", "message.timestamp.before.max.ms", "message.timestamp.type",
        "min.cleanable.dirty.ratio", "min.compaction.lag.ms", "min.insync.replicas", "preallocate",
        "remote.storage.enable", "retention.bytes", "retention.ms", "segment.bytes", "segment.index.bytes",
        "segment.jitter.ms", "segment.ms", "unclean.leader.election.enable", "remote.log.copy.disable",
        "remote.log.delete.on.disable",
    }  # fmt: skip
    assert expected <= set(configs.TOPIC_CONFIGS)
    assert all(configs.is_topic_config(k) for k in expected)
    assert not configs.is_topic_config("log.retention.ms")
    assert configs.TOPIC_CONFIGS["message.downconversion.enable"].removed_in == "4.0"


def test_broker_update_modes() -> None:
    assert configs.BROKER_CONFIGS["auto.create.topics.enable"].update_mode == "read-only"
    assert configs.BROKER_CONFIGS["log.retention.ms"].update_mode == "cluster-wide"
    assert configs.BROKER_CONFIGS["listeners"].update_mode == "per-broker"


@pytest.mark.parametrize(
    ("key", "sensitive"),
    [
        ("ssl.keystore.password", True),
        ("sasl.jaas.config", True),
        ("ssl.keystore.key", True),
        ("delegation.token.secret.key", True),
        ("listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config", True),
        ("retention.ms", False),
        ("ssl.keystore.type", False),
        ("ssl.keystore.certificate.chain", True),
        ("ssl.truststore.type", False),
    ],
)
def test_is_sensitive(key: str, sensitive: bool) -> None:
    assert configs.is_sensitive(key) is sensitive


def test_suggest() -> None:
    assert configs.suggest("retension.ms") == "retention.ms"
    assert configs.suggest("cleanup-policy") == "cleanup.policy"
    assert configs.suggest("zzzzzz") is None
    assert configs.suggest("Topik", ["Topic", "Acl"]) == "Topic"


def test_quota_keys_per_entity() -> None:
    assert configs.quota_keys_for(["user"]) == configs.QUOTA_KEYS["user"]
    assert "controller_mutation_rate" in configs.quota_keys_for(["user", "client-id"])
    assert configs.quota_keys_for(["ip"]) == frozenset({"connection_creation_rate"})
    assert configs.quota_keys_for(["ip", "user"]) == frozenset()
    assert "connection_creation_rate" not in configs.QUOTA_KEYS["client-id"]


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("producer_byte_rate", 1048576, 1048576.0),
        ("producer_byte_rate", "1MiB", 1048576.0),
        ("request_percentage", "25.5", 25.5),
        ("connection_creation_rate", 10, 10.0),
    ],
)
def test_quota_value(key: str, value: object, expected: float) -> None:
    assert configs.quota_value(key, value) == expected


@pytest.mark.parametrize("value", [-1, "lots", True, float("nan")])
def test_quota_value_rejects(value: object) -> None:
    with pytest.raises(ValueError, match="producer_byte_rate"):
        configs.quota_value("producer_byte_rate", value)

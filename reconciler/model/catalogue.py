"""The data tables behind ``reconciler.model.configs``: Kafka 4.x topic configs, dynamic broker configs, quota keys,
group configs and client-metrics subscription settings.

Each entry records Kafka's type, unit, default (as the broker returns it), valid range or values and,
for broker configs, the update mode. Only data lives here; ``reconciler.model.configs`` holds the logic.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType

LONG_MAX = 9223372036854775807
INT_MAX = 2147483647


@dataclasses.dataclass(frozen=True, slots=True)
class ConfigSpec:
    """One config key: Kafka type, unit, default (as Kafka returns it), range or allowed values.

    ``update_mode`` is for broker configs: ``read-only`` (static, in server.properties only),
    ``per-broker`` (settable for one broker id only) or ``cluster-wide`` (per broker or as the cluster default).
    ``removed_in`` names the Kafka version that dropped the key, if any.
    """

    name: str
    type: str  # long | int | double | boolean | string | list | class | password
    unit: str | None = None  # "ms" | "bytes" | None
    default: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    update_mode: str | None = None
    removed_in: str | None = None
    doc: str = ""
    pattern: str | None = None  # a regular expression the whole value must match, as ``doc`` says


def _s(name: str, type_: str, default: str | None, **kw: object) -> ConfigSpec:
    return ConfigSpec(name, type_, default=default, **kw)  # type: ignore[arg-type]


# ShareGroupAutoOffsetResetStrategy: earliest, latest (as written) or by_duration: and a non-negative java.time.Duration
# (PnDTnHnMn.nS, letters in either case); checked against Kafka 4.4's own validator.
_SHARE_RESET = r"earliest|latest|by_duration:\+?(?i:P(?=\d|T\d)(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+([.,]\d{1,9})?S)?)?)"
_COMPRESSION = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")
_L = str(LONG_MAX)

TOPIC_CONFIGS: Mapping[str, ConfigSpec] = MappingProxyType(
    {
        s.name: s
        for s in (
            _s("cleanup.policy", "list", "delete", choices=("compact", "delete")),
            _s("compression.type", "string", "producer", choices=_COMPRESSION),
            _s("compression.gzip.level", "int", "-1", minimum=-1, maximum=9),
            _s("compression.lz4.level", "int", "9", minimum=1, maximum=17),
            _s("compression.zstd.level", "int", "3", minimum=-131072, maximum=22),
            _s("delete.retention.ms", "long", "86400000", unit="ms", minimum=0),
            _s("file.delete.delay.ms", "long", "60000", unit="ms", minimum=0),
            _s("flush.messages", "long", _L, minimum=1),
            _s("flush.ms", "long", _L, unit="ms", minimum=0),
            _s("follower.replication.throttled.replicas", "list", ""),
            _s("index.interval.bytes", "int", "4096", unit="bytes", minimum=0),
            _s("leader.replication.throttled.replicas", "list", ""),
            _s("local.retention.bytes", "long", "-2", unit="bytes", minimum=-2),
            _s("local.retention.ms", "long", "-2", unit="ms", minimum=-2),
            _s("max.compaction.lag.ms", "long", _L, unit="ms", minimum=1),
            _s("max.message.bytes", "int", "1048588", unit="bytes", minimum=0),
            _s("message.downconversion.enable", "boolean", "true", removed_in="4.0"),
            _s("message.format.version", "string", "3.0-IV1", removed_in="4.0"),
            _s("message.timestamp.after.max.ms", "long", "3600000", unit="ms", minimum=0),
            _s("message.timestamp.before.max.ms", "long", _L, unit="ms", minimum=0),
            _s("message.timestamp.difference.max.ms", "long", _L, unit="ms", minimum=0, removed_in="4.0"),
            _s("message.timestamp.type", "string", "CreateTime", choices=("CreateTime", "LogAppendTime")),
            _s("min.cleanable.dirty.ratio", "double", "0.5", minimum=0, maximum=1),
            _s("min.compaction.lag.ms", "long", "0", unit="ms", minimum=0),
            _s("min.insync.replicas", "int", "1", minimum=1),
            _s("preallocate", "boolean", "false"),
            _s("remote.log.copy.disable", "boolean", "false"),
            _s("remote.log.delete.on.disable", "boolean", "false"),
            _s("remote.storage.enable", "boolean", "false"),
            _s("retention.bytes", "long", "-1", unit="bytes", minimum=-1),
            _s("retention.ms", "long", "604800000", unit="ms", minimum=-1),
            _s("segment.bytes", "int", "1073741824", unit="bytes", minimum=1048576),
            _s("segment.index.bytes", "int", "10485760", unit="bytes", minimum=4),
            _s("segment.jitter.ms", "long", "0", unit="ms", minimum=0),
            _s("segment.ms", "long", "604800000", unit="ms", minimum=1),
            _s("unclean.leader.election.enable", "boolean", "false"),
        )
    }
)

_RO, _PB, _CW = "read-only", "per-broker", "cluster-wide"

BROKER_CONFIGS: Mapping[str, ConfigSpec] = MappingProxyType(
    {
        s.name: s
        for s in (
            # read-only: never altered dynamically, listed so the planner can lint effective values
            _s("auto.create.topics.enable", "boolean", "true", update_mode=_RO),
            _s("default.replication.factor", "int", "1", minimum=1, update_mode=_RO),
            _s("num.partitions", "int", "1", minimum=1, update_mode=_RO),
            _s("delete.topic.enable", "boolean", "true", update_mode=_RO),
            _s("offsets.topic.replication.factor", "int", "3", minimum=1, update_mode=_RO),
            _s("transaction.state.log.replication.factor", "int", "3", minimum=1, update_mode=_RO),
            _s("authorizer.class.name", "class", "", update_mode=_RO),
            _s("log.retention.hours", "int", "168", minimum=-1, update_mode=_RO),
            _s("log.retention.minutes", "int", None, minimum=-1, update_mode=_RO),
            _s("log.roll.hours", "int", "168", minimum=1, update_mode=_RO),
            # cluster-wide: settable for the cluster default or per broker
            _s("log.retention.ms", "long", None, unit="ms", minimum=-1, update_mode=_CW),
            _s("log.retention.bytes", "long", "-1", unit="bytes", minimum=-1, update_mode=_CW),
            _s("log.segment.bytes", "int", "1073741824", unit="bytes", minimum=1048576, update_mode=_CW),
            _s("log.roll.ms", "long", None, unit="ms", minimum=1, update_mode=_CW),
            _s("log.roll.jitter.ms", "long", None, unit="ms", minimum=0, update_mode=_CW),
            _s("log.cleanup.policy", "list", "delete", choices=("compact", "delete"), update_mode=_CW),
            _s("log.cleaner.threads", "int", "1", minimum=0, update_mode=_CW),
            _s("log.cleaner.dedupe.buffer.size", "long", "134217728", unit="bytes", update_mode=_CW),
            _s("log.cleaner.io.buffer.size", "int", "524288", unit="bytes", minimum=0, update_mode=_CW),
            _s("log.cleaner.io.max.bytes.per.second", "double", "1.7976931348623157E308", update_mode=_CW),
            _s("log.cleaner.backoff.ms", "long", "15000", unit="ms", minimum=0, update_mode=_CW),
            _s("log.cleaner.delete.retention.ms", "long", "86400000", unit="ms", minimum=0, update_mode=_CW),
            _s("log.cleaner.min.compaction.lag.ms", "long", "0", unit="ms", minimum=0, update_mode=_CW),
            _s("log.cleaner.max.compaction.lag.ms", "long", _L, unit="ms", minimum=1, update_mode=_CW),
            _s("log.cleaner.min.cleanable.ratio", "double", "0.5", minimum=0, maximum=1, update_mode=_CW),
            _s("log.flush.interval.messages", "long", _L, minimum=1, update_mode=_CW),
            _s("log.flush.interval.ms", "long", None, unit="ms", minimum=0, update_mode=_CW),
            _s("log.index.interval.bytes", "int", "4096", unit="bytes", minimum=0, update_mode=_CW),
            _s("log.index.size.max.bytes", "int", "10485760", unit="bytes", minimum=4, update_mode=_CW),
            _s("log.local.retention.ms", "long", "-2", unit="ms", minimum=-2, update_mode=_CW),
            _s("log.local.retention.bytes", "long", "-2", unit="bytes", minimum=-2, update_mode=_CW),
            _s(
                "log.message.timestamp.type",
                "string",
                "CreateTime",
                choices=("CreateTime", "LogAppendTime"),
                update_mode=_CW,
            ),
            _s("log.message.timestamp.before.max.ms", "long", _L, unit="ms", minimum=0, update_mode=_CW),
            _s("log.message.timestamp.after.max.ms", "long", "3600000", unit="ms", minimum=0, update_mode=_CW),
            _s("log.preallocate", "boolean", "false", update_mode=_CW),
            _s("log.segment.delete.delay.ms", "long", "60000", unit="ms", minimum=0, update_mode=_CW),
            _s("message.max.bytes", "int", "1048588", unit="bytes", minimum=0, update_mode=_CW),
            _s("min.insync.replicas", "int", "1", minimum=1, update_mode=_CW),
            _s("compression.type", "string", "producer", choices=_COMPRESSION, update_mode=_CW),
            _s("compression.gzip.level", "int", "-1", minimum=-1, maximum=9, update_mode=_CW),
            _s("compression.lz4.level", "int", "9", minimum=1, maximum=17, update_mode=_CW),
            _s("compression.zstd.level", "int", "3", minimum=-131072, maximum=22, update_mode=_CW),
            _s("unclean.leader.election.enable", "boolean", "false", update_mode=_CW),
            _s("num.io.threads", "int", "8", minimum=1, update_mode=_CW),
            _s("num.network.threads", "int", "3", minimum=1, update_mode=_CW),
            _s("num.replica.fetchers", "int", "1", minimum=1, update_mode=_CW),
            _s("num.recovery.threads.per.data.dir", "int", "2", minimum=1, update_mode=_CW),
            _s("background.threads", "int", "10", minimum=1, update_mode=_CW),
            _s("max.connections", "int", str(INT_MAX), minimum=0, update_mode=_CW),
            _s("max.connections.per.ip", "int", str(INT_MAX), minimum=0, update_mode=_CW),
            _s("max.connections.per.ip.overrides", "string", "", update_mode=_CW),
            _s("max.connection.creation.rate", "int", str(INT_MAX), minimum=0, update_mode=_CW),
            _s("leader.replication.throttled.rate", "long", _L, unit="bytes", minimum=0, update_mode=_CW),
            _s("follower.replication.throttled.rate", "long", _L, unit="bytes", minimum=0, update_mode=_CW),
            _s("replica.alter.log.dirs.io.max.bytes.per.second", "long", _L, unit="bytes", minimum=0, update_mode=_CW),
            _s("producer.id.expiration.ms", "int", "86400000", unit="ms", minimum=1, update_mode=_CW),
            _s("transaction.partition.verification.enable", "boolean", "true", update_mode=_CW),
            # per-broker: listener and TLS material of one broker
            _s("listeners", "string", None, update_mode=_PB),
            _s("advertised.listeners", "string", None, update_mode=_PB),
            _s("listener.security.protocol.map", "string", None, update_mode=_PB),
            _s("ssl.keystore.location", "string", None, update_mode=_PB),
            _s("ssl.keystore.password", "password", None, update_mode=_PB),
            _s("ssl.key.password", "password", None, update_mode=_PB),
            _s("ssl.keystore.type", "string", "JKS", update_mode=_PB),
            _s("ssl.truststore.location", "string", None, update_mode=_PB),
            _s("ssl.truststore.password", "password", None, update_mode=_PB),
            _s("ssl.truststore.type", "string", "JKS", update_mode=_PB),
            _s("ssl.client.auth", "string", "none", choices=("required", "requested", "none"), update_mode=_PB),
            _s("sasl.jaas.config", "password", None, update_mode=_PB),
        )
    }
)

# Group configs (config resource type GROUP; KIP-848 consumer groups, KIP-932 share groups, KIP-1071 streams
# groups), as a Kafka 4.4 broker describes them. Each falls back to the broker's ``group.<key>`` setting, and the
# broker bounds the session and heartbeat values by its own ``group.*.min/max`` settings (apply's validateOnly
# checks those).
GROUP_CONFIGS: Mapping[str, ConfigSpec] = MappingProxyType(
    {
        s.name: s
        for s in (
            _s("consumer.session.timeout.ms", "int", "45000", unit="ms", minimum=1),
            _s("consumer.heartbeat.interval.ms", "int", "5000", unit="ms", minimum=1),
            _s("consumer.assignment.interval.ms", "int", "1000", unit="ms", minimum=0),
            _s("share.session.timeout.ms", "int", "45000", unit="ms", minimum=1),
            _s("share.heartbeat.interval.ms", "int", "5000", unit="ms", minimum=1),
            _s("share.record.lock.duration.ms", "int", "30000", unit="ms", minimum=1000, maximum=3600000),
            _s(
                "share.auto.offset.reset",
                "string",
                "latest",
                doc="latest, earliest or by_duration:<ISO-8601>",
                pattern=_SHARE_RESET,
            ),
            _s("share.isolation.level", "string", "read_uncommitted", choices=("read_committed", "read_uncommitted")),
            _s("share.delivery.count.limit", "int", "5", minimum=2, maximum=10),
            _s("share.partition.max.record.locks", "int", "2000", minimum=100, maximum=10000),
            _s("share.assignment.interval.ms", "int", "1000", unit="ms", minimum=0),
            _s("share.renew.acknowledge.enable", "boolean", "true"),
            _s("streams.session.timeout.ms", "int", "45000", unit="ms", minimum=1),
            _s("streams.heartbeat.interval.ms", "int", "5000", unit="ms", minimum=1),
            _s("streams.num.standby.replicas", "int", "0", minimum=0),
            _s("streams.initial.rebalance.delay.ms", "int", "3000", unit="ms", minimum=0),
            _s("streams.assignment.interval.ms", "int", "1000", unit="ms", minimum=0),
            _s("streams.assignor.name", "string", "sticky"),
            _s("streams.rack.aware.assignment.tags", "list", ""),
            _s("errors.deadletterqueue.topic.name", "string", ""),
            _s("errors.deadletterqueue.copy.record.enable", "boolean", "false"),
        )
    }
)

# Client-metrics subscription settings (config resource type CLIENT_METRICS, KIP-714).
CLIENT_METRICS_CONFIGS: Mapping[str, ConfigSpec] = MappingProxyType(
    {
        s.name: s
        for s in (
            _s("metrics", "list", "", doc="metric name prefixes to push; * for every metric"),
            _s("interval.ms", "int", "300000", unit="ms", minimum=100, maximum=3600000),
            _s("match", "list", "", doc="selector=regex pairs; a client must match all of them"),
        )
    }
)
# The selectors a client-metrics subscription may match on (ClientMetricsConfigs.ALLOWED_MATCH_PARAMS).
CLIENT_METRICS_SELECTORS = (
    "client_instance_id",
    "client_id",
    "client_software_name",
    "client_software_version",
    "client_source_address",
    "client_source_port",
)

# Client quotas: entity combination -> allowed keys (KIP-55, KIP-257, KIP-546, KIP-599, KIP-612).
_CLIENT_QUOTAS = frozenset(
    {"producer_byte_rate", "consumer_byte_rate", "request_percentage", "controller_mutation_rate"}
)
QUOTA_KEYS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "user": _CLIENT_QUOTAS,
        "client-id": _CLIENT_QUOTAS,
        "user+client-id": _CLIENT_QUOTAS,
        "ip": frozenset({"connection_creation_rate"}),
    }
)

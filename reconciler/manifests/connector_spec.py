"""The ``Connector`` manifest model: a Kafka Connect connector (see ``reconciler.manifests.connectors`` for how a
document becomes a ``DesiredConnector``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from reconciler.manifests.fields import INT32_MAX, ConnectClusterName, Flag, Name, RefField, SecretRefSpec, Strict

Scalar = str | int | float | bool


class OffsetSpec(Strict):
    """One declared position of a connector (KIP-875): a partition as the connector names it and its offset."""

    partition: dict[str, Scalar] = Field(
        min_length=1,
        description="The partition as the connector names it: {kafka_topic: t, kafka_partition: 0} for a sink, "
        "the source's own keys for a source ({filename: /data/in.txt}).",
    )
    offset: dict[str, Scalar] | None = Field(
        description="The position: {kafka_offset: 5} for a sink, the source's own keys ({position: 0}); null "
        "resets that partition."
    )


class ConnectorSpec(Strict):
    """``Connector`` spec: a Kafka Connect connector on a Connect cluster of the Cluster profile, optionally run
    under a ``ConnectWorker`` grant whose principal gets the ACLs it needs."""

    class_name: str = Field(min_length=1, alias="class", description="connector.class (a class or an alias).")
    tasks_max: int = Field(default=1, strict=True, ge=1, le=INT32_MAX, description="tasks.max: most tasks to run.")
    version: str | None = Field(
        default=None,
        min_length=1,
        description="connector.plugin.version (KIP-891, Kafka Connect 4.1+): the version of the connector plugin to "
        "run, when the workers have several; a version they do not have blocks the connector with the versions they "
        "have. A version range ([1.0,2.0)) is passed to Connect as written.",
    )
    connect_cluster: ConnectClusterName | None = Field(
        default=None,
        description="The Kafka Connect cluster it runs on, by its name under connect.clusters of the Cluster profile; "
        "optional when the profile has one Connect cluster (the single form's is named default), required when it "
        "has several.",
    )
    state: Literal["running", "paused", "stopped"] = Field(default="running", description="The connector's state.")
    config: dict[str, str | int | float | bool] = Field(
        default_factory=dict,
        description="Config without connector.class, tasks.max and name; YAML scalars, compared as Connect's strings; "
        "${file:...} placeholders are passed through untouched.",
    )
    secrets: dict[str, SecretRefSpec] = Field(
        default_factory=dict, description="Config keys read from env/file at plan and apply; compared by digest."
    )
    reset_offsets_on_create: Flag = Field(
        default=False, description="On a re-create under a name whose offsets Connect kept, reset them first."
    )
    offsets: Annotated[list[OffsetSpec], Field(min_length=1)] | None = Field(
        default=None,
        description="Positions to set (KIP-875): applied when this list changes (the connector is stopped, its "
        "offsets altered, then put back in its state), never by a config change. The digest of the list last "
        "applied is kept in the connector's config (kafka-reconciler.offsets).",
    )
    worker: Name | None = Field(
        default=None,
        description="The ConnectWorker grant this connector runs under: its principal gets the ACLs the connector "
        "needs (a source writes its topics; a sink reads its topics as group <sinkGroupPrefix><name>).",
    )
    type: Literal["source", "sink"] | None = Field(
        default=None,
        description="source or sink, for the ACLs of worker; default from the class name (...Source, "
        "...SourceConnector, ...Sink, ...SinkConnector).",
    )
    acl_topics: Annotated[list[RefField], Field(min_length=1)] | None = Field(
        default=None,
        description="The topics the ACLs of worker cover when the config does not name them: a source's output "
        "topics (else its topic key), a topics.regex sink's topics. Names or {prefix: x}.",
    )

"""Manifests for tests of connectors: a Cluster profile naming the broker and a Kafka Connect URL, then a body."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.kafka.cluster import KafkaCluster


def write_connect_manifests(directory: Path, cluster: KafkaCluster, url: str, body: str) -> Path:
    """``directory`` holding ``cluster.yaml`` (the broker, and ``url`` as the Connect cluster) and ``body`` as is."""
    directory.mkdir(parents=True, exist_ok=True)
    profile = f"""\
        apiVersion: kafka-reconciler/v1
        kind: Cluster
        metadata: {{name: test}}
        spec:
          bootstrapServers: ["{cluster.bootstrap}"]
          connect: {{urls: ["{url}"]}}
        """
    (directory / "cluster.yaml").write_text(textwrap.dedent(profile))
    (directory / "connectors.yaml").write_text(body)
    return directory

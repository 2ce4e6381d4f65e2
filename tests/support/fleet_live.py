"""A fleet of live harness clusters written as a fleet.yaml, for the fleet tests that read real brokers."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.kafka.cluster import KafkaCluster
from tests.support.integration import closed_port


def write_fleet(root: Path, *, prefix: str, single: KafkaCluster, triple: KafkaCluster) -> Path:
    manifests = root / "manifests"
    manifests.mkdir(parents=True)
    (manifests / "topics.yaml").write_text(
        textwrap.dedent(
            f"""\
            apiVersion: kafka-reconciler/v1
            kind: Ownership
            metadata: {{name: fleet-test}}
            spec:
              topics: [{{prefix: "{prefix}"}}]
              delete: {{topic: true}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: Topic
            metadata: {{name: {prefix}orders}}
            spec:
              partitions: 2
              replicationFactor: 1
              configs: {{retention.ms: 1d}}
            ---
            apiVersion: kafka-reconciler/v1
            kind: Topic
            metadata: {{name: {prefix}payments}}
            spec:
              partitions: 1
              replicationFactor: 1
            """
        )
    )
    (root / "fleet.yaml").write_text(
        textwrap.dedent(
            f"""\
            defaults:
              manifests: manifests
              requestTimeoutMs: 5000
            clusters:
              - name: single
                bootstrap: {single.bootstrap}
              - name: triple
                bootstrap: {triple.bootstrap}
              - name: down
                bootstrap: 127.0.0.1:{closed_port()}
            """
        )
    )
    return root / "fleet.yaml"

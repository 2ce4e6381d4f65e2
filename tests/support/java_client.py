"""Kafka's own Java client, run on a ``client.properties`` file the way the Kafka CLI tools read ``--command-config``.

``list_topics`` launches ``ListTopics.java`` (a few lines around ``Admin.create(properties).listTopics()``) with the
JDK's single-file source launcher and the jars of the test broker's Kafka release on the class path, so a test can
show that Kafka itself accepts (or refuses) the very file the reconciler is given.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.kafka.dist import KafkaDistribution

SOURCE = Path(__file__).resolve().parent / "java" / "ListTopics.java"


def list_topics(
    dist: KafkaDistribution, properties: Path, *, timeout: float = 120.0
) -> subprocess.CompletedProcess[str]:
    """Run Kafka's Admin client on ``properties``; ``stdout`` lists the topic names, one a line."""
    command = ["java", "-cp", dist.classpath, *dist.logging_jvm_args(), str(SOURCE), str(properties)]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL
    )

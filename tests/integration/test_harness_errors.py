"""The Kafka test harness fails clearly: bad versions, busy ports and brokers that will not start are explained."""

from __future__ import annotations

import socket
import tempfile
from pathlib import Path

import pytest

from tests.kafka.cluster import KafkaCluster
from tests.kafka.dist import HarnessError, resolve
from tests.kafka.kinds import plaintext_properties, single_node, zookeeper_for
from tests.kafka.node import KafkaNode


@pytest.mark.parametrize("version", ["4.4", "latest", "1.1.1"])
def test_unusable_kafka_version_is_refused_by_name(version: str) -> None:
    with pytest.raises(HarnessError, match=version.replace(".", r"\.")):
        resolve(version)


@pytest.mark.kafka
@pytest.mark.every_version  # the harness's failures on each release and mode
def test_busy_fixed_port_is_reported_before_anything_starts() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(HarnessError, match=f"port {port} on 127.0.0.1 is already in use"):
            single_node(port=port)


@pytest.mark.kafka
@pytest.mark.every_version  # the harness's failures on each release and mode
def test_broker_that_exits_at_start_is_reported_with_its_log() -> None:
    def broken(cluster: KafkaCluster, node: KafkaNode) -> dict[str, str]:
        return {**plaintext_properties(cluster, node), "authorizer.class.name": "com.example.NoSuchAuthorizer"}

    dist = resolve()
    root = Path(tempfile.mkdtemp(prefix="kafka-test-broken-"))
    node = KafkaNode(dist=dist, node_id=1, workdir=root / "node-1")
    cluster = KafkaCluster(
        name="broken",
        dist=dist,
        nodes=[node],
        workdir=root,
        make_properties=broken,
        zookeeper=zookeeper_for(dist, root),
    )
    try:
        with pytest.raises(HarnessError) as failure:
            cluster.start()
    finally:
        cluster.close()
    message = str(failure.value)
    assert "com.example.NoSuchAuthorizer" in message
    assert "exited with code" in message
    assert str(node.log_path) in message
    assert not node.running
    assert not root.exists()

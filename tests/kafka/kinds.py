"""The three kinds of test cluster: their broker properties and constructors.

- ``single_node``: one combined broker+controller, PLAINTEXT.
- ``sasl_node``: one node with a SASL_PLAINTEXT client listener (PLAIN and SCRAM-SHA-256/512), the KRaft
  ``StandardAuthorizer``, super user ``admin`` and least-privilege users alice, bob and carol with random passwords.
- ``proxied_node``: ``single_node`` with a second PLAINTEXT listener advertised at a fault proxy's address, so a
  client bootstrapped through the proxy stays behind it (``tests.support.faultproxy``); the harness uses the first.
- ``three_node_cluster``: three combined nodes forming a 3-voter quorum, racks r1, r1, r2; ``multi_node`` any
  number of them (the benchmarks spread many partitions over several broker processes).

With ``KAFKA_MODE=zookeeper`` (always for Kafka 2.x) each cluster instead runs a ZooKeeper server of its own and
brokers with ``zookeeper.connect``; the authorizer is then ZooKeeper's ``AclAuthorizer``.

Constructors return a started ``KafkaCluster``; the caller closes it.
"""

from __future__ import annotations

import secrets
import tempfile
from pathlib import Path

from tests.kafka.cluster import SASL_LISTENER, Credentials, KafkaCluster
from tests.kafka.dist import HarnessError, KafkaDistribution, resolve, selected_mode
from tests.kafka.node import KafkaNode
from tests.kafka.zookeeper import ZooKeeperServer
from tests.support.faultproxy import FaultProxy

SCRAM_MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")
AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
ZK_AUTHORIZER = "kafka.security.authorizer.AclAuthorizer"
EXTRA_USERS = ("alice", "bob", "carol")
RACKS = ("r1", "r1", "r2")


def single_node(
    *,
    version: str | None = None,
    port: int | None = None,
    workdir: Path | None = None,
    die_with_parent: bool = True,
    authorizer: bool = False,
) -> KafkaCluster:
    """Start one PLAINTEXT node; ``port`` fixes the client port (else a free one), ``workdir`` keeps files there.

    With ``authorizer`` the node runs the StandardAuthorizer with every PLAINTEXT client (``User:ANONYMOUS``) a
    super user: ACLs can be created and read, and nobody is refused. ``make kafka-up`` starts this variant so the
    shipped examples (which declare ACLs) apply as they are.
    """
    dist = resolve(version)
    root = _workdir(workdir, "single")
    node = KafkaNode(dist=dist, node_id=1, workdir=root / "node-1", die_with_parent=die_with_parent)
    cluster = KafkaCluster(
        name="single",
        dist=dist,
        nodes=[node],
        workdir=root,
        make_properties=open_authorizer_properties if authorizer else plaintext_properties,
        fixed_port=port,
        remove_workdir=workdir is None,
        zookeeper=zookeeper_for(dist, root, die_with_parent=die_with_parent),
    )
    return _started(cluster)


def proxied_node(proxy: FaultProxy, *, version: str | None = None) -> KafkaCluster:
    """Start one PLAINTEXT node whose ``PROXIED`` listener is advertised at ``proxy``'s port; the proxy forwards
    there. Connect the tool to ``proxy.address``."""
    dist = resolve(version)
    root = _workdir(None, "proxied")
    node = KafkaNode(dist=dist, node_id=1, workdir=root / "node-1")

    def properties(cluster: KafkaCluster, n: KafkaNode) -> dict[str, str]:
        props = plaintext_properties(cluster, n)
        behind = f"PROXIED://127.0.0.1:{n.listener_ports['PROXIED']}"
        props["listeners"] += f",{behind}"
        props["advertised.listeners"] += f",PROXIED://127.0.0.1:{proxy.port}"
        protocols = "PLAINTEXT:PLAINTEXT,PROXIED:PLAINTEXT"
        props["listener.security.protocol.map"] = protocols + ("" if cluster.zookeeper else ",CONTROLLER:PLAINTEXT")
        props["inter.broker.listener.name"] = "PLAINTEXT"
        return props

    cluster = KafkaCluster(
        name="proxied",
        dist=dist,
        nodes=[node],
        workdir=root,
        make_properties=properties,
        extra_listeners=("PROXIED",),
        zookeeper=zookeeper_for(dist, root),
    )
    proxy.upstream = lambda: ("127.0.0.1", node.listener_ports["PROXIED"])
    return _started(cluster)


def sasl_node(*, version: str | None = None) -> KafkaCluster:
    """Start one SASL_PLAINTEXT node with ACLs enforced by the StandardAuthorizer."""
    dist = resolve(version)
    root = _workdir(None, "sasl")
    node = KafkaNode(dist=dist, node_id=1, workdir=root / "node-1")
    cluster = KafkaCluster(
        name="sasl",
        dist=dist,
        nodes=[node],
        workdir=root,
        make_properties=sasl_properties,
        admin=Credentials("admin", secrets.token_urlsafe(16)),
        users={name: secrets.token_urlsafe(16) for name in EXTRA_USERS},
        zookeeper=zookeeper_for(dist, root),
    )
    return _started(cluster)


def three_node_cluster(*, version: str | None = None) -> KafkaCluster:
    """Start three combined nodes (a 3-voter quorum) with ``broker.rack`` r1, r1, r2."""
    return multi_node(len(RACKS), version=version, racks=RACKS)


def multi_node(
    count: int, *, version: str | None = None, authorizer: bool = False, racks: tuple[str, ...] | None = None
) -> KafkaCluster:
    """Start ``count`` combined nodes (a ``count``-voter quorum), by default each in a rack of its own (r1, r2, ...).

    Each node is its own JVM, so partitions spread over several processes (each has its own open-file limit); the
    controller places replicas rack by rack, so only one rack per node spreads them evenly (with r1, r1, r2, r3, r4
    the two r1 nodes get half as many). ``authorizer`` as in ``single_node``.
    """
    dist = resolve(version)
    root = _workdir(None, f"cluster{count}")
    racks = racks or tuple(f"r{i + 1}" for i in range(count))
    if len(racks) != count:
        raise HarnessError(f"{count} nodes need {count} racks, got {racks}")
    nodes = [
        KafkaNode(dist=dist, node_id=i + 1, workdir=root / f"node-{i + 1}", rack=rack) for i, rack in enumerate(racks)
    ]
    cluster = KafkaCluster(
        name=f"cluster{count}",
        dist=dist,
        nodes=nodes,
        workdir=root,
        make_properties=open_authorizer_properties if authorizer else plaintext_properties,
        zookeeper=zookeeper_for(dist, root),
    )
    return _started(cluster)


def zookeeper_for(dist: KafkaDistribution, root: Path, *, die_with_parent: bool = True) -> ZooKeeperServer | None:
    """A ZooKeeper server for the cluster when ``KAFKA_MODE=zookeeper`` (always for Kafka 2.x), else ``None``."""
    if selected_mode(dist.version) != "zookeeper":
        return None
    return ZooKeeperServer(dist=dist, workdir=root / "zookeeper", die_with_parent=die_with_parent)


def _workdir(given: Path | None, kind: str) -> Path:
    if given is not None:
        given.mkdir(parents=True, exist_ok=True)
        return given
    return Path(tempfile.mkdtemp(prefix=f"kafka-test-{kind}-"))


def _started(cluster: KafkaCluster) -> KafkaCluster:
    try:
        cluster.start()
    except BaseException:
        cluster.close()
        raise
    return cluster


def base_properties(cluster: KafkaCluster, node: KafkaNode, *, replication: int) -> dict[str, str]:
    if cluster.zookeeper is not None:
        props = {
            "broker.id": str(node.node_id),
            "zookeeper.connect": cluster.zookeeper.connect,
            "zookeeper.connection.timeout.ms": "30000",
            # A killed broker leaves the cluster when its session expires: 10 s instead of the default 18 s.
            "zookeeper.session.timeout.ms": "10000",
        }
    else:
        props = {
            "process.roles": "broker,controller",
            "node.id": str(node.node_id),
            "controller.quorum.voters": cluster.voters,
            "controller.listener.names": "CONTROLLER",
        }
    props |= {
        "log.dirs": str(node.data_dir),
        "num.partitions": "1",
        "auto.create.topics.enable": "false",
        "offsets.topic.replication.factor": str(replication),
        "offsets.topic.num.partitions": "5",
        "transaction.state.log.replication.factor": str(replication),
        "transaction.state.log.min.isr": "1",
        "transaction.state.log.num.partitions": "5",
        "group.initial.rebalance.delay.ms": "0",
        "num.network.threads": "2",
        "num.io.threads": "2",
        "background.threads": "2",
        "num.recovery.threads.per.data.dir": "1",
        "log.cleaner.threads": "1",
        "log.cleaner.dedupe.buffer.size": str(8 * 1024 * 1024),
    }
    if cluster.dist.major >= 4:
        props["share.coordinator.state.topic.replication.factor"] = str(replication)
        props["share.coordinator.state.topic.min.isr"] = "1"
        props["share.coordinator.state.topic.num.partitions"] = "5"
    if node.rack is not None:
        props["broker.rack"] = node.rack
    return props


def plaintext_properties(cluster: KafkaCluster, node: KafkaNode) -> dict[str, str]:
    props = base_properties(cluster, node, replication=min(3, len(cluster.nodes)))
    if cluster.zookeeper is not None:
        props.update(
            {
                "listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
                "advertised.listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
            }
        )
        return props
    props.update(
        {
            "listeners": f"PLAINTEXT://127.0.0.1:{node.port},CONTROLLER://127.0.0.1:{node.controller_port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "inter.broker.listener.name": "PLAINTEXT",
        }
    )
    return props


def open_authorizer_properties(cluster: KafkaCluster, node: KafkaNode) -> dict[str, str]:
    props = plaintext_properties(cluster, node)
    authorizer = ZK_AUTHORIZER if cluster.zookeeper is not None else AUTHORIZER
    props.update({"authorizer.class.name": authorizer, "super.users": "User:ANONYMOUS"})
    return props


def sasl_properties(cluster: KafkaCluster, node: KafkaNode) -> dict[str, str]:
    assert cluster.admin is not None
    admin = cluster.admin
    accounts = {admin.username: admin.password, **cluster.users}
    plain_users = " ".join(f'user_{name}="{password}"' for name, password in accounts.items())
    prefix = f"listener.name.{SASL_LISTENER.lower()}"
    props = base_properties(cluster, node, replication=1)
    zk = cluster.zookeeper is not None
    listeners = f"{SASL_LISTENER}://127.0.0.1:{node.port}"
    props.update(
        {
            "listeners": listeners if zk else f"{listeners},CONTROLLER://127.0.0.1:{node.controller_port}",
            "advertised.listeners": listeners,
            "listener.security.protocol.map": f"{SASL_LISTENER}:{SASL_LISTENER}"
            + ("" if zk else ",CONTROLLER:PLAINTEXT"),
            "inter.broker.listener.name": SASL_LISTENER,
            "sasl.enabled.mechanisms": ",".join(("PLAIN", *SCRAM_MECHANISMS)),
            "sasl.mechanism.inter.broker.protocol": "PLAIN",
            f"{prefix}.plain.sasl.jaas.config": (
                "org.apache.kafka.common.security.plain.PlainLoginModule required "
                f'username="{admin.username}" password="{admin.password}" {plain_users};'
            ),
            "authorizer.class.name": ZK_AUTHORIZER if zk else AUTHORIZER,
            # The controller listener is PLAINTEXT, so the broker talks to the controller as ANONYMOUS.
            "super.users": f"User:{admin.username};User:ANONYMOUS",
            "allow.everyone.if.no.acl.found": "false",
        }
    )
    for mechanism in SCRAM_MECHANISMS:
        props[f"{prefix}.{mechanism.lower()}.sasl.jaas.config"] = (
            "org.apache.kafka.common.security.scram.ScramLoginModule required;"
        )
    return props

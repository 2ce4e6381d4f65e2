"""Real Kafka clusters for tests: a PLAINTEXT node, a SASL+ACL node and a 3-node rack-aware cluster.

Every cluster runs on 127.0.0.1 with free ports chosen at start, in its own temporary directory. ``start`` formats
KRaft storage and launches all nodes in parallel, then polls them over the Kafka protocol (kafka-python
``describe_cluster``) until every broker is registered and unfenced.
"""

from __future__ import annotations

import base64
import contextlib
import shutil
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka import KafkaAdminClient

from reconciler.connection.settings import ConnectionSettings, Secret
from reconciler.kafka import netfix
from tests.kafka.dist import HarnessError, KafkaDistribution
from tests.kafka.node import KafkaNode
from tests.kafka.zookeeper import ZooKeeperServer

# The probes of a cluster's nodes run in threads at once: kafka-python's versioned classes made one thread at a time
# (the tool's own correction), else a race left every ApiVersions answer undecodable in this process.
netfix.install()

SASL_LISTENER = "SASL_PLAINTEXT"
PORT_ATTEMPTS = 3
CLIENT_TIMEOUT_MS = 20_000


@dataclass(frozen=True)
class Credentials:
    """A SASL user; the password is kept out of ``repr`` so it never lands in test output."""

    username: str
    password: str = field(repr=False)


class KafkaCluster:
    """A running set of Kafka nodes plus what a client needs to reach it."""

    def __init__(
        self,
        *,
        name: str,
        dist: KafkaDistribution,
        nodes: list[KafkaNode],
        workdir: Path,
        make_properties: Callable[[KafkaCluster, KafkaNode], dict[str, str]],
        admin: Credentials | None = None,
        users: dict[str, str] | None = None,
        fixed_port: int | None = None,
        remove_workdir: bool = True,
        extra_listeners: tuple[str, ...] = (),
        zookeeper: ZooKeeperServer | None = None,
    ) -> None:
        self.name = name
        self.dist = dist
        self.nodes = nodes
        self.workdir = workdir
        self.admin = admin
        self.users: dict[str, str] = dict(users or {})
        self.cluster_id = new_cluster_id()
        self.start_seconds: float | None = None
        self._make_properties = make_properties
        self._remove_workdir = remove_workdir
        self._fixed_port = fixed_port
        self.extra_listeners = extra_listeners
        # ZooKeeper mode (Kafka 2.x, 3.x): the brokers' metadata lives in this server instead of a KRaft quorum.
        self.zookeeper = zookeeper
        for node in nodes:
            node.ready_check = self._node_registered
            node.after_start = self.wait_ready

    def __repr__(self) -> str:
        mode = ", ZooKeeper" if self.zookeeper is not None else ""
        return f"KafkaCluster({self.name}, Kafka {self.dist.version}{mode}, bootstrap={self.bootstrap})"

    @property
    def version(self) -> str:
        return self.dist.version

    @property
    def bootstrap(self) -> str:
        return ",".join(node.bootstrap for node in self.nodes)

    @property
    def security_protocol(self) -> str:
        return SASL_LISTENER if self.admin is not None else "PLAINTEXT"

    @property
    def voters(self) -> str:
        return ",".join(f"{n.node_id}@127.0.0.1:{n.controller_port}" for n in self.nodes)

    def client_kwargs(
        self, user: str | None = None, *, mechanism: str = "PLAIN", password: str | None = None
    ) -> dict[str, Any]:
        """kafka-python keyword arguments to authenticate as ``user`` (default: the super user ``admin``).

        ``bootstrap_servers`` is not included. On a PLAINTEXT cluster only ``security_protocol`` is returned.
        For SCRAM users created by a test, pass ``mechanism`` and the ``password`` the test chose.
        """
        if self.admin is None:
            if user is not None:
                raise HarnessError(f"{self.name} has no authentication; cannot connect as {user!r}")
            return {"security_protocol": "PLAINTEXT"}
        name = user or self.admin.username
        if password is None:
            if name == self.admin.username:
                password = self.admin.password
            elif name in self.users:
                password = self.users[name]
            else:
                raise HarnessError(f"unknown user {name!r} on {self.name}; known: admin, {', '.join(self.users)}")
        return {
            "security_protocol": SASL_LISTENER,
            "sasl_mechanism": mechanism,
            "sasl_plain_username": name,
            "sasl_plain_password": password,
        }

    def connection_settings(
        self,
        user: str | None = None,
        *,
        mechanism: str = "PLAIN",
        password: str | None = None,
        request_timeout_ms: int = CLIENT_TIMEOUT_MS,
    ) -> ConnectionSettings:
        """The reconciler's ``ConnectionSettings`` for this cluster, authenticated as in ``client_kwargs``."""
        kwargs = self.client_kwargs(user, mechanism=mechanism, password=password)
        servers = tuple(node.bootstrap for node in self.nodes)
        if self.admin is None:
            return ConnectionSettings(bootstrap_servers=servers, request_timeout_ms=request_timeout_ms)
        return ConnectionSettings(
            bootstrap_servers=servers,
            security_protocol=kwargs["security_protocol"],
            sasl_mechanism=kwargs["sasl_mechanism"],
            username=kwargs["sasl_plain_username"],
            password=Secret(kwargs["sasl_plain_password"]),
            request_timeout_ms=request_timeout_ms,
        )

    def write_command_config(self, path: Path, user: str | None = None, *, password: str | None = None) -> Path:
        """Write a Kafka CLI ``--command-config`` properties file (SASL/PLAIN) for ``user``; returns ``path``.

        ``password`` replaces the user's real one, e.g. to test a refused login. The JAAS line is continued with a
        trailing backslash, as in Kafka's own examples.
        """
        kwargs = self.client_kwargs(user)
        if self.admin is None:
            raise HarnessError(f"{self.name} has no authentication; a command config would be empty")
        secret = password if password is not None else kwargs["sasl_plain_password"]
        path.write_text(
            f"security.protocol={kwargs['security_protocol']}\n"
            f"sasl.mechanism={kwargs['sasl_mechanism']}\n"
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n"
            f'  username="{kwargs["sasl_plain_username"]}" password="{secret}";\n',
            encoding="utf-8",
        )
        path.chmod(0o600)
        return path

    def admin_client(self, user: str | None = None, **overrides: Any) -> KafkaAdminClient:
        """A new kafka-python admin client for this cluster (the caller closes it)."""
        options: dict[str, Any] = {
            "bootstrap_servers": self.bootstrap,
            "client_id": "kafka-reconciler-tests",
            "request_timeout_ms": 15000,
            **self.client_kwargs(user),
        }
        options.update(overrides)
        return KafkaAdminClient(**options)

    @contextlib.contextmanager
    def admin_session(self, user: str | None = None, **overrides: Any) -> Iterator[KafkaAdminClient]:
        client = self.admin_client(user, **overrides)
        try:
            yield client
        finally:
            client.close()

    def start(self) -> None:
        """Pick ports, write configs, format storage and start all nodes in parallel; wait until all answer."""
        began = time.monotonic()
        for attempt in range(1, PORT_ATTEMPTS + 1):
            self._assign_ports()
            if self.zookeeper is not None and not self.zookeeper.running:
                self.zookeeper.start(port=free_ports(1)[0])
            for node in self.nodes:
                node.write_config(self._make_properties(self, node))
            if self.zookeeper is None:
                with ThreadPoolExecutor(max_workers=len(self.nodes)) as pool:
                    list(pool.map(lambda n: n.format_storage(self.cluster_id), self.nodes))
            for node in self.nodes:
                node.launch()
            try:
                self.wait_ready()
                break
            except HarnessError:
                if attempt < PORT_ATTEMPTS and any(n.log_contains("Address already in use") for n in self.nodes):
                    self._kill_nodes()
                    for node in self.nodes:
                        shutil.rmtree(node.data_dir, ignore_errors=True)
                    continue
                self._kill_nodes()
                raise
        if self.zookeeper is not None:
            # In ZooKeeper mode the first broker makes up the cluster id; read it back.
            with self.admin_session() as admin:
                self.cluster_id = str(admin._manager.cluster.cluster_id)
        self.start_seconds = time.monotonic() - began

    def wait_ready(self, *, timeout: float | None = None) -> None:
        """Block until every running node answers and sees all running brokers registered and unfenced."""
        with ThreadPoolExecutor(max_workers=len(self.nodes)) as pool:
            running = [n for n in self.nodes if n.running]
            list(pool.map(lambda n: n.wait_ready(timeout=timeout), running))

    def ensure_running(self) -> None:
        """Restart any node a test left stopped and wait for the whole cluster."""
        for node in self.nodes:
            if not node.running:
                node.launch()
        self.wait_ready()

    def live_brokers(self, user: str | None = None) -> set[int]:
        """Node ids of the registered, unfenced brokers, as the cluster reports them."""
        with self.admin_session(user) as admin:
            if self.zookeeper is not None:
                return {int(b.node_id) for b in admin._manager.cluster.brokers()}
            return _unfenced(admin.describe_cluster())

    def describe(self) -> dict[str, Any]:
        """``{"controller_id": id, "brokers": [{"broker_id": id, "rack": rack}, ...]}`` as the cluster reports it.

        KRaft: kafka-python's ``describe_cluster``. ZooKeeper mode: the Metadata answer (kafka-python cannot decode
        Kafka 2.8's DescribeCluster v0, and there the Metadata controller is the real one).
        """
        with self.admin_session() as admin:
            if self.zookeeper is None:
                return dict(admin.describe_cluster())
            metadata = admin._manager.cluster
            controller = metadata.controller
            return {
                "controller_id": None if controller is None else int(controller.node_id),
                "brokers": [{"broker_id": int(b.node_id), "rack": b.rack} for b in metadata.brokers()],
            }

    def close(self) -> None:
        """Stop every node (SIGKILL: the data is thrown away) and remove the working directory."""
        self._kill_nodes()
        if self.zookeeper is not None:
            self.zookeeper.stop()
        if self._remove_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def _kill_nodes(self) -> None:
        for node in self.nodes:
            node.kill()

    def _assign_ports(self) -> None:
        ports = iter(free_ports((2 + len(self.extra_listeners)) * len(self.nodes)))
        for node in self.nodes:
            node.port = next(ports)
            node.controller_port = next(ports)
            node.listener_ports = {name: next(ports) for name in self.extra_listeners}
        if self._fixed_port is not None:
            if not port_available(self._fixed_port):
                raise HarnessError(f"port {self._fixed_port} on 127.0.0.1 is already in use; choose another port")
            self.nodes[0].port = self._fixed_port

    def _node_registered(self, node: KafkaNode) -> bool:
        """True once ``node`` answers and reports itself and every other running node as unfenced brokers."""
        if not port_open(node.port):
            return False
        try:
            admin = KafkaAdminClient(
                bootstrap_servers=node.bootstrap,
                client_id="kafka-test-harness-probe",
                request_timeout_ms=5000,
                bootstrap_timeout_ms=5000,
                **self.client_kwargs(),
            )
        except Exception:
            return False
        expected = {n.node_id for n in self.nodes if n.running} | {node.node_id}
        try:
            if self.zookeeper is not None:
                # kafka-python's describe_cluster cannot decode DescribeCluster v0 (Kafka 2.8); the bootstrap
                # Metadata answer lists the registered brokers in ZooKeeper mode (no fencing there).
                return expected <= {int(b.node_id) for b in admin._manager.cluster.brokers()}
            return expected <= _unfenced(admin.describe_cluster())
        except Exception:
            return False
        finally:
            admin.close()


def _unfenced(description: dict[str, Any]) -> set[int]:
    return {int(b["broker_id"]) for b in description["brokers"] if not b.get("is_fenced", False)}


def new_cluster_id() -> str:
    """A random KRaft cluster id; like Kafka's own ``Uuid.randomUuid``, never one starting with ``-``.

    The storage tool would read such an id as an option and refuse to format.
    """
    while True:
        candidate = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not candidate.startswith("-"):
            return candidate


def free_ports(count: int) -> list[int]:
    """``count`` distinct ports that were free on 127.0.0.1 a moment ago."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for sock in sockets:
            sock.close()


def port_available(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0

"""Shared pytest fixtures: real Kafka clusters (started lazily, once per session) and unique topic prefixes.

``kafka_single``, ``kafka_sasl``, ``kafka_cluster3`` and ``kafka_secure`` start on first use and stop at the end
of the session, also when tests fail; ``connect_worker`` is a Kafka Connect worker next to ``kafka_single``, one per
session (launched as soon as ``kafka_single`` answers when the session has tests that use it, so it starts while
other tests run), and ``private_connect_worker`` one per test module for modules that need a worker of their own.
``schema_registry`` is a Schema Registry (Apicurio Registry, built on first use), one per session, started when a
test first asks for it. Tests using them are marked ``kafka`` automatically (and ``registry`` for the registry's),
so ``-m "not kafka"``
runs the pure tests only. ``KAFKA_VERSION`` selects the broker version (default 4.4.0; 3.9.x and 2.8.x are also
supported) and ``KAFKA_MODE=zookeeper`` a ZooKeeper-mode cluster (always so for 2.8.x).
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from collections.abc import Iterator
from types import FrameType
from typing import TypeVar

import pytest
from hypothesis import settings as hypothesis_settings

from tests.kafka.cluster import KafkaCluster
from tests.kafka.connect import ConnectWorker
from tests.kafka.kinds import sasl_node, single_node, three_node_cluster
from tests.kafka.registry import SchemaRegistryServer
from tests.kafka.secure import SecureCluster, secure_node
from tests.support.durations import ModuleDurations

# The suite is a regression gate: by default every run draws the same property-test examples, so a red run is
# a real regression that reruns the same way. HYPOTHESIS_PROFILE=explore draws new examples on each run (as
# benchmarks/fuzz_campaign.py does at a larger scale); a failure it finds is then kept as an explicit example.
hypothesis_settings.register_profile("gate", derandomize=True)
hypothesis_settings.register_profile("explore", derandomize=False)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "gate"))

KAFKA_FIXTURES = frozenset(
    {
        "kafka_single",
        "kafka_sasl",
        "kafka_cluster3",
        "kafka_secure",
        "connect_worker",
        "private_connect_worker",
        "schema_registry",
    }
)
_started: list[KafkaCluster] = []


class _SharedConnect:
    """The session's Connect worker: whether a selected test uses it, and the worker once launched."""

    wanted = False
    worker: ConnectWorker | None = None


_shared_connect = _SharedConnect()
C = TypeVar("C", bound=KafkaCluster)
_session_began = time.monotonic()


def _interrupt_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"received signal {signum}")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--durations-check",
        action="store_true",
        help="warn about test modules 2x slower than their baseline in tests/durations/ (tests/support/durations.py)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # A SIGTERM to the test run unwinds like Ctrl-C, so session fixtures stop their brokers.
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _interrupt_on_sigterm)
    if config.getoption("--durations-check"):
        config.pluginmanager.register(ModuleDurations(config), "module-durations")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if KAFKA_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.kafka)
        if "schema_registry" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.registry)


def pytest_collection_finish(session: pytest.Session) -> None:
    # Whether a selected test uses the session's Connect worker (a module with its own overrides connect_worker with
    # private_connect_worker): kafka_single then launches it as soon as the broker answers.
    _shared_connect.wanted = any(
        "connect_worker" in names and "private_connect_worker" not in names
        for names in (getattr(item, "fixturenames", ()) for item in session.items)
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _started:
        return
    terminalreporter.section("Kafka clusters")
    for cluster in _started:
        seconds = f"{cluster.start_seconds:.1f}s" if cluster.start_seconds is not None else "?"
        terminalreporter.write_line(
            f"{cluster.name}: Kafka {cluster.version}, {len(cluster.nodes)} node(s), answered {seconds} after start"
        )
    terminalreporter.write_line(f"whole test run: {time.monotonic() - _session_began:.1f}s")


def _session_cluster(cluster: C) -> Iterator[C]:
    _started.append(cluster)
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture(scope="session")
def kafka_single(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaCluster]:
    """One PLAINTEXT KRaft node (broker+controller); ``.bootstrap`` is ``127.0.0.1:PORT``."""
    cluster = single_node()
    _started.append(cluster)
    try:
        if _shared_connect.wanted:  # the session's Connect worker starts while the tests before its first user run
            _shared_connect.worker = _connect_worker(cluster, tmp_path_factory)
            _shared_connect.worker.start_in_background()
        yield cluster
    finally:
        try:
            if _shared_connect.worker is not None:
                _shared_connect.worker.close()  # before the broker it works on
        finally:
            cluster.close()


@pytest.fixture(scope="session")
def kafka_sasl() -> Iterator[KafkaCluster]:
    """One SASL_PLAINTEXT node with ACLs enforced; super user ``.admin``, least-privilege ``.users``."""
    yield from _session_cluster(sasl_node())


@pytest.fixture(scope="session")
def kafka_cluster3() -> Iterator[KafkaCluster]:
    """Three combined nodes, racks r1, r1, r2. Tests that stop nodes must restart them (``ensure_running``)."""
    yield from _session_cluster(three_node_cluster())


@pytest.fixture(scope="session")
def kafka_secure() -> Iterator[SecureCluster]:
    """One node with TLS, mTLS, SASL_SSL/SCRAM and SASL_SSL/OAUTHBEARER listeners, a test PKI and an OIDC server."""
    yield from _session_cluster(secure_node())


def _connect_worker(cluster: KafkaCluster, tmp_path_factory: pytest.TempPathFactory) -> ConnectWorker:
    group = f"connect-{secrets.token_hex(3)}"
    return ConnectWorker(bootstrap=cluster.bootstrap, workdir=tmp_path_factory.mktemp(group), group_id=group)


@pytest.fixture(scope="session")
def connect_worker(kafka_single: KafkaCluster, tmp_path_factory: pytest.TempPathFactory) -> ConnectWorker:
    """The session's Kafka Connect distributed worker (4.3.1, FileStream and MirrorMaker 2 plugins) on
    ``kafka_single``, shared by every test module that uses it: tests name their connectors with their
    ``topic_prefix`` and look only at their own, since other modules' connectors are on it too. ``.url`` is its REST
    address. It stops before ``kafka_single`` does."""
    if _shared_connect.worker is None:  # not launched with the broker: kafka_single started before collection ended
        _shared_connect.worker = _connect_worker(kafka_single, tmp_path_factory)
    _shared_connect.worker.wait_started()
    return _shared_connect.worker


@pytest.fixture(scope="module")
def private_connect_worker(
    kafka_single: KafkaCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ConnectWorker]:
    """A Kafka Connect worker of one test module's own (its own group and storage topics), for modules that kill,
    restart or join workers or whose connectors or timing bounds the shared worker would disturb; such a module
    overrides ``connect_worker`` with it, saying why."""
    worker = _connect_worker(kafka_single, tmp_path_factory)
    try:
        worker.start()
        yield worker
    finally:
        worker.close()


@pytest.fixture(scope="session")
def schema_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SchemaRegistryServer]:
    """The session's Schema Registry (Apicurio Registry 2.4.2, in-memory storage; its Confluent-compatible API at
    ``api_url``), built on first use and started when a test first asks for it; tests use subject names of their
    own (``topic_prefix``)."""
    server = SchemaRegistryServer(workdir=tmp_path_factory.mktemp("schema-registry"))
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture(autouse=True)
def _restart_stopped_nodes() -> Iterator[None]:
    """After each test, bring back any node a test stopped or killed, so the next test sees a whole cluster."""
    yield
    for cluster in _started:
        if not all(node.running for node in cluster.nodes):
            cluster.ensure_running()


@pytest.fixture
def topic_prefix() -> str:
    """A unique prefix such as ``t-3f9a1c-`` so tests never see each other's topics, groups or principals."""
    return f"t-{secrets.token_hex(3)}-"

"""Connection failures are named, fast and quiet; the plan and apply headers name the cluster they talk to.

Each failure is provoked against a real endpoint: a port nothing listens on, a host that cannot resolve
(``.invalid`` is reserved, RFC 2606), a real PLAINTEXT Kafka listener spoken to with SASL or TLS, a real
SASL listener spoken to in PLAINTEXT, and a socket that accepts and never answers. The request timeout is left
long (60 s), so a message naming the cause (rather than "no broker answered within 60s") shows that the tool
stopped at the cause instead of waiting out the timeout.
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler import operations
from reconciler.base import errors
from reconciler.connection.settings import ConnectionSettings, Secret
from reconciler.kafka import bootstrap, wire
from reconciler.model import payloads, plans
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.kafka.secure import SecureCluster
from tests.support.integration import closed_port, write_manifests
from tests.support.live import cli

# On every Kafka version (the tests that talk to a broker): connections, security and their failures.
pytestmark = pytest.mark.every_version
LONG_TIMEOUT = {"KAFKA_REQUEST_TIMEOUT_MS": "60000"}
TOPIC = """
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {name: conn-orders}
spec: {partitions: 3, replicationFactor: 1, configs: {retention.ms: "3600000", cleanup.policy: delete}}
"""


@pytest.fixture
def manifests(tmp_path: Path) -> Path:
    return write_manifests(tmp_path / "m", TOPIC)


@pytest.fixture
def silent_listener() -> Iterator[int]:
    """A port whose kernel accepts connections but nobody ever reads or answers (a hung broker)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        yield int(server.getsockname()[1])


def plan_error(manifests: Path, *args: str, env: dict[str, str] | None = None) -> str:
    result = cli(["plan", str(manifests), *args], env={**LONG_TIMEOUT, **(env or {})})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one error line and no kafka-python log lines, got:\n{result.stderr}"
    return lines[0]


def test_refused_port_is_named_with_the_address(manifests: Path) -> None:
    port = closed_port()
    message = plan_error(manifests, "--bootstrap-server", f"127.0.0.1:{port}")
    assert message == (
        f"error: cannot connect to Kafka at 127.0.0.1:{port} (PLAINTEXT): "
        f"127.0.0.1:{port}: connection refused (is a broker listening on that port?)"
    )


def test_unknown_host_is_named(manifests: Path) -> None:
    message = plan_error(manifests, "--bootstrap-server", "nonexistent.invalid:9092")
    assert "nonexistent.invalid:9092: unknown host 'nonexistent.invalid' (DNS lookup failed)" in message


def test_each_address_gets_its_own_cause(manifests: Path) -> None:
    port = closed_port()
    message = plan_error(manifests, "--bootstrap-server", f"127.0.0.1:{port},nonexistent.invalid:9092")
    assert f"127.0.0.1:{port}: connection refused" in message
    assert "nonexistent.invalid:9092: unknown host" in message


def test_sasl_client_on_a_plaintext_listener(manifests: Path, kafka_single: KafkaCluster) -> None:
    env = {"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KAFKA_SASL_MECHANISM": "PLAIN"}
    env |= {"KAFKA_SASL_USERNAME": "admin", "KAFKA_SASL_PASSWORD": "not-used-Qx81"}
    message = plan_error(manifests, "--bootstrap-server", kafka_single.bootstrap, env=env)
    assert f"{kafka_single.bootstrap}: protocol mismatch: the listener does not accept SASL" in message
    assert "not-used-Qx81" not in message


@pytest.mark.parametrize("protocol", ["SSL", "SASL_SSL"])
def test_tls_client_on_a_plaintext_listener(manifests: Path, kafka_single: KafkaCluster, protocol: str) -> None:
    env = {"KAFKA_SECURITY_PROTOCOL": protocol}
    if protocol == "SASL_SSL":
        env |= {"KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_USERNAME": "admin"}
        env |= {"KAFKA_SASL_PASSWORD": "not-used-Qx81"}
    message = plan_error(manifests, "--bootstrap-server", kafka_single.bootstrap, env=env)
    assert f"{kafka_single.bootstrap}: protocol mismatch: the broker closed the connection during the TLS" in message
    assert "not-used-Qx81" not in message


@pytest.mark.parametrize("protocol", ["PLAINTEXT", "SASL_PLAINTEXT"])
def test_plaintext_client_on_a_tls_listener(manifests: Path, kafka_secure: SecureCluster, protocol: str) -> None:
    """Regression: a PLAINTEXT client on a TLS port waited out the whole timeout and ended with "Invalid frame
    length: 352518912" (0x15030300, the head of the TLS alert record the broker answered with)."""
    env = {"KAFKA_SECURITY_PROTOCOL": protocol}
    if protocol == "SASL_PLAINTEXT":
        env |= {"KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_USERNAME": "admin"}
        env |= {"KAFKA_SASL_PASSWORD": "not-used-Qx81"}
    address = kafka_secure.address("TLS")
    started = time.monotonic()
    message = plan_error(manifests, "--bootstrap-server", address, env=env)
    assert time.monotonic() - started < 30  # at once, not after the 60 s request timeout
    assert f"{address}: protocol mismatch: the port speaks TLS" in message, message
    assert "set security.protocol to SSL or SASL_SSL" in message
    assert "frame length" not in message and "not-used-Qx81" not in message


def test_plaintext_client_on_a_sasl_listener(manifests: Path, kafka_sasl: KafkaCluster) -> None:
    message = plan_error(manifests, "--bootstrap-server", kafka_sasl.bootstrap)
    assert f"cannot connect to Kafka at {kafka_sasl.bootstrap} (PLAINTEXT)" in message
    assert f"{kafka_sasl.bootstrap}: protocol mismatch: the broker closed the connection at the first request" in (
        message
    )


def test_wrong_password_is_an_authentication_failure(manifests: Path, kafka_sasl: KafkaCluster) -> None:
    env = {"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KAFKA_SASL_MECHANISM": "SCRAM-SHA-256"}
    env |= {"KAFKA_SASL_USERNAME": "alice", "KAFKA_SASL_PASSWORD": "wrong-Zr55-password"}
    message = plan_error(manifests, "--bootstrap-server", kafka_sasl.bootstrap, env=env)
    assert message.startswith(f"error: authentication failed at {kafka_sasl.bootstrap}"), message
    assert "wrong-Zr55-password" not in message


def test_kafka_python_log_lines_appear_with_verbose(manifests: Path) -> None:
    port = closed_port()
    result = cli(["plan", str(manifests), "--bootstrap-server", f"127.0.0.1:{port}", "-v"], env=LONG_TIMEOUT)
    assert result.returncode == 1
    assert "kafka.net" in result.stderr  # the library's own account, for whoever asked for it
    assert result.stderr.strip().splitlines()[-1].startswith("error: cannot connect to Kafka")


def test_apply_timeout_bounds_connecting_to_a_silent_broker(manifests: Path, silent_listener: int) -> None:
    result = cli(
        [
            "apply",
            str(manifests),
            "--auto-approve",
            "--timeout",
            "2",
            "--bootstrap-server",
            f"127.0.0.1:{silent_listener}",
        ],
        env=LONG_TIMEOUT,
    )
    assert result.returncode == 1
    assert f"cannot reach Kafka at 127.0.0.1:{silent_listener} (PLAINTEXT): no broker answered within 2s" in (
        result.stderr
    )


def test_plan_timeout_bounds_connecting_to_a_silent_broker(manifests: Path, silent_listener: int) -> None:
    started = time.monotonic()
    message = plan_error(manifests, "--timeout", "2", "--bootstrap-server", f"127.0.0.1:{silent_listener}")
    assert time.monotonic() - started < 20  # LONG_TIMEOUT would be minutes; the CLI's start-up is in this too
    assert f"cannot reach Kafka at 127.0.0.1:{silent_listener} (PLAINTEXT): no broker answered within 2s" in message


def _one_topic_plan(path: Path) -> Path:
    """A saved plan creating one topic, as ``plan --out`` writes it (made without a cluster)."""
    change = plans.Change(
        address="topic/conn-orders",
        kind=Kind.TOPIC,
        name="conn-orders",
        action=plans.Action.CREATE,
        phase=plans.Phase.TOPIC_CREATE,
        after=payloads.TopicPayload(partitions=3, replication_factor=1, configs={}),
    )
    plans.Plan(cluster=plans.ClusterInfo(cluster_id=None, controller_id=None), changes=(change,)).save(path)
    return path


def test_a_timeout_spent_before_the_connect_is_named_with_what_used_it(silent_listener: int) -> None:
    """Regression: the apply's connect, left 1 ms of ``--timeout 20`` by planning, said "no broker answered within
    0.001s (check the address, the port and the security protocol)". It names the --timeout and what used it."""
    adapter, _ = operations.prepare_apply(
        plans.Plan(cluster=plans.ClusterInfo(cluster_id=None, controller_id=None), changes=()),
        target=operations.Target(bootstrap_server=f"127.0.0.1:{silent_listener}"),
        timeout_s=0.001,
        dry_run=True,
    )
    adapter.name_budget(given_s=20, left_s=0.001, used_by="planning")
    with adapter, pytest.raises(errors.ConnectionFailed) as failed:
        adapter.connect()
    assert str(failed.value).startswith(  # then the client's own account of the cut-short attempt, if it logged one
        f"cannot reach Kafka at 127.0.0.1:{silent_listener} (PLAINTEXT): the --timeout 20s was spent before any "
        "broker answered: planning used 20.0s of it, leaving 0.001s to connect; give a longer --timeout"
    ), str(failed.value)


def test_apply_of_a_saved_plan_names_its_timeout_when_nothing_was_left_to_connect(
    tmp_path: Path, silent_listener: int
) -> None:
    """The command line's own path: ``apply --plan FILE --timeout 0.001`` spends its limit reading the plan."""
    saved = _one_topic_plan(tmp_path / "plan.json")
    args = ["apply", "--plan", str(saved), "--timeout", "0.001", "--bootstrap-server", f"127.0.0.1:{silent_listener}"]
    result = cli(args, env=LONG_TIMEOUT)
    assert result.returncode == 1, result.stdout + result.stderr
    # The limit runs out while the plan is read or, by a hair, in the first request on the wire: each answer names
    # the spent limit, never an unreachable address.
    spent_reading = "the --timeout 0.001s was spent before any broker answered: loading the plan used"
    spent_sending = "the time limit of 0.001s for talking to the cluster is spent"
    assert spent_reading in result.stderr or spent_sending in result.stderr, result.stderr
    assert "no broker answered within 0.001s" not in result.stderr and "Traceback" not in result.stderr


def test_address_without_port_is_refused(manifests: Path) -> None:
    message = plan_error(manifests, "--bootstrap-server", "127.0.0.1")
    assert message == "error: bootstrap server '127.0.0.1' has no port; write it as host:port"


# ---------------------------------------------------------------------------------------------- headers
def test_plan_and_apply_headers_name_the_target(tmp_path: Path, kafka_single: KafkaCluster) -> None:
    directory = write_manifests(tmp_path / "m", TOPIC.replace("conn-orders", f"conn-{tmp_path.name[-6:]}"))
    result = cli(["plan", str(directory), "--bootstrap-server", kafka_single.bootstrap])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"Target: {kafka_single.bootstrap} (PLAINTEXT)"
    assert lines[1].startswith("Cluster ") and "controller" in lines[1]
    cluster_id = lines[1].split()[1].rstrip(",")
    applied = cli(["apply", str(directory), "--auto-approve", "--bootstrap-server", kafka_single.bootstrap])
    assert applied.returncode == 0, applied.stderr
    assert f"Applying to {kafka_single.bootstrap} (PLAINTEXT), cluster {cluster_id}" in applied.stdout


def test_a_lone_cluster_profile_is_named_in_the_header(tmp_path: Path, kafka_single: KafkaCluster) -> None:
    profile = f"""
apiVersion: kafka-reconciler/v1
kind: Cluster
metadata: {{name: only-one}}
spec: {{bootstrapServers: "{kafka_single.bootstrap}"}}
---
{TOPIC}"""
    directory = write_manifests(tmp_path / "m", profile)
    result = cli(["plan", str(directory)])
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == (
        f"Target: {kafka_single.bootstrap} (PLAINTEXT), from Cluster profile 'only-one', the only one in the "
        "manifests (no --cluster, --bootstrap-server, --command-config or KAFKA_BOOTSTRAP_SERVERS given)"
    )
    chosen = cli(["plan", str(directory), "--cluster", "only-one"])
    assert chosen.stdout.splitlines()[0].endswith("from Cluster profile 'only-one' (--cluster)")


def connection_attempts(servers: tuple[str, ...], **fields: Any) -> tuple[int, str]:
    """How many connections kafka-python's bootstrap tried before the tool gave up, and the tool's message."""
    attempts: list[str] = []

    class Count(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("Bootstrap connection to"):
                attempts.append(record.getMessage())

    manager_log = logging.getLogger("kafka.net.manager")
    counter = Count(level=logging.WARNING)
    manager_log.addHandler(counter)
    try:
        settings = ConnectionSettings(bootstrap_servers=servers, request_timeout_ms=60_000, **fields)
        with pytest.raises(errors.ConnectionFailed) as failed:
            wire.Wire(settings).client()
    finally:
        manager_log.removeHandler(counter)
    return len(attempts), str(failed.value)


@pytest.mark.parametrize("password_in_the_log", [False, True], ids=["plain", "password-appears-in-the-log-line"])
def test_refused_and_unknown_hosts_stop_after_one_retry_per_address(password_in_the_log: bool) -> None:
    """Every address refused or unresolvable: two attempts each (one retry, for a broker that is restarting),
    not retries until the 60 s timeout. Regression: when the password happened to appear in kafka-python's log
    line (here the word ECONNREFUSED; a one-letter password did the same), the redaction filter flattened the
    record, the cause was lost and the tool waited the whole timeout out."""
    port = closed_port()
    sasl: dict[str, Any] = {}
    if password_in_the_log:
        sasl = {
            "security_protocol": "SASL_PLAINTEXT",
            "sasl_mechanism": "SCRAM-SHA-512",
            "username": "svc",
            "password": Secret("ECONNREFUSED"),
        }
    count, message = connection_attempts((f"127.0.0.1:{port}", "nonexistent.invalid:9092"), **sasl)
    assert count == 2 * bootstrap.BootstrapWatch.ATTEMPTS, message
    assert "connection refused" in message and "unknown host 'nonexistent.invalid'" in message
    assert "no broker answered" not in message

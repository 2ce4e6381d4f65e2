"""No wait without a bound: black-holed addresses, a silent OAuth endpoint and a frozen broker end plan and apply.

A black hole is a local socket whose kernel accepts connections and whose owner never reads or answers (a
black-holed load balancer or PrivateLink endpoint). Spoken to in PLAINTEXT, the client waits for ApiVersions;
in SSL and SASL_SSL it waits for the TLS handshake's answer, which kafka-python bounds by nothing (the tool
used to hang there for good, even with ``--timeout``). The frozen broker is a real one stopped with SIGSTOP
once the TLS handshake is done (a relay between the tool and the broker sees the first application-data record
and stops the broker), so the bootstrap's first request and every later connection meet a process that holds
its sockets and answers nothing. Each case must end with exit 1, one line naming the cause and the address,
within its bound: the durations are bound checks with generous slack (interpreter start-up included), not
timings; the measured figures are in docs/reliability.md.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.base import errors
from reconciler.connection.settings import ConnectionSettings, Secret
from reconciler.kafka import bounded
from reconciler.kafka.wire import Wire
from tests.kafka.secure import SecureCluster
from tests.support.black_hole import black_hole as silent_listener
from tests.support.integration import closed_port, write_manifests
from tests.support.live import cli
from tests.support.oidc import OidcServer

BOUND_S = 3
FROZEN_BOUND_S = 8
SLACK_S = 30.0  # interpreter and import start-up of a CLI process on a loaded 2-core machine (measured: 16 s)
OUTER_S = 90.0  # the subprocess limit: reaching it means the tool hung (as SSL did before the bound)
TOPIC = """
apiVersion: kafka-reconciler/v1
kind: Topic
metadata: {name: waits-orders}
spec: {partitions: 6, replicationFactor: 1, configs: {retention.ms: "3600000", cleanup.policy: delete}}
"""
SASL = {"KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_USERNAME": "ci", "KAFKA_SASL_PASSWORD": "Pw-7c1e-x9"}


@pytest.fixture
def manifests(tmp_path: Path) -> Path:
    return write_manifests(tmp_path / "m", TOPIC)


@pytest.fixture
def black_hole() -> Iterator[str]:
    """``127.0.0.1:PORT`` of a socket that accepts connections (the kernel's backlog) and never answers."""
    with silent_listener() as address:
        yield address


def run_bounded(args: list[str], env: dict[str, str]) -> tuple[str, float]:
    """Run the CLI; assert exit 1 with a single error line; return that line and how long the run took."""
    started = time.monotonic()
    result = cli(args, env=env, timeout=OUTER_S)
    took = time.monotonic() - started
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    print(f"\n{args[0]} {env.get('KAFKA_SECURITY_PROTOCOL', 'PLAINTEXT')}: exit 1 after {took:.1f}s: {lines[0]}")
    return lines[0], took


@pytest.mark.parametrize("command", ["plan", "apply"])
@pytest.mark.parametrize("protocol", ["PLAINTEXT", "SSL", "SASL_SSL"])
def test_a_black_hole_ends_with_its_cause_within_the_timeout(
    manifests: Path, black_hole: str, protocol: str, command: str
) -> None:
    env = {"KAFKA_SECURITY_PROTOCOL": protocol, "KAFKA_REQUEST_TIMEOUT_MS": "60000"}
    env |= SASL if protocol == "SASL_SSL" else {}
    args = [command, str(manifests), "--bootstrap-server", black_hole, "--timeout", str(BOUND_S)]
    message, took = run_bounded(args + (["--auto-approve"] if command == "apply" else []), env)
    assert took < BOUND_S + SLACK_S
    assert message.startswith(f"error: cannot reach Kafka at {black_hole} ({protocol}"), message
    assert f"no broker answered within {BOUND_S}s" in message
    silence = "sent no TLS handshake answer" if "SSL" in protocol else "did not answer the first request"
    assert f"last error: {black_hole}: accepted the connection but {silence}" in message
    assert SASL["KAFKA_SASL_PASSWORD"] not in message


def test_without_timeout_the_request_timeout_bounds_an_ssl_black_hole(manifests: Path, black_hole: str) -> None:
    env = {"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_REQUEST_TIMEOUT_MS": "4000"}
    message, took = run_bounded(["plan", str(manifests), "--bootstrap-server", black_hole], env)
    assert took < 4 + SLACK_S
    assert f"cannot reach Kafka at {black_hole} (SSL): no broker answered within 4s" in message


def test_an_oauth_token_endpoint_that_never_answers_is_named_with_the_bound(manifests: Path, black_hole: str) -> None:
    env = {
        "KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
        "KAFKA_SASL_MECHANISM": "OAUTHBEARER",
        "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL": f"http://{black_hole}/oauth2/token",
        "KAFKA_SASL_OAUTHBEARER_CLIENT_ID": "ci-client",
        "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET": "oauth-Secret-55d1",
    }
    bootstrap = f"127.0.0.1:{closed_port()}"  # never reached: the token is fetched before connecting
    for command in ("plan", "apply"):
        args = [command, str(manifests), "--bootstrap-server", bootstrap, "--timeout", str(BOUND_S)]
        message, took = run_bounded(args + (["--auto-approve"] if command == "apply" else []), env)
        assert took < BOUND_S + SLACK_S
        assert message.startswith(f"error: cannot authenticate to Kafka at {bootstrap}"), message
        assert f"the OAuth token endpoint http://{black_hole}/oauth2/token did not answer within {BOUND_S}s" in message
        assert "oauth-Secret-55d1" not in message


class FreezeAfterHandshake:
    """A TCP relay to a broker's TLS listener that SIGSTOPs the broker at the client's first application data.

    TLS records start with a content-type byte and a 2-byte length at offset 3; 23 is application data, which a
    client sends only once its side of the handshake is done (in TLS 1.3 its encrypted Finished, then ApiVersions).
    The relay stops the broker before it forwards that record, so the broker cannot answer it whatever the
    scheduling of the relay's thread (it used to forward first: a relay preempted right after could let the broker
    answer).
    """

    def __init__(self, target: tuple[str, int], pid: int) -> None:
        self.target = target
        self.pid = pid
        self.frozen = threading.Event()
        self._server = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self._server.getsockname()[1]}"
        self._done = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        self._server.settimeout(0.2)
        while not self._done.is_set():
            try:
                client, _ = self._server.accept()
                upstream = socket.create_connection(self.target, timeout=5)
            except TimeoutError:
                continue
            except OSError:  # closed by close()
                return
            threading.Thread(target=self._relay, args=(client, upstream), daemon=True).start()

    def _relay(self, client: socket.socket, upstream: socket.socket) -> None:
        pending = b""  # client bytes not yet split into TLS records
        with client, upstream:
            while not self._done.is_set():
                ready, _, _ = select.select([client, upstream], [], [], 0.2)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    if sock is client and not self.frozen.is_set():
                        pending = self._freeze_at_application_data(pending + data)
                    (upstream if sock is client else client).sendall(data)

    def _freeze_at_application_data(self, pending: bytes) -> bytes:
        """Skip the whole records in ``pending``; stop the broker at an application-data one; the incomplete rest."""
        while len(pending) >= 5 and not self.frozen.is_set():
            if pending[0] == 23:
                os.kill(self.pid, signal.SIGSTOP)
                self.frozen.set()
                return b""
            end = 5 + int.from_bytes(pending[3:5], "big")
            if len(pending) < end:
                break  # the rest of this record is still to come
            pending = pending[end:]
        return pending

    def close(self) -> None:
        self._done.set()
        self._server.close()


def test_a_broker_frozen_after_the_tls_handshake_ends_plan_and_apply(
    manifests: Path, kafka_secure: SecureCluster
) -> None:
    """The bound is ``FROZEN_BOUND_S``: the TLS handshake must end within it for the broker to be frozen after it (a
    starved CLI process on a loaded machine took over 3 s for it); still far below the 60 s request timeout."""
    pid = kafka_secure.nodes[0].pid
    assert pid is not None
    env = {"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_SSL_CAFILE": str(kafka_secure.pki.ca_pem)}
    env |= {"KAFKA_REQUEST_TIMEOUT_MS": "60000"}
    for command in ("plan", "apply"):
        relay = FreezeAfterHandshake(("127.0.0.1", kafka_secure.port("TLS")), pid)
        try:
            args = [command, str(manifests), "--bootstrap-server", relay.address, "--timeout", str(FROZEN_BOUND_S)]
            message, took = run_bounded(args + (["--auto-approve"] if command == "apply" else []), env)
            assert relay.frozen.is_set(), "the relay never saw the handshake end"
        finally:
            os.kill(pid, signal.SIGCONT)
            relay.close()
        assert took < FROZEN_BOUND_S + SLACK_S
        assert message.startswith(f"error: cannot reach Kafka at {relay.address} (SSL): no broker answered"), message
        assert f"last error: {relay.address}: accepted the connection but" in message


def test_a_bound_that_ends_before_the_io_thread_names_the_silence_still_names_it(
    black_hole: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a loaded machine the client's IO thread may name the unanswered first request only after the outer bound
    (the bootstrap's bound plus ``bounded.GRACE_S``) ended the wait; the message must name it all the same (it was
    "no broker answered within 3s" and nothing more). A negative grace makes the outer bound end first, always."""
    monkeypatch.setattr(bounded, "GRACE_S", -1.5)
    wire = Wire(ConnectionSettings(bootstrap_servers=(black_hole,)), connect_timeout_s=BOUND_S)
    with pytest.raises(errors.ConnectionFailed) as failed:
        wire.client()
    wire.close()
    message = str(failed.value)
    assert f"cannot reach Kafka at {black_hole} (PLAINTEXT): no broker answered within {BOUND_S}s" in message
    assert f"last error: {black_hole}: accepted the connection but did not answer the first request" in message


# ------------------------------------------------------------------------- clients connecting side by side
def test_clients_connecting_at_once_see_only_their_own_failures(black_hole: str) -> None:
    """A fleet reads several clusters at once. One client's refusals are not another's: the client talking to
    the silent address must report its own silence (not "connection refused"), and the refused one its refusal.
    """
    refused = f"127.0.0.1:{closed_port()}"
    outcome: dict[str, str] = {}

    def connect(address: str, seconds: float) -> None:
        wire = Wire(ConnectionSettings(bootstrap_servers=(address,)), connect_timeout_s=seconds)
        try:
            wire.client()
        except errors.ConnectionFailed as exc:
            outcome[address] = str(exc)
        finally:
            wire.close()

    silent = threading.Thread(target=connect, args=(black_hole, BOUND_S))
    silent.start()
    time.sleep(0.3)  # the silent client is bootstrapping; the refused ones fail during its wait
    for _ in range(3):
        connect(refused, BOUND_S)
    silent.join(BOUND_S + SLACK_S)
    assert not silent.is_alive(), "the client of the silent address did not give up within its bound"
    assert "connection refused" not in outcome[black_hole], outcome[black_hole]
    assert (
        f"cannot reach Kafka at {black_hole} (PLAINTEXT): no broker answered within {BOUND_S}s" in (outcome[black_hole])
    )
    assert f"{refused}: connection refused" in outcome[refused]


def test_a_token_refreshed_after_connecting_is_not_held_to_the_connect_bound() -> None:
    """The connect timeout bounds the token fetched while connecting; a refresh later in a long run (the token's
    lifetime 80 % gone) gets the endpoint's own timeout, not a connect bound spent long ago."""
    server = OidcServer(audience="kafka").start()
    try:
        client = server.register("svc", lifetime_s=1)
        settings = ConnectionSettings(
            bootstrap_servers=(f"127.0.0.1:{closed_port()}",),
            security_protocol="SASL_SSL",
            sasl_mechanism="OAUTHBEARER",
            oauth_token_endpoint_url=server.token_url,
            oauth_client_id=client.client_id,
            oauth_client_secret=Secret(client.secret),
        )
        wire = Wire(settings, connect_timeout_s=1)
        with pytest.raises(errors.ConnectionFailed, match="connection refused"):
            wire.client()  # the token is fetched, then the port refuses
        assert wire.token_provider is not None and server.token_requests == 1
        time.sleep(1.2)  # not a synchronisation: the connect bound and 80 % of the token's lifetime pass
        wire.token_provider.token()
        assert server.token_requests == 2
        wire.close()
    finally:
        server.close()


def test_the_whole_session_deadline_caps_every_wait(black_hole: str) -> None:
    """Without --timeout a connection's waits still end by its deadline (plan's default: 15 minutes)."""
    settings = ConnectionSettings(bootstrap_servers=(black_hole,), security_protocol="SSL", request_timeout_ms=60_000)
    wire = Wire(settings, deadline_s=BOUND_S)
    started = time.monotonic()
    with pytest.raises(errors.ConnectionFailed, match=f"no broker answered within {BOUND_S}s"):
        wire.client()
    assert time.monotonic() - started < BOUND_S + SLACK_S
    with pytest.raises(errors.ConnectionFailed, match=rf"the time limit of {BOUND_S}s for talking to the cluster"):
        wire.client()  # the deadline is spent: nothing more is waited for
    wire.close()

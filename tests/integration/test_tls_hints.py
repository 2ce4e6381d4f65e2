"""A failed TLS handshake is named by its real cause, the same way on every run.

The certificates are made at test time (``tests.support.tls``). A client certificate that has expired is presented
to the real mTLS listener of the ``kafka_secure`` node. A broker certificate that names another host, and one
that has expired, are presented by a TLS endpoint on 127.0.0.1 with a certificate from the same trusted CA: the
client refuses those during the handshake, before any Kafka request, so the endpoint stands in for a broker
there. Each message must point at the cause (and not at the trust store, which holds the right CA).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.kafka.secure import SecureCluster
from tests.support.integration import write_manifests
from tests.support.live import cli
from tests.support.manifest_texts import topic_documents
from tests.support.tls import issue, tls_endpoint

# On every Kafka version: connections and security: TLS handshake failures.
pytestmark = [pytest.mark.kafka, pytest.mark.every_version]


def plan_error(tmp_path: Path, lines: dict[str, str]) -> str:
    config = tmp_path / "client.properties"
    config.write_text("".join(f"{k}={v}\n" for k, v in lines.items()))
    config.chmod(0o600)
    manifests = write_manifests(tmp_path / "m", topic_documents({"tls.hints": (3, 1, {})}))
    outputs = set()
    for _ in range(2):  # the same cause, the same message
        result = cli(["plan", str(manifests), "--command-config", str(config)])
        assert result.returncode == 1, result.stdout + result.stderr
        assert "Traceback" not in result.stderr
        outputs.add(result.stderr.strip())
    assert len(outputs) == 1, outputs
    return outputs.pop()


def trusting(cluster: SecureCluster, bootstrap: str) -> dict[str, str]:
    return {
        "bootstrap.servers": bootstrap,
        "security.protocol": "SSL",
        "ssl.truststore.location": str(cluster.pki.truststore_p12),
        "ssl.truststore.password": cluster.pki.store_password,
    }


def test_a_broker_certificate_for_another_host(kafka_secure: SecureCluster, tmp_path: Path) -> None:
    wrong = issue(kafka_secure.pki.ca, "kafka-9.other.test", server=True, names=("kafka-9.other.test",))
    with tls_endpoint(wrong, tmp_path) as port:
        message = plan_error(tmp_path, trusting(kafka_secure, f"127.0.0.1:{port}"))
    assert "the broker's certificate does not name the address connected to" in message, message
    assert "127.0.0.1" in message and "ssl.endpoint.identification.algorithm" in message
    assert "trust store" not in message


def test_an_expired_broker_certificate(kafka_secure: SecureCluster, tmp_path: Path) -> None:
    expired = issue(kafka_secure.pki.ca, "localhost", server=True, expired=True)
    with tls_endpoint(expired, tmp_path) as port:
        message = plan_error(tmp_path, trusting(kafka_secure, f"127.0.0.1:{port}"))
    assert "the broker's certificate has expired" in message, message
    assert "holds the CA" not in message


def test_an_expired_client_certificate_on_the_mtls_listener(
    kafka_secure: SecureCluster, topic_prefix: str, tmp_path: Path
) -> None:
    name = f"{topic_prefix}expired"
    client = kafka_secure.pki.client(name, unit="ops", expired=True)
    lines = trusting(kafka_secure, kafka_secure.address("MTLS"))
    lines |= {"ssl.keystore.location": str(client.keystore_p12), "ssl.keystore.password": client.store_password}
    message = plan_error(tmp_path, lines)
    assert re.search(
        rf"the broker refused the client certificate: it expired on \d{{4}}-\d\d-\d\d \d\d:\d\d UTC "
        rf"\(CN={re.escape(name)},OU=ops,O=kafka-reconciler tests\); renew it in the key store",
        message,
    ), message
    assert "not signed by a CA" not in message
    assert client.store_password not in message

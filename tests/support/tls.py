"""A throw-away PKI made at test time: CAs, a broker certificate for 127.0.0.1/localhost, client certificates.

Everything is generated with ``cryptography`` when a test session first needs it and written into a temporary
directory in the formats Kafka users have: PEM files (certificates, an encrypted PKCS#8 key), PKCS12 stores and
Java JKS stores. The JKS files and the certificate-only (trust) stores are written by the JDK's own ``keytool``,
exactly as an operator would make them, so the reconciler's readers are tested against the real thing.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import secrets
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALIDITY = datetime.timedelta(days=2)


@dataclass(frozen=True)
class Issued:
    """A key and its certificate chain (leaf first)."""

    key: ec.EllipticCurvePrivateKey = field(repr=False)
    chain: tuple[x509.Certificate, ...]

    @property
    def cert(self) -> x509.Certificate:
        return self.chain[0]

    @property
    def subject(self) -> str:
        """The subject in RFC 4514 form (cryptography's): Kafka's own form only for subjects whose attributes all
        have RFC 2253 keywords; tests of other subjects spell the expected principal out."""
        return self.cert.subject.rfc4514_string()


def _name(common_name: str, unit: str | None, email: str | None = None) -> x509.Name:
    parts = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, "kafka-reconciler tests")]
    if unit is not None:
        parts.append(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, unit))
    parts.append(x509.NameAttribute(NameOID.COMMON_NAME, common_name))
    if email is not None:  # an attribute without an RFC 2253 keyword (Java writes it by OID, hex-encoded)
        parts.append(x509.NameAttribute(NameOID.EMAIL_ADDRESS, email))
    return x509.Name(parts)


def make_ca(common_name: str) -> Issued:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    name = _name(common_name, None)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    return Issued(key, (cert,))


def issue(
    ca: Issued,
    common_name: str,
    *,
    unit: str | None = None,
    server: bool = False,
    email: str | None = None,
    expired: bool = False,
    names: tuple[str, ...] = ("localhost", "127.0.0.1"),
) -> Issued:
    """A leaf certificate signed by ``ca``; a server one names ``names`` (host names and IP addresses); an
    ``expired`` one stopped being valid a day ago."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    if expired:
        now -= VALIDITY + datetime.timedelta(days=1)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(common_name, unit, email))
        .issuer_name(ca.cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + VALIDITY)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False
        )
    )
    if server:
        alternatives: list[x509.GeneralName] = []
        for name in names:
            try:
                alternatives.append(x509.IPAddress(ipaddress.ip_address(name)))
            except ValueError:
                alternatives.append(x509.DNSName(name))
        builder = builder.add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
    return Issued(key, (builder.sign(ca.key, hashes.SHA256()), ca.cert))


def write_pem_certs(path: Path, certs: tuple[x509.Certificate, ...]) -> Path:
    path.write_bytes(b"".join(c.public_bytes(serialization.Encoding.PEM) for c in certs))
    return path


def write_pem_key(path: Path, issued: Issued, *, password: str | None) -> Path:
    """The key as PKCS#8 PEM, encrypted with ``password`` when given; written with mode 0600."""
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(password.encode()) if password else serialization.NoEncryption()
    )
    path.touch(mode=0o600)
    pkcs8 = serialization.PrivateFormat.PKCS8
    path.write_bytes(issued.key.private_bytes(serialization.Encoding.PEM, pkcs8, encryption))
    return path


def write_pkcs12_keystore(path: Path, issued: Issued, *, password: str, alias: str = "client") -> Path:
    data = pkcs12.serialize_key_and_certificates(
        alias.encode(),
        issued.key,
        issued.cert,
        list(issued.chain[1:]),
        serialization.BestAvailableEncryption(password.encode()),
    )
    path.touch(mode=0o600)
    path.write_bytes(data)
    return path


def store_secret() -> str:
    """A random store or key password. Hex only: keytool's launcher takes every argument beginning with ``-J`` as a
    JVM option, values included, so a URL-safe token such as ``-JYAl...`` made it fail ("Could not find or load main
    class YAl...") for about one PKI in a thousand."""
    return secrets.token_hex(12)


def _keytool(*args: str) -> None:
    keytool = shutil.which("keytool")
    if keytool is None:
        raise RuntimeError("keytool (from the JDK) is not on PATH; the TLS test stores are made with it")
    result = subprocess.run(
        [keytool, *args, "-noprompt"], capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL
    )
    if result.returncode != 0:
        raise RuntimeError(f"keytool {args[0]} failed (exit {result.returncode}): {result.stderr.strip()}")


def keytool_truststore(path: Path, ca: Issued, *, password: str, store_type: str) -> Path:
    """A trust store holding ``ca`` as a trusted certificate entry, made by ``keytool -importcert``."""
    pem = write_pem_certs(path.with_suffix(".ca.pem"), (ca.cert,))
    _keytool(
        "-importcert", "-alias", "ca", "-file", str(pem), "-keystore", str(path),
        "-storetype", store_type, "-storepass", password,
    )  # fmt: skip
    return path


def keytool_jks_keystore(path: Path, p12: Path, *, password: str, key_password: str) -> Path:
    """A JKS key store converted from a PKCS12 one by ``keytool -importkeystore`` (key protected separately)."""
    _keytool(
        "-importkeystore", "-srckeystore", str(p12), "-srcstoretype", "PKCS12", "-srcstorepass", password,
        "-destkeystore", str(path), "-deststoretype", "JKS", "-deststorepass", password,
        "-destkeypass", key_password,
    )  # fmt: skip
    return path


@dataclass
class ClientFiles:
    """One client identity in every format; passwords kept out of ``repr``."""

    name: str
    subject: str
    cert_pem: Path
    key_pem: Path
    key_password: str = field(repr=False)
    keystore_p12: Path
    keystore_jks: Path
    store_password: str = field(repr=False)
    jks_key_password: str = field(repr=False)


@contextlib.contextmanager
def tls_endpoint(issued: Issued, directory: Path) -> Iterator[int]:
    """A TLS server on 127.0.0.1 presenting ``issued`` (a stand-in for a broker whose certificate is wrong in a way
    the client sees during the handshake); yields its port. Connections are accepted and their handshake tried."""
    chain = write_pem_certs(directory / "endpoint.pem", issued.chain)
    key = write_pem_key(directory / "endpoint.key", issued, password=None)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(chain, key)
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            conn.settimeout(5)
            with contextlib.suppress(OSError), ctx.wrap_socket(conn, server_side=True) as tls:
                tls.recv(1)

    thread = threading.Thread(target=serve, name="tls-endpoint", daemon=True)
    thread.start()
    try:
        yield int(server.getsockname()[1])
    finally:
        stop.set()
        thread.join(timeout=5)
        server.close()


class TestPki:
    """A CA trusted by the broker, a CA nobody trusts, the broker's stores and client identities in ``directory``."""

    __test__ = False  # not a pytest test class

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.ca = make_ca("kafka-reconciler test CA")
        self.rogue_ca = make_ca("untrusted test CA")
        self.store_password = store_secret()
        server = issue(self.ca, "localhost", unit="brokers", server=True)
        self.broker_keystore = write_pkcs12_keystore(
            directory / "broker.keystore.p12", server, password=self.store_password, alias="broker"
        )
        self.broker_truststore = keytool_truststore(
            directory / "broker.truststore.p12", self.ca, password=self.store_password, store_type="PKCS12"
        )
        self.ca_pem = write_pem_certs(directory / "ca.pem", (self.ca.cert,))
        self.rogue_ca_pem = write_pem_certs(directory / "rogue-ca.pem", (self.rogue_ca.cert,))
        self.truststore_p12 = keytool_truststore(
            directory / "truststore.p12", self.ca, password=self.store_password, store_type="PKCS12"
        )
        self.truststore_jks = keytool_truststore(
            directory / "truststore.jks", self.ca, password=self.store_password, store_type="JKS"
        )
        self.rogue_truststore_jks = keytool_truststore(
            directory / "rogue-truststore.jks", self.rogue_ca, password=self.store_password, store_type="JKS"
        )

    def client(
        self, name: str, *, unit: str, ca: Issued | None = None, email: str | None = None, expired: bool = False
    ) -> ClientFiles:
        """A client certificate ``CN=<name>,OU=<unit>,...`` issued by the trusted CA (or ``ca``), in all formats;
        with ``email``, the subject ends with an emailAddress attribute; ``expired``: no longer valid."""
        issued = issue(ca or self.ca, name, unit=unit, email=email, expired=expired)
        key_password = store_secret()
        jks_key_password = store_secret()
        p12 = write_pkcs12_keystore(self.dir / f"{name}.p12", issued, password=self.store_password)
        return ClientFiles(
            name=name,
            subject=issued.subject,
            cert_pem=write_pem_certs(self.dir / f"{name}.crt.pem", issued.chain),
            key_pem=write_pem_key(self.dir / f"{name}.key.pem", issued, password=key_password),
            key_password=key_password,
            keystore_p12=p12,
            keystore_jks=keytool_jks_keystore(
                self.dir / f"{name}.jks", p12, password=self.store_password, key_password=jks_key_password
            ),
            store_password=self.store_password,
            jks_key_password=jks_key_password,
        )

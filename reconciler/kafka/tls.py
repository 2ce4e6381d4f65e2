"""TLS for kafka-python: one ``ssl.SSLContext`` built from the settings, and the principal a client certificate gives.

kafka-python accepts a ready ``SSLContext`` (``ssl_context``), so trust and key stores of any supported format
(``reconciler.kafka.stores``) are loaded here: CA certificates in memory (``cadata``); a key from a PKCS12 or
JKS store goes through one private temporary file (directory mode 0700, file 0600, the key encrypted with a
one-time password), which is deleted as soon as OpenSSL has read it. Plain PEM files are loaded as they are.

``certificate_principal`` is what Kafka's default principal builder makes of the client certificate:
``User:`` plus the subject as Java writes it, rewritten by the brokers' ``ssl.principal.mapping.rules``
(``reconciler.kafka.identity``).
"""

from __future__ import annotations

import datetime
import os
import secrets
import ssl
import tempfile
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from reconciler.base import errors
from reconciler.connection.settings import ConnectionSettings
from reconciler.kafka import identity, stores


def ssl_context(settings: ConnectionSettings) -> ssl.SSLContext:
    """A client context: TLS 1.2+, the configured trust (else the system's), the client key if any."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.check_hostname = settings.ssl_check_hostname
    if settings.ssl_truststore_location:
        ctx.load_verify_locations(
            cadata=stores.trusted_certificates(
                Path(settings.ssl_truststore_location),
                declared_type=settings.ssl_truststore_type,
                password=settings.ssl_truststore_password,
            )
        )
    elif settings.ssl_cafile:
        ctx.load_verify_locations(cadata=stores.trusted_certificates(Path(settings.ssl_cafile), declared_type="PEM"))
    else:
        ctx.load_default_certs()
    if settings.ssl_keystore_location:
        material = _key_material(settings)
        _load_chain(ctx, material, where=f"key store {settings.ssl_keystore_location}")
    elif settings.ssl_certfile:
        _load_pem_files(ctx, settings)
    return ctx


def _key_material(settings: ConnectionSettings) -> stores.KeyMaterial:
    assert settings.ssl_keystore_location is not None
    return stores.key_material(
        Path(settings.ssl_keystore_location),
        declared_type=settings.ssl_keystore_type,
        store_password=settings.ssl_keystore_password,
        key_password=settings.ssl_key_password,
    )


def _load_pem_files(ctx: ssl.SSLContext, settings: ConnectionSettings) -> None:
    password = settings.ssl_key_password.reveal() if settings.ssl_key_password is not None else None
    try:
        ctx.load_cert_chain(settings.ssl_certfile or "", settings.ssl_keyfile or None, password=password)
    except ssl.SSLError as exc:
        reason = "wrong key password (check ssl.key.password)" if "BAD_DECRYPT" in str(exc) else exc.reason
        raise errors.ConfigError(f"cannot load the client certificate {settings.ssl_certfile}: {reason}") from None
    except OSError as exc:
        raise errors.ConfigError(f"cannot read the client certificate or key: {exc.strerror}") from None


def _load_chain(ctx: ssl.SSLContext, material: stores.KeyMaterial, *, where: str) -> None:
    """Hand key and chain to OpenSSL through a private file that exists only for this call."""
    one_time = secrets.token_urlsafe(24)
    key_pem = material.key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(one_time.encode()),
    )
    chain_pem = b"".join(c.public_bytes(serialization.Encoding.PEM) for c in material.chain)
    with tempfile.TemporaryDirectory(prefix="kafka-reconciler-tls-") as directory:
        path = os.path.join(directory, "client.pem")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key_pem + chain_pem)
        try:
            ctx.load_cert_chain(path, password=one_time)
        except ssl.SSLError as exc:
            raise errors.ConfigError(f"cannot use the client key from the {where}: {exc.reason}") from None


def client_certificate(settings: ConnectionSettings) -> x509.Certificate | None:
    """The client certificate the connection presents, if any."""
    if settings.ssl_keystore_location:
        return _key_material(settings).chain[0]
    if settings.ssl_certfile:
        try:
            data = Path(settings.ssl_certfile).read_bytes()
        except OSError as exc:
            what = f"the client certificate {settings.ssl_certfile}"
            raise errors.ConfigError(f"cannot read {what}: {exc.strerror}") from None
        return x509.load_pem_x509_certificates(data)[0]
    return None


def certificate_principal(settings: ConnectionSettings, *, rules: str | None = None) -> str | None:
    """``User:<mapped subject>`` of the client certificate; ``User:ANONYMOUS`` without one (as Kafka does).

    The subject is written as Java writes it (``identity.java_subject``) and mapped by ``rules`` (the brokers'
    ``ssl.principal.mapping.rules``), else by the client settings' copy of them.
    """
    cert = client_certificate(settings)
    if cert is None:
        return "User:ANONYMOUS"
    chosen = rules if rules is not None else settings.ssl_principal_mapping_rules
    return f"User:{identity.map_principal(identity.java_subject(cert.subject), chosen)}"


map_principal = identity.map_principal


def client_certificate_problem(settings: ConnectionSettings, *, now: datetime.datetime | None = None) -> str | None:
    """Why the client certificate cannot be accepted as this machine sees it (expired, not yet valid), else None."""
    if not settings.uses_ssl:
        return None
    try:
        cert = client_certificate(settings)
    except (errors.ConfigError, ValueError):
        return None
    if cert is None:
        return None
    at = now or datetime.datetime.now(datetime.timezone.utc)
    subject = identity.java_subject(cert.subject)
    where = "renew it in the key store (ssl.keystore.location / ssl_certfile)"
    if cert.not_valid_after_utc < at:
        return f"it expired on {cert.not_valid_after_utc:%Y-%m-%d %H:%M} UTC ({subject}); {where}"
    if cert.not_valid_before_utc > at:
        return (
            f"it is not valid before {cert.not_valid_before_utc:%Y-%m-%d %H:%M} UTC ({subject}); check this "
            "machine's clock"
        )
    return None

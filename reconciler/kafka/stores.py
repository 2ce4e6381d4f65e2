"""Trust stores and key stores in the formats Kafka's Java clients use: PEM, PKCS12 and JKS.

``trusted_certificates`` gives the CA certificates of a trust store as PEM text (for
``SSLContext.load_verify_locations(cadata=...)``); ``key_material`` gives a key store's private key and
certificate chain. The store type is ``ssl.<store>.type`` when given, otherwise it is recognised from the
file's first bytes (the JDK writes PKCS12 by default, also into files named ``.jks``). PKCS12 is read with
``cryptography``, JKS with ``reconciler.kafka.jks``. Passwords arrive as ``Secret`` and no message quotes
one; a wrong password says which setting to check.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
from cryptography.hazmat.primitives.serialization import pkcs12

from reconciler.base import errors, scrubbing
from reconciler.connection.settings import Secret
from reconciler.kafka import jks

STORE_TYPES = ("PEM", "PKCS12", "JKS")


@dataclasses.dataclass(frozen=True)
class KeyMaterial:
    """A private key and its certificate chain (leaf first)."""

    key: PrivateKeyTypes = dataclasses.field(repr=False)
    chain: tuple[x509.Certificate, ...]


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise errors.ConfigError(f"cannot read the {what} {path}: {exc.strerror}") from None


def store_type(data: bytes, declared: str | None) -> str:
    if declared:
        kind = declared.strip().upper()
        if kind not in STORE_TYPES:
            raise errors.ConfigError(f"store type {declared!r} is not supported (supported: {', '.join(STORE_TYPES)})")
        return kind
    if b"-----BEGIN " in data[:65536]:
        return "PEM"
    if jks.is_jks(data) or jks.is_jceks(data):
        return "JKS"
    return "PKCS12"


def _reveal(secret: Secret | None) -> str | None:
    return None if secret is None else secret.reveal()


def trusted_certificates(path: Path, *, declared_type: str | None = None, password: Secret | None = None) -> str:
    """The trust store's certificates as PEM text; a store without certificates is an error."""
    data = _read(path, "trust store")
    kind = store_type(data, declared_type)
    where = f"trust store {path} ({kind})"
    certs: list[x509.Certificate]
    try:
        if kind == "PEM":
            certs = x509.load_pem_x509_certificates(data)
        elif kind == "JKS":
            store = jks.load(data, _reveal(password))
            certs = [x509.load_der_x509_certificate(der) for _, der in store.trusted]
            certs += [x509.load_der_x509_certificate(e.chain[-1]) for e in store.keys if e.chain]
        else:
            secret = password.reveal().encode() if password is not None else None
            loaded = pkcs12.load_pkcs12(data, secret)
            certs = [c.certificate for c in loaded.additional_certs]
            if loaded.cert is not None:
                certs.append(loaded.cert.certificate)
    except jks.JksError as exc:
        setting = "ssl.truststore.password"
        raise _store_error(where, str(exc), wrong_password=exc.wrong_password, setting=setting) from None
    except ValueError as exc:
        reason, wrong = _pkcs12_reason(exc, password), _bad_password(exc, password)
        raise _store_error(where, reason, wrong_password=wrong, setting="ssl.truststore.password") from None
    if not certs:
        raise errors.ConfigError(f"{where} holds no certificates")
    return "".join(c.public_bytes(serialization.Encoding.PEM).decode() for c in certs)


def key_material(
    path: Path,
    *,
    declared_type: str | None = None,
    store_password: Secret | None = None,
    key_password: Secret | None = None,
) -> KeyMaterial:
    """The key store's (first) private key and its chain. For JKS the key password defaults to the store's."""
    data = _read(path, "key store")
    kind = store_type(data, declared_type)
    where = f"key store {path} ({kind})"
    try:
        if kind == "PEM":
            secret = _reveal(key_password) or _reveal(store_password)
            key = serialization.load_pem_private_key(data, secret.encode() if secret else None)
            chain = tuple(x509.load_pem_x509_certificates(data))
            return KeyMaterial(key, chain)
        if kind == "JKS":
            store = jks.load(data, _reveal(store_password))
            if not store.keys:
                raise errors.ConfigError(f"{where} holds no private key entry")
            entry = store.keys[0]
            password = _reveal(key_password) or _reveal(store_password) or ""
            try:
                der = jks.decrypt_key(entry, password)
            except jks.JksError as exc:
                setting = "ssl.key.password"
                raise _store_error(where, str(exc), wrong_password=exc.wrong_password, setting=setting) from None
            key = serialization.load_der_private_key(der, None)
            return KeyMaterial(key, tuple(x509.load_der_x509_certificate(c) for c in entry.chain))
        loaded = pkcs12.load_pkcs12(data, store_password.reveal().encode() if store_password is not None else None)
    except jks.JksError as exc:
        setting = "ssl.keystore.password"
        raise _store_error(where, str(exc), wrong_password=exc.wrong_password, setting=setting) from None
    except ValueError as exc:
        setting = "ssl.key.password" if kind == "PEM" else "ssl.keystore.password"
        given = key_password or store_password
        reason, wrong = _pkcs12_reason(exc, given), _bad_password(exc, given)
        raise _store_error(where, reason, wrong_password=wrong, setting=setting) from None
    except TypeError:
        raise errors.ConfigError(f"{where}: the private key is encrypted; set ssl.key.password") from None
    if loaded.key is None or loaded.cert is None:
        raise errors.ConfigError(f"{where} holds no private key with its certificate")
    return KeyMaterial(loaded.key, (loaded.cert.certificate, *(c.certificate for c in loaded.additional_certs)))


def _bad_password(exc: ValueError, password: Secret | None) -> bool:
    text = str(exc).lower()
    return "password" in text or "decrypt" in text or (password is not None and "invalid" in text)


def _pkcs12_reason(exc: ValueError, password: Secret | None) -> str:
    text = " ".join(str(exc).split())
    if password is not None:
        text = scrubbing.scrub(text, [password.reveal()])
    return text or "unreadable"


def _store_error(where: str, reason: str, *, wrong_password: bool, setting: str) -> errors.ConfigError:
    if wrong_password:
        return errors.ConfigError(f"cannot open the {where}: wrong password (check {setting})")
    return errors.ConfigError(f"cannot open the {where}: {reason}")

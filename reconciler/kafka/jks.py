"""A reader for Java ``JKS`` key stores (the format ``keytool -storetype JKS`` writes), in the standard library.

Kafka users often have ``truststore.jks`` and ``keystore.jks``; kafka-python reads neither. The format is small
and frozen (the JDK has written PKCS12 by default since Java 9), so it is read here rather than through a
third-party package (pyjks, unmaintained since 2020, needs a C extension for JCEKS that JKS does not use):

- header: magic ``FEEDFEED``, version (1 or 2), entry count, all big-endian 32-bit;
- each entry: tag (1 private key, 2 trusted certificate), alias (Java modified UTF-8), timestamp (64 bit); then
  for a key: an ``EncryptedPrivateKeyInfo`` protected with Sun's key protector (OID 1.3.6.1.4.1.42.2.17.1.1) and
  the certificate chain; for a trusted entry: one certificate; version 2 prefixes each certificate with its type;
- trailer: SHA-1 over (password as UTF-16BE, ``b"Mighty Aphrodite"``, everything before the trailer).

The key protector is a SHA-1 key stream: ``salt`` = first 20 bytes, then ``d_i = SHA1(password + d_{i-1})``
with ``d_0 = salt`` XORed over the key, and a SHA-1 check over (password, plain key) in the last 20 bytes.
A wrong password fails one of the two checks; messages never include a password.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import struct

MAGIC_JKS = 0xFEEDFEED
MAGIC_JCEKS = 0xCECECECE
_KEY_PROTECTOR_OID = bytes.fromhex("2b060104012a02110101")  # 1.3.6.1.4.1.42.2.17.1.1 (DER body)
_WHITENER = b"Mighty Aphrodite"


class JksError(ValueError):
    """The store is not a readable JKS file, or a password is wrong (``wrong_password``)."""

    def __init__(self, message: str, *, wrong_password: bool = False) -> None:
        super().__init__(message)
        self.wrong_password = wrong_password


@dataclasses.dataclass(frozen=True)
class PrivateKeyEntry:
    alias: str
    protected_key: bytes = dataclasses.field(repr=False)  # EncryptedPrivateKeyInfo, DER
    chain: tuple[bytes, ...]  # DER certificates, leaf first


@dataclasses.dataclass(frozen=True)
class JksStore:
    keys: tuple[PrivateKeyEntry, ...]
    trusted: tuple[tuple[str, bytes], ...]  # (alias, DER certificate)


def is_jks(data: bytes) -> bool:
    return data[:4] == struct.pack(">I", MAGIC_JKS)


def is_jceks(data: bytes) -> bool:
    return data[:4] == struct.pack(">I", MAGIC_JCEKS)


def _password_bytes(password: str) -> bytes:
    return password.encode("utf-16-be")


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise JksError("the JKS store is truncated or corrupt")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def u16(self) -> int:
        return int(struct.unpack(">H", self.take(2))[0])

    def u32(self) -> int:
        return int(struct.unpack(">I", self.take(4))[0])

    def utf(self) -> str:
        return self.take(self.u16()).decode("utf-8", errors="replace")

    def blob(self) -> bytes:
        return self.take(self.u32())


def load(data: bytes, password: str | None) -> JksStore:
    """Parse a JKS store; with ``password`` its integrity digest is checked (Java skips it without one)."""
    if is_jceks(data):
        raise JksError("JCEKS stores are not supported; convert it to PKCS12 with keytool -importkeystore")
    if not is_jks(data):
        raise JksError("not a JKS store")
    if len(data) < 32:
        raise JksError("the JKS store is truncated or corrupt")
    body, digest = data[:-20], data[-20:]
    if password is not None:
        expected = hashlib.sha1(_password_bytes(password) + _WHITENER + body, usedforsecurity=False).digest()
        if not hmac.compare_digest(expected, digest):
            raise JksError("wrong store password, or the store is corrupt", wrong_password=True)
    reader = _Reader(body)
    reader.take(4)
    version = reader.u32()
    if version not in (1, 2):
        raise JksError(f"unknown JKS version {version}")
    keys: list[PrivateKeyEntry] = []
    trusted: list[tuple[str, bytes]] = []
    for _ in range(reader.u32()):
        tag = reader.u32()
        alias = reader.utf()
        reader.take(8)  # creation time
        if tag == 1:
            protected = reader.blob()
            chain = []
            for _ in range(reader.u32()):
                if version == 2:
                    reader.utf()  # certificate type, "X.509"
                chain.append(reader.blob())
            keys.append(PrivateKeyEntry(alias, protected, tuple(chain)))
        elif tag == 2:
            if version == 2:
                reader.utf()
            trusted.append((alias, reader.blob()))
        else:
            raise JksError(f"unsupported JKS entry type {tag} (alias {alias!r})")
    return JksStore(tuple(keys), tuple(trusted))


def _der(data: bytes, pos: int) -> tuple[int, int, int]:
    """``(tag, start of content, end of content)`` of the DER element at ``pos``."""
    if pos + 2 > len(data):
        raise JksError("the protected key is corrupt")
    tag, length = data[pos], data[pos + 1]
    pos += 2
    if length & 0x80:
        count = length & 0x7F
        length = int.from_bytes(data[pos : pos + count], "big")
        pos += count
    if pos + length > len(data):
        raise JksError("the protected key is corrupt")
    return tag, pos, pos + length


def decrypt_key(entry: PrivateKeyEntry, password: str) -> bytes:
    """The entry's private key as unencrypted PKCS#8 DER; ``JksError(wrong_password=True)`` for a wrong password."""
    data = entry.protected_key
    _, start, _ = _der(data, 0)  # EncryptedPrivateKeyInfo SEQUENCE
    _, alg_start, alg_end = _der(data, start)  # AlgorithmIdentifier SEQUENCE
    _, oid_start, oid_end = _der(data, alg_start)
    if data[oid_start:oid_end] != _KEY_PROTECTOR_OID:
        raise JksError(f"the key of alias {entry.alias!r} is protected with an algorithm other than JKS's own")
    tag, enc_start, enc_end = _der(data, alg_end)
    if tag != 0x04:
        raise JksError("the protected key is corrupt")
    protected = data[enc_start:enc_end]
    if len(protected) < 41:
        raise JksError("the protected key is corrupt")
    salt, encrypted, check = protected[:20], protected[20:-20], protected[-20:]
    secret = _password_bytes(password)
    stream = bytearray()
    digest = salt
    while len(stream) < len(encrypted):
        digest = hashlib.sha1(secret + digest, usedforsecurity=False).digest()
        stream += digest
    plain = bytes(a ^ b for a, b in zip(encrypted, stream[: len(encrypted)], strict=True))
    if not hmac.compare_digest(hashlib.sha1(secret + plain, usedforsecurity=False).digest(), check):
        raise JksError(f"wrong key password for alias {entry.alias!r}", wrong_password=True)
    return plain

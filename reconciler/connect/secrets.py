"""Connector secrets: which config keys are secrets, their digests, and live configs with the values taken out.

Kafka Connect returns a connector's config in clear. The port replaces every secret value as soon as it is read
(``redact``): a key the manifests declare under ``secrets``, or one whose name says it is a secret, holds
``MARKER`` plus a digest of the value instead. The planner compares that digest with the digest of the value the
manifests' reference resolves to at plan time, so a changed secret is shown as changed and never printed; the
digest is salted with the connector and key (a weak password is not looked up in a table of common digests) and
truncated. A config-provider placeholder (``${file:/path:key}``) is what Connect stores, not a secret: kept as is.

Some Connect distributions mask secret values in ``GET /connectors/{name}/config`` (they answer a placeholder such
as ``********`` or ``[hidden]``). Such a value cannot be compared: it is held as ``MASKED``, and on such a worker
every write of a connector with secrets also writes the digests of the values it sends under ``RECORD_KEY``
(``db.password=<digest>,...``; a digest, never a value). The planner compares a masked value by that record: a
secret is changed only when the digest of the value its reference resolves to differs from the one recorded; with
no record it is not changed and the plan says it cannot be compared.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping

from reconciler.manifests import connectors as manifest_connectors
from reconciler.model import connector_defaults, connector_offsets, shown

MARKER = "(sensitive value) sha256:"
MASKED = shown.MASKED  # a value the worker answered masked: not comparable
RECORD_KEY = "kafka-reconciler.digests"  # on a masking worker: the digests of the secrets last written
_MASKS = re.compile(r"^(\*{3,}|\[hidden\]|<hidden>|\(hidden\)|\[redacted\]|<redacted>|hidden|redacted)$", re.I)


def is_masked(value: str) -> bool:
    """Whether a live value is a mask a worker answered instead of the value (``********``, ``[hidden]``, ...)."""
    return _MASKS.match(value) is not None


def digest(connector: str, key: str, value: str) -> str:
    """The marker and salted digest that stand for ``value`` of ``key`` in ``connector``."""
    blob = "\0".join(("kafka-reconciler/connect-secret/1", connector, key, value)).encode()
    return MARKER + hashlib.sha256(blob).hexdigest()[:32]


def is_secret(key: str, value: str, declared: Iterable[str] = ()) -> bool:
    """Whether a live value must not be kept: a declared secret key or a key named like one, not a placeholder."""
    if manifest_connectors.PLACEHOLDER.match(value):
        return False
    return key in declared or manifest_connectors.looks_secret(key)


def redact(connector: str, config: Mapping[str, str], declared: Iterable[str] = ()) -> dict[str, str]:
    """``config`` with each secret value replaced by its digest (``digest``)."""
    keys = frozenset(declared)
    return {
        k: MASKED if is_masked(v) else digest(connector, k, v) if is_secret(k, v, keys) else v
        for k, v in config.items()
    }


def is_digest(value: str) -> bool:
    return value.startswith(MARKER)


def is_hidden(value: str) -> bool:
    """A live value that stands for a secret: a digest, or a value the worker masked."""
    return is_digest(value) or value == MASKED


def masks(config: Mapping[str, str]) -> bool:
    """Whether a live config (as ``redact`` left it) shows that its worker masks values."""
    return any(v == MASKED for v in config.values())


def recorded(config: Mapping[str, str]) -> dict[str, str]:
    """The digests ``RECORD_KEY`` holds (key -> digest), as ``record`` wrote them; ``{}`` without a record."""
    out: dict[str, str] = {}
    for entry in config.get(RECORD_KEY, "").split(","):
        key, sep, value = entry.rpartition("=")
        if sep and key:
            out[key] = MARKER + value
    return out


def record(connector: str, config: Mapping[str, str], declared: Iterable[str]) -> dict[str, str]:
    """``config`` (values in clear) with ``RECORD_KEY`` holding the digest of each secret value in it."""
    keys = frozenset(declared)
    found = sorted((k, digest(connector, k, v)) for k, v in config.items() if k != RECORD_KEY and is_secret(k, v, keys))
    if not found:
        return {k: v for k, v in config.items() if k != RECORD_KEY}
    return {**config, RECORD_KEY: ",".join(f"{k}={d.removeprefix(MARKER)}" for k, d in found)}


def same_config(connector: str, want: Mapping[str, str], have: Mapping[str, str], declared: Iterable[str]) -> bool:
    """Whether Connect holds ``want`` (values in clear) as ``have`` (secrets as digests): the same keys, equal
    strings, secrets equal by digest; a key Connect defaults (``tasks.max``) compared as Connect runs it; a masked
    value equal unless the record says it differs; the record itself left out."""
    keys = frozenset(declared)
    record_of = recorded(have)
    want = {k: v for k, v in connector_defaults.as_run(want).items() if k != RECORD_KEY}
    have = {k: v for k, v in connector_defaults.as_run(have).items() if k != RECORD_KEY}
    if connector_offsets.RECORD_KEY not in want:  # the record of offsets no longer declared: kept, not a change
        have.pop(connector_offsets.RECORD_KEY, None)

    def same(k: str, v: str) -> bool:
        if have[k] == MASKED:  # compared by the record, if any
            return k not in record_of or record_of[k] == digest(connector, k, v)
        return have[k] == (digest(connector, k, v) if is_secret(k, v, keys) else v)

    return want.keys() == have.keys() and all(same(k, v) for k, v in want.items())
